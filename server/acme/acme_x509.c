/* SPDX-License-Identifier: MIT */
/*
 * acme_x509.c - the X.509 side of ACME with OpenSSL: the CSR sent to
 * finalize, the self-signed TLS-ALPN-01 certificate (RFC 8737 3), and the
 * check of a downloaded or stored chain (the leaf matches its key, names
 * exactly the ordered names; its dates and RFC 9773 identifier).
 */
#include "acme/internal.h"

#include <ctype.h>
#include <errno.h>
#include <openssl/asn1.h>
#include <openssl/bn.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* id-pe-acmeIdentifier (RFC 8737 6.1) */
#define OID_ACME_IDENTIFIER "1.3.6.1.5.5.7.1.31"

/* A subjectAltName of DNS names, or NULL. */
static X509_EXTENSION *san(const char *const *names, size_t n)
{
    GENERAL_NAMES *gens = GENERAL_NAMES_new();
    X509_EXTENSION *ext = NULL;

    if (gens == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        GENERAL_NAME *g = GENERAL_NAME_new();
        ASN1_IA5STRING *s = ASN1_IA5STRING_new();

        if (g == NULL || s == NULL ||
            ASN1_STRING_set(s, names[i], (int)strlen(names[i])) != 1) {
            GENERAL_NAME_free(g);
            ASN1_IA5STRING_free(s);
            goto out_free;
        }
        GENERAL_NAME_set0_value(g, GEN_DNS, s);
        if (sk_GENERAL_NAME_push(gens, g) == 0) {
            GENERAL_NAME_free(g);
            goto out_free;
        }
    }
    ext = X509V3_EXT_i2d(NID_subject_alt_name, 0, gens);
out_free:
    GENERAL_NAMES_free(gens);
    return ext;
}

static int set_cn(X509_NAME *subject, const char *name)
{
    return X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC,
                                      (const unsigned char *)name, -1, -1, 0);
}

char *acme_csr(EVP_PKEY *k, char *const *names, size_t n)
{
    STACK_OF(X509_EXTENSION) *exts = sk_X509_EXTENSION_new_null();
    X509_REQ *req = X509_REQ_new();
    unsigned char *der = NULL;
    char *out = NULL;
    int len;

    if (req == NULL || exts == NULL || n == 0)
        goto out_free;
    X509_EXTENSION *ext = san((const char *const *)names, n);
    if (ext == NULL || sk_X509_EXTENSION_push(exts, ext) == 0) {
        X509_EXTENSION_free(ext);
        goto out_free;
    }
    /* a CN is at most 64 characters; the SANs carry the names anyway */
    if (X509_REQ_set_version(req, 0) != 1 ||
        (strlen(names[0]) <= 64 &&
         set_cn(X509_REQ_get_subject_name(req), names[0]) != 1) ||
        X509_REQ_add_extensions(req, exts) != 1 ||
        X509_REQ_set_pubkey(req, k) != 1 ||
        X509_REQ_sign(req, k, EVP_sha256()) <= 0)
        goto out_free;
    len = i2d_X509_REQ(req, &der);
    if (len > 0)
        out = acme_b64url(der, (size_t)len);
    OPENSSL_free(der);
out_free:
    sk_X509_EXTENSION_pop_free(exts, X509_EXTENSION_free);
    X509_REQ_free(req);
    return out;
}

/* The critical acmeIdentifier: an OCTET STRING of SHA-256(@keyauth). */
static X509_EXTENSION *acme_identifier(const char *keyauth)
{
    unsigned char der[2 + SHA256_DIGEST_LENGTH] = {V_ASN1_OCTET_STRING,
                                                   SHA256_DIGEST_LENGTH};
    ASN1_OBJECT *obj = OBJ_txt2obj(OID_ACME_IDENTIFIER, 1);
    ASN1_OCTET_STRING *value = ASN1_OCTET_STRING_new();
    X509_EXTENSION *ext = NULL;

    SHA256((const unsigned char *)keyauth, strlen(keyauth), der + 2);
    if (obj && value && ASN1_OCTET_STRING_set(value, der, sizeof der) == 1)
        ext = X509_EXTENSION_create_by_OBJ(NULL, obj, 1, value);
    ASN1_OCTET_STRING_free(value);
    ASN1_OBJECT_free(obj);
    return ext;
}

static int random_serial(X509 *x)
{
    unsigned char raw[16];
    BIGNUM *bn;
    int ok;

    if (RAND_bytes(raw, sizeof raw) != 1)
        return 0;
    raw[0] &= 0x7f; /* positive */
    bn = BN_bin2bn(raw, sizeof raw, NULL);
    ok = bn && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) != NULL;
    BN_free(bn);
    return ok;
}

int acme_alpn_cert(const char *name, const char *keyauth, X509 **cert,
                   EVP_PKEY **key)
{
    const char *const names[] = {name};
    X509_EXTENSION *alt = san(names, 1), *id = acme_identifier(keyauth);
    EVP_PKEY *k = acme_key_new();
    X509 *x = X509_new();
    int err = -ENOMEM;

    if (x == NULL || k == NULL || alt == NULL || id == NULL)
        goto out_free;
    err = -EIO;
    if (X509_set_version(x, 2) != 1 || !random_serial(x) ||
        X509_gmtime_adj(X509_getm_notBefore(x), -86400) == NULL ||
        X509_gmtime_adj(X509_getm_notAfter(x), 7L * 86400) == NULL ||
        (strlen(name) <= 64 && set_cn(X509_get_subject_name(x), name) != 1) ||
        X509_set_issuer_name(x, X509_get_subject_name(x)) != 1 ||
        X509_add_ext(x, alt, -1) != 1 || X509_add_ext(x, id, -1) != 1 ||
        X509_set_pubkey(x, k) != 1 || X509_sign(x, k, EVP_sha256()) <= 0)
        goto out_free;
    *cert = x;
    *key = k;
    x = NULL;
    k = NULL;
    err = 0;
out_free:
    X509_EXTENSION_free(id);
    X509_EXTENSION_free(alt);
    X509_free(x);
    EVP_PKEY_free(k);
    return err;
}

static time_t asn1_time(const ASN1_TIME *t)
{
    struct tm tm;

    if (ASN1_TIME_to_tm(t, &tm) != 1)
        return 0;
    return timegm(&tm);
}

/* RFC 9773 4.1: base64url(AKI keyIdentifier) "." base64url(serial DER). */
static void ari_id(X509 *leaf, char *buf, size_t size)
{
    const ASN1_OCTET_STRING *aki = NULL;
    const ASN1_INTEGER *serial = X509_get0_serialNumber(leaf);
    unsigned char *der = NULL;
    char *a = NULL, *s = NULL;
    int len;

    buf[0] = '\0';
    X509_get0_extensions(leaf); /* caches the extensions */
    aki = X509_get0_authority_key_id(leaf);
    if (aki == NULL || serial == NULL)
        return;
    len = i2d_ASN1_INTEGER(serial, &der);
    /* the serial's content octets: skip the tag and one length byte */
    if (len > 2 && len < 128) {
        a = acme_b64url(ASN1_STRING_get0_data(aki),
                        (size_t)ASN1_STRING_length(aki));
        s = acme_b64url(der + 2, (size_t)len - 2);
        if (a && s)
            snprintf(buf, size, "%s.%s", a, s);
    }
    free(a);
    free(s);
    OPENSSL_free(der);
}

/* Every DNS SAN of @leaf is one of @names, and every name is there. */
static bool names_equal(X509 *leaf, char *const *names, size_t n)
{
    GENERAL_NAMES *gens =
        X509_get_ext_d2i(leaf, NID_subject_alt_name, NULL, NULL);
    size_t seen = 0;
    bool ok = gens != NULL;

    for (int i = 0; ok && i < sk_GENERAL_NAME_num(gens); i++) {
        const GENERAL_NAME *g = sk_GENERAL_NAME_value(gens, i);
        const ASN1_IA5STRING *s;
        bool found = false;

        if (g->type != GEN_DNS)
            continue;
        s = g->d.dNSName;
        for (size_t j = 0; j < n && !found; j++)
            found =
                strlen(names[j]) == (size_t)ASN1_STRING_length(s) &&
                strncasecmp(names[j], (const char *)ASN1_STRING_get0_data(s),
                            strlen(names[j])) == 0;
        ok = found;
        seen++;
    }
    GENERAL_NAMES_free(gens);
    return ok && seen == n;
}

int acme_chain_check(const char *pem, size_t len, const char *key_pem,
                     char *const *names, size_t n, struct acme_chain_info *info,
                     char *err, size_t errlen)
{
    BIO *b = BIO_new_mem_buf(pem, (int)len);
    EVP_PKEY *key = NULL;
    X509 *leaf = NULL;
    int r = -EINVAL;

    if (b == NULL)
        return -ENOMEM;
    leaf = PEM_read_bio_X509(b, NULL, NULL, NULL);
    if (leaf == NULL) {
        snprintf(err, errlen, "no PEM certificate in the chain");
        goto out_free;
    }
    if (key_pem) {
        key = acme_key_from_pem(key_pem, strlen(key_pem));
        if (key == NULL || X509_check_private_key(leaf, key) != 1) {
            snprintf(err, errlen, "the certificate does not match its key");
            goto out_free;
        }
    }
    if (n > 0 && !names_equal(leaf, names, n)) {
        snprintf(err, errlen, "the certificate does not name exactly %s%s",
                 names[0], n > 1 ? " and the others ordered" : "");
        goto out_free;
    }
    info->not_before = asn1_time(X509_get0_notBefore(leaf));
    info->not_after = asn1_time(X509_get0_notAfter(leaf));
    if (info->not_after <= info->not_before) {
        snprintf(err, errlen, "the certificate's dates make no sense");
        goto out_free;
    }
    ari_id(leaf, info->ari_id, sizeof info->ari_id);
    r = 0;
out_free:
    EVP_PKEY_free(key);
    X509_free(leaf);
    BIO_free(b);
    return r;
}
