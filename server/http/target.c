// SPDX-License-Identifier: MIT
/*
 * target.c - request-target decoding: syntax, escapes and the dotfile policy.
 *
 * Security decision: this file never interprets ".." or symlinks. The
 * decoded path goes to the resolver as is, and the resolver's confinement
 * decides. What is refused here is what no file name can hold (NUL) or what
 * makes the request ambiguous (control bytes, bad escapes). An encoded slash
 * (%2F) decodes to a separator: it names the same file as a real one.
 *
 * Every leading slash is dropped, as the resolver drops an empty component
 * inside the path: "//a" is "/a", as "/x//a" is "/x/a". A path handed to the
 * resolver is therefore always relative to the root; "//etc/passwd" names
 * the root's etc/passwd, and ".." still meets the resolver's confinement.
 */
#include "http/target.h"

#include "http/status.h"
#include "syntax/digits.h"
#include "syntax/host.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

static int ctl(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

/* "http://" or "https://", any case: the length of the scheme part or 0. */
static size_t scheme_len(const char *raw)
{
    if (strncasecmp(raw, "http://", 7) == 0)
        return 7;
    if (strncasecmp(raw, "https://", 8) == 0)
        return 8;
    return 0;
}

/* Whether decoded @path has a hidden component the policy denies. */
static int hidden(const char *path)
{
    const char *p = path;

    for (int first = 1; *p; first = 0) {
        const char *end = strchr(p, '/');
        size_t n = end ? (size_t)(end - p) : strlen(p);

        if (n > 0 && p[0] == '.' && !(n == 1) && !(n == 2 && p[1] == '.') &&
            !(first && n == 11 && memcmp(p, ".well-known", 11) == 0))
            return 1;
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

int target_decode(const char *raw, unsigned flags, char *buf, size_t size,
                  struct target *t)
{
    const char *p = raw;
    size_t n;

    memset(t, 0, sizeof *t);
    if (size < strlen(raw) + 1)
        return STATUS_BAD_REQUEST;
    if (strcmp(raw, "*") == 0) {
        if (!(flags & TARGET_OPTIONS))
            return STATUS_BAD_REQUEST;
        t->asterisk = 1;
        t->path = "";
        t->raw_path = raw;
        t->raw_path_len = 1;
        buf[0] = '\0';
        return 0;
    }
    if ((n = scheme_len(raw)) != 0) {
        /* absolute-form: skip the authority, keep the path */
        const char *auth = raw + n;
        size_t alen = strcspn(auth, "/?#");
        if (alen == 0)
            return STATUS_BAD_REQUEST;
        for (size_t i = 0; i < alen; i++)
            if (ctl((unsigned char)auth[i]) || auth[i] == ' ')
                return STATUS_BAD_REQUEST;
        p = auth + alen;
    } else if (raw[0] != '/') {
        /* authority-form or garbage */
        return STATUS_BAD_REQUEST;
    }

    t->raw_path = *p == '/' ? p : "/";
    t->raw_path_len = strcspn(p, "?");
    if (t->raw_path_len == 0)
        t->raw_path_len = 1;
    /* "//host/x" as a Location would be protocol-relative: an open redirect */
    while (t->raw_path_len > 1 && t->raw_path[1] == '/') {
        t->raw_path++;
        t->raw_path_len--;
    }
    const char *q = strchr(p, '?');
    if (q) {
        t->query = q + 1;
        for (const char *c = t->query; *c; c++)
            if (ctl((unsigned char)*c) || *c == ' ' || *c == '#')
                return STATUS_BAD_REQUEST;
    }

    char *o = buf;
    const char *end = q ? q : p + strlen(p);
    for (; p < end; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '%') {
            int hi = digits_hex((unsigned char)p[1]);
            int lo = hi < 0 ? -1 : digits_hex((unsigned char)p[2]);
            if (lo < 0)
                return STATUS_BAD_REQUEST;
            c = (unsigned char)(hi << 4 | lo);
            if (c == 0 || ctl(c))
                return STATUS_BAD_REQUEST;
            p += 2;
        } else if (ctl(c) || c == ' ' || c == '#') {
            return STATUS_BAD_REQUEST;
        }
        *o++ = (char)c;
    }
    *o = '\0';

    /* origin-form starts with '/', absolute-form may have no path; any
     * further leading '/' is an empty component like an inner "//" */
    t->path = buf;
    while (t->path[0] == '/')
        t->path++;
    t->slash = t->path[0] == '\0' || o[-1] == '/';
    if ((flags & TARGET_DENY_DOTFILES) && hidden(t->path))
        return STATUS_NOT_FOUND;
    return 0;
}

int target_host(const char *raw, char *out)
{
    size_t skip = scheme_len(raw), len;

    if (skip == 0)
        return -ENOENT;
    raw += skip;
    len = strcspn(raw, "/?#");
    /* userinfo is not part of a request-target's authority (RFC 9112) */
    if (memchr(raw, '@', len))
        return -EINVAL;
    return len == 0 ? -EINVAL : host_normalize_len(raw, len, out);
}
