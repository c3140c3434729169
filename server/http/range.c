// SPDX-License-Identifier: MIT
/*
 * range.c - byte ranges: parse a Range field, drop what cannot be
 * satisfied, coalesce, and bound what one request may cost (range.h).
 *
 * Memory is fixed: at most RANGE_MAX_SPECS specs are kept (on the stack),
 * one pass reads them, a sort and a merge make the parts.
 */
#include "http/range.h"

#include "http/cond.h"
#include "http/date.h"
#include "http/field.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Digits into @out, saturating at UINT64_MAX. False without a digit. */
static bool number(const char **p, uint64_t *out)
{
    uint64_t v = 0;
    const char *s = *p;

    if (*s < '0' || *s > '9')
        return false;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
    }
    *p = s;
    *out = v;
    return true;
}

/* A satisfiable spec: [start, end) of the file, and where it was asked. */
struct spec {
    uint64_t start, end;
    size_t first; /* index of the earliest spec merged into it */
};

enum spec_result { SPEC_BAD, SPEC_OK, SPEC_OUTSIDE };

/*
 * One range-spec at *@p (no surrounding whitespace), clamped to @size;
 * *@p is left after it.
 */
static enum spec_result spec(const char **p, uint64_t size, struct spec *s)
{
    uint64_t a, b;

    if (**p == '-') {
        (*p)++;
        if (!number(p, &b))
            return SPEC_BAD;
        if (b == 0 || size == 0)
            return SPEC_OUTSIDE;
        s->start = b > size ? 0 : size - b;
        s->end = size;
        return SPEC_OK;
    }
    if (!number(p, &a) || **p != '-')
        return SPEC_BAD;
    (*p)++;
    b = UINT64_MAX;
    if (**p >= '0' && **p <= '9') {
        if (!number(p, &b) || b < a)
            return SPEC_BAD;
    }
    if (a >= size)
        return SPEC_OUTSIDE;
    s->start = a;
    s->end = b >= size ? size : b + 1;
    return SPEC_OK;
}

static int by_start(const void *x, const void *y)
{
    const struct spec *a = x, *b = y;

    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

static int by_first(const void *x, const void *y)
{
    const struct spec *a = x, *b = y;

    return a->first < b->first ? -1 : a->first > b->first;
}

enum range_result range_plan(const char *hdr, uint64_t size,
                             struct range_set *out)
{
    struct spec v[RANGE_MAX_SPECS];
    size_t n = 0, specs = 0, m;
    uint64_t total = 0;
    const char *p = field_ows(hdr);

    out->n = 0;
    if (strncasecmp(p, "bytes", 5) != 0)
        return RANGE_NONE;
    p = field_ows(p + 5);
    if (*p != '=')
        return RANGE_NONE;
    p++;
    /* 1#range-spec; empty elements ("a, ,b") are allowed (RFC 9110 5.6.1) */
    for (;;) {
        p = field_ows(p);
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == '\0')
            break;
        if (++specs > RANGE_MAX_SPECS)
            return RANGE_NONE;
        switch (spec(&p, size, &v[n])) {
        case SPEC_BAD:
            return RANGE_NONE;
        case SPEC_OK:
            /* Asked for more than the whole file: send it once. */
            total += v[n].end - v[n].start;
            if (total > size)
                return RANGE_NONE;
            v[n].first = n;
            n++;
            break;
        case SPEC_OUTSIDE:
            break;
        }
        p = field_ows(p);
        if (*p != ',' && *p != '\0')
            return RANGE_NONE;
    }
    if (specs == 0)
        return RANGE_NONE;
    if (n == 0)
        return RANGE_UNSATISFIABLE;

    qsort(v, n, sizeof v[0], by_start);
    m = 0;
    for (size_t i = 1; i < n; i++) {
        struct spec *cur = &v[m];
        /* overlapping, adjacent, or a gap cheaper to send than a part */
        if (v[i].start <= cur->end || v[i].start - cur->end < RANGE_GAP) {
            if (v[i].end > cur->end)
                cur->end = v[i].end;
            if (v[i].first < cur->first)
                cur->first = v[i].first;
        } else {
            v[++m] = v[i];
        }
    }
    m++;
    if (m > RANGE_MAX_PARTS)
        return RANGE_NONE;
    /* RFC 9110 15.3.7.2: parts in the order they were asked for */
    qsort(v, m, sizeof v[0], by_first);
    for (size_t i = 0; i < m; i++) {
        out->v[i].start = v[i].start;
        out->v[i].len = v[i].end - v[i].start;
    }
    out->n = m;
    return m == 1 ? RANGE_SINGLE : RANGE_MULTI;
}

enum range_result range_parse(const char *hdr, uint64_t size, uint64_t *start,
                              uint64_t *len)
{
    struct range_set s;
    enum range_result r = range_plan(hdr, size, &s);

    if (r == RANGE_MULTI)
        return RANGE_NONE;
    if (r == RANGE_SINGLE) {
        *start = s.v[0].start;
        *len = s.v[0].len;
    }
    return r;
}

int range_if_range(const char *if_range, const char *etag, time_t mtime)
{
    return range_if_range_any(if_range, &etag, 1, mtime);
}

int range_if_range_any(const char *if_range, const char *const *etags, size_t n,
                       time_t mtime)
{
    time_t t;

    if (!if_range)
        return 1;
    if_range = field_ows(if_range);
    if (if_range[0] == '"' || strncmp(if_range, "W/", 2) == 0)
        return *if_range == '"' &&
               cond_etag_match_any(if_range, etags, n, false);
    return date_parse(if_range, &t) == 0 && t == mtime;
}
