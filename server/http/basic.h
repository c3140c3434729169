/* SPDX-License-Identifier: MIT */
/*
 * basic.h - the Basic authentication scheme (RFC 7617): the credentials of
 * an Authorization field value, and the WWW-Authenticate challenge.
 */
#ifndef BENEATH_HTTP_BASIC_H
#define BENEATH_HTTP_BASIC_H

#include <stddef.h>

/* Longest user name accepted (longer ones are refused, not cut). */
#define BASIC_USER_MAX 255

/*
 * basic_parse - split "Basic <base64 of user:password>" (the scheme name in
 * any case, one or more spaces, standard base64 with or without padding)
 * into *@user and *@password, both NUL-terminated inside @buf (@size bytes;
 * strlen(@value) is always enough). The user is everything before the
 * first ':' of the decoded text.
 *
 * Returns 0, or -EINVAL: another scheme, bad base64, no ':', an empty or
 * over-long user, a control byte (RFC 7617 2) or NUL in either part, or
 * @buf too small.
 */
int basic_parse(const char *value, char *buf, size_t size, const char **user,
                const char **password);

/*
 * basic_challenge - 'Basic realm="@realm", charset="UTF-8"' into @out, the
 * realm as a quoted-string ('"' and '\' escaped). Writes at most @size
 * bytes, always NUL-terminated when @size > 0.
 *
 * Returns the length the whole value needs (like snprintf).
 */
size_t basic_challenge(const char *realm, char *out, size_t size);

#endif
