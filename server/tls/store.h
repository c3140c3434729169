/* SPDX-License-Identifier: MIT */
/*
 * store.h - the certificates the TLS front serves: one OpenSSL SSL_CTX per
 * name (a --vhost name, exact or "*.suffix") and a default one, chosen by
 * the client's SNI; swapped while handshakes run.
 *
 * What fills it does not matter to it: certs.c loads files at start-up and
 * on SIGHUP, a keeper process (parsed chains and keys over a socketpair) or
 * ACME (a certificate installed without a restart) call the same
 * tls_store_put. Each put replaces one name's context at once for new
 * handshakes; a handshake already under way and the connections made keep
 * the context they took (SSL_CTX is reference-counted). The set of names is
 * immutable once published and read under a read lock, so a lookup never
 * sees a set being freed.
 *
 * The transport decides everything but the certificate: the protocol
 * versions, suites, tickets and callbacks are applied to every context the
 * store makes by the setup function given to tls_store_new.
 *
 * TLS-ALPN-01 (RFC 8737): a handshake that offers ALPN "acme-tls/1" asks the
 * challenge hook (tls_store_set_challenge) for that name's challenge
 * certificate instead.
 */
#ifndef BENEATH_TLS_STORE_H
#define BENEATH_TLS_STORE_H

#include "tls/material.h"

#include <openssl/ssl.h>
#include <stdbool.h>

struct tls_store;

/*
 * tls_store_setup_fn - configure a context the store has just made (before
 * its certificate is set). Returns 0, or -EINVAL when OpenSSL refused a
 * setting (then the put fails).
 */
typedef int (*tls_store_setup_fn)(SSL_CTX *ctx, void *arg);

/*
 * tls_store_challenge_fn - the certificate and key to present for @name
 * when the client offers ALPN "acme-tls/1": 0 with a reference on each
 * (the store releases them), or -ENOENT.
 */
typedef int (*tls_store_challenge_fn)(void *arg, const char *name, X509 **cert,
                                      EVP_PKEY **key);

/*
 * tls_store_new - an empty store whose contexts @setup(ctx, @arg)
 * configures. Returns 0 with *@out owned by the caller (tls_store_free),
 * or -ENOMEM.
 */
int tls_store_new(tls_store_setup_fn setup, void *arg, struct tls_store **out);

/*
 * tls_store_free - release the store and its contexts (connections still
 * holding one keep it alive until they end). NULL is allowed.
 */
void tls_store_free(struct tls_store *s);

/*
 * tls_store_put - serve the chain and key of @m for @name (a --vhost name,
 * normalised; NULL or "" for the default) from the next handshake on,
 * replacing what @name had. @m is only read.
 *
 * Returns 0, -ENOMEM, or -EINVAL when OpenSSL refused the material or a
 * setting (@diag->error says why); on failure @name keeps what it had.
 */
int tls_store_put(struct tls_store *s, const char *name,
                  const struct tls_material *m, struct tls_material_diag *diag);

/*
 * tls_store_put_pending - hold @name's place with a context that has no
 * certificate, when @name has none yet (a certificate ACME has still to
 * get): a handshake whose SNI picks it fails with a handshake_failure
 * alert instead of getting another name's certificate; an "acme-tls/1"
 * challenge for it is still answered. A later tls_store_put replaces it.
 * Returns 0 (also when @name has an entry) or -ENOMEM / -EINVAL.
 */
int tls_store_put_pending(struct tls_store *s, const char *name);

/* tls_store_drop - stop serving @name's own certificate (absent: nothing). */
void tls_store_drop(struct tls_store *s, const char *name);

/*
 * tls_store_keep_only - drop every entry whose name is not among @names
 * (@n of them; "" is the default): what a new configuration no longer has.
 */
void tls_store_keep_only(struct tls_store *s, const char *const *names,
                         size_t n);

/* tls_store_has - whether @name ("" or NULL: the default) has one. */
bool tls_store_has(struct tls_store *s, const char *name);

/*
 * tls_store_new_ssl - a server-side SSL on the default context (or, with
 * none, the first name's), for one connection. Returns it (the caller
 * frees it with SSL_free), or NULL when nothing is loaded or out of memory.
 */
SSL *tls_store_new_ssl(struct tls_store *s);

/*
 * tls_store_select - move @ssl, in its ClientHello, to the context of the
 * name that best matches @servername (exact over the longest "*.suffix"),
 * or to the default one; and bind the sessions it resumes or issues to
 * that context's certificate and to @servername (its session id context),
 * so a session resumes only under the name and certificate it was issued
 * for. @servername may be NULL (no SNI) or anything a client sent.
 *
 * Returns 0, -EAGAIN (no context of the name yet, and the on-demand hook
 * says its certificate is on its way: ask again), or -ENOMEM (then fail
 * the handshake: a session could be resumed unbound).
 */
int tls_store_select(struct tls_store *s, SSL *ssl, const char *servername);

/*
 * tls_store_set_ondemand - what tls_store_select asks of a name (normalised)
 * no context matches: @fn returns > 0 when that name's certificate is on its
 * way (the handshake waits), 0 when none will come (the default context
 * serves, or the handshake fails). Any thread may call @fn. Set before
 * serving; NULL: never.
 */
void tls_store_set_ondemand(struct tls_store *s,
                            int (*fn)(void *arg, const char *host), void *arg);

/*
 * tls_store_set_challenge - where tls_store_challenge gets challenge
 * certificates (NULL: none). Set before serving.
 */
void tls_store_set_challenge(struct tls_store *s, tls_store_challenge_fn fn,
                             void *arg);

/*
 * tls_store_challenge - give @ssl the challenge certificate of @servername.
 * Returns 0, or -ENOENT (no hook, or none for that name: fail the
 * handshake).
 */
int tls_store_challenge(struct tls_store *s, SSL *ssl, const char *servername);

#endif
