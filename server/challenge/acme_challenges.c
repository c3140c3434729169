/* SPDX-License-Identifier: MIT */
/*
 * acme_challenges.c - the challenge material in memory: HTTP-01 tokens and
 * their key authorizations, TLS-ALPN-01 names and their certificates. A
 * handful of entries live at once (one per name being validated), so a
 * plain array under one read-write lock serves: the serving threads take
 * the read side, the ACME thread the write side for a few microseconds.
 */
#include "challenge/acme_challenges.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct entry {
    char *key; /* the token (HTTP-01) or the name (TLS-ALPN-01) */
    char *keyauth;
    X509 *cert; /* TLS-ALPN-01 only */
    EVP_PKEY *pkey;
};

struct acme_challenges {
    pthread_rwlock_t lock;
    struct entry *v;
    size_t n, cap;
    struct acme_challenges_mirror mirror; /* set before the writer runs */
};

void acme_challenges_set_mirror(struct acme_challenges *ch,
                                const struct acme_challenges_mirror *m)
{
    ch->mirror = *m;
}

struct acme_challenges *acme_challenges_new(void)
{
    struct acme_challenges *ch = calloc(1, sizeof *ch);

    if (ch && pthread_rwlock_init(&ch->lock, NULL) != 0) {
        free(ch);
        ch = NULL;
    }
    return ch;
}

static void entry_free(struct entry *e)
{
    free(e->key);
    free(e->keyauth);
    X509_free(e->cert);
    EVP_PKEY_free(e->pkey);
}

void acme_challenges_free(struct acme_challenges *ch)
{
    if (ch == NULL)
        return;
    for (size_t i = 0; i < ch->n; i++)
        entry_free(&ch->v[i]);
    free(ch->v);
    pthread_rwlock_destroy(&ch->lock);
    free(ch);
}

/* The entry of @key, or NULL; a TLS-ALPN-01 entry has a certificate. */
static struct entry *find(struct acme_challenges *ch, const char *key,
                          bool alpn)
{
    for (size_t i = 0; i < ch->n; i++) {
        struct entry *e = &ch->v[i];

        if ((e->cert != NULL) != alpn)
            continue;
        if (alpn ? strcasecmp(e->key, key) == 0 : strcmp(e->key, key) == 0)
            return e;
    }
    return NULL;
}

int acme_http01_lookup(struct acme_challenges *ch, const char *token, char *buf,
                       size_t size)
{
    struct entry *e;
    int r = -ENOENT;

    pthread_rwlock_rdlock(&ch->lock);
    e = find(ch, token, false);
    if (e) {
        size_t len = strlen(e->keyauth);

        r = -ENOSPC;
        if (len < size) {
            memcpy(buf, e->keyauth, len + 1);
            r = (int)len;
        }
    }
    pthread_rwlock_unlock(&ch->lock);
    return r;
}

int acme_tlsalpn01_lookup(struct acme_challenges *ch, const char *name,
                          X509 **cert, EVP_PKEY **key)
{
    struct entry *e;
    int r = -ENOENT;

    pthread_rwlock_rdlock(&ch->lock);
    e = find(ch, name, true);
    if (e && X509_up_ref(e->cert) == 1) {
        if (EVP_PKEY_up_ref(e->pkey) == 1) {
            *cert = e->cert;
            *key = e->pkey;
            r = 0;
        } else {
            X509_free(e->cert);
        }
    }
    pthread_rwlock_unlock(&ch->lock);
    return r;
}

/* Put @ne in place of an entry of the same key and kind, or append it. */
static int put(struct acme_challenges *ch, struct entry *ne)
{
    struct entry *old;
    int r = 0;

    pthread_rwlock_wrlock(&ch->lock);
    old = find(ch, ne->key, ne->cert != NULL);
    if (old) {
        entry_free(old);
        *old = *ne;
    } else if (ch->n == ch->cap) {
        size_t cap = ch->cap ? 2 * ch->cap : 4;
        struct entry *v = realloc(ch->v, cap * sizeof *v);

        if (v == NULL) {
            r = -ENOMEM;
        } else {
            ch->v = v;
            ch->cap = cap;
        }
    }
    if (r == 0 && old == NULL)
        ch->v[ch->n++] = *ne;
    pthread_rwlock_unlock(&ch->lock);
    if (r < 0)
        entry_free(ne);
    return r;
}

/* Hold @keyauth under @key, with the certificate and key given (owned). */
static int put_new(struct acme_challenges *ch, const char *key,
                   const char *keyauth, X509 *cert, EVP_PKEY *pkey)
{
    struct entry e = {.cert = cert, .pkey = pkey};

    e.key = strdup(key);
    e.keyauth = strdup(keyauth);
    if (e.key == NULL || e.keyauth == NULL) {
        entry_free(&e);
        return -ENOMEM;
    }
    return put(ch, &e);
}

int acme_challenges_put_http01(struct acme_challenges *ch, const char *token,
                               const char *keyauth)
{
    if (token[0] == '\0' || strlen(keyauth) >= ACME_KEYAUTH_MAX)
        return -EINVAL;
    if (ch->mirror.put_http01)
        ch->mirror.put_http01(ch->mirror.arg, token, keyauth);
    return put_new(ch, token, keyauth, NULL, NULL);
}

int acme_challenges_put_cert(struct acme_challenges *ch, const char *name,
                             const char *keyauth, X509 *cert, EVP_PKEY *pkey)
{
    if (!cert || !pkey || name[0] == '\0' ||
        strlen(keyauth) >= ACME_KEYAUTH_MAX) {
        X509_free(cert);
        EVP_PKEY_free(pkey);
        return -EINVAL;
    }
    if (ch->mirror.put_cert)
        ch->mirror.put_cert(ch->mirror.arg, name, keyauth, cert, pkey);
    return put_new(ch, name, keyauth, cert, pkey);
}

static void drop(struct acme_challenges *ch, const char *key, bool alpn)
{
    struct entry *e;

    if (ch->mirror.drop)
        ch->mirror.drop(ch->mirror.arg, key, alpn);
    pthread_rwlock_wrlock(&ch->lock);
    e = find(ch, key, alpn);
    if (e) {
        entry_free(e);
        *e = ch->v[--ch->n];
    }
    pthread_rwlock_unlock(&ch->lock);
}

void acme_challenges_drop_http01(struct acme_challenges *ch, const char *token)
{
    drop(ch, token, false);
}

void acme_challenges_drop_tlsalpn01(struct acme_challenges *ch,
                                    const char *name)
{
    drop(ch, name, true);
}

size_t acme_challenges_count(struct acme_challenges *ch)
{
    size_t n;

    pthread_rwlock_rdlock(&ch->lock);
    n = ch->n;
    pthread_rwlock_unlock(&ch->lock);
    return n;
}
