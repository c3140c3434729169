/* SPDX-License-Identifier: MIT */
/*
 * headers_file.h - the _headers file of Netlify and Cloudflare Pages:
 * response headers by path pattern.
 *
 * A line starting with '/' is a path pattern (pathpat.h); the indented
 * lines after it are its headers, "Name: value", or "! Name" to remove a
 * header an earlier matching rule (or --header, --security-headers) set.
 * '#' starts a comment line; blank lines are skipped. Every rule whose
 * pattern matches the request path applies, in file order; a header set by
 * two rules is sent twice (two field lines, which RFC 9110 5.3 makes equal
 * to one with the values joined by ", ", what Netlify sends). Names and
 * values are checked like --header's: a token name, no control bytes, and
 * none of the headers the server owns per response (Content-Type,
 * Content-Length, ETag, Location ...); Cache-Control is allowed, and wins
 * over --cache for the paths it names.
 *
 * Refused with FILE:LINE: a header line before any path, a pattern with a
 * host, a bad header, a line longer than HEADERS_FILE_LINE_MAX bytes, and
 * Netlify's "Basic-Auth: user:pass" (password protection there; here it
 * would be a header sent to everyone: the message never repeats the line).
 */
#ifndef BENEATH_SYNTAX_HEADERS_FILE_H
#define BENEATH_SYNTAX_HEADERS_FILE_H

#include "syntax/headers_opt.h"
#include "syntax/lines.h"
#include "syntax/pathpat.h"

#include <stddef.h>

/* Longest line accepted. */
#define HEADERS_FILE_LINE_MAX 8192
/* Header operations one response collects at most (more are dropped). */
#define HEADERS_FILE_OUT_MAX 64

struct headers_rule {
    struct pathpat path;
    struct headers_opt add; /* in file order */
    char **remove;          /* names of "! Name" lines */
    size_t n_remove;
    unsigned line;
};

struct headers_file {
    struct headers_rule *v;
    size_t n;
    struct pathpat_index ix;
};

/* The headers one path gets, borrowed from the file. */
struct headers_file_out {
    const struct headers_opt_header *add[HEADERS_FILE_OUT_MAX];
    size_t n_add;
    const char *removed[HEADERS_FILE_OUT_MAX]; /* also drop --header ones */
    size_t n_removed;
};

/*
 * headers_file_parse - parse @len bytes at @text into @h (zeroed before).
 * Messages go to @d as "@name:LINE: why".
 *
 * Returns 0, -EINVAL (at least one message; @h left empty) or -ENOMEM.
 */
int headers_file_parse(struct headers_file *h, const char *text, size_t len,
                       const char *name, struct lines_diag *d);

/*
 * headers_file_collect - the headers of every rule matching the normalised
 * @path, in order, each "! Name" dropping the ones before it.
 */
void headers_file_collect(const struct headers_file *h, const char *path,
                          struct headers_file_out *out);

/*
 * headers_file_removed - whether @out removes @name (case-insensitive),
 * for headers that come from elsewhere (--header).
 */
bool headers_file_removed(const struct headers_file_out *out, const char *name);

/* headers_file_free - release what @h owns; @h may be zeroed or NULL. */
void headers_file_free(struct headers_file *h);

#endif
