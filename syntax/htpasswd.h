/* SPDX-License-Identifier: MIT */
/*
 * htpasswd.h - the syntax of an Apache htpasswd file: "user:hash" lines.
 *
 * Accepted hashes, the ones libxcrypt's crypt_r checks slowly and with a
 * salt: bcrypt "$2y$"/"$2b$" (what htpasswd -B writes), SHA-512-crypt "$6$"
 * and yescrypt "$y$". Refused at load, each with FILE:LINE and the reason:
 * "{SHA}" (one unsalted SHA-1), MD5 "$apr1$" and "$1$", other crypt schemes
 * ("$5$", DES), and plain-text passwords. Blank lines (spaces only) and
 * lines starting with '#' are skipped. A user may appear once. A file without
 * users is an error: nobody could log in, which is never what was meant.
 *
 * Checking a password (crypt_r) is the server's business
 * (server/access/auth.c); this is the file's syntax only, libc only.
 */
#ifndef BENEATH_SYNTAX_HTPASSWD_H
#define BENEATH_SYNTAX_HTPASSWD_H

#include "syntax/lines.h"

#include <stddef.h>

/* Longest line accepted: a user name and a hash with room to spare. */
#define HTPASSWD_LINE_MAX 1024

enum htpasswd_scheme {
    HTPASSWD_BCRYPT,
    HTPASSWD_SHA512,
    HTPASSWD_YESCRYPT,
};

struct htpasswd_entry {
    const char *user; /* inside htpasswd.text */
    const char *hash;
    enum htpasswd_scheme scheme;
    unsigned line;
};

struct htpasswd {
    struct htpasswd_entry *v; /* sorted by user */
    size_t n;
    char *text; /* the file's bytes, NUL-split; owned */
};

/*
 * htpasswd_parse - parse @len bytes of @text (copied) into @h (zeroed
 * before). Messages go to @d as "@name:LINE: why".
 *
 * Returns 0, -EINVAL (at least one message; @h left empty) or -ENOMEM.
 */
int htpasswd_parse(struct htpasswd *h, const char *text, size_t len,
                   const char *name, struct lines_diag *d);

/* htpasswd_find - the entry of @user, or NULL. O(log n). */
const struct htpasswd_entry *htpasswd_find(const struct htpasswd *h,
                                           const char *user);

/* htpasswd_free - release what @h owns; @h may be zeroed or NULL. */
void htpasswd_free(struct htpasswd *h);

#endif
