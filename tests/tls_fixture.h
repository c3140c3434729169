/* SPDX-License-Identifier: MIT */
/*
 * tls_fixture.h - certificates made with OpenSSL for the TLS tests: keys,
 * certificates with chosen dates, issuers and names, written as PEM. Every
 * helper fails the running Check test when OpenSSL fails.
 */
#ifndef BENEATH_TESTS_TLS_FIXTURE_H
#define BENEATH_TESTS_TLS_FIXTURE_H

#include <openssl/evp.h>
#include <openssl/x509.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define TLS_FIXTURE_DAY 86400L

/* tls_fixture_key - a new EC P-256 key; EVP_PKEY_free it. */
EVP_PKEY *tls_fixture_key(void);

/*
 * tls_fixture_cert - a certificate for CN @cn with @key, valid from
 * @now+@from to @now+@to seconds, issued by @issuer (NULL: self-signed) and
 * signed with @issuer_key (NULL: @key); @ca makes it a CA; @san (NULL: none)
 * is a subjectAltName value ("DNS:localhost,IP:127.0.0.1"). X509_free it.
 */
X509 *tls_fixture_cert(const char *cn, EVP_PKEY *key, X509 *issuer,
                       EVP_PKEY *issuer_key, time_t now, long from, long to,
                       bool ca, const char *san);

/* Write @n certificates as PEM to @path (replacing it). */
void tls_fixture_write_certs(const char *path, X509 *const *certs, size_t n);
/* Write @key as PEM to @path, encrypted with AES-256 if @password. */
void tls_fixture_write_key(const char *path, EVP_PKEY *key,
                           const char *password);

#endif
