// SPDX-License-Identifier: MIT
/*
 * htpasswd.c - parse htpasswd files (rules in htpasswd.h).
 *
 * The file is copied once and split in place, so 100,000 users cost one
 * allocation for the text and one for the entries; lookups are a binary
 * search over the entries sorted by user. Duplicates are found after the
 * sort, next to each other, and reported with both line numbers.
 */
#include "syntax/htpasswd.h"

#include "syntax/text.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* crypt(3)'s alphabet: "./0-9A-Za-z" */
static bool crypt_chars(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char c = s[i];

        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '.' || c == '/'))
            return false;
    }
    return true;
}

/* "$2y$10$" + 53 characters: 22 of salt, 31 of hash */
static bool bcrypt_ok(const char *h, size_t len)
{
    return len == 60 && h[3] == '$' && h[4] >= '0' && h[4] <= '3' &&
           h[5] >= '0' && h[5] <= '9' &&
           (h[4] - '0') * 10 + (h[5] - '0') >= 4 &&
           (h[4] - '0') * 10 + (h[5] - '0') <= 31 && h[6] == '$' &&
           crypt_chars(h + 7, 53);
}

/* "$6$[rounds=N$]salt$" + 86 characters */
static bool sha512_ok(const char *h, size_t len)
{
    const char *p = h + 3, *end = h + len, *d;

    if (len > 3 + 7 && strncmp(p, "rounds=", 7) == 0) {
        p += 7;
        const char *q = p;
        while (q < end && *q >= '0' && *q <= '9')
            q++;
        if (q == p || q >= end || *q != '$')
            return false;
        p = q + 1;
    }
    d = memchr(p, '$', (size_t)(end - p));
    if (!d || d == p || d - p > 16 || !crypt_chars(p, (size_t)(d - p)))
        return false;
    return end - d - 1 == 86 && crypt_chars(d + 1, 86);
}

/* "$y$params$salt$hash": three non-empty fields, 43 characters of hash */
static bool yescrypt_ok(const char *h, size_t len)
{
    const char *p = h + 3, *end = h + len;

    for (int field = 0; field < 2; field++) {
        const char *d = memchr(p, '$', (size_t)(end - p));

        if (!d || d == p || !crypt_chars(p, (size_t)(d - p)))
            return false;
        p = d + 1;
    }
    return end - p == 43 && crypt_chars(p, 43);
}

/*
 * The scheme of the hash of @len bytes at @h, or -1 with the reason in
 * *@why.
 */
static int scheme_of(const char *h, size_t len, const char **why)
{
    if (len == 0) {
        *why = "empty hash (no password can match it)";
        return -1;
    }
    if (strncmp(h, "$2y$", 4) == 0 || strncmp(h, "$2b$", 4) == 0) {
        if (bcrypt_ok(h, len))
            return HTPASSWD_BCRYPT;
        *why = "malformed bcrypt hash (want $2y$CC$ and 53 characters)";
        return -1;
    }
    if (strncmp(h, "$6$", 3) == 0) {
        if (sha512_ok(h, len))
            return HTPASSWD_SHA512;
        *why = "malformed SHA-512-crypt hash";
        return -1;
    }
    if (strncmp(h, "$y$", 3) == 0) {
        if (yescrypt_ok(h, len))
            return HTPASSWD_YESCRYPT;
        *why = "malformed yescrypt hash";
        return -1;
    }
    if (strncmp(h, "{SHA}", 5) == 0)
        *why = "{SHA} is one unsalted SHA-1, refused: re-create the entry "
               "with htpasswd -B";
    else if (strncmp(h, "$apr1$", 6) == 0)
        *why = "MD5 ($apr1$) is refused: re-create the entry with "
               "htpasswd -B";
    else if (strncmp(h, "$1$", 3) == 0)
        *why = "MD5-crypt ($1$) is refused: re-create the entry with "
               "htpasswd -B";
    else if (strncmp(h, "$2a$", 4) == 0 || strncmp(h, "$2x$", 4) == 0)
        *why = "this bcrypt variant is refused: re-create the entry with "
               "htpasswd -B ($2y$)";
    else if (h[0] == '$')
        *why = "unsupported hash scheme (accepted: bcrypt $2y$/$2b$, "
               "SHA-512-crypt $6$, yescrypt $y$)";
    else
        *why = "a plain-text or DES-crypt password is refused: re-create "
               "the entry with htpasswd -B";
    return -1;
}

static int by_user(const void *a, const void *b)
{
    const struct htpasswd_entry *x = a, *y = b;
    int c = strcmp(x->user, y->user);

    if (c)
        return c;
    return x->line < y->line ? -1 : x->line > y->line;
}

int htpasswd_parse(struct htpasswd *h, const char *text, size_t len,
                   const char *name, struct lines_diag *d)
{
    const struct lines_how how = {HTPASSWD_LINE_MAX, true, name, d};
    struct lines l;
    const char *line;
    size_t n, sp, cap = lines_count(text, len);
    size_t before = lines_diag_count(d);
    int err = -ENOMEM;

    memset(h, 0, sizeof *h);
    h->text = malloc(len + 1);
    h->v = calloc(cap, sizeof *h->v);
    if (!h->text || !h->v)
        goto out_free;
    memcpy(h->text, text, len);
    h->text[len] = '\0';
    lines_init(&l, h->text, len);
    while (lines_entry(&l, &how, &line, &n, &sp)) {
        char *ln = h->text + (line - h->text);
        const char *colon, *why = NULL;
        int scheme;

        colon = memchr(line, ':', n);
        if (!colon) {
            lines_diag_add(d, name, l.lineno, "expected USER:HASH");
            continue;
        }
        if (colon == line || text_has_ctl(line, (size_t)(colon - line))) {
            lines_diag_add(d, name, l.lineno,
                           colon == line ? "empty user name"
                                         : "control character in the user "
                                           "name");
            continue;
        }
        size_t hlen = n - (size_t)(colon - line) - 1;
        if (memchr(colon + 1, ':', hlen)) {
            lines_diag_add(d, name, l.lineno,
                           "more than one ':' (want USER:HASH)");
            continue;
        }
        scheme = scheme_of(colon + 1, hlen, &why);
        if (scheme < 0) {
            lines_diag_add(d, name, l.lineno, "user '%.*s': %s",
                           (int)((colon - line) > 64 ? 64 : (colon - line)),
                           line, why);
            continue;
        }
        ln[colon - line] = '\0';
        ln[n] = '\0'; /* over the '\n' or '\r' (or the final NUL) */
        h->v[h->n++] = (struct htpasswd_entry){
            .user = ln,
            .hash = colon + 1,
            .scheme = (enum htpasswd_scheme)scheme,
            .line = l.lineno,
        };
    }
    qsort(h->v, h->n, sizeof *h->v, by_user);
    for (size_t i = 1; i < h->n; i++)
        if (strcmp(h->v[i].user, h->v[i - 1].user) == 0)
            lines_diag_add(d, name, h->v[i].line,
                           "user '%.64s' is already defined at line %u",
                           h->v[i].user, h->v[i - 1].line);
    if (h->n == 0 && lines_diag_count(d) == before)
        lines_diag_add(d, name, 1, "no users: nobody could log in");
    err = lines_diag_verdict(d, before);
out_free:
    if (err < 0)
        htpasswd_free(h);
    return err;
}

const struct htpasswd_entry *htpasswd_find(const struct htpasswd *h,
                                           const char *user)
{
    size_t lo = 0, hi = h->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(user, h->v[mid].user);

        if (c == 0)
            return &h->v[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

void htpasswd_free(struct htpasswd *h)
{
    if (!h)
        return;
    free(h->v);
    free(h->text);
    memset(h, 0, sizeof *h);
}
