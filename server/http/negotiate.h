/* SPDX-License-Identifier: MIT */
/*
 * negotiate.h - Accept-Encoding negotiation for precompressed sidecars.
 *
 * The server keeps FILE.br, FILE.zst and FILE.gz next to FILE. This module
 * reads the client's Accept-Encoding (RFC 9110 12.5.3) and says, in order,
 * which sidecars to try; the server opens each one through the resolver and
 * falls back to the next, and finally to FILE itself (identity). It does no
 * I/O and allocates nothing.
 */
#ifndef BENEATH_HTTP_NEGOTIATE_H
#define BENEATH_HTTP_NEGOTIATE_H

#include "syntax/coding.h"

#include <stdbool.h>
#include <stddef.h>

/* q-values are kept in thousandths: 0 (refused) .. 1000; -1 not mentioned. */
struct negotiate_accept {
    int q[CODING_N];
    int identity; /* "identity" */
    int star;     /* "*" */
};

/*
 * negotiate_parse - parse an Accept-Encoding field value into @out.
 * @value may be NULL (no header: only identity is acceptable, as nginx's
 * gzip_static does; RFC 9110 allows any coding then, but a client that sends
 * nothing rarely decodes anything). Tokens are case-insensitive; "x-gzip" is
 * gzip; unknown codings are skipped; a list element with a malformed weight
 * ("q=2", "q=0.1234", "q=abc", a parameter other than q) is ignored as a whole;
 * the first mention of a coding wins over later ones.
 */
void negotiate_parse(const char *value, struct negotiate_accept *out);

/*
 * negotiate_qvalue - the effective q of @enc (thousandths): its own entry,
 * else the "*" entry, else 0 (not acceptable).
 */
int negotiate_qvalue(const struct negotiate_accept *a, enum coding enc);

/*
 * negotiate_order - the sidecars worth trying, best first.
 * @prefs/@n_prefs: the server's preference list (e.g. br, zstd, gzip); only
 * these are candidates. A candidate must have q > 0, and when identity has
 * a q of its own (an "identity" entry, else a "*" entry) at least that q: a
 * client that prefers the plain file gets it. Identity itself is always the
 * last resort, also when refused ("identity;q=0"): a plain 200 is more useful
 * than a 406. Candidates are sorted by q, highest first; equal q keeps the
 * server's order.
 * @out receives up to @n_prefs encodings.
 *
 * Returns the number written to @out (0: serve the plain file).
 */
size_t negotiate_order(const struct negotiate_accept *a,
                       const enum coding *prefs, size_t n_prefs,
                       enum coding *out);

/*
 * negotiate_compressible - whether a response of Content-Type @type is worth
 * a precompressed variant: text, JSON/XML/JavaScript, SVG, wasm, and fonts
 * that are not compressed already (ttf, otf). Images, archives, media and
 * woff/woff2 are compressed formats and never get a variant.
 */
bool negotiate_compressible(const char *type);

/*
 * negotiate_wants_json - whether a client sending @accept (NULL: none) asked
 * for JSON: an element "application/json" with q > 0 and none for
 * "text/html", which browsers always send.
 */
bool negotiate_wants_json(const char *accept);

#endif
