// SPDX-License-Identifier: MIT
/*
 * log.c - the access log's file, buffer and writer thread; the lines
 * themselves (combined, JSON, templates) are made by log_line.c.
 *
 * Workers never write: each line is built in a stack buffer and copied
 * into the log's buffer under a mutex held only for that copy (at most
 * LOG_LINE_MAX bytes), and the log's writer thread swaps the buffer for a
 * spare one and writes it out on the O_APPEND fd. A slow disk or a
 * collector that stops reading thus stalls only the writer; the buffer
 * fills, and the workers drop their lines (counted, in the metrics too,
 * and stderr says so once a minute at most, and the total at close)
 * instead of waiting. A log that is a pipe, FIFO, socket or terminal is
 * also written without blocking, so that close (SIGTERM) gives a stalled
 * reader LOG_CLOSE_WAIT_MS and then drops the rest. A rotation is a
 * SIGHUP: the new serving process opens the file anew while the old one
 * finishes writing to the one it had (both append whole lines).
 */
#include "observe/log.h"

#include "common/mono.h"
#include "observe/log_line.h"
#include "runtime/bgthread.h"
#include "syntax/log_template.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct log {
    int fd; /* -1 when off */
    bool owned;
    bool sock;    /* a socket: send(MSG_DONTWAIT) */
    char *format; /* the spec, which tpl points into */
    struct log_template tpl;
    char *path; /* NULL for stdout and off */
    atomic_ullong dropped;
    atomic_llong last_warning;        /* s, monotonic */
    _Atomic(_Atomic uint64_t *) also; /* the metrics' drop counter */

    /* the buffer: lines not yet written, and the writer thread, started
     * by the first line (after the sandbox: a thread made before it would
     * escape Landlock, which binds only the threads that exist) */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_cond_t drained; /* broadcast after each batch written */
    bool writing;           /* the writer holds a batch */
    unsigned urgent;        /* drain() waiting: write without delay */
    char *buf, *spare;      /* LOG_BUFFER_SIZE each; the writer swaps them */
    size_t len;             /* bytes in buf */
    bool stop;              /* log_close: write out and end */
    atomic_llong stop_ms;   /* when stop was asked (monotonic ms), or 0 */
    bool running;
    pthread_t writer;
};

/* Whether writes to @fd may block on a reader (everything but files). */
static bool may_stall(int fd, bool *sock)
{
    struct stat st;

    *sock = false;
    if (fstat(fd, &st) != 0)
        return false;
    *sock = S_ISSOCK(st.st_mode);
    return S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode);
}

static int open_path(const char *path)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
    bool sock;

    if (fd < 0)
        return -errno;
    /* our own open file description: O_NONBLOCK changes no one else's */
    if (may_stall(fd, &sock))
        (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

/*
 * Standard output shares its open file description with whoever started
 * us: setting O_NONBLOCK there would change their pipe too. A pipe or
 * terminal is opened anew through /proc instead (a description of our
 * own); if that fails, stdout is used as it is.
 */
static int stdout_fd(bool *owned, bool *sock)
{
    char proc[64];
    int fd;

    *owned = false;
    if (!may_stall(STDOUT_FILENO, sock))
        return STDOUT_FILENO;
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", STDOUT_FILENO);
    fd = open(proc, O_WRONLY | O_APPEND | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return STDOUT_FILENO;
    *owned = true;
    return fd;
}

static void *writer(void *arg);

/* Start the writer thread, under l->lock; 0 or -errno. */
static int start_writer(struct log *l)
{
    int err = bgthread_start(&l->writer, writer, l);

    if (!err)
        l->running = true;
    return err;
}

/* Free @l's memory and its lock (the fd is the caller's to close). */
static void log_free(struct log *l)
{
    free(l->spare);
    free(l->buf);
    free(l->path);
    free(l->format);
    bgthread_sync_destroy(&l->lock, &l->wake, &l->drained);
    free(l);
}

int log_open(const char *where, const char *format, struct log **out)
{
    struct log *l = calloc(1, sizeof *l);
    char msg[256];
    int err = -ENOMEM;

    if (!l)
        return -ENOMEM;
    if (bgthread_sync_init(&l->lock, &l->wake, &l->drained) != 0) {
        free(l);
        return -ENOMEM;
    }
    l->fd = -1;
    l->format = strdup(format);
    if (!l->format)
        goto out_free;
    if (log_template_parse(l->format, &l->tpl, msg, sizeof msg) != 0) {
        err = -EINVAL;
        goto out_free;
    }
    if (strcmp(where, "off") == 0) {
        *out = l;
        return 0;
    }
    if (strcmp(where, "-") == 0) {
        l->fd = stdout_fd(&l->owned, &l->sock);
    } else {
        l->path = strdup(where);
        if (!l->path)
            goto out_free;
        l->fd = open_path(where);
        if (l->fd < 0) {
            err = l->fd;
            goto out_free;
        }
        l->owned = true;
    }
    l->buf = malloc(LOG_BUFFER_SIZE);
    l->spare = malloc(LOG_BUFFER_SIZE);
    if (!l->buf || !l->spare)
        goto out_close;
    *out = l;
    return 0;
out_close:
    if (l->owned)
        close(l->fd);
out_free:
    log_free(l);
    return err;
}

void log_count_drops(struct log *l, _Atomic uint64_t *counter)
{
    if (l)
        atomic_store(&l->also, counter);
}

int log_check(const char *where)
{
    if (strcmp(where, "off") == 0 || strcmp(where, "-") == 0)
        return 0;
    int fd = open(where, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    if (errno != ENOENT)
        return -errno;
    char *copy = strdup(where);
    if (!copy)
        return -ENOMEM;
    int err = access(dirname(copy), W_OK | X_OK) == 0 ? 1 : -errno;
    free(copy);
    return err;
}

bool log_active(const struct log *l)
{
    return l && l->fd >= 0;
}

unsigned long long log_dropped(struct log *l)
{
    return l ? atomic_load(&l->dropped) : 0;
}

void log_close(struct log *l)
{
    if (!l)
        return;
    pthread_mutex_lock(&l->lock);
    bool running = l->running;
    if (running) {
        atomic_store(&l->stop_ms, mono_ms());
        l->stop = true;
        pthread_cond_signal(&l->wake);
    }
    pthread_mutex_unlock(&l->lock);
    if (running)
        pthread_join(l->writer, NULL);
    unsigned long long n = atomic_load(&l->dropped);
    if (n)
        fprintf(stderr,
                "beneath: access log: %llu lines dropped in all (its reader "
                "did not keep up)\n",
                n);
    if (l->owned && l->fd >= 0)
        close(l->fd);
    log_free(l);
}

/* @n lines the reader had no room for: count them, say so now and then. */
static void dropped(struct log *l, unsigned long long lines)
{
    long long now = mono_coarse_ms() / 1000;
    unsigned long long n = atomic_fetch_add(&l->dropped, lines) + lines;
    long long last = atomic_load(&l->last_warning);
    _Atomic uint64_t *also = atomic_load(&l->also);

    if (also)
        atomic_fetch_add_explicit(also, lines, memory_order_relaxed);
    if ((last == 0 || now - last >= 60) &&
        atomic_compare_exchange_strong(&l->last_warning, &last, now))
        fprintf(stderr,
                "beneath: access log: its reader is not keeping up; %llu "
                "lines dropped so far\n",
                n);
}

static unsigned long long count_lines(const char *p, size_t n)
{
    unsigned long long k = 0;

    for (size_t i = 0; i < n; i++)
        k += p[i] == '\n';
    return k;
}

/*
 * Write @n bytes of whole lines. A reader that takes nothing (EAGAIN) is
 * waited for in 100 ms steps, for ever while serving (the workers drop
 * meanwhile) and up to LOG_CLOSE_WAIT_MS once close began. A failure
 * (full disk, reader gone) loses this batch, counted.
 */
static void write_out(struct log *l, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = l->sock ? send(l->fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL)
                            : write(l->fd, p, n);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            long long stop = atomic_load(&l->stop_ms);

            if (!stop || mono_ms() - stop < LOG_CLOSE_WAIT_MS) {
                struct pollfd pfd = {.fd = l->fd, .events = POLLOUT};
                (void)poll(&pfd, 1, 100);
                continue;
            }
        }
        /* the rest of this batch is lost; a cut line counts as one */
        dropped(l, count_lines(p, n));
        return;
    }
}

/*
 * The writer batches: once a line arrives it waits LOG_FLUSH_MS for more
 * (or until LOG_FLUSH_BYTES are there, or close or a reopen asks), so that
 * a busy server pays one wake-up and one write(2) per batch, not per line.
 * Workers wake it only when the buffer goes from empty to not, or past
 * LOG_FLUSH_BYTES.
 */
static void *writer(void *arg)
{
    struct log *l = arg;

    pthread_mutex_lock(&l->lock);
    for (;;) {
        while (l->len == 0 && !l->stop)
            pthread_cond_wait(&l->wake, &l->lock);
        if (l->len == 0)
            break; /* stopping, and everything is written */
        struct timespec until = bgthread_deadline(LOG_FLUSH_MS);
        while (l->len < LOG_FLUSH_BYTES && !l->stop && !l->urgent)
            if (pthread_cond_timedwait(&l->wake, &l->lock, &until) != 0)
                break;
        char *out = l->buf;
        size_t n = l->len;
        l->buf = l->spare;
        l->spare = out;
        l->len = 0;
        l->writing = true;
        pthread_mutex_unlock(&l->lock);
        write_out(l, out, n);
        pthread_mutex_lock(&l->lock);
        l->writing = false;
        pthread_cond_broadcast(&l->drained);
    }
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

void log_write(struct log *l, const struct log_record *r)
{
    struct log_line ln;
    bool full, wake;

    if (!l || l->fd < 0)
        return;
    log_line_format(&l->tpl, r, &ln);
    pthread_mutex_lock(&l->lock);
    /* no writer thread (out of threads): the line cannot go anywhere */
    full = l->len + ln.len > LOG_BUFFER_SIZE ||
           (!l->running && start_writer(l) != 0);
    wake = l->len == 0 ||
           (l->len < LOG_FLUSH_BYTES && l->len + ln.len >= LOG_FLUSH_BYTES);
    if (!full) {
        memcpy(l->buf + l->len, ln.buf, ln.len);
        l->len += ln.len;
    }
    pthread_mutex_unlock(&l->lock);
    if (full)
        dropped(l, 1);
    else if (wake)
        pthread_cond_signal(&l->wake);
}
