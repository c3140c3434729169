/* SPDX-License-Identifier: MIT */
/*
 * utf8.h - where a byte string holds well-formed UTF-8 (RFC 3629): the
 * listings and the access log pass such sequences through and escape or
 * replace every other byte.
 */
#ifndef BENEATH_HTTP_UTF8_H
#define BENEATH_HTTP_UTF8_H

#include <stddef.h>

/*
 * utf8_len - the length of the well-formed UTF-8 sequence at @s: 1 for an
 * ASCII byte (NUL included), 2 to 4, or 0 for a byte that starts none
 * (overlong forms, surrogates and code points past U+10FFFF are not
 * well-formed). Reads no further than the first byte that breaks the
 * sequence, so never past a string's NUL.
 */
size_t utf8_len(const unsigned char *s);

#endif
