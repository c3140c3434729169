/* SPDX-License-Identifier: MIT */
/*
 * notify.c - the sd_notify protocol, without libsystemd: one datagram with
 * "KEY=VALUE" lines sent to the AF_UNIX socket named in $NOTIFY_SOCKET (a
 * path, or "@name" for the abstract namespace), as systemd's sd_notify(3)
 * documents it. Written here rather than linked from libsystemd so the
 * binary, and the FROM scratch container image, carry no libsystemd and its
 * compression libraries for forty lines of code.
 *
 * The variable is left in the environment on purpose: SIGHUP and shutdown
 * notify again later. Errors are ignored by the callers: a manager that is
 * gone cannot be told anything, and serving must go on.
 */
#include "process/notify.h"

#include "common/mono.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* notify_through's receiver, or NULL: $NOTIFY_SOCKET. */
static void (*through)(const char *state);

void notify_through(void (*fn)(const char *state))
{
    through = fn;
}

int notify_send(const char *state)
{
    if (through) {
        through(state);
        return 1;
    }
    const char *name = getenv("NOTIFY_SOCKET");
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    size_t len;
    socklen_t salen;
    int fd, err = 0;

    if (!name || !*name)
        return 0;
    len = strlen(name);
    if ((name[0] != '/' && name[0] != '@') || len < 2 ||
        len >= sizeof sa.sun_path)
        return -EINVAL;
    memcpy(sa.sun_path, name, len);
    if (name[0] == '@')
        sa.sun_path[0] = '\0'; /* abstract: no terminating NUL counted */
    salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
                        (name[0] == '/'));

    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    struct iovec iov = {.iov_base = (void *)(uintptr_t)state,
                        .iov_len = strlen(state)};
    struct msghdr msg = {.msg_name = &sa,
                         .msg_namelen = salen,
                         .msg_iov = &iov,
                         .msg_iovlen = 1};
    if (sendmsg(fd, &msg, MSG_NOSIGNAL) < 0)
        err = -errno;
    close(fd);
    return err ? err : 1;
}

void notify_ready(void)
{
    char buf[64];

    snprintf(buf, sizeof buf, "READY=1\nMAINPID=%ld", (long)getpid());
    (void)notify_send(buf);
}

void notify_reloading(void)
{
    char buf[96];

    snprintf(buf, sizeof buf, "RELOADING=1\nMONOTONIC_USEC=%llu",
             (unsigned long long)(mono_ns() / 1000u));
    (void)notify_send(buf);
}

void notify_stopping(void)
{
    (void)notify_send("STOPPING=1");
}
