/* SPDX-License-Identifier: MIT */
/*
 * cors.h - Cross-Origin Resource Sharing for a static site (--cors): which
 * origins may read its responses from a script, and the answer to a
 * browser's preflight (the Fetch standard's CORS protocol).
 *
 * --cors is "*" (any origin) or a comma list of origins, each
 * "http://HOST[:PORT]" or "https://HOST[:PORT]" as a browser serialises
 * it in Origin (no path, no "null": a sandboxed or file: page is not an
 * origin to trust). A response to an allowed Origin carries
 * Access-Control-Allow-Origin (the origin, or "*"); with a list every
 * response carries Vary: Origin, since the answer depends on it. A
 * preflight (OPTIONS with Origin and Access-Control-Request-Method) from
 * an allowed origin gets Access-Control-Allow-Methods: GET, HEAD (all a
 * static site answers), the requested Access-Control-Request-Headers back
 * when they are a short list of header names, and Access-Control-Max-Age.
 * No credentials mode: Access-Control-Allow-Credentials is never sent.
 * Pure: no I/O; the caller adds the headers.
 */
#ifndef BENEATH_HTTP_CORS_H
#define BENEATH_HTTP_CORS_H

#include <stdbool.h>
#include <stddef.h>

/* Origins a list holds at most, and the length of one. */
#define CORS_ORIGINS_MAX 64
#define CORS_ORIGIN_MAX 256
/* The request headers a preflight may ask for, at most, as text. */
#define CORS_HEADERS_MAX 512
/* Seconds a browser may keep a preflight's answer (Chromium's cap). */
#define CORS_MAX_AGE "7200"
#define CORS_METHODS "GET, HEAD"

struct cors {
    bool any;      /* "*" */
    char **origin; /* lower case, as compared */
    size_t n;      /* none and !any: CORS off */
};

/* Response headers CORS adds to one response at most. */
#define CORS_HEADERS_N 5

/* What one request gets: the headers, in order, for its response. */
struct cors_reply {
    struct {
        const char *name, *value; /* static, the request's Origin (borrowed)
                                     or allow_headers below */
    } h[CORS_HEADERS_N];
    size_t n;
    bool per_origin; /* the response differs with this Origin: not for a
                        cache shared by other requests */
    char allow_headers[CORS_HEADERS_MAX]; /* "" or the list asked for */
};

/*
 * cors_parse - set @c (zeroed, or released before) from @spec: "*" or a
 * comma list of origins. The reason of a refusal goes to @err (@size bytes).
 *
 * Returns 0, -EINVAL (@c left empty) or -ENOMEM.
 */
int cors_parse(struct cors *c, const char *spec, char *err, size_t size);

/* cors_on - whether @c allows any origin at all (NULL: no). */
bool cors_on(const struct cors *c);

/*
 * cors_decide - the CORS headers of the response to a request with @origin
 * (NULL: none), @options (an OPTIONS request), @acr_method and
 * @acr_headers (the Access-Control-Request-* headers, NULL when absent),
 * under @c (NULL or off: none). @out borrows @origin and points into
 * itself: decide into the struct the headers are added from.
 */
void cors_decide(const struct cors *c, const char *origin, bool options,
                 const char *acr_method, const char *acr_headers,
                 struct cors_reply *out);

/* cors_free - release what @c owns; @c may be zeroed or NULL. */
void cors_free(struct cors *c);

#endif
