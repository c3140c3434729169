/* SPDX-License-Identifier: MIT */
/*
 * target.h - strict decoding of an HTTP request-target (RFC 9112 3.2).
 *
 * Works on the raw target as received (libmicrohttpd's url argument is
 * already unescaped and truncated at %00). It checks syntax only: ".." and
 * symlinks are left to the confined resolver.
 */
#ifndef BENEATH_HTTP_TARGET_H
#define BENEATH_HTTP_TARGET_H

#include <stdbool.h>
#include <stddef.h>

/* The method is OPTIONS: the asterisk-form "*" is allowed. */
#define TARGET_OPTIONS 0x1
/* Refuse hidden components (".git", ".env") as if missing, except a leading
 * ".well-known". */
#define TARGET_DENY_DOTFILES 0x2

struct target {
    const char *path;     /* decoded, every leading '/' stripped; "" is the
                             root */
    const char *raw_path; /* the path as received, for a redirect; leading
                             slashes merged so it never reads as "//host" */
    size_t raw_path_len;
    const char *query; /* after '?', not decoded; NULL without '?' */
    bool asterisk;     /* "OPTIONS *" */
    bool slash;        /* the path ends with '/' (or is the root) */
};

/*
 * target_decode - decode @raw into @t; the decoded path is written to @buf,
 * which must hold strlen(@raw) + 1 bytes (@size). @t points into @raw and
 * @buf afterwards.
 * Accepts origin-form ("/a/b?q") and absolute-form ("http://host/a?q": the
 * path is taken, the authority ignored), and "*" with TARGET_OPTIONS.
 *
 * Returns 0, or the HTTP status to answer: 400 for a malformed target (not
 * one of those forms, a bad or truncated %-escape, %00, a control byte, '#',
 * a space; "*" without TARGET_OPTIONS; @buf too small), 404 for a hidden
 * component under TARGET_DENY_DOTFILES.
 */
int target_decode(const char *raw, unsigned flags, char *buf, size_t size,
                  struct target *t);

/*
 * target_host - for an absolute-form request-target
 * ("http://Host:8080/x"), its authority normalised into @out (HOST_MAX
 * bytes, host_normalize): RFC 9112 3.2.2 has it override the Host field.
 *
 * Returns 0, -ENOENT (not absolute-form) or -EINVAL (garbage).
 */
int target_host(const char *raw, char *out);

#endif
