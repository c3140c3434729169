// SPDX-License-Identifier: MIT
/*
 * cors.c - decide the CORS headers of one request (rules in cors.h) under
 * the origins of --cors (origins.c).
 *
 * Security decisions:
 * - An origin is compared whole (scheme, host and port), case-insensitively
 *   as browsers serialise it lower case: "https://a.example" never admits
 *   "https://a.example.evil" or "http://a.example".
 * - The requested headers are sent back only when they are a list of header
 *   names (tokens), short enough; anything else gets no
 *   Access-Control-Allow-Headers, and the browser refuses the request.
 */
#include "http/cors.h"

#include "http/field.h"
#include "syntax/text.h"

#include <string.h>
#include <strings.h>

static bool allowed(const struct origins *c, const char *origin)
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

        while (text_is_tchar((unsigned char)*e))
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

void cors_decide(const struct origins *c, const char *origin, bool options,
                 const char *acr_method, const char *acr_headers,
                 struct cors_reply *out)
{
    const char *allow = NULL;
    bool preflight;

    out->n = 0;
    out->per_origin = false;
    out->allow_headers[0] = '\0';
    if (!origins_on(c))
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
    add(out, "Access-Control-Max-Age", ORIGINS_MAX_AGE);
}
