/* SPDX-License-Identifier: MIT */
/*
 * tls.h - the server's HTTPS side, between OpenSSL and libmicrohttpd's GnuTLS.
 *
 * OpenSSL (tls_material) reads, checks or makes the certificate and key;
 * this module hands them to GnuTLS as the answer of the certificate callback
 * (MHD_OPTION_HTTPS_CERT_CALLBACK), behind an atomic pointer: installing new
 * material (SIGHUP) changes what the next handshake gets, while sessions
 * already made keep theirs. It also builds TLS body responses in large blocks
 * (libmicrohttpd has no sendfile under TLS and reads fd responses 4 KiB at a
 * time) and tells whether a connection is HTTPS.
 */
#ifndef BENEATH_TRANSPORT_TLS_GNUTLS_H
#define BENEATH_TRANSPORT_TLS_GNUTLS_H

#include "tls/material.h"

#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes read (pread) per step of a TLS body; why this size: tls.c. */
#define TLS_BODY_BLOCK ((size_t)64 * 1024)

/* Where the certificate comes from. */
struct tls_source {
    const char *cert;          /* PEM chain file, or NULL */
    const char *key;           /* PEM key file, or NULL */
    const char *password_file; /* or NULL */
    bool self_signed;          /* make one instead of reading files */
};

/*
 * tls_load - read and check (or make) the material of @src, give it to
 * GnuTLS and make it the certificate of every new handshake; the PEM text is
 * wiped before this returns. @diag gets the error, or a warning (expiring
 * soon); @fingerprint the leaf's SHA-256 ("AB:CD:...").
 *
 * Returns 0, or the negative errno of tls_material_load or
 * tls_material_self_signed, or -EINVAL when GnuTLS refused the material
 * (@diag->error says why). On failure the material in use stays in use.
 */
int tls_load(const struct tls_source *src, struct tls_material_diag *diag,
             char fingerprint[TLS_MATERIAL_FINGERPRINT_LEN]);

/*
 * tls_cert_callback - the gnutls_certificate_retrieve_function2 given to
 * libmicrohttpd: the current chain and key. Returns 0, or -1 when nothing
 * was loaded (the handshake fails).
 */
int tls_cert_callback(gnutls_session_t session, const gnutls_datum_t *req_ca,
                      int nreqs, const gnutls_pk_algorithm_t *algos,
                      int n_algos, gnutls_pcert_st **pcert,
                      unsigned int *pcert_length, gnutls_privkey_t *key);

/*
 * The default GnuTLS priority string, after Mozilla's "intermediate"
 * profile: TLS 1.2 and 1.3 only (RFC 8996), key exchange with forward
 * secrecy (ECDHE, DHE), AEAD ciphers only (AES-GCM, ChaCha20-Poly1305),
 * the server's order of preference.
 */
#define TLS_PRIORITY_DEFAULT                                                   \
    "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-CIPHER-ALL:+AES-128-GCM:"     \
    "+AES-256-GCM:+CHACHA20-POLY1305:-MAC-ALL:+AEAD:-KX-ALL:+ECDHE-ECDSA:"     \
    "+ECDHE-RSA:+DHE-RSA:%SERVER_PRECEDENCE"

/*
 * tls_priority_check - whether GnuTLS accepts @priority; on failure @err
 * (of @size bytes) says where it stopped.
 *
 * Returns 0 or -EINVAL.
 */
int tls_priority_check(const char *priority, char *err, size_t size);

/*
 * tls_tickets_init - make the master key of session tickets (TLS 1.2
 * RFC 5077 tickets and TLS 1.3 resumption PSKs). GnuTLS derives the keys
 * that encrypt tickets from it and rotates them by itself every ticket
 * lifetime (6 hours), so a stolen ticket key opens only that window. The
 * key lives in memory only: a restart makes every ticket a full handshake.
 *
 * Returns 0, or -ENOMEM.
 */
int tls_tickets_init(void);

/*
 * tls_session_setup - per new HTTPS connection, before its handshake:
 * session tickets on (if tls_tickets_init succeeded).
 */
void tls_session_setup(gnutls_session_t session);

/*
 * tls_free - release every chain and key ever loaded. Only once no TLS
 * daemon runs: a session may still point at an older one until then.
 */
void tls_free(void);

/* tls_connection - whether @c came in on an HTTPS (MHD_USE_TLS) daemon. */
bool tls_connection(struct MHD_Connection *c);

/*
 * tls_body_response - a response of @len bytes of @fd from @start, read in
 * TLS_BODY_BLOCK steps with pread. On success the response owns @fd (closed
 * when it is destroyed); on NULL the caller still does.
 */
struct MHD_Response *tls_body_response(int fd, uint64_t start, uint64_t len);

#endif
