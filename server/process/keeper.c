// SPDX-License-Identifier: MIT
/*
 * keeper.c - the keeper process and the records it exchanges with the
 * serving process (keeper.h).
 */
#include "process/keeper.h"

#include "conf.h"
#include "process/notify.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* A record: its head, then the payload (a path), an fd beside it. */
struct head {
    uint32_t type;
    int32_t val;
};

/* The longest record: a head and a path. */
#define RECORD_MAX (sizeof(struct head) + 4096)

int keeper_split(pid_t *child, int *fd)
{
    int sv[2];
    pid_t pid;

    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return -errno;
    pid = fork();
    if (pid < 0) {
        int err = -errno;
        close(sv[0]);
        close(sv[1]);
        return err;
    }
    close(sv[pid ? 1 : 0]);
    *fd = sv[pid ? 0 : 1];
    *child = pid;
    return 0;
}

/* Send one record; 0 or -errno. @passed: an fd to pass, or -1. */
static int send_record(int fd, uint32_t type, int32_t val, const char *text,
                       int passed)
{
    struct head h = {.type = type, .val = val};
    struct iovec iov[2] = {
        {.iov_base = &h, .iov_len = sizeof h},
        {.iov_base = (void *)(uintptr_t)(text ? text : ""),
         .iov_len = text ? strlen(text) : 0},
    };
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } u;
    struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};

    if (passed >= 0) {
        memset(&u, 0, sizeof u);
        msg.msg_control = u.buf;
        msg.msg_controllen = sizeof u.buf;
        struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &passed, sizeof passed);
    }
    while (sendmsg(fd, &msg, MSG_NOSIGNAL) < 0)
        if (errno != EINTR)
            return -errno;
    return 0;
}

void keeper_tell(int fd, enum keeper_record type)
{
    (void)send_record(fd, (uint32_t)type, 0, NULL, -1);
}

int keeper_recv(int fd, struct handed_set *files)
{
    char buf[RECORD_MAX + 1];
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } u;
    struct iovec iov = {.iov_base = buf, .iov_len = RECORD_MAX};
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = u.buf,
                         .msg_controllen = sizeof u.buf};
    struct head h;
    int passed = -1;
    ssize_t n;

    do
        n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n <= 0)
        return n == 0 ? 0 : -errno;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm;
         cm = CMSG_NXTHDR(&msg, cm))
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
            cm->cmsg_len == CMSG_LEN(sizeof(int)))
            memcpy(&passed, CMSG_DATA(cm), sizeof passed);
    if ((size_t)n < sizeof h || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
        if (passed >= 0)
            close(passed);
        return -EPROTO;
    }
    memcpy(&h, buf, sizeof h);
    buf[n] = '\0';
    if (h.type != KEEPER_FILE) {
        if (passed >= 0)
            close(passed);
        return (int)h.type;
    }
    int err = handed_add(files, buf + sizeof h,
                         passed >= 0 ? passed : h.val < 0 ? h.val : -EPROTO);
    return err ? err : KEEPER_FILE;
}

/* ---- the keeper ---- */

struct keeper {
    int fd;
    pid_t child;
    int argc;
    char **argv;
};

/* conf_reread_files's callback: open @path and hand it over. */
static void hand_one(const char *what, const char *path, void *arg)
{
    const struct keeper *k = arg;
    /* O_NONBLOCK: a FIFO named as a file must not hang the keeper */
    int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

    (void)what;
    (void)send_record(k->fd, KEEPER_FILE, f < 0 ? -errno : 0, path, f);
    if (f >= 0)
        close(f);
}

/*
 * SIGHUP: the configuration as it is now names the files; each is opened
 * here and handed over, then "reload". Its messages are the serving
 * process's to print (it loads the same configuration from the files).
 */
static void hand_over(const struct keeper *k)
{
    struct conf c;
    struct conf_diag d = {0};

    notify_reloading();
    if (conf_load(&c, k->argc, k->argv, environ, &d) != -ENOMEM)
        conf_reread_files(&c, hand_one, (void *)(uintptr_t)k);
    conf_diag_free(&d);
    conf_free(&c);
    (void)send_record(k->fd, KEEPER_RELOAD, 0, NULL, -1);
}

/* The serving process's end: its exit status for the keeper's. */
static int reap(pid_t child)
{
    int st;

    while (waitpid(child, &st, 0) < 0)
        if (errno != EINTR)
            return 1;
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    fprintf(stderr,
            "beneath: keeper: the serving process (pid %ld) was killed by "
            "signal %d (%s); stopping\n",
            (long)child, WTERMSIG(st), strsignal(WTERMSIG(st)));
    return 1;
}

/* A record from the serving process; false when it is gone. */
static bool heard(const struct keeper *k)
{
    struct handed_set none = {.n = 0};
    int r = keeper_recv(k->fd, &none);

    handed_clear(&none); /* the serving process hands nothing */
    if (r == KEEPER_READY)
        notify_ready();
    return r > 0;
}

int keeper_run(int fd, pid_t child, int argc, char **argv)
{
    struct keeper k = {.fd = fd, .child = child, .argc = argc, .argv = argv};
    sigset_t set;
    int sfd;
    bool stopping = false;

    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, NULL);
    sfd = signalfd(-1, &set, SFD_CLOEXEC);
    if (sfd < 0) {
        fprintf(stderr, "beneath: keeper: signalfd: %s\n", strerror(errno));
        kill(child, SIGTERM);
        close(fd);
        (void)reap(child);
        return 1;
    }
    for (;;) {
        struct pollfd p[2] = {{.fd = sfd, .events = POLLIN},
                              {.fd = fd, .events = POLLIN}};

        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (p[1].revents && !heard(&k))
            break; /* the serving process closed its end: it is ending */
        if (!(p[0].revents & POLLIN))
            continue;
        struct signalfd_siginfo si;
        if (read(sfd, &si, sizeof si) != sizeof si)
            continue;
        if (si.ssi_signo == SIGCHLD) {
            siginfo_t info = {.si_pid = 0};
            /* reaped below, once, by reap() */
            if (waitid(P_PID, (id_t)child, &info,
                       WEXITED | WNOHANG | WNOWAIT) == 0 &&
                info.si_pid == child)
                break;
            continue;
        }
        if (si.ssi_signo == SIGHUP) {
            if (!stopping)
                hand_over(&k);
            continue;
        }
        if (!stopping)
            notify_stopping();
        stopping = true;
        kill(child, (int)si.ssi_signo); /* a second one: stop now */
    }
    close(sfd);
    close(fd);
    return reap(child);
}
