// SPDX-License-Identifier: MIT
/*
 * range.c - single byte ranges; several ranges fall back to the whole file.
 */
#include "range.h"

#include "cond.h"
#include "date.h"
#include "field.h"

#include <stdbool.h>
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

enum range_result range_parse(const char *hdr, uint64_t size, uint64_t *start,
                              uint64_t *len)
{
    const char *p = field_ows(hdr);
    uint64_t a, b;

    if (strncasecmp(p, "bytes", 5) != 0)
        return RANGE_NONE;
    p = field_ows(p + 5);
    if (*p != '=')
        return RANGE_NONE;
    p = field_ows(p + 1);
    if (strchr(p, ','))
        return RANGE_NONE;

    if (*p == '-') {
        p++;
        if (!number(&p, &b) || *field_ows(p) != '\0')
            return RANGE_NONE;
        if (b == 0 || size == 0)
            return RANGE_UNSATISFIABLE;
        if (b > size)
            b = size;
        *start = size - b;
        *len = b;
        return RANGE_SINGLE;
    }
    if (!number(&p, &a) || *p != '-')
        return RANGE_NONE;
    p++;
    if (*field_ows(p) == '\0') {
        b = UINT64_MAX;
    } else {
        if (!number(&p, &b) || *field_ows(p) != '\0' || b < a)
            return RANGE_NONE;
    }
    if (a >= size)
        return RANGE_UNSATISFIABLE;
    if (b >= size)
        b = size - 1;
    *start = a;
    *len = b - a + 1;
    return RANGE_SINGLE;
}

int range_if_range(const char *if_range, const char *etag, time_t mtime)
{
    time_t t;

    if (!if_range)
        return 1;
    if_range = field_ows(if_range);
    if (if_range[0] == '"' || strncmp(if_range, "W/", 2) == 0)
        return *if_range == '"' && cond_etag_match(if_range, etag, false);
    return date_parse(if_range, &t) == 0 && t == mtime;
}
