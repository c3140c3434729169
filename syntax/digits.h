/* SPDX-License-Identifier: MIT */
/*
 * digits.h - the alphabets of hex (RFC 3986 2.1 percent-encoding) and
 * base64 (RFC 4648 4), and the value of a character as one of their digits:
 * the encoders write a digit as its alphabet's character, the decoders read
 * it back as its index there.
 */
#ifndef BENEATH_SYNTAX_DIGITS_H
#define BENEATH_SYNTAX_DIGITS_H

#include <stddef.h>
#include <stdint.h>

#define DIGITS_HEX_UPPER "0123456789ABCDEF"
#define DIGITS_HEX_LOWER "0123456789abcdef"
#define DIGITS_BASE64                                                          \
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

/* digits_value - the index of @c in @alphabet, or -1 (NUL is no digit). */
int digits_value(const char *alphabet, unsigned char c);

/* digits_hex - the value of the hex digit @c in either case, or -1. */
int digits_hex(unsigned char c);

/* DIGITS_U64_LEN - room for any uint64_t in decimal, with its NUL. */
#define DIGITS_U64_LEN 21

/* digits_u64 - @v in decimal into @buf, NUL-terminated (printf's "%llu",
 * without its cost on a per-reply path); its length. */
size_t digits_u64(char buf[DIGITS_U64_LEN], uint64_t v);

#endif
