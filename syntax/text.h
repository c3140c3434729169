/* SPDX-License-Identifier: MIT */
/*
 * text.h - what every value parser asks of a piece of text: the blanks
 * around an item, control bytes, token characters (RFC 9110 5.6.2) and a
 * word compared without regard to case. The same questions for a header
 * field, an option value and a line of a rule file, so one answer.
 */
#ifndef BENEATH_SYNTAX_TEXT_H
#define BENEATH_SYNTAX_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* text_is_tchar - whether @c may appear in a token (RFC 9110 5.6.2). */
bool text_is_tchar(unsigned char c);

/* text_trim - move *@p past leading and *@end before trailing spaces and
 * tabs of the bytes [*@p, *@end). */
void text_trim(const char **p, const char **end);

/* text_has_ctl - whether the @len bytes at @s hold a control character
 * (0x00-0x1f or DEL). */
bool text_has_ctl(const char *s, size_t len);

/* text_token_is - whether @s of @len bytes is @want, ignoring case. */
bool text_token_is(const char *s, size_t len, const char *want);

#endif
