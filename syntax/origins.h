/* SPDX-License-Identifier: MIT */
/*
 * origins.h - the origins --cors names: "*" (any origin) or a comma list,
 * each "http://HOST[:PORT]" or "https://HOST[:PORT]" as a browser
 * serialises it in Origin (no path, no "null": a sandboxed or file: page
 * is not an origin to trust). cors.h answers a request with them.
 */
#ifndef BENEATH_SYNTAX_ORIGINS_H
#define BENEATH_SYNTAX_ORIGINS_H

#include <stdbool.h>
#include <stddef.h>

/* Origins a list holds at most, and the length of one. */
#define ORIGINS_MAX 64
#define ORIGINS_ORIGIN_MAX 256

/* Seconds a browser may keep a preflight's answer (Chromium's cap): the
 * Access-Control-Max-Age --cors promises. */
#define ORIGINS_MAX_AGE "7200"

struct origins {
    bool any;      /* "*" */
    char **origin; /* lower case, as compared */
    size_t n;      /* none and !any: CORS off */
};

/*
 * origins_parse - set @o (zeroed, or released before) from @spec: "*" or a
 * comma list of origins. The reason of a refusal goes to @err (@size bytes).
 *
 * Returns 0, -EINVAL (@o left empty) or -ENOMEM.
 */
int origins_parse(struct origins *o, const char *spec, char *err, size_t size);

/* origins_on - whether @o allows any origin at all (NULL: no). */
bool origins_on(const struct origins *o);

/* origins_free - release what @o owns; @o may be zeroed or NULL. */
void origins_free(struct origins *o);

#endif
