/* SPDX-License-Identifier: MIT */
/*
 * listing_json.h - a directory listing as JSON (Accept: application/json).
 *
 * Output (one line, UTF-8):
 *   {"path":"/docs/","entries":[
 *     {"name":"a b.html","href":"a%20b.html","type":"file","size":12,
 *      "mtime":"2026-12-03T05:00:00Z"}, ...]}
 * - "type": "file", "dir" or "other" (symlinks, FIFOs,
 *   sockets, devices); "href" of a dir ends in '/'.
 * - "mtime": RFC 3339, UTC, seconds.
 * - Only when the listing stopped at its bound (listing.h, LISTING_MAX):
 *   after "entries", "truncated":true and "total": the directory's entries.
 * - The entries come in the listing's order (by name unless the query
 *   asked for another, as for HTML).
 * - Strings are escaped per RFC 8259: '"' and '\\' with a backslash, control
 *   bytes as \b \f \n \r \t or \u00XX, DEL as \u007f.
 * - File names are bytes, JSON strings are Unicode. Policy: in "name" and
 *   "path" each byte that is not part of a well-formed UTF-8 sequence
 *   (overlong forms, surrogates and values above U+10FFFF count as invalid)
 *   becomes U+FFFD, so the document is always valid JSON; "href" is the
 *   percent-encoded raw bytes, so the link still reaches the exact file.
 */
#ifndef BENEATH_FILES_LISTING_JSON_H
#define BENEATH_FILES_LISTING_JSON_H

#include "files/listing.h"

#include <stddef.h>

/*
 * listing_json - render @l, the directory at root-relative @path ("" for
 * the root, else ending in '/'), into a new buffer @out (owned by the caller,
 * free(3)) of @len bytes.
 *
 * Returns 0 or -ENOMEM (nothing allocated then).
 */
int listing_json(const struct listing *l, const char *path, char **out,
                 size_t *len);

#endif
