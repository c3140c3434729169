/* SPDX-License-Identifier: MIT */
/*
 * headers_opt.h - extra response headers: --header and --security-headers.
 *
 * --header "Name: value" adds a header to every response. The name must be
 * an RFC 9110 token; the value is trimmed of surrounding spaces and may hold
 * printable ASCII, HTAB and bytes >= 0x80 (obs-text), never CR, LF, NUL or
 * other control bytes, so no header can be split or smuggled. Headers the
 * server itself owns per response (framing, validators, digests, encoding,
 * ranges: headers_opt_owned) are refused, as a mistake there breaks HTTP
 * rather than adding policy.
 *
 * --security-headers adds this set, each unless a --header of the same name
 * (case-insensitive) was given, which then wins:
 *   X-Content-Type-Options: nosniff
 *   Referrer-Policy: strict-origin-when-cross-origin
 *   X-Frame-Options: DENY
 *   Content-Security-Policy: frame-ancestors 'none'
 * Framing is refused both ways: X-Frame-Options for old browsers, CSP
 * frame-ancestors for current ones. The CSP carries only frame-ancestors on
 * purpose: a script-src/default-src policy would break sites the server cannot
 * know, so that one is left to --header. No Strict-Transport-Security: it is
 * only meaningful over TLS and hard to undo, so it must be asked for.
 */
#ifndef BENEATH_SYNTAX_HEADERS_OPT_H
#define BENEATH_SYNTAX_HEADERS_OPT_H

#include <stddef.h>

struct headers_opt_header {
    char *name;
    char *value;
};

struct headers_opt {
    struct headers_opt_header *v;
    size_t n;
};

/*
 * headers_opt_add - parse "Name: value" and append it to @h.
 * On -EINVAL a sentence naming the problem is written to @err.
 *
 * Returns 0, -EINVAL (no ':', a name that is not a token, a forbidden name,
 * a control byte in the value) or -ENOMEM.
 */
int headers_opt_add(struct headers_opt *h, const char *spec, char *err,
                    size_t err_size);

/* Cache-Control is accepted (a _headers file sets it by path). */
#define HEADERS_OPT_CACHE_CONTROL 0x1

/*
 * headers_opt_add_flags - headers_opt_add, with HEADERS_OPT_* @flags.
 *
 * Returns what headers_opt_add returns.
 */
int headers_opt_add_flags(struct headers_opt *h, const char *spec,
                          unsigned flags, char *err, size_t err_size);

/*
 * headers_opt_add_security - append the --security-headers set, skipping
 * names already in @h. Call after every --header was added.
 *
 * Returns 0 or -ENOMEM.
 */
int headers_opt_add_security(struct headers_opt *h);

/*
 * headers_opt_owned - whether the field name of @len bytes at @name is one
 * the server sets itself (framing, the connection, representation metadata,
 * validators, digests, Date, Location, Allow, Vary, WWW-Authenticate, Age;
 * the list and its RFC sections are in headers_opt.c): its canonical
 * spelling, or NULL. Such a header can be neither added nor removed.
 */
const char *headers_opt_owned(const char *name, size_t len);

/* headers_opt_find - the value of @name in @h (case-insensitive) or NULL. */
const char *headers_opt_find(const struct headers_opt *h, const char *name);

/* headers_opt_free - release what @h owns; @h may be zeroed or NULL. */
void headers_opt_free(struct headers_opt *h);

#endif
