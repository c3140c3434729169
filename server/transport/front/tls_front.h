/* SPDX-License-Identifier: MIT */
/*
 * tls_front.h - how beneath speaks TLS (OpenSSL): the settings of every
 * context of the certificate store, session tickets with rotating keys,
 * SNI and ALPN in the ClientHello.
 *
 * - Versions: TLS 1.2 and 1.3 only (RFC 8996).
 * - TLS 1.2 suites: the Mozilla "intermediate" profile (ECDHE or DHE key
 *   exchange, AES-GCM or ChaCha20-Poly1305), the server's order;
 *   --tls-ciphers replaces the list. TLS 1.3: AES-128-GCM, AES-256-GCM,
 *   ChaCha20-Poly1305 in that order. Groups X25519, P-256, P-384.
 * - Resumption by session tickets only (no session cache): RFC 5077 tickets
 *   in TLS 1.2, resumption PSKs in TLS 1.3. The keys that encrypt them are
 *   beneath's own (SSL_CTX_set_tlsext_ticket_key_evp_cb, not OpenSSL's
 *   fixed per-context key): a new key every TLS_FRONT_TICKET_ROTATE
 *   seconds, the older ones still decrypt for TLS_FRONT_TICKET_KEYS - 1
 *   periods, and a ticket under an older key is renewed. They live in
 *   memory only and are wiped when they retire.
 * - SNI picks the certificate (tls/store.h); ALPN picks the protocol:
 *   "acme-tls/1" when the challenge hook has a certificate for the name,
 *   "h2" when HTTP/2 is on and served, "http/1.1" (or "http/1.0"); a client
 *   that offers only others gets the no_application_protocol alert
 *   (RFC 7301 3.2). No ALPN at all is HTTP/1.1.
 */
#ifndef BENEATH_TRANSPORT_FRONT_TLS_FRONT_H
#define BENEATH_TRANSPORT_FRONT_TLS_FRONT_H

#include "tls/store.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdbool.h>
#include <stddef.h>

/* The TLS 1.2 cipher list used without --tls-ciphers (Mozilla
 * intermediate). */
#define TLS_FRONT_CIPHERS_DEFAULT                                              \
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"               \
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"               \
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:"               \
    "DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:"                     \
    "DHE-RSA-CHACHA20-POLY1305"

/* The TLS 1.3 suites, in Mozilla's order (AES-128-GCM first). */
#define TLS_FRONT_SUITES_13                                                    \
    "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:"                           \
    "TLS_CHACHA20_POLY1305_SHA256"

/* Seconds each ticket key encrypts; keys kept (the current one included). */
#define TLS_FRONT_TICKET_ROTATE 3600
#define TLS_FRONT_TICKET_KEYS 7
/* A ticket's lifetime (s): within the keys' span, so it can be used. */
#define TLS_FRONT_TICKET_LIFETIME (6L * 3600)

/* The protocol a connection chose in its handshake. */
enum tls_front_proto {
    TLS_FRONT_HTTP1, /* "http/1.1", "http/1.0" or no ALPN */
    TLS_FRONT_H2,    /* "h2" */
    TLS_FRONT_ACME,  /* "acme-tls/1": the challenge, then close */
};

/*
 * struct tls_front - what every context is set up with; filled by the
 * caller, borrowed by tls_front_setup for as long as the store lives.
 * @store:   the certificates (SNI)
 * @ciphers: TLS 1.2 cipher list, or NULL for TLS_FRONT_CIPHERS_DEFAULT
 * @h2:      offer "h2" in ALPN (HTTP/2 on, and served)
 */
struct tls_front {
    struct tls_store *store;
    const char *ciphers;
    bool h2;
};

/*
 * tls_front_setup - the tls_store_setup_fn: versions, suites, groups,
 * tickets, the ClientHello and ALPN callbacks; @arg is a struct tls_front.
 * Returns 0 or -EINVAL.
 */
int tls_front_setup(SSL_CTX *ctx, void *arg);

/*
 * tls_front_ciphers_check - whether OpenSSL takes @ciphers as a TLS 1.2
 * cipher list; on failure @err (@size bytes) says why. Returns 0 or -EINVAL.
 */
int tls_front_ciphers_check(const char *ciphers, char *err, size_t size);

/*
 * tls_front_tickets_init - make the first ticket key. Returns 0 or -ENOMEM.
 * tls_front_tickets_free - wipe every ticket key (at exit).
 */
int tls_front_tickets_init(void);
void tls_front_tickets_free(void);

/* tls_front_proto_of - what @ssl negotiated (after its handshake). */
/*
 * tls_front_err_clear - empty this thread's OpenSSL error queue, as an
 * SSL_read or SSL_write needs it (SSL_get_error reads it), and as it is
 * left after one failed. Peeked first: ERR_clear_error walks every slot of
 * the queue, and an empty queue, the rule on the request path, needs
 * nothing (it was 1.8% of an HTTPS 1 KiB request's samples, three calls).
 */
static inline void tls_front_err_clear(void)
{
    if (ERR_peek_error() != 0)
        ERR_clear_error();
}

enum tls_front_proto tls_front_proto_of(const SSL *ssl);

/* tls_front_version - "TLS1.2" or "TLS1.3" (the access log's names). */
const char *tls_front_version(const SSL *ssl);

#endif
