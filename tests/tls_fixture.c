// SPDX-License-Identifier: MIT
/* tls_fixture.c - OpenSSL-made certificates for the TLS tests. */
#include "tls_fixture.h"

#include <check.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <string.h>

EVP_PKEY *tls_fixture_key(void)
{
    EVP_PKEY *k = EVP_EC_gen("P-256");

    ck_assert_ptr_nonnull(k);
    return k;
}

static void add_ext(X509 *x, X509V3_CTX *ctx, int nid, const char *value)
{
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, ctx, nid, value);

    ck_assert_ptr_nonnull(ext);
    ck_assert_int_eq(X509_add_ext(x, ext, -1), 1);
    X509_EXTENSION_free(ext);
}

X509 *tls_fixture_cert(const char *cn, EVP_PKEY *key, X509 *issuer,
                       EVP_PKEY *issuer_key, time_t now, long from, long to,
                       bool ca, const char *san)
{
    static long serial = 1;
    X509 *x = X509_new();
    X509V3_CTX ctx;

    ck_assert_ptr_nonnull(x);
    ck_assert_int_eq(X509_set_version(x, X509_VERSION_3), 1);
    ASN1_INTEGER_set(X509_get_serialNumber(x), serial++);
    ck_assert_ptr_nonnull(
        X509_time_adj_ex(X509_getm_notBefore(x), 0, from, &now));
    ck_assert_ptr_nonnull(X509_time_adj_ex(X509_getm_notAfter(x), 0, to, &now));
    ck_assert_int_eq(X509_set_pubkey(x, key), 1);
    ck_assert_int_eq(
        X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
                                   (const unsigned char *)cn, -1, -1, 0),
        1);
    ck_assert_int_eq(X509_set_issuer_name(x, issuer
                                                 ? X509_get_subject_name(issuer)
                                                 : X509_get_subject_name(x)),
                     1);
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer ? issuer : x, x, NULL, NULL, 0);
    add_ext(x, &ctx, NID_basic_constraints,
            ca ? "critical,CA:TRUE" : "CA:FALSE");
    add_ext(x, &ctx, NID_subject_key_identifier, "hash");
    if (ca)
        add_ext(x, &ctx, NID_key_usage, "critical,keyCertSign,cRLSign");
    if (san != NULL)
        add_ext(x, &ctx, NID_subject_alt_name, san);
    ck_assert_int_gt(X509_sign(x, issuer_key ? issuer_key : key, EVP_sha256()),
                     0);
    return x;
}

void tls_fixture_write_certs(const char *path, X509 *const *certs, size_t n)
{
    BIO *b = BIO_new_file(path, "w");

    ck_assert_ptr_nonnull(b);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(PEM_write_bio_X509(b, certs[i]), 1);
    BIO_free(b);
}

void tls_fixture_write_key(const char *path, EVP_PKEY *key,
                           const char *password)
{
    BIO *b = BIO_new_file(path, "w");

    ck_assert_ptr_nonnull(b);
    if (password != NULL)
        ck_assert_int_eq(
            PEM_write_bio_PrivateKey(b, key, EVP_aes_256_cbc(),
                                     (const unsigned char *)password,
                                     (int)strlen(password), NULL, NULL),
            1);
    else
        ck_assert_int_eq(
            PEM_write_bio_PrivateKey(b, key, NULL, NULL, 0, NULL, NULL), 1);
    BIO_free(b);
}
