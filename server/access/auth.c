// SPDX-License-Identifier: MIT
/*
 * auth.c - Basic authentication: htpasswd generations, crypt_r, the cache
 * of successful checks (see auth.h).
 *
 * Security decisions:
 * - The password is compared only by crypt_r's output against the stored
 *   hash, in constant time over the whole length; the decoded credentials
 *   are wiped from the stack before returning.
 * - The cache holds SHA-256(key || user || 0 || password || 0 || hash) with
 *   a random per-process key: never a password, and useless outside this
 *   process. A lookup compares in constant time.
 * - An unknown user is checked against the first user's hash, so it costs
 *   the same as a wrong password.
 */
#include "access/auth.h"

#include "access/slurp.h"
#include "http/basic.h"
#include "syntax/glob.h"
#include "syntax/htpasswd.h"
#include "syntax/lines.h"

#include <crypt.h>
#include <errno.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* Successful checks remembered per file (direct-mapped). */
#define AUTH_CACHE_SLOTS 256
/* An htpasswd file larger than this is refused (100,000 users fit). */
#define AUTH_FILE_MAX (64u << 20)

struct table {
    struct htpasswd pw;
    pthread_mutex_t lock;
    uint8_t cache[AUTH_CACHE_SLOTS][32];
    bool used[AUTH_CACHE_SLOTS];
};

struct rule {
    struct glob_set globs;
    char *file;
    struct table *table; /* NULL: the file could not be read */
};

struct auth {
    struct rule *v;
    size_t n;
    char challenge[512];
    uint8_t key[32];
    EVP_MD *sha256; /* fetched once: an implicit fetch costs every call */
};

static void table_free(void *p)
{
    struct table *t = p;

    if (!t)
        return;
    htpasswd_free(&t->pw);
    pthread_mutex_destroy(&t->lock);
    explicit_bzero(t->cache, sizeof t->cache);
    free(t);
}

/*
 * Load one htpasswd file; messages on stderr prefixed by @when ("" or
 * "SIGHUP: "). Returns 0 with *@out, or -errno.
 */
static int table_load(const char *file, const char *when, struct table **out)
{
    struct lines_diag d = {0};
    struct table *t;
    char *text = NULL, why[64];
    size_t len = 0;
    int err = slurp_path(file, AUTH_FILE_MAX, &text, &len);

    if (err) {
        fprintf(stderr, "beneath: %sauth: %s: %s%s\n", when, file,
                slurp_error(err, AUTH_FILE_MAX, why, sizeof why),
                when[0] ? "; keeping the users read before" : "");
        return err;
    }
    t = calloc(1, sizeof *t);
    if (!t) {
        free(text);
        return -ENOMEM;
    }
    pthread_mutex_init(&t->lock, NULL);
    err = htpasswd_parse(&t->pw, text, len, file, &d);
    explicit_bzero(text, len);
    free(text);
    for (size_t i = 0; i < d.n; i++)
        fprintf(stderr, "beneath: %sauth: %s\n", when, d.msgs[i]);
    if (d.dropped)
        fprintf(stderr, "beneath: %sauth: %s: %zu more problems\n", when, file,
                d.dropped);
    if (err == -EINVAL && when[0])
        fprintf(stderr, "beneath: %sauth: %s: keeping the users read before\n",
                when, file);
    lines_diag_free(&d);
    /* crypt_r must know every scheme the syntax let through */
    for (size_t i = 0; !err && i < t->pw.n; i++) {
        if (crypt_checksalt(t->pw.v[i].hash) != CRYPT_SALT_OK) {
            fprintf(stderr,
                    "beneath: %sauth: %s:%u: user '%.64s': this libxcrypt "
                    "cannot check the hash%s\n",
                    when, file, t->pw.v[i].line, t->pw.v[i].user,
                    when[0] ? "; keeping the users read before" : "");
            err = -EINVAL;
        }
    }
    if (err) {
        table_free(t);
        return err;
    }
    *out = t;
    return 0;
}

int auth_new(const struct conf *c, struct auth **out)
{
    struct auth *a;
    int problems = 0;

    *out = NULL;
    if (c->auth.n == 0)
        return 0;
    a = calloc(1, sizeof *a);
    if (!a)
        return -ENOMEM;
    a->v = calloc(c->auth.n, sizeof *a->v);
    a->sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
    if (!a->v || !a->sha256 ||
        getrandom(a->key, sizeof a->key, 0) != sizeof a->key) {
        auth_free(a);
        return -ENOMEM;
    }
    basic_challenge(c->auth_realm ? c->auth_realm : "beneath", a->challenge,
                    sizeof a->challenge);
    for (size_t i = 0; i < c->auth.n; i++) {
        const char *item = c->auth.v[i], *eq = strchr(item, '=');
        struct rule *r = &a->v[a->n];
        struct table *t = NULL;
        char err[256];

        /* conf checked the syntax; the globs are compiled again here */
        if (!eq || glob_set_parse(&r->globs, item, (size_t)(eq - item), err,
                                  sizeof err) != 0) {
            fprintf(stderr, "beneath: auth %s: bad globs\n", item);
            problems++;
            continue;
        }
        r->file = strdup(eq + 1);
        if (!r->file) {
            glob_set_free(&r->globs);
            auth_free(a);
            return -ENOMEM;
        }
        int e = table_load(r->file, "", &t);
        r->table = e == 0 ? t : NULL;
        if (e == -ENOMEM) {
            glob_set_free(&r->globs);
            free(r->file);
            auth_free(a);
            return -ENOMEM;
        }
        if (e)
            problems++;
        a->n++;
    }
    *out = a;
    return problems;
}

/* Equal in time that depends on the lengths only. */
static bool ct_equal(const char *a, size_t alen, const char *b, size_t blen)
{
    unsigned char diff = alen != blen;
    size_t n = alen < blen ? alen : blen;

    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}

static bool ct_equal32(const uint8_t *a, const uint8_t *b)
{
    uint8_t diff = 0;

    for (size_t i = 0; i < 32; i++)
        diff |= a[i] ^ b[i];
    return diff == 0;
}

static bool cache_key(const struct auth *a, const char *user,
                      const char *password, const char *hash, uint8_t out[32])
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned n = 0;
    bool ok = ctx && EVP_DigestInit_ex(ctx, a->sha256, NULL) &&
              EVP_DigestUpdate(ctx, a->key, sizeof a->key) &&
              EVP_DigestUpdate(ctx, user, strlen(user) + 1) &&
              EVP_DigestUpdate(ctx, password, strlen(password) + 1) &&
              EVP_DigestUpdate(ctx, hash, strlen(hash)) &&
              EVP_DigestFinal_ex(ctx, out, &n) && n == 32;

    EVP_MD_CTX_free(ctx);
    return ok;
}

/* Whether @password is @e's, by cache or crypt_r. */
static bool verify(const struct auth *a, struct table *t,
                   const struct htpasswd_entry *e, const char *user,
                   const char *password)
{
    const char *hash = e ? e->hash : t->pw.v[0].hash;
    uint8_t k[32];
    bool keyed = e && cache_key(a, user, password, hash, k), ok;
    size_t slot = keyed ? k[0] : 0;

    if (keyed) {
        pthread_mutex_lock(&t->lock);
        ok = t->used[slot] && ct_equal32(t->cache[slot], k);
        pthread_mutex_unlock(&t->lock);
        if (ok)
            return true;
    }
    struct crypt_data *cd = calloc(1, sizeof *cd);
    if (!cd)
        return false;
    const char *out = crypt_r(password, hash, cd);
    ok = e && out && out[0] != '*' &&
         ct_equal(out, strlen(out), e->hash, strlen(e->hash));
    explicit_bzero(cd, sizeof *cd);
    free(cd);
    if (ok && keyed) {
        pthread_mutex_lock(&t->lock);
        memcpy(t->cache[slot], k, 32);
        t->used[slot] = true;
        pthread_mutex_unlock(&t->lock);
    }
    explicit_bzero(k, sizeof k);
    return ok;
}

int auth_rule(const struct auth *a, const char *path)
{
    for (size_t i = 0; a && i < a->n; i++)
        if (glob_set_match(&a->v[i].globs, path))
            return (int)i;
    return -1;
}

unsigned auth_verify(struct auth *a, int rule, const char *authorization,
                     char *user, size_t size)
{
    const struct rule *r = &a->v[rule];
    struct table *t;
    const char *u, *p;
    char buf[1024];
    bool ok;

    /* a rule whose file never loaded lets nobody in */
    t = r->table;
    if (!t || t->pw.n == 0 || !authorization ||
        strlen(authorization) >= sizeof buf ||
        basic_parse(authorization, buf, sizeof buf, &u, &p) != 0)
        return 401;
    ok = verify(a, t, htpasswd_find(&t->pw, u), u, p);
    if (ok)
        snprintf(user, size, "%s", u);
    explicit_bzero(buf, sizeof buf);
    return ok ? 0 : 401;
}

unsigned auth_check(struct auth *a, const char *path, const char *authorization,
                    char *user, size_t size)
{
    int rule = auth_rule(a, path);

    if (size)
        user[0] = '\0';
    return rule < 0 ? 0 : auth_verify(a, rule, authorization, user, size);
}

const char *auth_challenge(const struct auth *a)
{
    return a->challenge;
}

void auth_free(struct auth *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->n; i++) {
        glob_set_free(&a->v[i].globs);
        free(a->v[i].file);
        table_free(a->v[i].table);
    }
    free(a->v);
    EVP_MD_free(a->sha256);
    explicit_bzero(a->key, sizeof a->key);
    free(a);
}
