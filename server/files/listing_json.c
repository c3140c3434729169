/* SPDX-License-Identifier: MIT */
/*
 * listing_json.c - JSON rendering of directory entries.
 *
 * A small growable buffer with one owner; every append reports ENOMEM and
 * the caller stops at the first failure, so a half-rendered document is
 * never returned.
 */
#include "files/listing_json.h"

#include "http/utf8.h"
#include "syntax/urlpath.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct buf {
    char *p;
    size_t len;
    size_t cap;
    bool failed;
};

static void grow(struct buf *b, size_t more)
{
    size_t cap;
    char *p;

    if (b->failed || b->len + more + 1 <= b->cap)
        return;
    cap = b->cap != 0 ? b->cap : 256;
    while (cap < b->len + more + 1)
        cap *= 2;
    p = realloc(b->p, cap);
    if (p == NULL) {
        b->failed = true;
        return;
    }
    b->p = p;
    b->cap = cap;
}

static void put_mem(struct buf *b, const char *s, size_t n)
{
    grow(b, n);
    if (b->failed)
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void put(struct buf *b, const char *s)
{
    put_mem(b, s, strlen(s));
}

/* @str as the inside of a JSON string. */
/* The characters JSON escapes with a backslash and a letter. */
static const char *const json_escape[0x80] = {
    ['"'] = "\\\"", ['\\'] = "\\\\", ['\b'] = "\\b", ['\f'] = "\\f",
    ['\n'] = "\\n", ['\r'] = "\\r",  ['\t'] = "\\t",
};

static void put_escaped(struct buf *b, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;

    while (*s != '\0') {
        size_t n = utf8_len(s);
        char esc[8];

        if (n == 0) {
            put(b, "\xef\xbf\xbd"); /* U+FFFD for one invalid byte */
            s++;
            continue;
        }
        if (n > 1) {
            put_mem(b, (const char *)s, n);
            s += n;
            continue;
        }
        if (json_escape[*s]) {
            put(b, json_escape[*s]);
        } else if (*s < 0x20 || *s == 0x7f) {
            snprintf(esc, sizeof(esc), "\\u%04x", *s);
            put(b, esc);
        } else {
            put_mem(b, (const char *)s, 1);
        }
        s++;
    }
}

static void put_string(struct buf *b, const char *str)
{
    put(b, "\"");
    put_escaped(b, str);
    put(b, "\"");
}

/* Percent-encode every byte but RFC 3986 unreserved ones. */
static void put_href(struct buf *b, const char *name, bool dir)
{
    char enc[3];

    put(b, "\"");
    for (const unsigned char *s = (const unsigned char *)name; *s; s++)
        put_mem(b, enc, urlpath_encode_byte(*s, enc));
    put(b, dir ? "/\"" : "\"");
}

static const char *type_name(enum listing_kind k)
{
    switch (k) {
    case LISTING_FILE:
        return "file";
    case LISTING_DIR:
        return "dir";
    case LISTING_OTHER:
        break;
    }
    return "other";
}

int listing_json(const struct listing *l, const char *path, char **out,
                 size_t *len)
{
    struct buf b = {0};

    put(&b, "{\"path\":\"/");
    put_escaped(&b, path);
    put(&b, "\",\"entries\":[");
    for (size_t i = 0; i < l->n && !b.failed; i++) {
        const struct listing_entry *e = &l->v[i];
        char num[96], when[32];
        struct tm tm;

        if (gmtime_r(&e->mtime, &tm) == NULL ||
            strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
            snprintf(when, sizeof(when), "1970-01-01T00:00:00Z");
        put(&b, i > 0 ? ",{\"name\":" : "{\"name\":");
        put_string(&b, e->name);
        put(&b, ",\"href\":");
        put_href(&b, e->name, e->kind == LISTING_DIR);
        snprintf(num, sizeof(num),
                 ",\"type\":\"%s\",\"size\":%" PRIu64 ",\"mtime\":\"%s\"}",
                 type_name(e->kind), e->size, when);
        put(&b, num);
    }
    if (l->total > l->n) {
        char more[96];

        snprintf(more, sizeof(more), "],\"truncated\":true,\"total\":%zu}\n",
                 l->total);
        put(&b, more);
    } else {
        put(&b, "]}\n");
    }
    if (b.failed) {
        free(b.p);
        return -ENOMEM;
    }
    *out = b.p;
    *len = b.len;
    return 0;
}
