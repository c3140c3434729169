/* SPDX-License-Identifier: MIT */
/*
 * coding.h - the content codings the server sends (RFC 9110 8.4.1): br,
 * zstd and gzip, each with its token (the Content-Encoding value) and the
 * suffix of its precompressed sidecar (FILE.br, FILE.zst, FILE.gz); and
 * the lists --precompressed and --compress take. negotiate.h picks among
 * them by a request's Accept-Encoding.
 */
#ifndef BENEATH_SYNTAX_CODING_H
#define BENEATH_SYNTAX_CODING_H

#include <stddef.h>

enum coding {
    CODING_BR,   /* "br", sidecar ".br" */
    CODING_ZSTD, /* "zstd", sidecar ".zst" */
    CODING_GZIP, /* "gzip" or "x-gzip", sidecar ".gz" */
    CODING_N,
};

/* coding_token - "br", "zstd", "gzip" (the Content-Encoding value). */
const char *coding_token(enum coding c);

/* coding_suffix - ".br", ".zst", ".gz" (the sidecar's file suffix). */
const char *coding_suffix(enum coding c);

/*
 * coding_list_parse - parse a --compress or --precompressed list:
 * "br,zstd,gzip" (also "zst", "gz", the sidecar suffixes), or "off" (empty
 * list). Duplicates are an error.
 * @out must hold CODING_N entries.
 *
 * Returns the number of codings (0 for "off"), or -EINVAL (then @bad, when
 * not NULL, points at the offending token, its length in @bad_len).
 */
int coding_list_parse(const char *list, enum coding *out, const char **bad,
                      size_t *bad_len);

#endif
