// SPDX-License-Identifier: MIT
/*
 * basic.c - decode Basic credentials, write the challenge.
 *
 * The decoder is strict where leniency could make two different byte
 * strings mean the same credentials (characters outside the alphabet, data
 * after padding) and lenient only about the padding itself, which some
 * clients leave out.
 */
#include "http/basic.h"

#include "syntax/digits.h"
#include "syntax/text.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Decode @len base64 characters into @out; the byte count, or -1. */
static long b64decode(const char *s, size_t len, char *out, size_t size)
{
    size_t n = 0, pad = 0;
    unsigned acc = 0, bits = 0;

    while (pad < 2 && len > 0 && s[len - 1] == '=') {
        len--;
        pad++;
    }
    if ((len + pad) % 4 != 0 && pad > 0)
        return -1;
    if (len % 4 == 1)
        return -1;
    for (size_t i = 0; i < len; i++) {
        int v = digits_value(DIGITS_BASE64, (unsigned char)s[i]);

        if (v < 0)
            return -1;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (n >= size)
                return -1;
            out[n++] = (char)((acc >> bits) & 0xff);
        }
    }
    /* the leftover bits of the last character must be zero */
    if (bits > 0 && (acc & ((1u << bits) - 1)) != 0)
        return -1;
    return (long)n;
}

int basic_parse(const char *value, char *buf, size_t size, const char **user,
                const char **password)
{
    const char *p = value, *colon;
    size_t len;
    long n;

    if (strncasecmp(p, "Basic", 5) != 0 || (p[5] != ' ' && p[5] != '\t'))
        return -EINVAL;
    p += 5;
    while (*p == ' ' || *p == '\t')
        p++;
    len = strlen(p);
    while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
        len--;
    if (len == 0 || size == 0)
        return -EINVAL;
    n = b64decode(p, len, buf, size - 1);
    if (n < 0)
        return -EINVAL;
    buf[n] = '\0';
    colon = memchr(buf, ':', (size_t)n);
    if (!colon || colon == buf || colon - buf > BASIC_USER_MAX ||
        text_has_ctl(buf, (size_t)n))
        return -EINVAL;
    buf[colon - buf] = '\0';
    *user = buf;
    *password = colon + 1;
    return 0;
}

size_t basic_challenge(const char *realm, char *out, size_t size)
{
    char esc[512];
    size_t e = 0;

    for (const char *r = realm; *r && e + 2 < sizeof esc; r++) {
        if (*r == '"' || *r == '\\')
            esc[e++] = '\\';
        esc[e++] = *r;
    }
    esc[e] = '\0';
    int n = snprintf(out, size, "Basic realm=\"%s\", charset=\"UTF-8\"", esc);
    return n < 0 ? 0 : (size_t)n;
}
