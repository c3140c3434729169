// SPDX-License-Identifier: MIT
/*
 * multipart.c - multipart/byteranges bodies in steps (multipart.h).
 *
 * A part's header is formatted again whenever a step lands in it: it is a
 * few dozen bytes, and there are at most RANGE_MAX_PARTS parts, so finding
 * the segment of an offset is a walk of at most 2 * 16 + 1 segments and no
 * table of offsets needs to be kept.
 */
#include "http/multipart.h"

#include "syntax/digits.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

_Static_assert(MULTIPART_BOUNDARY_LEN == 2 * MULTIPART_RANDOM,
               "a boundary is two hex digits per random byte");

/* Room for a part header: delimiter, both fields, the blank line. */
#define HEAD_MAX (MULTIPART_TYPE_MAX + MULTIPART_BOUNDARY_LEN + 160)

void multipart_boundary(const unsigned char random[MULTIPART_RANDOM],
                        char out[MULTIPART_BOUNDARY_LEN + 1])
{
    static const char hex[] = DIGITS_HEX_LOWER;

    for (size_t i = 0; i < MULTIPART_RANDOM; i++) {
        out[2 * i] = hex[random[i] >> 4];
        out[2 * i + 1] = hex[random[i] & 15];
    }
    out[MULTIPART_BOUNDARY_LEN] = '\0';
}

/* RFC 2046 bchars, less space (a boundary ending in space is invalid). */
static bool bchar(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
           (c >= 'A' && c <= 'Z') || strchr("'()+_,-./:=?", c) != NULL;
}

/* The header of part @i into @buf (HEAD_MAX bytes); returns its length. */
static size_t head(const struct multipart *m, size_t i, char *buf)
{
    const struct range_part *p = &m->set.v[i];
    int n = snprintf(buf, HEAD_MAX,
                     "%s--%s\r\nContent-Type: %s\r\n"
                     "Content-Range: bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64
                     "\r\n\r\n",
                     i ? "\r\n" : "", m->boundary, m->type, p->start,
                     p->start + p->len - 1, m->size);

    return n > 0 ? (size_t)n : 0;
}

/* The close delimiter into @buf; returns its length. */
static size_t tail(const struct multipart *m, char *buf)
{
    int n = snprintf(buf, HEAD_MAX, "\r\n--%s--\r\n", m->boundary);

    return n > 0 ? (size_t)n : 0;
}

int multipart_init(struct multipart *m, const struct range_set *set,
                   uint64_t size, const char *type, const char *boundary)
{
    size_t tlen = strlen(type), blen = strlen(boundary);
    char buf[HEAD_MAX];

    if (set->n == 0 || set->n > RANGE_MAX_PARTS || tlen > MULTIPART_TYPE_MAX ||
        blen == 0 || blen > MULTIPART_BOUNDARY_LEN)
        return -EINVAL;
    for (size_t i = 0; i < tlen; i++)
        if ((unsigned char)type[i] < 0x20 || type[i] == 0x7f)
            return -EINVAL;
    for (size_t i = 0; i < blen; i++)
        if (!bchar((unsigned char)boundary[i]))
            return -EINVAL;
    for (size_t i = 0; i < set->n; i++)
        if (set->v[i].len == 0 || set->v[i].start >= size ||
            set->v[i].len > size - set->v[i].start)
            return -EINVAL;
    memset(m, 0, sizeof *m);
    m->set = *set;
    m->size = size;
    memcpy(m->type, type, tlen + 1);
    memcpy(m->boundary, boundary, blen + 1);
    for (size_t i = 0; i < set->n; i++)
        m->total += head(m, i, buf) + set->v[i].len;
    m->total += tail(m, buf);
    return 0;
}

void multipart_content_type(const struct multipart *m,
                            char out[MULTIPART_CTYPE_LEN])
{
    snprintf(out, MULTIPART_CTYPE_LEN, "multipart/byteranges; boundary=%s",
             m->boundary);
}

/* Up to @max bytes of @text (@len long) from @off into @buf. */
static size_t copy(const char *text, size_t len, uint64_t off, char *buf,
                   size_t max)
{
    size_t n = len - (size_t)off;

    if (n > max)
        n = max;
    memcpy(buf, text + off, n);
    return n;
}

size_t multipart_step(const struct multipart *m, uint64_t pos, char *buf,
                      size_t max, uint64_t *file_off, size_t *file_len)
{
    char text[HEAD_MAX];
    size_t len;

    *file_off = 0;
    *file_len = 0;
    for (size_t i = 0; i < m->set.n; i++) {
        const struct range_part *p = &m->set.v[i];

        len = head(m, i, text);
        if (pos < len)
            return copy(text, len, pos, buf, max);
        pos -= len;
        if (pos < p->len) {
            uint64_t n = p->len - pos;

            *file_off = p->start + pos;
            *file_len = n < max ? (size_t)n : max;
            return 0;
        }
        pos -= p->len;
    }
    len = tail(m, text);
    if (pos < len)
        return copy(text, len, pos, buf, max);
    return 0;
}
