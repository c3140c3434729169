// SPDX-License-Identifier: MIT
/*
 * urlpath.c - lexical path normalisation and percent-encoding.
 */
#include "syntax/urlpath.h"

#include "syntax/digits.h"
#include "syntax/errbuf.h"

#include <errno.h>
#include <string.h>

int urlpath_normalize(const char *path, bool slash, char *out, size_t size)
{
    size_t o = 0;
    const char *p = path;

    if (size < strlen(path) + 3)
        return -ENAMETOOLONG;
    out[o++] = '/';
    while (*p) {
        size_t n = strcspn(p, "/");

        if (n == 0 || (n == 1 && p[0] == '.')) {
            /* empty or "." */
        } else if (n == 2 && p[0] == '.' && p[1] == '.') {
            /* back to the '/' before the last component, none above root */
            if (o > 1) {
                o--;
                while (o > 1 && out[o - 1] != '/')
                    o--;
            }
        } else {
            memcpy(out + o, p, n);
            o += n;
            out[o++] = '/';
        }
        p += n;
        if (*p == '/')
            p++;
    }
    /* every component was written with a '/' after it */
    if (o > 1 && !slash)
        o--;
    out[o] = '\0';
    return 0;
}

static bool unreserved(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || (c != '\0' && strchr("-._~", c) != NULL);
}

static bool plain(unsigned char c, bool keep_slash)
{
    if (unreserved(c))
        return true;
    if (c == '/')
        return keep_slash;
    return strchr("!$&'()*+,;=:@", c) != NULL && c != '\0';
}

/* @c into @out, as it is when @as_is, else as "%HH"; the bytes written. */
static size_t put(unsigned char c, bool as_is, char *out)
{
    if (as_is) {
        out[0] = (char)c;
        return 1;
    }
    out[0] = '%';
    out[1] = DIGITS_HEX_UPPER[c >> 4];
    out[2] = DIGITS_HEX_UPPER[c & 15];
    return 3;
}

size_t urlpath_encode(const char *s, size_t len, bool keep_slash, char *out,
                      size_t size)
{
    size_t o = 0, written = 0;

    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        size_t need = plain(c, keep_slash) ? 1 : 3;

        /* whole escapes only: a cut one would read as another byte */
        if (written == o && o + need < size)
            written += put(c, need == 1, out + o);
        o += need;
    }
    if (size > 0)
        out[written] = '\0';
    return o;
}

size_t urlpath_encode_byte(unsigned char c, char out[3])
{
    return put(c, unreserved(c), out);
}

int urlpath_prefix_check(const char *prefix, size_t len, char *err, size_t size)
{
    const char *why = NULL;

    if (len < 2 || prefix[0] != '/')
        why = "a URL prefix starts with '/' and names a path below the root, "
              "as in /_static/js";
    else if (prefix[len - 1] == '/')
        why = "a URL prefix has no trailing '/'";
    for (size_t i = 1; !why && i <= len; i++) {
        size_t start = i;

        while (i < len && prefix[i] != '/') {
            if ((unsigned char)prefix[i] < 0x20 || prefix[i] == 0x7f)
                why = "a URL prefix has no control bytes";
            i++;
        }
        size_t n = i - start;
        if (!why &&
            (n == 0 || (n == 1 && prefix[start] == '.') ||
             (n == 2 && prefix[start] == '.' && prefix[start + 1] == '.')))
            why = "a URL prefix has no empty, '.' or '..' components";
    }
    if (!why)
        return 0;
    errbuf_say(err, size, "'%.*s': %s", (int)(len > 64 ? 64 : len), prefix,
               why);
    return -EINVAL;
}

bool urlpath_beneath(const char *prefix, size_t len, const char *path)
{
    return strncmp(path, prefix, len) == 0 &&
           (path[len] == '\0' || path[len] == '/');
}
