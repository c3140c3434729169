/* SPDX-License-Identifier: MIT */
/*
 * acme_challenges.h - the challenge material an ACME order needs answered,
 * kept in memory: what the serving threads read while the ACME thread
 * writes.
 *
 * HTTP-01 (RFC 8555 8.3): GET /.well-known/acme-challenge/TOKEN answers the
 * key authorization as text/plain, ahead of every access rule, redirect and
 * virtual host root. TLS-ALPN-01 (RFC 8737): a handshake that offers ALPN
 * "acme-tls/1" for a name gets the self-signed certificate made for it,
 * and nothing else is served on that connection.
 *
 * Every function is thread-safe (one read-write lock). Lookups copy out or
 * take a reference, so nothing a reader holds can be freed under it.
 *
 * A library of its own (beneath_acme_challenges: libc, pthread and
 * OpenSSL's libcrypto for the reference counts), apart from beneath_acme,
 * so that the serving layers (respond/ answers HTTP-01) link no libcurl:
 * the certificate of TLS-ALPN-01 is made in beneath_acme
 * (acme_challenges_put_tlsalpn01, acme/acme.h) and handed over here.
 */
#ifndef BENEATH_CHALLENGE_ACME_CHALLENGES_H
#define BENEATH_CHALLENGE_ACME_CHALLENGES_H

#include <openssl/evp.h>
#include <openssl/x509.h>
#include <stddef.h>

/* The URL path prefix of HTTP-01 tokens. */
#define ACME_HTTP01_PREFIX "/.well-known/acme-challenge/"
/* The ALPN protocol id of TLS-ALPN-01 (RFC 8737 6.2). */
#define ACME_TLSALPN01_PROTOCOL "acme-tls/1"
/* Longest key authorization: a token (<= 128) "." a thumbprint (43). */
#define ACME_KEYAUTH_MAX 256

struct acme_challenges;

/*
 * acme_challenges_new - an empty store. Owned by the server, which gives it
 * to acme_open (the ACME side writes) and to the serving threads (they
 * read); released with acme_challenges_free after both are done.
 * Returns the store or NULL (out of memory).
 */
struct acme_challenges *acme_challenges_new(void);
void acme_challenges_free(struct acme_challenges *ch);

/*
 * acme_http01_lookup - the key authorization for @token (the path segment
 * after ACME_HTTP01_PREFIX), copied NUL-terminated into @buf of @size bytes
 * (ACME_KEYAUTH_MAX is enough).
 * Returns its length, -ENOENT when no order waits on @token (answer 404),
 * or -ENOSPC.
 */
int acme_http01_lookup(struct acme_challenges *ch, const char *token, char *buf,
                       size_t size);

/*
 * acme_tlsalpn01_lookup - the certificate and key to present when a client
 * offers ALPN "acme-tls/1" with SNI @name (case-insensitive).
 * Returns 0 with a reference on each (the caller frees them with X509_free
 * and EVP_PKEY_free, e.g. after SSL_use_certificate/SSL_use_PrivateKey),
 * or -ENOENT (fail the handshake).
 */
int acme_tlsalpn01_lookup(struct acme_challenges *ch, const char *name,
                          X509 **cert, EVP_PKEY **key);

/*
 * struct acme_challenges_mirror - told of every change to a store, before
 * it is made (the keeper passes them on to the serving process, which
 * answers the CA: keeper.h). Each borrows what it is given. The TLS-ALPN-01
 * one gets the certificate and key handed to the store.
 */
struct acme_challenges_mirror {
    void (*put_http01)(void *arg, const char *token, const char *keyauth);
    void (*put_cert)(void *arg, const char *name, const char *keyauth,
                     X509 *cert, EVP_PKEY *pkey);
    void (*drop)(void *arg, const char *key, int tlsalpn01);
    void *arg;
};

/* Set @ch's mirror (copied), before any writer runs. */
void acme_challenges_set_mirror(struct acme_challenges *ch,
                                const struct acme_challenges_mirror *m);

/* ---- the writer's side (the ACME thread; tests) ---- */

/* Answer @token with @keyauth. 0, -EINVAL (bad token) or -ENOMEM. */
int acme_challenges_put_http01(struct acme_challenges *ch, const char *token,
                               const char *keyauth);
/*
 * Hold @cert and @pkey (the RFC 8737 certificate of @name for @keyauth,
 * both handed over, released on failure too). 0, -EINVAL or -ENOMEM.
 */
int acme_challenges_put_cert(struct acme_challenges *ch, const char *name,
                             const char *keyauth, X509 *cert, EVP_PKEY *pkey);
/* Forget @token / @name; nothing when absent. */
void acme_challenges_drop_http01(struct acme_challenges *ch, const char *token);
void acme_challenges_drop_tlsalpn01(struct acme_challenges *ch,
                                    const char *name);
/* How many entries are held (both kinds), for tests. */
size_t acme_challenges_count(struct acme_challenges *ch);

#endif
