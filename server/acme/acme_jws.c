/* SPDX-License-Identifier: MIT */
/*
 * acme_jws.c - the account's cryptography: ECDSA P-256 keys, their JWK and
 * RFC 7638 thumbprint, base64url, and the flattened JWS with ES256 that
 * every ACME POST carries (RFC 8555 6.2, RFC 7518 3.4). OpenSSL does the
 * arithmetic; jansson writes the JSON (its sorted compact output is the
 * canonical form a thumbprint hashes).
 */
#include "acme/internal.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/sha.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* P-256: coordinates and signature halves are 32 bytes. */
#define COORD 32

void acme_log(const struct acme_logger *l, enum acme_log_level level,
              const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    if (l && l->fn) {
        vsnprintf(msg, sizeof msg, fmt, ap);
        l->fn(l->arg, level, msg);
    }
    va_end(ap);
}

char *acme_b64url(const unsigned char *p, size_t n)
{
    static const char abc[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    char *out = malloc(n / 3 * 4 + 5);
    size_t o = 0, i = 0;

    if (out == NULL)
        return NULL;
    for (; i + 2 < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];

        out[o++] = abc[v >> 18 & 63];
        out[o++] = abc[v >> 12 & 63];
        out[o++] = abc[v >> 6 & 63];
        out[o++] = abc[v & 63];
    }
    if (n - i == 1) {
        unsigned v = (unsigned)p[i] << 16;

        out[o++] = abc[v >> 18 & 63];
        out[o++] = abc[v >> 12 & 63];
    } else if (n - i == 2) {
        unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8;

        out[o++] = abc[v >> 18 & 63];
        out[o++] = abc[v >> 12 & 63];
        out[o++] = abc[v >> 6 & 63];
    }
    out[o] = '\0';
    return out;
}

static char *b64url_str(const char *s)
{
    return acme_b64url((const unsigned char *)s, strlen(s));
}

EVP_PKEY *acme_key_new(void)
{
    return EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
}

EVP_PKEY *acme_key_from_pem(const char *pem, size_t len)
{
    BIO *b = BIO_new_mem_buf(pem, (int)len);
    EVP_PKEY *k;

    if (b == NULL)
        return NULL;
    k = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
    BIO_free(b);
    /* the account and certificate keys are P-256 only */
    if (k && !EVP_PKEY_is_a(k, "EC")) {
        EVP_PKEY_free(k);
        k = NULL;
    }
    return k;
}

char *acme_key_to_pem(EVP_PKEY *k)
{
    BIO *b = BIO_new(BIO_s_secmem());
    char *out = NULL, *p;
    long n;

    if (b == NULL)
        return NULL;
    if (PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL) != 1)
        goto out_free;
    n = BIO_get_mem_data(b, &p);
    if (n <= 0 || (out = malloc((size_t)n + 1)) == NULL)
        goto out_free;
    memcpy(out, p, (size_t)n);
    out[n] = '\0';
out_free:
    BIO_free(b);
    return out;
}

void acme_pem_free(char *pem)
{
    if (pem == NULL)
        return;
    OPENSSL_cleanse(pem, strlen(pem));
    free(pem);
}

/* The coordinate @param of @k's public point, base64url of 32 bytes. */
static char *coordinate(EVP_PKEY *k, const char *param)
{
    unsigned char buf[COORD];
    BIGNUM *bn = NULL;
    char *out = NULL;

    if (EVP_PKEY_get_bn_param(k, param, &bn) != 1)
        return NULL;
    if (BN_bn2binpad(bn, buf, COORD) == COORD)
        out = acme_b64url(buf, COORD);
    BN_free(bn);
    return out;
}

json_t *acme_jwk(EVP_PKEY *k)
{
    char *x = coordinate(k, OSSL_PKEY_PARAM_EC_PUB_X);
    char *y = coordinate(k, OSSL_PKEY_PARAM_EC_PUB_Y);
    json_t *jwk = NULL;

    if (x && y)
        jwk = json_pack("{s:s, s:s, s:s, s:s}", "crv", "P-256", "kty", "EC",
                        "x", x, "y", y);
    free(x);
    free(y);
    return jwk;
}

char *acme_thumbprint(EVP_PKEY *k)
{
    unsigned char md[SHA256_DIGEST_LENGTH];
    json_t *jwk = acme_jwk(k);
    char *text, *out = NULL;

    if (jwk == NULL)
        return NULL;
    /* RFC 7638: the required members, sorted, no whitespace */
    text = json_dumps(jwk, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(jwk);
    if (text == NULL)
        return NULL;
    SHA256((const unsigned char *)text, strlen(text), md);
    out = acme_b64url(md, sizeof md);
    free(text);
    return out;
}

/* ES256 of @input: the raw r || s that JWS wants, not OpenSSL's DER. */
static char *sign(EVP_PKEY *k, const char *input)
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    unsigned char der[80], raw[2 * COORD];
    const unsigned char *p = der;
    size_t len = sizeof der;
    ECDSA_SIG *sig = NULL;
    const BIGNUM *r, *s;
    char *out = NULL;

    if (md == NULL)
        return NULL;
    if (EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, k) != 1 ||
        EVP_DigestSign(md, der, &len, (const unsigned char *)input,
                       strlen(input)) != 1)
        goto out_md;
    sig = d2i_ECDSA_SIG(NULL, &p, (long)len);
    if (sig == NULL)
        goto out_md;
    ECDSA_SIG_get0(sig, &r, &s);
    if (BN_bn2binpad(r, raw, COORD) == COORD &&
        BN_bn2binpad(s, raw + COORD, COORD) == COORD)
        out = acme_b64url(raw, sizeof raw);
    ECDSA_SIG_free(sig);
out_md:
    EVP_MD_CTX_free(md);
    return out;
}

char *acme_jws(EVP_PKEY *k, const char *kid, const char *nonce, const char *url,
               const char *payload)
{
    json_t *prot = json_pack("{s:s, s:s, s:s}", "alg", "ES256", "nonce", nonce,
                             "url", url);
    char *prot_text = NULL, *prot64 = NULL, *pay64 = NULL, *input = NULL;
    char *sig = NULL, *out = NULL;
    json_t *jws;

    if (prot == NULL)
        return NULL;
    if (kid)
        json_object_set_new(prot, "kid", json_string(kid));
    else
        json_object_set_new(prot, "jwk", acme_jwk(k));
    prot_text = json_dumps(prot, JSON_COMPACT);
    json_decref(prot);
    if (prot_text == NULL)
        return NULL;
    prot64 = b64url_str(prot_text);
    pay64 = b64url_str(payload);
    if (prot64 == NULL || pay64 == NULL ||
        asprintf(&input, "%s.%s", prot64, pay64) < 0) {
        input = NULL;
        goto out_free;
    }
    sig = sign(k, input);
    if (sig == NULL)
        goto out_free;
    jws = json_pack("{s:s, s:s, s:s}", "protected", prot64, "payload", pay64,
                    "signature", sig);
    if (jws) {
        out = json_dumps(jws, JSON_COMPACT);
        json_decref(jws);
    }
out_free:
    free(sig);
    free(input);
    free(pay64);
    free(prot64);
    free(prot_text);
    return out;
}
