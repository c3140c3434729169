/* SPDX-License-Identifier: MIT */
/*
 * lexer.h - split one line of a "key = value" file (conf-internal).
 */
#ifndef CONF_LEXER_H
#define CONF_LEXER_H

#include <stddef.h>

enum lexer_kind {
    LEXER_BLANK, /* empty, only spaces, or a '#' comment */
    LEXER_PAIR,  /* *key and *val point into the line, NUL-terminated */
    LEXER_ERROR, /* the message is in err */
};

/*
 * lexer_split - split @line (@len bytes, modified in place, without the
 * newline, no NUL inside) into a key and a value. Spaces and tabs around the
 * key, the '=' and the value are dropped; a value in "..." keeps its spaces and
 * takes the escapes \" and \\. An empty value ("key =" or key = "") is returned
 * as a pair with *val == "", so the caller can name the key.
 *
 * Returns the kind of line; for LEXER_ERROR a message is written to @err.
 */
enum lexer_kind lexer_split(char *line, size_t len, char **key, char **val,
                            char *err, size_t errsize);

#endif
