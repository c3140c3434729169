/* SPDX-License-Identifier: MIT */
/*
 * listing_json.h - a directory listing as JSON (Accept: application/json).
 *
 * Output (one line, UTF-8):
 *   {"path":"/docs/","entries":[
 *     {"name":"a b.html","href":"a%20b.html","type":"file","size":12,
 *      "mtime":"2026-12-03T05:00:00Z"}, ...]}
 * - "type": "file", "dir", "symlink" or "other"; "href" of a dir ends in '/'.
 * - "mtime": RFC 3339, UTC, seconds.
 * - Strings are escaped per RFC 8259: '"' and '\\' with a backslash, control
 *   bytes as \b \f \n \r \t or \u00XX, DEL as \u007f.
 * - File names are bytes, JSON strings are Unicode. Policy: in "name" and
 *   "path" each byte that is not part of a well-formed UTF-8 sequence
 *   (overlong forms, surrogates and values above U+10FFFF count as invalid)
 *   becomes U+FFFD, so the document is always valid JSON; "href" is the
 *   percent-encoded raw bytes, so the link still reaches the exact file.
 */
#ifndef LISTING_JSON_H
#define LISTING_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

enum listing_json_type {
    LISTING_JSON_FILE,
    LISTING_JSON_DIR,
    LISTING_JSON_SYMLINK,
    LISTING_JSON_OTHER,
};

struct listing_json_entry {
    const char *name; /* one component, as bytes from readdir */
    enum listing_json_type type;
    uint64_t size;
    time_t mtime;
};

/*
 * listing_json_render - render @n entries of the directory at URL path
 * @path into a new NUL-terminated buffer owned by the caller (free(3)),
 * stored in @out with its length in @len.
 *
 * Returns 0 or -ENOMEM.
 */
int listing_json_render(const char *path,
                        const struct listing_json_entry *entries, size_t n,
                        char **out, size_t *len);

#endif
