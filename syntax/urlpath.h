/* SPDX-License-Identifier: MIT */
/*
 * urlpath.h - URL paths as rules see them: lexical normalisation for
 * matching, and percent-encoding for Location headers and listings' links.
 *
 * The resolver still receives the decoded path as it came (it is the one
 * that decides what ".." and symlinks mean on disk); rules (--auth globs,
 * _redirects, _headers) are matched against the normalised form so that
 * "/a/../private/x", "/private//x" and "/./private/x" all meet the rule
 * written for "/private/x". ".." clamps at the root, as the resolver's
 * IN_ROOT does (under BENEATH the resolver refuses such a path anyway).
 */
#ifndef BENEATH_SYNTAX_URLPATH_H
#define BENEATH_SYNTAX_URLPATH_H

#include <stdbool.h>
#include <stddef.h>

/*
 * urlpath_normalize - @path (decoded, without the leading '/', as
 * target_decode gives it) as "/a/b": '.' and empty components dropped, ".."
 * removing the one before it (none above the root). A trailing '/' is kept
 * when @slash (the request's path ended with one) and the result is not "/".
 * @out needs strlen(@path) + 3 bytes.
 *
 * Returns 0, or -ENAMETOOLONG when @size is too small.
 */
int urlpath_normalize(const char *path, bool slash, char *out, size_t size);

/*
 * urlpath_encode - percent-encode @len bytes of @s for a URL path: every
 * byte but unreserved, sub-delims, ':' and '@' becomes %HH, and '/' too
 * unless @keep_slash. Writes at most @size bytes, NUL-terminated when
 * @size > 0.
 *
 * Returns the length the whole encoding needs (like snprintf).
 */
size_t urlpath_encode(const char *s, size_t len, bool keep_slash, char *out,
                      size_t size);

/*
 * urlpath_encode_byte - @c where only unreserved characters (RFC 3986 2.3)
 * stay as they are: @c itself, or "%HH", in @out. The strict rule for a
 * name in a listing's links: the result means nothing to a path, a query,
 * HTML or JSON, so it goes into any of them unescaped.
 *
 * Returns the bytes written to @out: 1 or 3.
 */
size_t urlpath_encode_byte(unsigned char c, char out[3]);

/*
 * urlpath_prefix_check - whether the @len bytes at @prefix are a URL prefix
 * a path can be beneath (--mount): '/' then components, none empty, "." or
 * "..", no trailing '/', not "/" alone, no control byte. The reason of a
 * refusal goes to @err (@size bytes).
 *
 * Returns 0 or -EINVAL.
 */
int urlpath_prefix_check(const char *prefix, size_t len, char *err,
                         size_t size);

/*
 * urlpath_beneath - whether the normalised @path (urlpath_normalize) is
 * @prefix (@len bytes, as urlpath_prefix_check accepts) or beneath it, by
 * whole components: "/a/b" and "/a/b/c" are beneath "/a/b", "/a/bc" is not.
 */
bool urlpath_beneath(const char *prefix, size_t len, const char *path);

#endif
