/* SPDX-License-Identifier: MIT */
/*
 * cors.h - Cross-Origin Resource Sharing for a static site (--cors): which
 * origins may read its responses from a script, and the answer to a
 * browser's preflight (the Fetch standard's CORS protocol).
 *
 * --cors is "*" (any origin) or a comma list of origins (origins.h). A
 * response to an allowed Origin carries
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

#include "syntax/origins.h"

#include <stdbool.h>
#include <stddef.h>

/* The request headers a preflight may ask for, at most, as text. */
#define CORS_HEADERS_MAX 512
#define CORS_METHODS "GET, HEAD"

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
 * cors_decide - the CORS headers of the response to a request with @origin
 * (NULL: none), @options (an OPTIONS request), @acr_method and
 * @acr_headers (the Access-Control-Request-* headers, NULL when absent),
 * under @c (NULL or off: none). @out borrows @origin and points into
 * itself: decide into the struct the headers are added from.
 */
void cors_decide(const struct origins *c, const char *origin, bool options,
                 const char *acr_method, const char *acr_headers,
                 struct cors_reply *out);

#endif
