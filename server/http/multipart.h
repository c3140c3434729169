/* SPDX-License-Identifier: MIT */
/*
 * multipart.h - the body of a multipart/byteranges 206 (RFC 9110 14.6,
 * RFC 2046 5.1), written in steps so that the caller streams it.
 *
 * The body is, for parts 1..n of a range set:
 *
 *   --BOUNDARY CRLF                      (CRLF --BOUNDARY CRLF from part 2)
 *   Content-Type: TYPE CRLF
 *   Content-Range: bytes FIRST-LAST/SIZE CRLF
 *   CRLF
 *   the file's bytes FIRST..LAST
 *   ... then CRLF --BOUNDARY-- CRLF
 *
 * The writer owns no file and no buffer: multipart_step hands out either
 * delimiter text (copied into the caller's buffer) or the offset and length
 * of file bytes for the caller to read itself (pread), so memory stays at
 * the caller's one buffer whatever the file size. The total length is known
 * up front, for Content-Length.
 */
#ifndef BENEATH_HTTP_MULTIPART_H
#define BENEATH_HTTP_MULTIPART_H

#include "http/range.h"

#include <stddef.h>
#include <stdint.h>

/* Random bytes a boundary is made of, and its length in hex digits. */
#define MULTIPART_RANDOM 16
#define MULTIPART_BOUNDARY_LEN 32 /* two hex digits per random byte */
/* Longest per-part Content-Type accepted. */
#define MULTIPART_TYPE_MAX 200
/* "multipart/byteranges; boundary=" and the boundary, with its NUL. */
#define MULTIPART_CTYPE_LEN (31 + MULTIPART_BOUNDARY_LEN + 1)

struct multipart {
    struct range_set set;
    uint64_t size;  /* the whole file's length, for Content-Range */
    uint64_t total; /* bytes of the whole body */
    char type[MULTIPART_TYPE_MAX + 1];
    char boundary[MULTIPART_BOUNDARY_LEN + 1];
};

/*
 * multipart_boundary - a boundary from @random (hex digits, so it can never
 * occur in a header and is unlikely in the data: 128 random bits).
 */
void multipart_boundary(const unsigned char random[MULTIPART_RANDOM],
                        char out[MULTIPART_BOUNDARY_LEN + 1]);

/*
 * multipart_init - plan the body of @set (at least one part, each inside
 * [0, @size)) with per-part Content-Type @type and @boundary (1..70
 * characters of RFC 2046's bchars without space) into @m, and its length
 * into @m->total.
 *
 * Returns 0, or -EINVAL for an empty set, a part outside the file, a @type
 * longer than MULTIPART_TYPE_MAX or with control bytes, or a bad boundary.
 */
int multipart_init(struct multipart *m, const struct range_set *set,
                   uint64_t size, const char *type, const char *boundary);

/* multipart_content_type - the response's Content-Type naming the boundary. */
void multipart_content_type(const struct multipart *m,
                            char out[MULTIPART_CTYPE_LEN]);

/*
 * multipart_step - the body at offset @pos: either delimiter text, up to
 * @max bytes copied to @buf (returns their count, > 0); or file bytes,
 * returned as 0 with *@file_off and *@file_len (1..@max) for the caller to
 * copy. At or past the end it returns 0 with *@file_len 0. @max > 0.
 */
size_t multipart_step(const struct multipart *m, uint64_t pos, char *buf,
                      size_t max, uint64_t *file_off, size_t *file_len);

#endif
