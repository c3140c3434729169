// SPDX-License-Identifier: MIT
/*
 * log.c - access log lines: Common Log Format + referer and agent (combined)
 * with the resolver backend and errno appended, or one JSON object a line.
 *
 * Each line is built in a stack buffer and written with one write(2) on an
 * O_APPEND fd, so threads never interleave. A log that is a pipe, FIFO,
 * socket or terminal is written without blocking: a collector that stops
 * reading must not stop the workers (nor SIGTERM, which waits for them), so
 * when its buffer is full the line is dropped and counted, and stderr says
 * so (once a minute at most, and the total at close). Reopening dup2()s the new
 * file onto the same fd number: the switch is atomic for writers, needs no
 * lock, and a failed open leaves the old file in place.
 */
#include "log.h"

#include "resolver.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Escaped bytes kept of one client-supplied field; the rest becomes "...". */
#define LOG_FIELD_MAX 1000
/* Six such fields and the fixed parts always fit: lines are never cut. */
#define LOG_LINE_MAX 8192

struct log {
    int fd; /* -1 when off */
    bool owned;
    bool sock; /* a socket: send(MSG_DONTWAIT) */
    enum log_format format;
    char *path; /* NULL for stdout and off */
    atomic_ullong dropped;
    atomic_llong last_warning; /* s, monotonic */
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

int log_open(const char *where, enum log_format format, struct log **out)
{
    struct log *l = calloc(1, sizeof *l);
    int err;

    if (!l)
        return -ENOMEM;
    l->format = format;
    l->fd = -1;
    if (strcmp(where, "off") == 0) {
        /* nothing */
    } else if (strcmp(where, "-") == 0) {
        l->fd = stdout_fd(&l->owned, &l->sock);
    } else {
        l->path = strdup(where);
        if (!l->path) {
            err = -ENOMEM;
            goto out_free;
        }
        l->fd = open_path(where);
        if (l->fd < 0) {
            err = l->fd;
            goto out_free;
        }
        l->owned = true;
    }
    *out = l;
    return 0;
out_free:
    free(l->path);
    free(l);
    return err;
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

int log_reopen(struct log *l)
{
    if (!l || !l->path)
        return 0;
    int fd = open_path(l->path);
    if (fd < 0)
        return fd;
    int err = dup2(fd, l->fd) < 0 ? -errno : 0;
    close(fd);
    return err;
}

unsigned long long log_dropped(struct log *l)
{
    return l ? atomic_load(&l->dropped) : 0;
}

void log_close(struct log *l)
{
    if (!l)
        return;
    unsigned long long n = atomic_load(&l->dropped);
    if (n)
        fprintf(stderr,
                "beneath: access log: %llu lines dropped in all (its reader "
                "did not keep up)\n",
                n);
    if (l->owned && l->fd >= 0)
        close(l->fd);
    free(l->path);
    free(l);
}

struct line {
    char buf[LOG_LINE_MAX];
    size_t len;
};

static void put(struct line *ln, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(struct line *ln, const char *fmt, ...)
{
    va_list ap;
    size_t room = sizeof ln->buf - 1 - ln->len; /* keep one for '\n' */

    va_start(ap, fmt);
    int n = vsnprintf(ln->buf + ln->len, room + 1, fmt, ap);
    va_end(ap);
    if (n > 0)
        ln->len += (size_t)n < room ? (size_t)n : room;
}

static void put_lit(struct line *ln, const char *s)
{
    size_t n = strlen(s), room = sizeof ln->buf - 1 - ln->len;

    if (n > room)
        n = room;
    memcpy(ln->buf + ln->len, s, n);
    ln->len += n;
}

static void putc_(struct line *ln, char c)
{
    if (ln->len < sizeof ln->buf - 1)
        ln->buf[ln->len++] = c;
}

/*
 * A client-controlled string, escaped: in combined format '"' and '\' and
 * non-printable bytes become \xHH; in JSON the JSON escapes. NULL is "-"
 * (combined) or null (JSON).
 */
static void put_str(struct line *ln, const char *s, enum log_format fmt)
{
    if (!s) {
        put_lit(ln, fmt == LOG_JSON ? "null" : "\"-\"");
        return;
    }
    putc_(ln, '"');
    size_t start = ln->len;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (ln->len - start >= LOG_FIELD_MAX) {
            put_lit(ln, "...");
            break;
        }
        if (fmt == LOG_JSON && (c == '"' || c == '\\'))
            put(ln, "\\%c", c);
        else if (fmt == LOG_JSON && (c < 0x20 || c == 0x7f))
            put(ln, "\\u%04x", c);
        else if (fmt == LOG_COMBINED &&
                 (c == '"' || c == '\\' || c < 0x20 || c >= 0x7f))
            put(ln, "\\x%02x", c);
        else
            putc_(ln, (char)c);
    }
    putc_(ln, '"');
}

/* The errno's name (EXDEV), or its number when it has none. */
static const char *errno_text(int err, char buf[16])
{
    const char *name = resolver_errno_name(err);

    if (name)
        return name;
    snprintf(buf, 16, "%d", err);
    return buf;
}

/*
 * The user of the combined format's %u field: unquoted, so a space and
 * anything not printable become \xHH and the line still splits on spaces.
 * A user never logged is "-".
 */
static void put_user(struct line *ln, const char *user)
{
    if (!user) {
        putc_(ln, '-');
        return;
    }
    for (const char *p = user; *p && p - user < 256; p++) {
        unsigned char c = (unsigned char)*p;

        if (c <= 0x20 || c >= 0x7f || c == '"' || c == '\\')
            put(ln, "\\x%02x", c);
        else
            putc_(ln, (char)c);
    }
}

static void put_combined(struct line *ln, const struct log_record *r)
{
    char date[64];
    struct tm tm;

    localtime_r(&r->time, &tm);
    strftime(date, sizeof date, "%d/%b/%Y:%H:%M:%S %z", &tm);
    put(ln, "%s - ", r->client ? r->client : "-");
    put_user(ln, r->user);
    put(ln, " [%s] \"", date);
    /* The request line, escaped, inside the quotes. */
    struct line tmp = {.len = 0};
    put_str(&tmp, r->method, LOG_COMBINED);
    put(ln, "%.*s ", (int)tmp.len - 2, tmp.buf + 1);
    tmp.len = 0;
    put_str(&tmp, r->target, LOG_COMBINED);
    put(ln, "%.*s ", (int)tmp.len - 2, tmp.buf + 1);
    tmp.len = 0;
    put_str(&tmp, r->version, LOG_COMBINED);
    put(ln, "%.*s\" %u %llu ", (int)tmp.len - 2, tmp.buf + 1, r->status,
        (unsigned long long)r->bytes);
    put_str(ln, r->referer, LOG_COMBINED);
    putc_(ln, ' ');
    put_str(ln, r->agent, LOG_COMBINED);
    put(ln, " resolver=%s", r->backend ? r->backend : "-");
    if (r->err) {
        char e[16];
        put(ln, " errno=%s", errno_text(r->err, e));
    }
}

static void put_json(struct line *ln, const struct log_record *r)
{
    char date[64];
    struct tm tm;

    gmtime_r(&r->time, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    put(ln, "{\"time\":\"%s\",\"client\":", date);
    put_str(ln, r->client, LOG_JSON);
    put_lit(ln, ",\"user\":");
    put_str(ln, r->user, LOG_JSON);
    put_lit(ln, ",\"method\":");
    put_str(ln, r->method, LOG_JSON);
    put_lit(ln, ",\"target\":");
    put_str(ln, r->target, LOG_JSON);
    put_lit(ln, ",\"protocol\":");
    put_str(ln, r->version, LOG_JSON);
    put(ln, ",\"status\":%u,\"bytes\":%llu,\"referer\":", r->status,
        (unsigned long long)r->bytes);
    put_str(ln, r->referer, LOG_JSON);
    put_lit(ln, ",\"agent\":");
    put_str(ln, r->agent, LOG_JSON);
    put_lit(ln, ",\"resolver\":");
    put_str(ln, r->backend, LOG_JSON);
    put_lit(ln, ",\"errno\":");
    if (r->err) {
        char e[16];
        put(ln, "\"%s\"", errno_text(r->err, e));
    } else {
        put_lit(ln, "null");
    }
    putc_(ln, '}');
}

/* A line the reader had no room for: count it, say so now and then. */
static void dropped(struct log *l)
{
    struct timespec ts;
    unsigned long long n = atomic_fetch_add(&l->dropped, 1) + 1;
    long long last = atomic_load(&l->last_warning);

    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    if ((last == 0 || ts.tv_sec - last >= 60) &&
        atomic_compare_exchange_strong(&l->last_warning, &last,
                                       (long long)ts.tv_sec))
        fprintf(stderr,
                "beneath: access log: its reader is not keeping up; %llu "
                "lines dropped so far\n",
                n);
}

void log_write(struct log *l, const struct log_record *r)
{
    struct line ln;

    if (!l || l->fd < 0)
        return;
    ln.len = 0;
    if (l->format == LOG_JSON)
        put_json(&ln, r);
    else
        put_combined(&ln, r);
    ln.buf[ln.len++] = '\n';
    /* One write: a short write on a full disk loses the rest, never mixes. */
    ssize_t n = l->sock
                    ? send(l->fd, ln.buf, ln.len, MSG_DONTWAIT | MSG_NOSIGNAL)
                    : write(l->fd, ln.buf, ln.len);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        dropped(l);
}
