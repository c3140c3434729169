// SPDX-License-Identifier: MIT
/*
 * log_line.c - one access log line: Common Log Format + referer and agent
 * (combined) with the resolver backend, errno and an abort appended (and
 * duration_us with combined+duration), one JSON object a line, or an operator's
 * template. Every client-supplied string is escaped, so that a line stays
 * one line and its fields stay apart; the line is built on the caller's
 * stack, and log.c copies it into the log's buffer.
 *
 * The JSON object's keys are the template's field names, in their order
 * (time_local and request left out: the object has time and method, target,
 * protocol), so that both forms write each field in the same way.
 */
#include "observe/log_line.h"

#include "http/utf8.h"
#include "resolver.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Escaped bytes kept of one client-supplied field; the rest becomes "...". */
#define LOG_FIELD_MAX 1000
/* A line is cut at LOG_LINE_MAX (log.h): six such fields and the fixed parts
 * always fit; a template naming many long fields may be cut. */

static void put(struct log_line *ln, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(struct log_line *ln, const char *fmt, ...)
{
    va_list ap;
    size_t room = sizeof ln->buf - 1 - ln->len; /* keep one for '\n' */

    va_start(ap, fmt);
    int n = vsnprintf(ln->buf + ln->len, room + 1, fmt, ap);
    va_end(ap);
    if (n > 0)
        ln->len += (size_t)n < room ? (size_t)n : room;
}

static void put_mem(struct log_line *ln, const char *s, size_t n)
{
    size_t room = sizeof ln->buf - 1 - ln->len;

    if (n > room)
        n = room;
    memcpy(ln->buf + ln->len, s, n);
    ln->len += n;
}

static void put_lit(struct log_line *ln, const char *s)
{
    put_mem(ln, s, strlen(s));
}

static void putc_(struct log_line *ln, char c)
{
    if (ln->len < sizeof ln->buf - 1)
        ln->buf[ln->len++] = c;
}

enum esc {
    ESC_JSON,   /* JSON string contents; invalid UTF-8 bytes as \u00HH */
    ESC_QUOTED, /* inside "": '"', '\', controls and non-ASCII as \xHH */
    ESC_BARE,   /* unquoted: a space too, so the line splits on spaces */
};

/* The client-controlled string @s escaped for @esc (no quotes added). */
static void put_esc(struct log_line *ln, const char *s, enum esc esc)
{
    size_t start = ln->len;

    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned c = *p;

        if (ln->len - start >= LOG_FIELD_MAX) {
            put_lit(ln, "...");
            break;
        }
        if (esc == ESC_JSON) {
            size_t n = c >= 0x80 ? utf8_len(p) : 0;

            if (n) {
                put_mem(ln, (const char *)p, n);
                p += n - 1;
            } else if (c == '"' || c == '\\') {
                put(ln, "\\%c", c);
            } else if (c < 0x20 || c >= 0x7f) {
                put(ln, "\\u%04x", c);
            } else {
                putc_(ln, (char)c);
            }
        } else if (c == '"' || c == '\\' || c < 0x20 || c >= 0x7f ||
                   (esc == ESC_BARE && c == ' ')) {
            put(ln, "\\x%02x", c);
        } else {
            putc_(ln, (char)c);
        }
    }
}

/* A quoted client-controlled string; NULL is "-" (combined) or null. */
static void put_str(struct log_line *ln, const char *s, bool json)
{
    if (!s) {
        put_lit(ln, json ? "null" : "\"-\"");
        return;
    }
    putc_(ln, '"');
    put_esc(ln, s, json ? ESC_JSON : ESC_QUOTED);
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

/* An unquoted token: escaped with spaces too, "-" for NULL. */
static void put_bare(struct log_line *ln, const char *s)
{
    if (!s)
        putc_(ln, '-');
    else
        put_esc(ln, s, ESC_BARE);
}

static void put_clf_time(struct log_line *ln, time_t t)
{
    char date[64];
    struct tm tm;

    localtime_r(&t, &tm);
    strftime(date, sizeof date, "%d/%b/%Y:%H:%M:%S %z", &tm);
    put_lit(ln, date);
}

/* RFC 3339 in UTC with milliseconds: 2026-12-04T12:31:23.456Z */
static void put_rfc3339(struct log_line *ln, time_t t, unsigned msec)
{
    char date[64];
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
    put(ln, "%s.%03uZ", date, msec % 1000);
}

/* The request line as received, escaped, without the quotes. */
static void put_request(struct log_line *ln, const struct log_record *r)
{
    put_esc(ln, r->method ? r->method : "-", ESC_QUOTED);
    putc_(ln, ' ');
    put_esc(ln, r->target ? r->target : "-", ESC_QUOTED);
    putc_(ln, ' ');
    put_esc(ln, r->version ? r->version : "-", ESC_QUOTED);
}

static void put_combined(struct log_line *ln, const struct log_record *r,
                         bool duration)
{
    put_bare(ln, r->client);
    put_lit(ln, " - ");
    put_bare(ln, r->user);
    put_lit(ln, " [");
    put_clf_time(ln, r->time);
    put_lit(ln, "] \"");
    put_request(ln, r);
    put(ln, "\" %u %llu ", r->status, (unsigned long long)r->bytes);
    put_str(ln, r->referer, false);
    putc_(ln, ' ');
    put_str(ln, r->agent, false);
    put(ln, " resolver=%s", r->backend ? r->backend : "-");
    if (r->err) {
        char e[16];
        put(ln, " errno=%s", errno_text(r->err, e));
    }
    if (r->symlink) {
        put_lit(ln, " symlink=\"");
        put_esc(ln, r->symlink, ESC_QUOTED);
        putc_(ln, '"');
    }
    /* a reply cut short: its bytes are what went, as nginx logs them */
    if (r->aborted)
        put_lit(ln, " aborted=1");
    if (duration)
        put(ln, " duration_us=%llu", (unsigned long long)r->duration_us);
}

/*
 * The fields that are one member of the record, by how they are written;
 * the others (OWN) have their own code in put_field.
 */
enum how {
    OWN,
    STRING, /* bare in a template ("-" for NULL), quoted in JSON (null) */
    QUOTED, /* in a template escaped as inside quotes, so "$agent" works */
    UINT,   /* unsigned */
    U64,    /* uint64_t */
    BOOL,   /* bool: true/false in JSON, 1/0 in a template */
};

#define MEMBER(how, m)                                                         \
    {                                                                          \
        how, offsetof(struct log_record, m)                                    \
    }

static const struct {
    enum how how;
    size_t off; /* of the member in struct log_record */
} fields[LOG_FIELD_COUNT] = {
    [LOG_FIELD_CLIENT] = MEMBER(STRING, client),
    [LOG_FIELD_USER] = MEMBER(STRING, user),
    [LOG_FIELD_METHOD] = MEMBER(STRING, method),
    [LOG_FIELD_TARGET] = MEMBER(STRING, target),
    [LOG_FIELD_PROTOCOL] = MEMBER(STRING, version),
    [LOG_FIELD_PROTO] = MEMBER(STRING, proto),
    [LOG_FIELD_STATUS] = MEMBER(UINT, status),
    [LOG_FIELD_BYTES] = MEMBER(U64, bytes),
    [LOG_FIELD_ABORTED] = MEMBER(BOOL, aborted),
    [LOG_FIELD_DURATION_US] = MEMBER(U64, duration_us),
    [LOG_FIELD_HOST] = MEMBER(STRING, host),
    [LOG_FIELD_VHOST] = MEMBER(STRING, vhost),
    [LOG_FIELD_TLS] = MEMBER(STRING, tls),
    [LOG_FIELD_ENCODING] = MEMBER(STRING, encoding),
    [LOG_FIELD_REFERER] = MEMBER(QUOTED, referer),
    [LOG_FIELD_AGENT] = MEMBER(QUOTED, agent),
    [LOG_FIELD_RESOLVER] = MEMBER(STRING, backend),
    [LOG_FIELD_SYMLINK] = MEMBER(QUOTED, symlink),
};

/* The value of one field, as a template or the JSON object writes it. */
static void put_field(struct log_line *ln, int f, const struct log_record *r,
                      bool json)
{
    const char *member = (const char *)r + fields[f].off;
    const char *q = json ? "\"" : ""; /* JSON quotes the time, errno name */
    const char *s;
    unsigned u;
    uint64_t n;
    bool b;
    char e[16];

    switch (fields[f].how) {
    case STRING:
    case QUOTED:
        memcpy(&s, member, sizeof s);
        if (json)
            put_str(ln, s, true);
        else if (fields[f].how == QUOTED)
            put_esc(ln, s ? s : "-", ESC_QUOTED);
        else
            put_bare(ln, s);
        return;
    case UINT:
        memcpy(&u, member, sizeof u);
        put(ln, "%u", u);
        return;
    case U64:
        memcpy(&n, member, sizeof n);
        put(ln, "%llu", (unsigned long long)n);
        return;
    case BOOL:
        memcpy(&b, member, sizeof b);
        put_lit(ln, json ? (b ? "true" : "false") : (b ? "1" : "0"));
        return;
    case OWN:
        break;
    }
    if (f == LOG_FIELD_TIME) {
        put_lit(ln, q);
        put_rfc3339(ln, r->time, r->msec);
        put_lit(ln, q);
    } else if (f == LOG_FIELD_TIME_LOCAL) {
        put_clf_time(ln, r->time);
    } else if (f == LOG_FIELD_REQUEST) {
        put_request(ln, r);
    } else if (f == LOG_FIELD_ERRNO && r->err) {
        put(ln, "%s%s%s", q, errno_text(r->err, e), q);
    } else if (f == LOG_FIELD_ERRNO) {
        put_lit(ln, json ? "null" : "-");
    }
}

static void put_json(struct log_line *ln, const struct log_record *r)
{
    char sep = '{';

    for (int f = 0; f < LOG_FIELD_COUNT; f++) {
        if (f == LOG_FIELD_TIME_LOCAL || f == LOG_FIELD_REQUEST)
            continue;
        put(ln, "%c\"%s\":", sep, log_field_name(f));
        put_field(ln, f, r, true);
        sep = ',';
    }
    putc_(ln, '}');
}

void log_line_format(const struct log_template *t, const struct log_record *r,
                     struct log_line *ln)
{
    ln->len = 0;
    switch (t->kind) {
    case LOG_KIND_COMBINED:
    case LOG_KIND_COMBINED_DURATION:
        put_combined(ln, r, t->kind == LOG_KIND_COMBINED_DURATION);
        break;
    case LOG_KIND_JSON:
        put_json(ln, r);
        break;
    case LOG_KIND_TEMPLATE:
        for (size_t i = 0; i < t->n; i++) {
            const struct log_template_part *p = &t->part[i];

            if (p->field < 0)
                put_mem(ln, t->text + p->off, p->len);
            else
                put_field(ln, p->field, r, false);
        }
        break;
    }
    ln->buf[ln->len++] = '\n';
}

int log_format_line(const char *format, const struct log_record *r, char *buf,
                    size_t size)
{
    struct log_template t;
    struct log_line ln;
    char msg[256];

    if (log_template_parse(format, &t, msg, sizeof msg) != 0)
        return -EINVAL;
    log_line_format(&t, r, &ln);
    size_t n = ln.len < size ? ln.len : (size ? size - 1 : 0);
    if (size) {
        memcpy(buf, ln.buf, n);
        buf[n] = '\0';
    }
    return (int)ln.len;
}
