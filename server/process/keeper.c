// SPDX-License-Identifier: MIT
/*
 * keeper.c - the records the keeper and its serving processes exchange
 * (keeper.h): sending and receiving them, the acknowledgements the ACME
 * thread waits for, and the records in force that every serving process
 * started later is given (the attached sockets and the replay list share
 * one lock: the ACME thread posts while the main thread starts and ends
 * serving processes).
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

void keeper_stop(int fd, int signo)
{
    (void)keeper_send(fd, KEEPER_STOP, signo, NULL, 0, -1);
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
static bool ack_ended;         /* under ack_lock */

int keeper_next_seq(void)
{
    pthread_mutex_lock(&ack_lock);
    int seq = ++seq_last;
    pthread_mutex_unlock(&ack_lock);
    return seq;
}

void keeper_ack_seen(int seq)
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
    while (ack_last < seq && !ack_ended && r == 0)
        r = pthread_cond_timedwait(&ack_cond, &ack_lock, &until);
    r = ack_last >= seq ? 0 : ack_ended ? -ECANCELED : -ETIMEDOUT;
    pthread_mutex_unlock(&ack_lock);
    return r;
}

void keeper_acks_end(void)
{
    pthread_mutex_lock(&ack_lock);
    ack_ended = true;
    pthread_cond_broadcast(&ack_cond);
    pthread_mutex_unlock(&ack_lock);
}

/* ---- posting to every serving process, and replaying ---- */

/* A record in force: its type, key (field 0) and whole payload. */
struct kept {
    int type;
    char *key;
    char **fields;
    size_t n;
    struct kept *next;
};

static pthread_mutex_t post_lock = PTHREAD_MUTEX_INITIALIZER;
static int *attached; /* under post_lock */
static size_t n_attached, cap_attached;
static struct kept *in_force;

int keeper_attach(int fd)
{
    pthread_mutex_lock(&post_lock);
    if (n_attached == cap_attached) {
        size_t cap = cap_attached ? 2 * cap_attached : 4;
        int *v = realloc(attached, cap * sizeof *v);
        if (!v) {
            pthread_mutex_unlock(&post_lock);
            return -ENOMEM;
        }
        attached = v;
        cap_attached = cap;
    }
    attached[n_attached++] = fd;
    pthread_mutex_unlock(&post_lock);
    return 0;
}

void keeper_detach(int fd)
{
    pthread_mutex_lock(&post_lock);
    for (size_t i = 0; i < n_attached; i++)
        if (attached[i] == fd) {
            attached[i] = attached[--n_attached];
            break;
        }
    if (n_attached == 0) {
        free(attached);
        attached = NULL;
        cap_attached = 0;
    }
    pthread_mutex_unlock(&post_lock);
}

static void kept_free(struct kept *k)
{
    for (size_t i = 0; i < k->n; i++) {
        OPENSSL_clear_free(k->fields[i], strlen(k->fields[i]));
    }
    free(k->fields);
    free(k->key);
    free(k);
}

/* What @type replaces or drops, and whether it is kept itself. */
static int kept_kind(int type, bool *keep)
{
    *keep = type == KEEPER_CERT || type == KEEPER_HTTP01 ||
            type == KEEPER_TLSALPN01;
    if (type == KEEPER_HTTP01_DROP)
        return KEEPER_HTTP01;
    if (type == KEEPER_TLSALPN01_DROP)
        return KEEPER_TLSALPN01;
    return *keep ? type : 0;
}

/* Remember @fields of @type (under post_lock). 0 or -ENOMEM. */
static int remember(int type, const char *const *fields, size_t n)
{
    bool keep;
    int kind = kept_kind(type, &keep);
    struct kept *k = NULL;

    if (!kind || n == 0)
        return 0;
    for (struct kept **p = &in_force; *p; p = &(*p)->next)
        if ((*p)->type == kind && strcmp((*p)->key, fields[0]) == 0) {
            struct kept *old = *p;
            *p = old->next;
            kept_free(old);
            break;
        }
    if (!keep)
        return 0;
    k = calloc(1, sizeof *k);
    if (!k || !(k->key = strdup(fields[0])) ||
        !(k->fields = calloc(n, sizeof *k->fields)))
        goto out_free;
    k->type = type;
    for (; k->n < n; k->n++)
        if (!(k->fields[k->n] = strdup(fields[k->n])))
            goto out_free;
    k->next = in_force;
    in_force = k;
    return 0;
out_free:
    if (k)
        kept_free(k);
    return -ENOMEM;
}

int keeper_post(int type, int val, const char *const *fields, size_t n)
{
    int err;

    pthread_mutex_lock(&post_lock);
    err = remember(type, fields, n);
    for (size_t i = 0; i < n_attached; i++) {
        int r = keeper_send(attached[i], type, val, fields, n, -1);
        if (r && !err)
            err = r;
    }
    pthread_mutex_unlock(&post_lock);
    return err;
}

int keeper_replay(int fd)
{
    int err = 0;

    pthread_mutex_lock(&post_lock);
    for (struct kept *k = in_force; k && !err; k = k->next)
        err = keeper_send(fd, k->type, 0, (const char *const *)k->fields, k->n,
                          -1);
    pthread_mutex_unlock(&post_lock);
    return err;
}

void keeper_forget(void)
{
    pthread_mutex_lock(&post_lock);
    while (in_force) {
        struct kept *k = in_force;
        in_force = k->next;
        kept_free(k);
    }
    pthread_mutex_unlock(&post_lock);
}
