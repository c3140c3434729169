/* SPDX-License-Identifier: MIT */
/*
 * utf8.c - well-formed UTF-8 sequences (utf8.h).
 */
#include "http/utf8.h"

size_t utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        return (s[1] & 0xc0) == 0x80 ? 2 : 0;
    if (c >= 0xe0 && c <= 0xef) {
        unsigned char lo = c == 0xe0 ? 0xa0 : 0x80;
        unsigned char hi = c == 0xed ? 0x9f : 0xbf; /* no surrogates */

        return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 ? 3 : 0;
    }
    if (c >= 0xf0 && c <= 0xf4) {
        unsigned char lo = c == 0xf0 ? 0x90 : 0x80;
        unsigned char hi = c == 0xf4 ? 0x8f : 0xbf; /* <= U+10FFFF */

        return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 &&
                       (s[3] & 0xc0) == 0x80
                   ? 4
                   : 0;
    }
    return 0;
}
