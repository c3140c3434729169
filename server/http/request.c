// SPDX-License-Identifier: MIT
/*
 * request.c - the fields a request keeps (request.h), and its query.
 */
#include "http/request.h"

#include "syntax/digits.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

enum how { FIRST, JOIN };

static const struct {
    const char *name;
    size_t len;
    enum how how;
} fields[RF_N] = {
#define REQUEST_FIELD_ROW(id, n, h) [RF_##id] = {(n), sizeof(n) - 1, (h)},
    REQUEST_FIELDS(REQUEST_FIELD_ROW)
#undef REQUEST_FIELD_ROW
};

const char *request_proto_name(enum http_version v)
{
    static const char *const names[HTTP_VERSION_N] = {
        [HTTP_VERSION_1_0] = "http/1.0",
        [HTTP_VERSION_1_1] = "http/1.1",
        [HTTP_VERSION_2] = "h2",
    };

    return v < HTTP_VERSION_N ? names[v] : "-";
}

const char *request_field_name(enum request_field f)
{
    return f < RF_N ? fields[f].name : NULL;
}

bool request_field_joined(enum request_field f)
{
    return f < RF_N && fields[f].how == JOIN;
}

int request_field_of(const char *name, size_t len)
{
    for (int i = 0; i < RF_N; i++)
        if (fields[i].len == len && strncasecmp(fields[i].name, name, len) == 0)
            return i;
    return -1;
}

int request_add_field(struct request *rq, struct arena *a, const char *name,
                      size_t name_len, const char *value, size_t value_len,
                      bool value_nul)
{
    int f = request_field_of(name, name_len);
    const char *old;

    if (f < 0)
        return 0;
    if (rq->count[f] < 255)
        rq->count[f]++;
    old = rq->field[f];
    if (old && fields[f].how == FIRST)
        return 0;
    if (!old) {
        const char *v = value_nul ? value : arena_strndup(a, value, value_len);

        if (!v)
            return -ENOMEM;
        rq->field[f] = v;
        return 0;
    }
    size_t n = strlen(old);
    char *j =
        n + 2 + value_len >= n ? arena_alloc(a, n + 2 + value_len + 1) : NULL;
    if (!j)
        return -ENOMEM;
    memcpy(j, old, n);
    memcpy(j + n, ", ", 2);
    memcpy(j + n + 2, value, value_len);
    j[n + 2 + value_len] = '\0';
    rq->field[f] = j;
    return 0;
}

const char *request_query_param(const char *target, const char *name, char *buf,
                                size_t size)
{
    const char *q = target ? strchr(target, '?') : NULL;
    size_t nlen = strlen(name);

    while (q && *q) {
        const char *p = q + 1, *end = p + strcspn(p, "&");

        q = *end ? end : NULL;
        if ((size_t)(end - p) < nlen || strncmp(p, name, nlen) != 0 ||
            (p[nlen] != '=' && p + nlen != end))
            continue;
        p += nlen + (p + nlen != end);
        size_t n = 0;
        while (p < end) {
            int hi, lo;
            char c = *p++;

            if (c == '+') {
                c = ' ';
            } else if (c == '%') {
                if (end - p < 2 || (hi = digits_hex((unsigned char)p[0])) < 0 ||
                    (lo = digits_hex((unsigned char)p[1])) < 0)
                    return NULL;
                c = (char)(hi << 4 | lo);
                p += 2;
            }
            if (n + 1 >= size)
                return NULL;
            buf[n++] = c;
        }
        buf[n] = '\0';
        return buf;
    }
    return NULL;
}
