/* SPDX-License-Identifier: MIT */
/*
 * material.h - the certificate chain and key that the HTTPS listeners use,
 * read and checked with OpenSSL, handed on as PEM strings.
 *
 * libmicrohttpd does TLS through GnuTLS and takes its certificate and key as
 * PEM text in memory. OpenSSL is the project's cryptography: this module reads
 * the files, checks them (PEM syntax, key matches the leaf, validity dates,
 * chain order, signatures), decrypts an encrypted key with a password from a
 * file, or makes a self-signed certificate, and produces the PEM text. Key
 * bytes are wiped (OPENSSL_cleanse) from every buffer this module owns as
 * soon as they are not needed, and from the output when it is freed.
 *
 * Nothing here prints or exits: failures come back as a negative errno with a
 * message naming the file in a struct tls_material_diag.
 */
#ifndef BENEATH_TLS_MATERIAL_H
#define BENEATH_TLS_MATERIAL_H

#include <openssl/evp.h>
#include <stddef.h>
#include <time.h>

/* A warning is given when the leaf expires within this many days. */
#define TLS_MATERIAL_WARN_DAYS 14
/* Validity of the self-signed certificate made at start-up. */
#define TLS_MATERIAL_SELF_SIGNED_DAYS 30
/* "AB:CD:...": 32 bytes as hex pairs with colons, and the NUL. */
#define TLS_MATERIAL_FINGERPRINT_LEN 96
/* Largest certificate, key or password file read. */
#define TLS_MATERIAL_MAX_FILE ((size_t)1024 * 1024)

/*
 * struct tls_material - what a listener needs. Owned; release with
 * tls_material_free.
 * @cert_pem:    the chain, leaf first, as PEM, NUL-terminated.
 * @key_pem:     the private key, unencrypted PKCS#8 PEM, NUL-terminated;
 *               wiped when freed. NULL when @pkey is set.
 * @pkey:        the key when it is the keeper's (a stub of its public
 *               half, keyless.h), or NULL.
 * @not_after:   the leaf's expiry (seconds since the epoch).
 * @n_certs:     certificates in the chain.
 * @subject:     the leaf's subject, one line ("CN=localhost").
 * @fingerprint: SHA-256 of the leaf's DER encoding, "AB:CD:..." upper case.
 */
struct tls_material {
    char *cert_pem;
    size_t cert_len;
    char *key_pem;
    size_t key_len;
    EVP_PKEY *pkey;
    time_t not_after;
    size_t n_certs;
    char subject[256];
    char fingerprint[TLS_MATERIAL_FINGERPRINT_LEN];
};

/*
 * struct tls_material_diag - one error and one warning, each a complete line
 * without a newline, empty when there is none.
 */
struct tls_material_diag {
    char error[512];
    char warning[512];
};

/*
 * tls_material_load - read the PEM chain in @cert_file (leaf first, then each
 * issuer) and the PEM key in @key_file (decrypted with the first line of
 * @password_file when that is not NULL), check them at time @now and fill @m.
 * In a serving process the keeper holds the key: what it said of @key_file
 * (keyless_key_for) is used instead of the file, and @m gets the stub.
 * A leaf that expires within TLS_MATERIAL_WARN_DAYS of @now succeeds with a
 * warning in @diag.
 * @m is initialised by this call and left empty on failure.
 *
 * Returns 0, or a negative errno with @diag->error set:
 * -ENOENT, -EACCES, -EISDIR, -EFBIG (or another open/read errno): a file could
 * not be read; -EBADMSG: not PEM, no certificate or no key in the file, or a
 * malformed block; -EKEYREJECTED: the key does not match the leaf, or the key
 * is encrypted and no or a wrong password was given; -EKEYEXPIRED: a
 * certificate of the chain is expired or not yet valid; -EINVAL: the chain is
 * out of order (a certificate not issued and signed by the next one);
 * -ENOMEM.
 */
int tls_material_load(struct tls_material *m, const char *cert_file,
                      const char *key_file, const char *password_file,
                      time_t now, struct tls_material_diag *diag);

/*
 * tls_material_self_signed - make an EC P-256 key and a certificate for
 * "localhost" with the subject alternative names DNS:localhost,
 * IP:127.0.0.1 and IP:::1, valid from a minute before @now for @days days,
 * signed with SHA-256 by its own key, and fill @m.
 *
 * Returns 0, -EINVAL (@days is 0 or too large), or -ENOMEM / -EIO (OpenSSL
 * failed; @diag->error says where).
 */
int tls_material_self_signed(struct tls_material *m, time_t now, unsigned days,
                             struct tls_material_diag *diag);

/* tls_material_free - wipe the key, release @m and zero it; @m may be NULL. */
void tls_material_free(struct tls_material *m);

#endif
