// SPDX-License-Identifier: MIT
/*
 * tls_front.c - the OpenSSL settings of the TLS front: versions, suites,
 * session tickets under rotating keys, the ClientHello (SNI, the ACME
 * challenge) and ALPN.
 *
 * Ticket keys: a ring of TLS_FRONT_TICKET_KEYS, newest first, each made
 * with RAND_priv_bytes for one period of TLS_FRONT_TICKET_ROTATE seconds of
 * the monotonic clock. The callback rotates when it sees a new period
 * (no thread, no timer), encrypts under the newest key, and decrypts under
 * any key still in the ring (asking OpenSSL to issue a fresh ticket when it
 * was not the newest). A key that leaves the ring is wiped. The ring is
 * the process's; what a ticket may resume is bound per connection by the
 * store (tls_store_select: the SNI name and the certificate).
 */
#include "transport/front/tls_front.h"

#include <errno.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* ---- session tickets ---------------------------------------------------- */

struct ticket_key {
    unsigned char name[16];
    unsigned char aes[32];
    unsigned char hmac[32];
    long long period;
};

static struct ticket_key keys[TLS_FRONT_TICKET_KEYS];
static size_t n_keys;
static pthread_mutex_t keys_lock = PTHREAD_MUTEX_INITIALIZER;

static long long period_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_BOOTTIME, &ts);
    return (long long)ts.tv_sec / TLS_FRONT_TICKET_ROTATE;
}

/* A new newest key for @period, the oldest wiped if the ring is full.
 * Under keys_lock. 0 or -ENOMEM. */
static int rotate(long long period)
{
    struct ticket_key k = {.period = period};

    if (RAND_bytes(k.name, sizeof k.name) != 1 ||
        RAND_priv_bytes(k.aes, sizeof k.aes) != 1 ||
        RAND_priv_bytes(k.hmac, sizeof k.hmac) != 1) {
        OPENSSL_cleanse(&k, sizeof k);
        return -ENOMEM;
    }
    if (n_keys == TLS_FRONT_TICKET_KEYS)
        OPENSSL_cleanse(&keys[--n_keys], sizeof keys[0]);
    memmove(&keys[1], &keys[0], n_keys * sizeof keys[0]);
    keys[0] = k;
    n_keys++;
    OPENSSL_cleanse(&k, sizeof k);
    return 0;
}

int tls_front_tickets_init(void)
{
    pthread_mutex_lock(&keys_lock);
    int err = n_keys ? 0 : rotate(period_now());
    pthread_mutex_unlock(&keys_lock);
    return err;
}

void tls_front_tickets_free(void)
{
    pthread_mutex_lock(&keys_lock);
    OPENSSL_cleanse(keys, sizeof keys);
    n_keys = 0;
    pthread_mutex_unlock(&keys_lock);
}

static int key_setup(const struct ticket_key *k, unsigned char *iv,
                     EVP_CIPHER_CTX *cctx, EVP_MAC_CTX *hctx, int enc)
{
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_octet_string(
            OSSL_MAC_PARAM_KEY, (void *)(uintptr_t)k->hmac, sizeof k->hmac),
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, "SHA256", 0),
        OSSL_PARAM_construct_end(),
    };

    if (EVP_MAC_CTX_set_params(hctx, params) != 1)
        return -1;
    if (enc)
        return EVP_EncryptInit_ex(cctx, EVP_aes_256_cbc(), NULL, k->aes, iv) ==
                       1
                   ? 0
                   : -1;
    return EVP_DecryptInit_ex(cctx, EVP_aes_256_cbc(), NULL, k->aes, iv) == 1
               ? 0
               : -1;
}

/*
 * SSL_CTX_set_tlsext_ticket_key_evp_cb: 1 (key set), 2 (decrypted under an
 * older key: renew), 0 (no such key: full handshake), -1 (failure).
 */
static int ticket_cb(SSL *ssl, unsigned char key_name[16], unsigned char *iv,
                     EVP_CIPHER_CTX *cctx, EVP_MAC_CTX *hctx, int enc)
{
    long long now = period_now();
    int ret = -1;

    (void)ssl;
    pthread_mutex_lock(&keys_lock);
    if ((!n_keys || keys[0].period != now) && rotate(now) != 0 && !n_keys)
        goto out;
    if (enc) {
        int ivlen = EVP_CIPHER_get_iv_length(EVP_aes_256_cbc());
        if (ivlen > 0 && RAND_bytes(iv, ivlen) == 1 &&
            key_setup(&keys[0], iv, cctx, hctx, 1) == 0) {
            memcpy(key_name, keys[0].name, sizeof keys[0].name);
            ret = 1;
        }
        goto out;
    }
    ret = 0;
    for (size_t i = 0; i < n_keys; i++)
        if (memcmp(key_name, keys[i].name, sizeof keys[i].name) == 0) {
            ret = key_setup(&keys[i], iv, cctx, hctx, 0) != 0 ? -1
                  : i == 0                                    ? 1
                                                              : 2;
            break;
        }
out:
    pthread_mutex_unlock(&keys_lock);
    return ret;
}

/* ---- ClientHello and ALPN ------------------------------------------------ */

static const unsigned char acme_alpn[] = "acme-tls/1";

/* The ex_data slot that marks a handshake answering the ACME challenge. */
static int acme_index = -1;
static pthread_once_t acme_once = PTHREAD_ONCE_INIT;

static void acme_index_make(void)
{
    acme_index = SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL);
}

/* Whether the ALPN list @p (@len bytes, RFC 7301 3.1 without its length)
 * offers @proto (@n bytes); *@at gets where. */
static bool alpn_offers(const unsigned char *p, size_t len,
                        const unsigned char *proto, size_t n,
                        const unsigned char **at)
{
    for (size_t i = 0; i < len; i += 1 + (size_t)p[i])
        if (i + 1 + p[i] <= len && p[i] == n &&
            memcmp(p + i + 1, proto, n) == 0) {
            *at = p + i + 1;
            return true;
        }
    return false;
}

/* The host_name of the server_name extension (RFC 6066 3) into @out. */
static void sni_of(SSL *ssl, char *out, size_t size)
{
    const unsigned char *p;
    size_t len;

    out[0] = '\0';
    if (SSL_client_hello_get0_ext(ssl, TLSEXT_TYPE_server_name, &p, &len) !=
            1 ||
        len < 2 || (size_t)(p[0] << 8 | p[1]) + 2 != len)
        return;
    for (size_t i = 2; i + 3 <= len;) {
        size_t n = (size_t)(p[i + 1] << 8 | p[i + 2]);
        if (i + 3 + n > len)
            return;
        if (p[i] == TLSEXT_NAMETYPE_host_name) {
            if (n == 0 || n >= size || memchr(p + i + 3, '\0', n))
                return;
            memcpy(out, p + i + 3, n);
            out[n] = '\0';
            return;
        }
        i += 3 + n;
    }
}

/* The ALPN extension's protocol list, without its length; false if none. */
static bool alpn_list(SSL *ssl, const unsigned char **list, size_t *len)
{
    const unsigned char *p;
    size_t n;

    if (SSL_client_hello_get0_ext(
            ssl, TLSEXT_TYPE_application_layer_protocol_negotiation, &p, &n) !=
            1 ||
        n < 2 || (size_t)(p[0] << 8 | p[1]) + 2 != n)
        return false;
    *list = p + 2;
    *len = n - 2;
    return true;
}

/*
 * Early in the ClientHello: the certificate of its SNI name, or the ACME
 * challenge certificate when "acme-tls/1" is offered and one exists.
 */
static int hello_cb(SSL *ssl, int *alert, void *arg)
{
    const struct tls_front *f = arg;
    char name[256];
    const unsigned char *list, *at;
    size_t len;

    sni_of(ssl, name, sizeof name);
    if (alpn_list(ssl, &list, &len) &&
        alpn_offers(list, len, acme_alpn, sizeof acme_alpn - 1, &at) &&
        tls_store_challenge(f->store, ssl, name) == 0) {
        SSL_set_ex_data(ssl, acme_index, (void *)(uintptr_t)acme_alpn);
        return SSL_CLIENT_HELLO_SUCCESS;
    }
    int r = tls_store_select(f->store, ssl, name[0] ? name : NULL);
    if (r == -EAGAIN)
        return SSL_CLIENT_HELLO_RETRY; /* its certificate is on its way */
    if (r != 0) {
        *alert = SSL_AD_INTERNAL_ERROR;
        return SSL_CLIENT_HELLO_ERROR;
    }
    return SSL_CLIENT_HELLO_SUCCESS;
}

static int alpn_cb(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                   const unsigned char *in, unsigned int inlen, void *arg)
{
    static const struct {
        const char *name;
        bool h2;
    } prefs[] = {{"h2", true}, {"http/1.1", false}, {"http/1.0", false}};
    const struct tls_front *f = arg;
    const unsigned char *at;

    if (SSL_get_ex_data(ssl, acme_index)) {
        if (!alpn_offers(in, inlen, acme_alpn, sizeof acme_alpn - 1, &at))
            return SSL_TLSEXT_ERR_ALERT_FATAL;
        *out = at;
        *outlen = sizeof acme_alpn - 1;
        return SSL_TLSEXT_ERR_OK;
    }
    for (size_t i = 0; i < sizeof prefs / sizeof prefs[0]; i++) {
        size_t n = strlen(prefs[i].name);
        if ((!prefs[i].h2 || f->h2) &&
            alpn_offers(in, inlen, (const unsigned char *)prefs[i].name, n,
                        &at)) {
            *out = at;
            *outlen = (unsigned char)n;
            return SSL_TLSEXT_ERR_OK;
        }
    }
    /* RFC 7301 3.2: none of ours is offered */
    return SSL_TLSEXT_ERR_ALERT_FATAL;
}

/* ---- the context --------------------------------------------------------- */

int tls_front_setup(SSL_CTX *ctx, void *arg)
{
    struct tls_front *f = arg;

    pthread_once(&acme_once, acme_index_make);
    if (acme_index < 0 ||
        SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1 ||
        SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION) != 1 ||
        SSL_CTX_set_cipher_list(
            ctx, f->ciphers ? f->ciphers : TLS_FRONT_CIPHERS_DEFAULT) != 1 ||
        SSL_CTX_set_ciphersuites(ctx, TLS_FRONT_SUITES_13) != 1 ||
        SSL_CTX_set1_groups_list(ctx, "X25519:P-256:P-384") != 1 ||
        SSL_CTX_set_dh_auto(ctx, 1) != 1 ||
        SSL_CTX_set_tlsext_ticket_key_evp_cb(ctx, ticket_cb) != 1)
        return -EINVAL;
    /*
     * The server's order; no renegotiation; a client's end of stream
     * without close_notify is an end, not an error (HTTP frames its own
     * messages).
     */
    SSL_CTX_set_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE |
                                 SSL_OP_NO_RENEGOTIATION |
                                 SSL_OP_IGNORE_UNEXPECTED_EOF);
    /* resumption by ticket only: no session cache */
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_timeout(ctx, TLS_FRONT_TICKET_LIFETIME);
    /*
     * libmicrohttpd's writes through the byte tap: a write may end after
     * any whole record, and is retried from another buffer with the same
     * bytes; idle connections give their 34 KiB of buffers back.
     */
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
                              SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                              SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_client_hello_cb(ctx, hello_cb, f);
    SSL_CTX_set_alpn_select_cb(ctx, alpn_cb, f);
    return 0;
}

int tls_front_ciphers_check(const char *ciphers, char *err, size_t size)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    int ok = ctx && SSL_CTX_set_cipher_list(ctx, ciphers) == 1;

    if (!ok) {
        unsigned long e = ERR_get_error();
        char why[200] = "no cipher matches";
        if (e)
            ERR_error_string_n(e, why, sizeof why);
        snprintf(err, size, "OpenSSL takes no TLS 1.2 cipher from it (%s)",
                 why);
    }
    ERR_clear_error();
    SSL_CTX_free(ctx);
    return ok ? 0 : -EINVAL;
}

enum tls_front_proto tls_front_proto_of(const SSL *ssl)
{
    const unsigned char *p;
    unsigned int n;

    SSL_get0_alpn_selected(ssl, &p, &n);
    if (n == 2 && memcmp(p, "h2", 2) == 0)
        return TLS_FRONT_H2;
    if (n == sizeof acme_alpn - 1 && memcmp(p, acme_alpn, n) == 0)
        return TLS_FRONT_ACME;
    return TLS_FRONT_HTTP1;
}

const char *tls_front_version(const SSL *ssl)
{
    switch (SSL_version(ssl)) {
    case TLS1_3_VERSION:
        return "TLS1.3";
    case TLS1_2_VERSION:
        return "TLS1.2";
    default:
        return "TLS";
    }
}
