/* SPDX-License-Identifier: MIT */
/*
 * test_notify.c - the service-manager notifications of the real binary, as
 * systemd's Type=notify sees them: a unix datagram socket named in
 * NOTIFY_SOCKET (a path, then an abstract name) receives READY=1 with the
 * server's MAINPID once it serves, RELOADING=1 then READY=1 around a SIGHUP,
 * and STOPPING=1 on SIGTERM, in that order and nothing else.
 */
#include "harness.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* A bound datagram socket at @name ("/path" or "@abstract"). */
static int listen_notify(const char *name)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    size_t len = strlen(name);
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

    ck_assert_int_ge(fd, 0);
    ck_assert_uint_lt(len, sizeof sa.sun_path);
    memcpy(sa.sun_path, name, len);
    if (name[0] == '@')
        sa.sun_path[0] = '\0';
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa,
                          (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
                                      len + (name[0] == '/'))),
                     0);
    return fd;
}

/* The next datagram within @ms, harness-owned; fails the test on timeout. */
static char *next_message(int fd, int ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    char buf[512];
    ssize_t n;

    EXPECT(poll(&p, 1, ms) == 1, "no notification within %d ms", ms);
    n = recv(fd, buf, sizeof buf - 1, 0);
    ck_assert_int_gt(n, 0);
    return hmem(buf, (size_t)n);
}

static void no_message(int fd, int ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};

    EXPECT(poll(&p, 1, ms) == 0, "unexpected notification: %s",
           next_message(fd, 0));
}

static void lifecycle(const char *name)
{
    char *root = tree_new();
    int fd = listen_notify(name);
    const char *env[] = {hfmt("NOTIFY_SOCKET=%s", name), NULL};
    struct server_opts o = {.root = root, .env = env};
    struct server *s;
    char *m;

    tree_write_str(root, "index.html", "hello\n");
    s = server_start_opts(&o);

    m = next_message(fd, 5000);
    EXPECT(strcmp(m, hfmt("READY=1\nMAINPID=%ld", (long)s->pid)) == 0,
           "first message: '%s'", m);
    EXPECT(http_get(s, "/")->status == 200, "not serving after READY=1");
    no_message(fd, 100);

    server_signal(s, SIGHUP);
    m = next_message(fd, 5000);
    EXPECT(strncmp(m, "RELOADING=1\nMONOTONIC_USEC=", 27) == 0 &&
               strtoull(m + 27, NULL, 10) > 0,
           "on SIGHUP: '%s'", m);
    m = next_message(fd, 5000);
    EXPECT(strcmp(m, hfmt("READY=1\nMAINPID=%ld", (long)s->pid)) == 0,
           "after the reload: '%s'", m);
    EXPECT(http_get(s, "/")->status == 200, "not serving after the reload");

    server_signal(s, SIGTERM);
    m = next_message(fd, 5000);
    EXPECT(strcmp(m, "STOPPING=1") == 0, "on SIGTERM: '%s'", m);
    EXPECT(server_wait(s, 20000), "no exit after STOPPING=1");
    server_stop_clean(s); /* reaped: checks the status and stderr */
    no_message(fd, 50);
    close(fd);
}

START_TEST(notify_path_socket)
{
    char *dir = tree_new();

    lifecycle(tree_path(dir, "notify"));
}
END_TEST

START_TEST(notify_abstract_socket)
{
    lifecycle(hfmt("@beneath-test-notify-%ld-%s", (long)getpid(), hrandom(8)));
}
END_TEST

/* Without NOTIFY_SOCKET nothing is sent and nothing fails. */
START_TEST(notify_unset_is_silent)
{
    char *root = tree_new();
    struct server *s;

    tree_write_str(root, "index.html", "hello\n");
    s = server_start(root, NULL);
    server_signal(s, SIGHUP);
    EXPECT(http_get(s, "/")->status == 200, "not serving");
    server_stop_clean(s);
}
END_TEST

const struct check_main check_main = {
    .suite = "notify",
    .fixture = HARNESS_FIXTURE(60),
    .tcases = {
        {"lifecycle", .tests = {&notify_path_socket, &notify_abstract_socket,
                                &notify_unset_is_silent}}}};
