/* SPDX-License-Identifier: MIT */
/*
 * lexer.c - the syntax of one line of beneath's "key = value" file: blank
 * lines and '#' comments, the key, the '=', and a bare or "quoted" value.
 * What the key and value mean is sources.c's business.
 */
#include "lexer.h"

#include <stdio.h>
#include <string.h>

static int is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r';
}

static char *trim(char *s, char *end)
{
    while (s < end && is_space(*s))
        s++;
    while (end > s && is_space(end[-1]))
        end--;
    *end = '\0';
    return s;
}

/* Where a comment starts in bare text @s (" #..."), or the end of @s. */
static char *comment_start(char *s)
{
    for (char *p = s; *p; p++) {
        if (*p == '#' && (p == s || is_space(p[-1])))
            return p;
    }
    return s + strlen(s);
}

/* Unquote "..." in place: s points at the opening quote. */
static enum lexer_kind unquote(char *s, char **val, char *err, size_t errsize)
{
    char *in = s + 1;
    char *out = s;

    *val = s;
    for (;;) {
        if (*in == '\0') {
            snprintf(err, errsize, "unterminated quote");
            return LEXER_ERROR;
        }
        if (*in == '"')
            break;
        if (*in == '\\') {
            if (in[1] != '"' && in[1] != '\\') {
                snprintf(err, errsize,
                         "unknown escape in quotes (only \\\" and \\\\)");
                return LEXER_ERROR;
            }
            in++;
        }
        *out++ = *in++;
    }
    in++;
    while (is_space(*in))
        in++;
    /* a comment after the closing quote needs a space before it */
    if (*in != '\0' && !(*in == '#' && is_space(in[-1]))) {
        snprintf(err, errsize, "text after the closing quote");
        return LEXER_ERROR;
    }
    *out = '\0';
    return LEXER_PAIR;
}

enum lexer_kind lexer_split(char *line, size_t len, struct lexer_line *out,
                            char *err, size_t errsize)
{
    char *s = trim(line, line + len);
    char *eq, *hash;

    out->hash_kept = false;
    if (*s == '\0' || *s == '#')
        return LEXER_BLANK;
    eq = strchr(s, '=');
    hash = comment_start(s);
    if (eq == NULL || hash < eq) {
        *hash = '\0';
        snprintf(err, errsize, "missing '=' after '%.64s'", trim(s, hash));
        return LEXER_ERROR;
    }
    out->key = trim(s, eq);
    if (*out->key == '\0') {
        snprintf(err, errsize, "missing key before '='");
        return LEXER_ERROR;
    }
    s = eq + 1;
    while (is_space(*s))
        s++;
    if (*s == '"')
        return unquote(s, &out->val, err, errsize);
    hash = comment_start(s);
    out->val = trim(s, hash);
    out->hash_kept = strchr(out->val, '#') != NULL;
    return LEXER_PAIR;
}
