// SPDX-License-Identifier: MIT
/*
 * digits.c - a character's value as a digit of an alphabet.
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
