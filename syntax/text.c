// SPDX-License-Identifier: MIT
/*
 * text.c - characters as the value parsers see them.
 */
#include "syntax/text.h"

#include <string.h>
#include <strings.h>

bool text_is_tchar(unsigned char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
        (c >= '0' && c <= '9'))
        return true;
    return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

void text_trim(const char **p, const char **end)
{
    while (*p < *end && (**p == ' ' || **p == '\t'))
        (*p)++;
    while (*end > *p && ((*end)[-1] == ' ' || (*end)[-1] == '\t'))
        (*end)--;
}

bool text_has_ctl(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];

        if (c < 0x20 || c == 0x7f)
            return true;
    }
    return false;
}

bool text_token_is(const char *s, size_t len, const char *want)
{
    return strlen(want) == len && strncasecmp(s, want, len) == 0;
}
