// SPDX-License-Identifier: MIT
/*
 * coding.c - content codings by name.
 */
#include "syntax/coding.h"

#include "syntax/text.h"

#include <errno.h>
#include <string.h>

static const struct {
    const char *token;
    const char *suffix;
} codings[CODING_N] = {
    [CODING_BR] = {"br", ".br"},
    [CODING_ZSTD] = {"zstd", ".zst"},
    [CODING_GZIP] = {"gzip", ".gz"},
};

const char *coding_token(enum coding c)
{
    return (unsigned)c < CODING_N ? codings[c].token : "?";
}

const char *coding_suffix(enum coding c)
{
    return (unsigned)c < CODING_N ? codings[c].suffix : "";
}

int coding_list_parse(const char *list, enum coding *out, const char **bad,
                      size_t *bad_len)
{
    const char *p = list;
    int n = 0;
    unsigned seen = 0;

    if (strcmp(list, "off") == 0)
        return 0;
    for (;;) {
        const char *tok = p;
        size_t len = strcspn(p, ",");
        int c = -1;

        if (text_token_is(tok, len, "br"))
            c = CODING_BR;
        else if (text_token_is(tok, len, "zst") ||
                 text_token_is(tok, len, "zstd"))
            c = CODING_ZSTD;
        else if (text_token_is(tok, len, "gz") ||
                 text_token_is(tok, len, "gzip"))
            c = CODING_GZIP;
        if (c < 0 || (seen & (1u << c)) != 0) {
            if (bad != NULL)
                *bad = tok;
            if (bad_len != NULL)
                *bad_len = len;
            return -EINVAL;
        }
        seen |= 1u << c;
        out[n++] = (enum coding)c;
        p += len;
        if (*p == '\0')
            break;
        p++;
    }
    return n;
}
