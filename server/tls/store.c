// SPDX-License-Identifier: MIT
/*
 * store.c - one SSL_CTX per served name, looked up by SNI.
 *
 * Invariant: a struct set is immutable once it is current. Writers (one at
 * a time, put_lock) copy the current set with a reference on each context,
 * change one entry, publish the copy under the write lock and release the
 * old set after it; readers hold the read lock only for the lookup and the
 * SSL_new or SSL_set_SSL_CTX that takes its own reference on the context.
 * So no reader sees a set or a context being freed, and a context lives as
 * long as the last connection made from it.
 *
 * Resumption: each connection's session id context is a SHA-256 of the
 * certificate its context serves and of the SNI name it asked for (set in
 * tls_store_select, during the ClientHello, before OpenSSL looks at a
 * ticket). OpenSSL stores it in every session it issues and resumes a
 * session (a ticket, TLS 1.2 or 1.3) only under the same one: a session
 * issued for one name does not resume under another name, nor once the
 * name's certificate was replaced (the same certificate loaded again keeps
 * its sessions).
 */
#include "tls/store.h"

#include "syntax/host.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/sha.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
    char name[HOST_MAX]; /* "" for the default */
    SSL_CTX *ctx;
    /* SHA-256 of its leaf certificate (DER); zeros while pending */
    unsigned char cert[SHA256_DIGEST_LENGTH];
};

struct set {
    size_t n;
    struct entry v[];
};

struct tls_store {
    pthread_rwlock_t lock; /* readers of cur against its swap */
    struct set *cur;       /* never NULL */
    pthread_mutex_t put_lock;
    tls_store_setup_fn setup;
    void *setup_arg;
    tls_store_challenge_fn challenge;
    void *challenge_arg;
    int (*ondemand)(void *arg, const char *host);
    void *ondemand_arg;
};

static struct set *set_alloc(size_t n)
{
    struct set *t = calloc(1, sizeof *t + n * sizeof t->v[0]);

    if (t)
        t->n = n;
    return t;
}

static void set_free(struct set *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        SSL_CTX_free(t->v[i].ctx);
    free(t);
}

int tls_store_new(tls_store_setup_fn setup, void *arg, struct tls_store **out)
{
    struct tls_store *s = calloc(1, sizeof *s);

    *out = NULL;
    if (!s)
        return -ENOMEM;
    s->cur = set_alloc(0);
    if (!s->cur) {
        free(s);
        return -ENOMEM;
    }
    pthread_rwlock_init(&s->lock, NULL);
    pthread_mutex_init(&s->put_lock, NULL);
    s->setup = setup;
    s->setup_arg = arg;
    *out = s;
    return 0;
}

void tls_store_free(struct tls_store *s)
{
    if (!s)
        return;
    set_free(s->cur);
    pthread_mutex_destroy(&s->put_lock);
    pthread_rwlock_destroy(&s->lock);
    free(s);
}

/* OpenSSL's first queued error as text, after @what. */
static void fail(struct tls_material_diag *diag, const char *what)
{
    char why[256];
    unsigned long e = ERR_get_error();

    if (e)
        ERR_error_string_n(e, why, sizeof why);
    else
        snprintf(why, sizeof why, "no detail");
    ERR_clear_error();
    snprintf(diag->error, sizeof diag->error, "OpenSSL cannot use %s: %s", what,
             why);
}

/* The chain of @m into @ctx: the leaf, then each issuer. 0 or -EINVAL. */
static int use_chain(SSL_CTX *ctx, const struct tls_material *m,
                     struct tls_material_diag *diag)
{
    BIO *b = BIO_new_mem_buf(m->cert_pem, (int)m->cert_len);
    X509 *x = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
    int err = 0;

    if (!x || SSL_CTX_use_certificate(ctx, x) != 1) {
        fail(diag, "the certificate");
        err = -EINVAL;
    }
    X509_free(x);
    while (!err && (x = PEM_read_bio_X509(b, NULL, NULL, NULL))) {
        if (SSL_CTX_add0_chain_cert(ctx, x) != 1) {
            X509_free(x);
            fail(diag, "the certificate chain");
            err = -EINVAL;
        }
    }
    /* the end of the PEM text is an error in OpenSSL's queue */
    if (!err)
        ERR_clear_error();
    BIO_free(b);
    return err;
}

static int use_key(SSL_CTX *ctx, const struct tls_material *m,
                   struct tls_material_diag *diag)
{
    /* the keeper's key: its stub (keyless.h); else the PEM text */
    BIO *b = m->pkey ? NULL : BIO_new_mem_buf(m->key_pem, (int)m->key_len);
    EVP_PKEY *k = m->pkey && EVP_PKEY_up_ref(m->pkey) == 1 ? m->pkey
                  : b ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL)
                      : NULL;
    int err = 0;

    if (!k || SSL_CTX_use_PrivateKey(ctx, k) != 1 ||
        SSL_CTX_check_private_key(ctx) != 1) {
        fail(diag, "the private key");
        err = -EINVAL;
    }
    EVP_PKEY_free(k);
    BIO_free(b);
    return err;
}

/* A context for @m, configured by the setup function; NULL after @diag. */
static SSL_CTX *make_ctx(struct tls_store *s, const struct tls_material *m,
                         struct tls_material_diag *diag, int *err)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());

    if (!ctx) {
        fail(diag, "a new context");
        *err = -ENOMEM;
        return NULL;
    }
    *err = s->setup ? s->setup(ctx, s->setup_arg) : 0;
    if (*err)
        fail(diag, "the TLS settings");
    if (!*err)
        *err = use_chain(ctx, m, diag);
    if (!*err)
        *err = use_key(ctx, m, diag);
    if (*err) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

static const char *key_of(const char *name)
{
    return name ? name : "";
}

/* The index of @name in @t, or t->n. */
static size_t find(const struct set *t, const char *name)
{
    size_t i = 0;

    while (i < t->n && strcmp(t->v[i].name, name) != 0)
        i++;
    return i;
}

/*
 * Publish a copy of the current set with @name's entry set to @ctx (a
 * reference handed over), or removed when @ctx is NULL. Under put_lock.
 * 0 or -ENOMEM (then @ctx is released).
 */
static int replace(struct tls_store *s, const char *name, SSL_CTX *ctx)
{
    struct set *old = s->cur;
    size_t at = find(old, name);
    size_t n = old->n + (ctx && at == old->n) - (!ctx && at < old->n);
    struct set *t = set_alloc(n);
    size_t k = 0;

    if (!t) {
        SSL_CTX_free(ctx);
        return -ENOMEM;
    }
    for (size_t i = 0; i < old->n; i++) {
        if (i == at)
            continue;
        t->v[k] = old->v[i];
        SSL_CTX_up_ref(t->v[k].ctx);
        k++;
    }
    if (ctx) {
        X509 *leaf = SSL_CTX_get0_certificate(ctx);
        unsigned int len = 0;

        snprintf(t->v[k].name, sizeof t->v[k].name, "%s", name);
        t->v[k].ctx = ctx;
        if (!leaf || X509_digest(leaf, EVP_sha256(), t->v[k].cert, &len) != 1)
            memset(t->v[k].cert, 0, sizeof t->v[k].cert);
    }
    pthread_rwlock_wrlock(&s->lock);
    s->cur = t;
    pthread_rwlock_unlock(&s->lock);
    set_free(old);
    return 0;
}

int tls_store_put(struct tls_store *s, const char *name,
                  const struct tls_material *m, struct tls_material_diag *diag)
{
    int err;
    SSL_CTX *ctx = make_ctx(s, m, diag, &err);

    if (!ctx)
        return err;
    pthread_mutex_lock(&s->put_lock);
    err = replace(s, key_of(name), ctx);
    pthread_mutex_unlock(&s->put_lock);
    return err;
}

int tls_store_put_pending(struct tls_store *s, const char *name)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    int err = ctx ? 0 : -ENOMEM;

    if (!err && s->setup && s->setup(ctx, s->setup_arg) != 0)
        err = -EINVAL;
    ERR_clear_error();
    if (err) {
        SSL_CTX_free(ctx);
        return err;
    }
    pthread_mutex_lock(&s->put_lock);
    if (find(s->cur, key_of(name)) < s->cur->n)
        SSL_CTX_free(ctx);
    else
        err = replace(s, key_of(name), ctx);
    pthread_mutex_unlock(&s->put_lock);
    return err;
}

void tls_store_drop(struct tls_store *s, const char *name)
{
    pthread_mutex_lock(&s->put_lock);
    if (find(s->cur, key_of(name)) < s->cur->n)
        (void)replace(s, key_of(name), NULL);
    pthread_mutex_unlock(&s->put_lock);
}

void tls_store_keep_only(struct tls_store *s, const char *const *names,
                         size_t n)
{
    pthread_mutex_lock(&s->put_lock);
    for (size_t i = 0; i < s->cur->n;) {
        bool kept = false;
        for (size_t k = 0; k < n && !kept; k++)
            kept = strcmp(s->cur->v[i].name, key_of(names[k])) == 0;
        /* a failed drop (out of memory) keeps the entry: move on */
        if (kept || replace(s, s->cur->v[i].name, NULL) != 0)
            i++;
    }
    pthread_mutex_unlock(&s->put_lock);
}

bool tls_store_has(struct tls_store *s, const char *name)
{
    pthread_rwlock_rdlock(&s->lock);
    bool has = find(s->cur, key_of(name)) < s->cur->n;
    pthread_rwlock_unlock(&s->lock);
    return has;
}

/* The default entry, or the first one; NULL when empty. */
static const struct entry *default_entry(const struct set *t)
{
    size_t i = find(t, "");

    return i < t->n ? &t->v[i] : t->n ? &t->v[0] : NULL;
}

SSL *tls_store_new_ssl(struct tls_store *s)
{
    SSL *ssl = NULL;

    pthread_rwlock_rdlock(&s->lock);
    const struct entry *e = default_entry(s->cur);
    if (e)
        ssl = SSL_new(e->ctx);
    pthread_rwlock_unlock(&s->lock);
    return ssl;
}

/*
 * @ssl's session id context: SHA-256 of @e's certificate digest and @host
 * (the normalised SNI name, "" without one). False if it could not be set.
 */
static bool bind_sessions(SSL *ssl, const struct entry *e, const char *host)
{
    unsigned char sid[SHA256_DIGEST_LENGTH];
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    bool ok = md && EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1 &&
              EVP_DigestUpdate(md, e->cert, sizeof e->cert) == 1 &&
              EVP_DigestUpdate(md, host, strlen(host) + 1) == 1 &&
              EVP_DigestFinal_ex(md, sid, NULL) == 1 &&
              SSL_set_session_id_context(ssl, sid, sizeof sid) == 1;

    EVP_MD_CTX_free(md);
    return ok;
}

int tls_store_select(struct tls_store *s, SSL *ssl, const char *servername)
{
    char host[HOST_MAX] = "";
    size_t best = 0;
    const struct entry *e = NULL;
    int err = 0;

    if (servername && (strlen(servername) >= sizeof host ||
                       host_normalize(servername, host) != 0))
        host[0] = '\0';
    pthread_rwlock_rdlock(&s->lock);
    for (size_t i = 0; host[0] && i < s->cur->n; i++) {
        const struct entry *c = &s->cur->v[i];
        size_t q = c->name[0] ? host_pattern_match(c->name, host) : 0;
        if (q > best) {
            best = q;
            e = c;
        }
    }
    if (!e && host[0] && s->ondemand &&
        s->ondemand(s->ondemand_arg, host) > 0) {
        /* its certificate is being got: the ClientHello is asked again */
        pthread_rwlock_unlock(&s->lock);
        return -EAGAIN;
    }
    if (!e)
        e = default_entry(s->cur);
    /* SSL_set_SSL_CTX takes its own reference */
    if (e && e->ctx != SSL_get_SSL_CTX(ssl) && !SSL_set_SSL_CTX(ssl, e->ctx))
        err = -ENOMEM;
    if (!err && e && !bind_sessions(ssl, e, host))
        err = -ENOMEM;
    pthread_rwlock_unlock(&s->lock);
    return err;
}

void tls_store_set_challenge(struct tls_store *s, tls_store_challenge_fn fn,
                             void *arg)
{
    s->challenge = fn;
    s->challenge_arg = arg;
}

int tls_store_challenge(struct tls_store *s, SSL *ssl, const char *servername)
{
    char host[HOST_MAX];
    X509 *x = NULL;
    EVP_PKEY *k = NULL;
    int err = -ENOENT;

    if (!s->challenge || !servername || strlen(servername) >= sizeof host ||
        host_normalize(servername, host) != 0 ||
        s->challenge(s->challenge_arg, host, &x, &k) != 0)
        return -ENOENT;
    if (SSL_use_certificate(ssl, x) == 1 && SSL_use_PrivateKey(ssl, k) == 1)
        err = 0;
    ERR_clear_error();
    X509_free(x);
    EVP_PKEY_free(k);
    return err;
}

void tls_store_set_ondemand(struct tls_store *s,
                            int (*fn)(void *arg, const char *host), void *arg)
{
    s->ondemand = fn;
    s->ondemand_arg = arg;
}
