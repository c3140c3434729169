// SPDX-License-Identifier: MIT
/*
 * digits.c - a character's value as a digit of an alphabet; a number's
 * decimal digits.
 */
#include "syntax/digits.h"

int digits_value(const char *alphabet, unsigned char c)
{
    for (int i = 0; alphabet[i] != '\0'; i++)
        if ((unsigned char)alphabet[i] == c)
            return i;
    return -1;
}

int digits_hex(unsigned char c)
{
    int v = digits_value(DIGITS_HEX_UPPER, c);

    return v >= 0 ? v : digits_value(DIGITS_HEX_LOWER, c);
}

size_t digits_u64(char buf[DIGITS_U64_LEN], uint64_t v)
{
    char tmp[DIGITS_U64_LEN];
    size_t n = 0;

    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
    return n;
}
