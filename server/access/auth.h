/* SPDX-License-Identifier: MIT */
/*
 * auth.h - HTTP Basic authentication from htpasswd files (--auth).
 *
 * Each rule is a set of path globs and an htpasswd file; the first rule
 * whose globs match the request's path (lexically normalised) decides, and
 * a path no rule matches needs no credentials. Passwords are checked with
 * libxcrypt's crypt_r against the stored hash and compared in constant
 * time. A success is remembered in a small cache keyed by a keyed SHA-256
 * of (user, password, stored hash), so bcrypt does not cost every request
 * of a logged-in browser; a wrong password is never cached, and a changed
 * hash (SIGHUP) makes the old entries unreachable. An unknown user costs a
 * crypt_r against another user's hash, so timing does not tell which
 * users exist.
 *
 * The files are read at start-up (every problem reported with FILE:LINE)
 * and again on SIGHUP; a file that cannot be read or has errors then keeps
 * the users it had, and the reason is logged.
 */
#ifndef BENEATH_ACCESS_AUTH_H
#define BENEATH_ACCESS_AUTH_H

#include "conf.h"

#include <stddef.h>

struct auth;

/*
 * auth_new - the rules of @c (auth items, auth_realm); messages about
 * unreadable or bad files go to stderr, "beneath: ..." each.
 * @out is NULL when no rule is configured.
 *
 * Returns the number of problems (0: ready), or -ENOMEM.
 */
int auth_new(const struct conf *c, struct auth **out);

/*
 * auth_check - whether the request for @path (normalised, "/a/b") with
 * the Authorization field value @authorization (NULL: none) may proceed.
 * On success with credentials, the user goes to @user (@size bytes; "" when
 * no rule applies).
 *
 * Returns 0 (go on) or 401.
 */
unsigned auth_check(struct auth *a, const char *path, const char *authorization,
                    char *user, size_t size);

/*
 * auth_rule - the rule that decides @path (normalised): the index of the
 * first rule whose globs match, or -1 when none does (no credentials
 * needed). @a may be NULL.
 */
int auth_rule(const struct auth *a, const char *path);

/*
 * auth_verify - whether @authorization (NULL: none) passes rule @rule (from
 * auth_rule); on success the user goes to @user (@size bytes).
 *
 * Returns 0 (go on) or 401.
 */
unsigned auth_verify(struct auth *a, int rule, const char *authorization,
                     char *user, size_t size);

/* auth_challenge - the WWW-Authenticate value to send with a 401. */
const char *auth_challenge(const struct auth *a);

/* auth_free - release @a; NULL is accepted. */
void auth_free(struct auth *a);

#endif
