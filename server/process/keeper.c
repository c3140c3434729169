// SPDX-License-Identifier: MIT
/*
 * keeper.c - the keeper process and the records it exchanges with the
 * serving process (keeper.h).
 */
#include "process/keeper.h"

#include "common/handed.h"
#include "conf.h"
#include "process/notify.h"
#include "runtime/bgthread.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* A record: its head, then the payload, an fd beside it. */
struct head {
    int32_t type;
    int32_t val;
};

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

int keeper_send(int fd, int type, int val, const char *const *fields, size_t n,
                int passed)
{
    struct head h = {.type = type, .val = val};
    struct iovec iov[1 + 2 * 8];
    size_t niov = 0, len = 0;
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } u;
    struct msghdr msg = {.msg_iov = iov};

    if (n > 8)
        return -EINVAL;
    iov[niov++] = (struct iovec){.iov_base = &h, .iov_len = sizeof h};
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(fields[i]);

        iov[niov++] = (struct iovec){.iov_base = (void *)(uintptr_t)fields[i],
                                     .iov_len = l};
        if (i + 1 < n)
            iov[niov++] = (struct iovec){.iov_base = (void *)(uintptr_t) "",
                                         .iov_len = 1};
        len += l + 1;
    }
    if (len > KEEPER_PAYLOAD_MAX)
        return -EMSGSIZE;
    msg.msg_iovlen = niov;
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
    (void)keeper_send(fd, type, 0, NULL, 0, -1);
}

const char *keeper_field(const struct keeper_msg *m, size_t i)
{
    const char *p = m->data, *end = m->data + m->len;

    for (; p && i > 0; i--) {
        p = memchr(p, '\0', (size_t)(end - p));
        p = p && p < end ? p + 1 : NULL;
    }
    return p && p <= end ? p : NULL;
}

void keeper_msg_release(struct keeper_msg *m)
{
    if (m->fd >= 0)
        close(m->fd);
    if (m->data)
        OPENSSL_cleanse(m->data, m->len); /* may hold a key */
    free(m->data);
    *m = (struct keeper_msg){.fd = -1};
}

int keeper_recv(int fd, struct keeper_msg *m)
{
    const size_t cap = sizeof(struct head) + KEEPER_PAYLOAD_MAX;
    char *buf = malloc(cap + 1);
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } u;
    struct iovec iov = {.iov_base = buf, .iov_len = cap};
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = u.buf,
                         .msg_controllen = sizeof u.buf};
    struct head h;
    ssize_t n;

    *m = (struct keeper_msg){.fd = -1};
    if (!buf)
        return -ENOMEM;
    do
        n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n <= 0) {
        int err = n == 0 ? 0 : -errno;
        free(buf);
        return err;
    }
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm;
         cm = CMSG_NXTHDR(&msg, cm))
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
            cm->cmsg_len == CMSG_LEN(sizeof(int)))
            memcpy(&m->fd, CMSG_DATA(cm), sizeof m->fd);
    if ((size_t)n < sizeof h || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
        OPENSSL_cleanse(buf, cap);
        free(buf);
        keeper_msg_release(m);
        return -EPROTO;
    }
    memcpy(&h, buf, sizeof h);
    m->type = h.type;
    m->val = h.val;
    m->len = (size_t)n - sizeof h;
    memmove(buf, buf + sizeof h, m->len);
    buf[m->len] = '\0';
    m->data = buf;
    return 1;
}

/* ---- acknowledgements (the ACME thread waits for them) ---- */

static pthread_mutex_t ack_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ack_cond = PTHREAD_COND_INITIALIZER;
static int ack_last, seq_last; /* under ack_lock */

int keeper_next_seq(void)
{
    pthread_mutex_lock(&ack_lock);
    int seq = ++seq_last;
    pthread_mutex_unlock(&ack_lock);
    return seq;
}

static void acked(int seq)
{
    pthread_mutex_lock(&ack_lock);
    if (seq > ack_last)
        ack_last = seq;
    pthread_cond_broadcast(&ack_cond);
    pthread_mutex_unlock(&ack_lock);
}

int keeper_acked(int seq, int ms)
{
    struct timespec until = bgthread_deadline(ms);
    int r = 0;

    pthread_mutex_lock(&ack_lock);
    while (ack_last < seq && r == 0)
        r = pthread_cond_timedwait(&ack_cond, &ack_lock, &until);
    r = ack_last >= seq ? 0 : -ETIMEDOUT;
    pthread_mutex_unlock(&ack_lock);
    return r;
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
    /* a regular file only: a FIFO must not hang the keeper, nor a device
       be opened (the serving process says why it was refused) */
    int f = handed_open(path, O_RDONLY | O_CLOEXEC);

    (void)what;
    (void)keeper_send(k->fd, KEEPER_FILE, f < 0 ? -errno : 0, &path, 1, f);
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
    keeper_tell(k->fd, KEEPER_RELOAD);
}

void keeper_stop(int fd)
{
    (void)keeper_send(fd, KEEPER_STOP, SIGTERM, NULL, 0, -1);
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
    int sig = WTERMSIG(st);
    sigset_t one;

    fprintf(stderr,
            "beneath: keeper: the serving process (pid %ld) was killed by "
            "signal %d (%s); stopping\n",
            (long)child, sig, strsignal(sig));
    /*
     * End the same way, so that whoever started beneath (a shell, systemd,
     * a container engine) sees the signal, as without a keeper. The keeper
     * is not dumpable (keeper_run): no core file holds a key.
     */
    signal(sig, SIG_DFL);
    sigemptyset(&one);
    sigaddset(&one, sig);
    sigprocmask(SIG_UNBLOCK, &one, NULL);
    raise(sig);
    return 1; /* a signal that does not end a process */
}

/* A record from the serving process; false when it is gone. */
static bool heard(const struct keeper *k)
{
    struct keeper_msg m;
    int r = keeper_recv(k->fd, &m);

    if (r > 0 && m.type == KEEPER_READY)
        notify_ready();
    else if (r > 0 && m.type == KEEPER_ACK)
        acked(m.val);
    keeper_msg_release(&m); /* the serving process hands nothing over */
    return r > 0 || r == -ENOMEM;
}

int keeper_run(int fd, pid_t child, int argc, char **argv)
{
    struct keeper k = {.fd = fd, .child = child, .argc = argc, .argv = argv};
    sigset_t set;
    int sfd;
    bool stopping = false;

    /* no core file, no ptrace by another process of the same user (the
     * serving process included): the keeper holds the keys */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    /* a closed stderr, or the serving process gone mid-record */
    signal(SIGPIPE, SIG_IGN);
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, NULL);
    sfd = signalfd(-1, &set, SFD_CLOEXEC);
    if (sfd < 0) {
        fprintf(stderr, "beneath: keeper: signalfd: %s\n", strerror(errno));
        keeper_stop(fd);
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
        /* a second one: stop now */
        (void)keeper_send(fd, KEEPER_STOP, (int)si.ssi_signo, NULL, 0, -1);
    }
    close(sfd);
    close(fd);
    return reap(child);
}
