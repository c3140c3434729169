// SPDX-License-Identifier: MIT
/*
 * cors.c - parse --cors and decide the CORS headers of one request (rules
 * in cors.h).
 *
 * Security decisions:
 * - An origin is compared whole (scheme, host and port), case-insensitively
 *   as browsers serialise it lower case: "https://a.example" never admits
 *   "https://a.example.evil" or "http://a.example".
 * - "null" is refused as an origin: sandboxed frames, data: and file: pages
 *   all send it, so allowing it would allow them all.
 * - The requested headers are sent back only when they are a list of header
 *   names (tokens), short enough; anything else gets no
 *   Access-Control-Allow-Headers, and the browser refuses the request.
 */
#include "http/cors.h"

#include "http/errbuf.h"
#include "http/field.h"

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

void cors_free(struct cors *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        free(c->origin[i]);
    free(c->origin);
    memset(c, 0, sizeof *c);
}

int cors_parse(struct cors *c, const char *spec, char *err, size_t size)
{
    memset(c, 0, sizeof *c);
    if (strcmp(spec, "*") == 0) {
        c->any = true;
        return 0;
    }
    c->origin = calloc(CORS_ORIGINS_MAX, sizeof *c->origin);
    if (!c->origin)
        return -ENOMEM;
    for (const char *p = spec;;) {
        const char *end = p + strcspn(p, ","), *s = p, *e = end;
        size_t len;

        field_trim(&s, &e);
        len = (size_t)(e - s);
        if (len == 0) {
            errbuf_say(err, size, "an empty origin in the list");
            goto out_free;
        }
        if (len >= CORS_ORIGIN_MAX || !is_origin(s, len)) {
            errbuf_say(err, size,
                       "'%.*s' is not an origin (http[s]://HOST[:PORT], no "
                       "path), nor *",
                       (int)(len > 64 ? 64 : len), s);
            goto out_free;
        }
        if (c->n == CORS_ORIGINS_MAX) {
            errbuf_say(err, size, "more than %d origins", CORS_ORIGINS_MAX);
            goto out_free;
        }
        c->origin[c->n] = strndup(s, len);
        if (!c->origin[c->n]) {
            cors_free(c);
            return -ENOMEM;
        }
        for (char *q = c->origin[c->n]; *q; q++)
            if (*q >= 'A' && *q <= 'Z')
                *q = (char)(*q - 'A' + 'a');
        c->n++;
        if (*end == '\0')
            break;
        p = end + 1;
    }
    return 0;
out_free:
    cors_free(c);
    return -EINVAL;
}

bool cors_on(const struct cors *c)
{
    return c && (c->any || c->n);
}

static bool allowed(const struct cors *c, const char *origin)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcasecmp(c->origin[i], origin) == 0)
            return true;
    return false;
}

/* The requested header names back, when they are a short list of tokens. */
static void reflect(const char *asked, char out[CORS_HEADERS_MAX])
{
    size_t n = 0;
    const char *p = asked;

    out[0] = '\0';
    while (p && *p) {
        const char *s = field_ows(p), *e = s;

        while (field_is_tchar((unsigned char)*e))
            e++;
        const char *after = field_ows(e);
        if (*after != ',' && *after != '\0') {
            out[0] = '\0'; /* not a list of names: none */
            return;
        }
        if (e > s) {
            size_t len = (size_t)(e - s);
            if (n + len + 3 > CORS_HEADERS_MAX) {
                out[0] = '\0';
                return;
            }
            if (n) {
                memcpy(out + n, ", ", 2);
                n += 2;
            }
            memcpy(out + n, s, len);
            n += len;
            out[n] = '\0';
        }
        p = *after ? after + 1 : after;
    }
}

static void add(struct cors_reply *out, const char *name, const char *value)
{
    out->h[out->n].name = name;
    out->h[out->n++].value = value;
}

void cors_decide(const struct cors *c, const char *origin, bool options,
                 const char *acr_method, const char *acr_headers,
                 struct cors_reply *out)
{
    const char *allow = NULL;
    bool preflight;

    out->n = 0;
    out->per_origin = false;
    out->allow_headers[0] = '\0';
    if (!cors_on(c))
        return;
    if (c->any)
        allow = "*";
    else if (origin && allowed(c, origin))
        allow = origin;
    /* with a list, the answer depends on Origin: on every response, so a
     * cache keeps one per origin */
    out->per_origin = !c->any && origin != NULL;
    preflight = options && origin && acr_method && allow;
    if (preflight)
        reflect(acr_headers, out->allow_headers);
    if (allow)
        add(out, "Access-Control-Allow-Origin", allow);
    if (!c->any || out->allow_headers[0])
        add(out, "Vary",
            c->any                  ? "Access-Control-Request-Headers"
            : out->allow_headers[0] ? "Origin, Access-Control-Request-Headers"
                                    : "Origin");
    if (!preflight)
        return;
    add(out, "Access-Control-Allow-Methods", CORS_METHODS);
    if (out->allow_headers[0])
        add(out, "Access-Control-Allow-Headers", out->allow_headers);
    add(out, "Access-Control-Max-Age", CORS_MAX_AGE);
}
