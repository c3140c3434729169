/* SPDX-License-Identifier: MIT */
/*
 * lexer.h - split one line of a "key = value" file (conf-internal).
 */
#ifndef BENEATH_CONF_LEXER_H
#define BENEATH_CONF_LEXER_H

#include <stdbool.h>
#include <stddef.h>

enum lexer_kind {
    LEXER_BLANK, /* empty, only spaces, or a '#' comment */
    LEXER_PAIR,  /* key and val point into the line, NUL-terminated */
    LEXER_ERROR, /* the message is in err */
};

struct lexer_line {
    char *key;
    char *val;
    bool hash_kept; /* a bare value holds a '#' that starts no comment */
};

/*
 * lexer_split - split @line (@len bytes, modified in place, without the
 * newline, no NUL inside) into a key and a value. A '#' starts a comment at
 * the start of the line or after a space or tab outside quotes; anywhere else
 * it is part of the value (and hash_kept says so, for a warning). Spaces and
 * tabs around the key, the '=' and the value are dropped; a value in "..."
 * keeps its spaces and '#'s, takes the escapes \" and \\, and may be followed
 * by spaces and a comment. An empty value ("key =", key = "" or
 * "key = # note") is returned as a pair with val == "", so the caller can
 * name the key.
 *
 * Returns the kind of line; for LEXER_ERROR a message is written to @err.
 */
enum lexer_kind lexer_split(char *line, size_t len, struct lexer_line *out,
                            char *err, size_t errsize);

#endif
