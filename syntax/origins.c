// SPDX-License-Identifier: MIT
/*
 * origins.c - parse --cors (rules in origins.h).
 *
 * An origin is kept whole (scheme, host and port) and lower case, as
 * browsers serialise it, so that cors.c compares it whole:
 * "https://a.example" never admits "https://a.example.evil" or
 * "http://a.example". "null" is no origin here: sandboxed frames, data:
 * and file: pages all send it, so allowing it would allow them all.
 */
#include "syntax/origins.h"

#include "syntax/errbuf.h"
#include "syntax/text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* scheme://host[:port], lower case letters, digits, '.', '-', an IPv6
 * literal in brackets; @len bytes at @s. */
static bool is_origin(const char *s, size_t len)
{
    size_t i = 0, host;

    if (len > 8 && strncasecmp(s, "https://", 8) == 0)
        i = 8;
    else if (len > 7 && strncasecmp(s, "http://", 7) == 0)
        i = 7;
    else
        return false;
    host = i;
    if (s[i] == '[') {
        while (i < len && s[i] != ']') {
            char c = s[i];
            if (i > host &&
                !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
                  (c >= 'A' && c <= 'F') || c == ':' || c == '.'))
                return false;
            i++;
        }
        if (i == len)
            return false;
        i++;
    } else {
        while (i < len && s[i] != ':') {
            char c = s[i];
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                  (c >= 'A' && c <= 'Z') || c == '.' || c == '-'))
                return false;
            i++;
        }
        if (i == host)
            return false;
    }
    if (i == len)
        return true;
    if (s[i] != ':' || i + 1 == len || len - i - 1 > 5)
        return false;
    for (i++; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

void origins_free(struct origins *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->n; i++)
        free(o->origin[i]);
    free(o->origin);
    memset(o, 0, sizeof *o);
}

int origins_parse(struct origins *o, const char *spec, char *err, size_t size)
{
    memset(o, 0, sizeof *o);
    if (strcmp(spec, "*") == 0) {
        o->any = true;
        return 0;
    }
    o->origin = calloc(ORIGINS_MAX, sizeof *o->origin);
    if (!o->origin)
        return -ENOMEM;
    for (const char *p = spec;;) {
        const char *end = p + strcspn(p, ","), *s = p, *e = end;
        size_t len;

        text_trim(&s, &e);
        len = (size_t)(e - s);
        if (len == 0) {
            errbuf_say(err, size, "an empty origin in the list");
            goto out_free;
        }
        if (len >= ORIGINS_ORIGIN_MAX || !is_origin(s, len)) {
            errbuf_say(err, size,
                       "'%.*s' is not an origin (http[s]://HOST[:PORT], no "
                       "path), nor *",
                       (int)(len > 64 ? 64 : len), s);
            goto out_free;
        }
        if (o->n == ORIGINS_MAX) {
            errbuf_say(err, size, "more than %d origins", ORIGINS_MAX);
            goto out_free;
        }
        o->origin[o->n] = strndup(s, len);
        if (!o->origin[o->n]) {
            origins_free(o);
            return -ENOMEM;
        }
        for (char *q = o->origin[o->n]; *q; q++)
            if (*q >= 'A' && *q <= 'Z')
                *q = (char)(*q - 'A' + 'a');
        o->n++;
        if (*end == '\0')
            break;
        p = end + 1;
    }
    return 0;
out_free:
    origins_free(o);
    return -EINVAL;
}

bool origins_on(const struct origins *o)
{
    return o && (o->any || o->n);
}
