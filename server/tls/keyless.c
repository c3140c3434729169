// SPDX-License-Identifier: MIT
/*
 * keyless.c - private keys in the keeper, stubs in the serving process
 * (keyless.h).
 *
 * The stubs are legacy keys with a method of their own: an EC_KEY whose
 * EC_KEY_METHOD signs through the keeper, an RSA whose RSA_METHOD does its
 * private encryption and decryption there. Each carries its key's id in
 * its ex_data. One request is one datagram (a head, then the operand), one
 * answer likewise; a serving process's threads take turns on the socket
 * under one lock, and a receive timeout bounds the wait.
 *
 * The keeper checks every request before it acts: a known operation, an
 * id it holds, an operand no longer than the key allows, and for RSA a
 * padding libssl's signatures and key exchange use.
 */
#define OPENSSL_API_COMPAT 0x10100000L /* EC_KEY_METHOD, RSA_METHOD */

#include "tls/keyless.h"

#include <errno.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

enum op { OP_ECDSA_SIGN = 1, OP_RSA_PRIV_ENC, OP_RSA_PRIV_DEC };

struct request_head {
    uint32_t op;
    int32_t padding; /* RSA: RSA_*_PADDING */
    uint8_t id[KEYLESS_ID_LEN];
    uint32_t len;
};

struct answer_head {
    int32_t status; /* 0, or -errno */
    uint32_t len;
};

/* The id of @key: SHA-256 of its SubjectPublicKeyInfo. 0 or -errno. */
static int key_id(const EVP_PKEY *key, uint8_t id[KEYLESS_ID_LEN])
{
    unsigned char *der = NULL;
    int len = i2d_PUBKEY(key, &der);

    if (len <= 0)
        return -EINVAL;
    SHA256(der, (size_t)len, id);
    OPENSSL_free(der);
    return 0;
}

/* ---- the keeper's side ----------------------------------------------------
 */

struct entry {
    uint8_t id[KEYLESS_ID_LEN];
    EVP_PKEY *key;
};

struct keyless_keys {
    pthread_mutex_t lock;
    struct entry *v; /* under lock */
    size_t n, cap;
};

int keyless_keys_new(struct keyless_keys **out)
{
    struct keyless_keys *t = calloc(1, sizeof *t);

    if (!t)
        return -ENOMEM;
    pthread_mutex_init(&t->lock, NULL);
    *out = t;
    return 0;
}

int keyless_keys_add(struct keyless_keys *t, EVP_PKEY *key,
                     uint8_t id[KEYLESS_ID_LEN])
{
    int type = EVP_PKEY_get_base_id(key), err;

    if (type != EVP_PKEY_EC && type != EVP_PKEY_RSA)
        return -ENOTSUP;
    err = key_id(key, id);
    if (err)
        return err;
    pthread_mutex_lock(&t->lock);
    for (size_t i = 0; i < t->n; i++)
        if (memcmp(t->v[i].id, id, KEYLESS_ID_LEN) == 0)
            goto out_unlock; /* the same key again */
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 8;
        struct entry *v = realloc(t->v, cap * sizeof *v);
        if (!v) {
            err = -ENOMEM;
            goto out_unlock;
        }
        t->v = v;
        t->cap = cap;
    }
    if (EVP_PKEY_up_ref(key) != 1) {
        err = -ENOMEM;
        goto out_unlock;
    }
    memcpy(t->v[t->n].id, id, KEYLESS_ID_LEN);
    t->v[t->n++].key = key;
out_unlock:
    pthread_mutex_unlock(&t->lock);
    return err;
}

/* The key of @id, a reference the caller frees; NULL: none. */
static EVP_PKEY *find(struct keyless_keys *t, const uint8_t *id)
{
    EVP_PKEY *key = NULL;

    pthread_mutex_lock(&t->lock);
    for (size_t i = 0; i < t->n && !key; i++)
        if (memcmp(t->v[i].id, id, KEYLESS_ID_LEN) == 0 &&
            EVP_PKEY_up_ref(t->v[i].key) == 1)
            key = t->v[i].key;
    pthread_mutex_unlock(&t->lock);
    return key;
}

/* ECDSA over the digest @in: the DER signature into @out. Its length, or
 * -errno. */
static int ecdsa(EVP_PKEY *key, const uint8_t *in, size_t len, uint8_t *out)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(key, NULL);
    size_t n = KEYLESS_DATA_MAX;
    int r = -EINVAL;

    if (EVP_PKEY_get_base_id(key) == EVP_PKEY_EC && ctx &&
        EVP_PKEY_sign_init(ctx) == 1 && len <= EVP_MAX_MD_SIZE &&
        EVP_PKEY_sign(ctx, out, &n, in, len) == 1)
        r = (int)n;
    EVP_PKEY_CTX_free(ctx);
    return r;
}

/* RSA's private operation on @in. The length of @out, or -errno. */
static int rsa_private(EVP_PKEY *key, enum op op, int padding,
                       const uint8_t *in, size_t len, uint8_t *out)
{
    RSA *rsa = EVP_PKEY_get1_RSA(key);
    int r = -EINVAL;

    /* what libssl asks of a key with a method of its own: PKCS#1 v1.5
     * (signatures, RSA key exchange) or raw (PSS, padded by libssl) */
    if (rsa && (padding == RSA_PKCS1_PADDING || padding == RSA_NO_PADDING) &&
        len <= (size_t)RSA_size(rsa) &&
        (size_t)RSA_size(rsa) <= KEYLESS_DATA_MAX)
        r = op == OP_RSA_PRIV_ENC
                ? RSA_private_encrypt((int)len, in, out, rsa, padding)
                : RSA_private_decrypt((int)len, in, out, rsa, padding);
    RSA_free(rsa);
    return r < 0 ? -EINVAL : r;
}

/* One request in @buf (@n bytes): its answer into @out. */
static size_t answer(struct keyless_keys *t, const uint8_t *buf, size_t n,
                     uint8_t *out)
{
    struct request_head h;
    struct answer_head a = {.status = -EINVAL};
    EVP_PKEY *key = NULL;
    int r = -EINVAL;

    if (n >= sizeof h) {
        memcpy(&h, buf, sizeof h);
        if (h.len == n - sizeof h && h.len <= KEYLESS_DATA_MAX)
            key = find(t, h.id);
        r = key ? -EINVAL : -ENOKEY;
    }
    if (key && h.op == OP_ECDSA_SIGN)
        r = ecdsa(key, buf + sizeof h, h.len, out + sizeof a);
    else if (key && (h.op == OP_RSA_PRIV_ENC || h.op == OP_RSA_PRIV_DEC) &&
             EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA)
        r = rsa_private(key, (enum op)h.op, h.padding, buf + sizeof h, h.len,
                        out + sizeof a);
    EVP_PKEY_free(key);
    ERR_clear_error();
    a.status = r < 0 ? r : 0;
    a.len = r < 0 ? 0 : (uint32_t)r;
    memcpy(out, &a, sizeof a);
    return sizeof a + a.len;
}

void keyless_serve(struct keyless_keys *t, int fd)
{
    uint8_t in[sizeof(struct request_head) + KEYLESS_DATA_MAX];
    uint8_t out[sizeof(struct answer_head) + KEYLESS_DATA_MAX];

    for (;;) {
        ssize_t n = recv(fd, in, sizeof in, MSG_TRUNC);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* the serving process is gone */
        size_t len = answer(t, in, (size_t)n > sizeof in ? 0 : (size_t)n, out);
        while (send(fd, out, len, MSG_NOSIGNAL) < 0 && errno == EINTR)
            ;
        OPENSSL_cleanse(out, sizeof out);
    }
}

void keyless_keys_free(struct keyless_keys *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        EVP_PKEY_free(t->v[i].key);
    free(t->v);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

char *keyless_public_pem(EVP_PKEY *key)
{
    BIO *b = BIO_new(BIO_s_mem());
    char *p = NULL, *out = NULL;
    long len;

    if (b && PEM_write_bio_PUBKEY(b, key) == 1 &&
        (len = BIO_get_mem_data(b, &p)) > 0 &&
        (out = malloc((size_t)len + 1))) {
        memcpy(out, p, (size_t)len);
        out[len] = '\0';
    }
    BIO_free(b);
    return out;
}

/* ---- the serving process's side ------------------------------------------ */

static int channel = -1;
static pthread_mutex_t channel_lock = PTHREAD_MUTEX_INITIALIZER;
static EC_KEY_METHOD *ec_method;
static RSA_METHOD *rsa_method;
static int ec_index = -1, rsa_index = -1;
static pthread_once_t methods_once = PTHREAD_ONCE_INIT;

int keyless_connect(int fd)
{
    struct timeval tv = {.tv_sec = KEYLESS_WAIT_MS / 1000,
                         .tv_usec =
                             (suseconds_t)(KEYLESS_WAIT_MS % 1000) * 1000};

    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0)
        return -errno;
    pthread_mutex_lock(&channel_lock);
    if (channel >= 0)
        close(channel);
    channel = fd;
    pthread_mutex_unlock(&channel_lock);
    return 0;
}

void keyless_disconnect(void)
{
    pthread_mutex_lock(&channel_lock);
    if (channel >= 0)
        close(channel);
    channel = -1;
    pthread_mutex_unlock(&channel_lock);
}

/* One request to the keeper; the result's length into *@outlen. 0, or
 * -errno (the keeper's refusal, or the socket's). */
static int ask(enum op op, int padding, const uint8_t *id, const uint8_t *in,
               size_t len, uint8_t *out, size_t cap, size_t *outlen)
{
    struct request_head h = {
        .op = op, .padding = padding, .len = (uint32_t)len};
    struct iovec iov[2] = {{.iov_base = &h, .iov_len = sizeof h},
                           {.iov_base = (void *)(uintptr_t)in, .iov_len = len}};
    struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};
    uint8_t buf[sizeof(struct answer_head) + KEYLESS_DATA_MAX];
    struct answer_head a;
    ssize_t n;
    int err = 0;

    if (len > KEYLESS_DATA_MAX)
        return -EINVAL;
    memcpy(h.id, id, KEYLESS_ID_LEN);
    pthread_mutex_lock(&channel_lock);
    if (channel < 0)
        err = -ENOTCONN;
    while (!err && sendmsg(channel, &msg, MSG_NOSIGNAL) < 0)
        if (errno != EINTR)
            err = -errno;
    do
        n = err ? 0 : recv(channel, buf, sizeof buf, 0);
    while (!err && n < 0 && errno == EINTR);
    if (!err && n < (ssize_t)sizeof a)
        err = n < 0 ? -errno : -EPIPE;
    pthread_mutex_unlock(&channel_lock);
    if (err)
        return err;
    memcpy(&a, buf, sizeof a);
    if (a.status < 0)
        return a.status;
    if (a.len != (size_t)n - sizeof a || a.len > cap)
        return -EPROTO;
    memcpy(out, buf + sizeof a, a.len);
    *outlen = a.len;
    OPENSSL_cleanse(buf, sizeof buf);
    return 0;
}

static int ec_sign(int type, const unsigned char *dgst, int dlen,
                   unsigned char *sig, unsigned int *siglen, const BIGNUM *kinv,
                   const BIGNUM *r, EC_KEY *eckey)
{
    const uint8_t *id = EC_KEY_get_ex_data(eckey, ec_index);
    size_t n = 0;

    (void)type;
    (void)kinv;
    (void)r;
    if (!id || dlen < 0 ||
        ask(OP_ECDSA_SIGN, 0, id, dgst, (size_t)dlen, sig,
            (size_t)ECDSA_size(eckey), &n) != 0)
        return 0;
    *siglen = (unsigned int)n;
    return 1;
}

static ECDSA_SIG *ec_sign_sig(const unsigned char *dgst, int dlen,
                              const BIGNUM *kinv, const BIGNUM *r,
                              EC_KEY *eckey)
{
    unsigned char der[KEYLESS_DATA_MAX];
    unsigned int len = 0;
    const unsigned char *p = der;

    if (ECDSA_size(eckey) > (int)sizeof der ||
        !ec_sign(0, dgst, dlen, der, &len, kinv, r, eckey))
        return NULL;
    return d2i_ECDSA_SIG(NULL, &p, len);
}

static int rsa_op(enum op op, int flen, const unsigned char *from,
                  unsigned char *to, RSA *rsa, int padding)
{
    const uint8_t *id = RSA_get_ex_data(rsa, rsa_index);
    size_t n = 0;

    if (!id || flen < 0 ||
        ask(op, padding, id, from, (size_t)flen, to, (size_t)RSA_size(rsa),
            &n) != 0)
        return -1;
    return (int)n;
}

static int rsa_enc(int flen, const unsigned char *from, unsigned char *to,
                   RSA *rsa, int padding)
{
    return rsa_op(OP_RSA_PRIV_ENC, flen, from, to, rsa, padding);
}

static int rsa_dec(int flen, const unsigned char *from, unsigned char *to,
                   RSA *rsa, int padding)
{
    return rsa_op(OP_RSA_PRIV_DEC, flen, from, to, rsa, padding);
}

static void id_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx,
                    long argl, void *argp)
{
    (void)parent;
    (void)ad;
    (void)idx;
    (void)argl;
    (void)argp;
    free(ptr);
}

static void methods_make(void)
{
    ec_index = EC_KEY_get_ex_new_index(0, NULL, NULL, NULL, id_free);
    rsa_index = RSA_get_ex_new_index(0, NULL, NULL, NULL, id_free);
    ec_method = EC_KEY_METHOD_new(EC_KEY_get_default_method());
    if (ec_method)
        EC_KEY_METHOD_set_sign(ec_method, ec_sign, NULL, ec_sign_sig);
    rsa_method = RSA_meth_dup(RSA_get_default_method());
    if (rsa_method && (RSA_meth_set1_name(rsa_method, "beneath keyless") != 1 ||
                       RSA_meth_set_priv_enc(rsa_method, rsa_enc) != 1 ||
                       RSA_meth_set_priv_dec(rsa_method, rsa_dec) != 1)) {
        RSA_meth_free(rsa_method);
        rsa_method = NULL;
    }
}

EVP_PKEY *keyless_stub(const char *pem, size_t len)
{
    BIO *b = BIO_new_mem_buf(pem, (int)len);
    EVP_PKEY *pub = b ? PEM_read_bio_PUBKEY(b, NULL, NULL, NULL) : NULL;
    EVP_PKEY *stub = NULL;
    uint8_t *id = malloc(KEYLESS_ID_LEN);
    int type = pub ? EVP_PKEY_get_base_id(pub) : 0;

    BIO_free(b);
    pthread_once(&methods_once, methods_make);
    errno = ENOMEM;
    if (!pub || !id || key_id(pub, id) != 0) {
        errno = pub ? errno : EINVAL;
        goto out_free;
    }
    if (type == EVP_PKEY_EC && ec_method) {
        EC_KEY *ec = EVP_PKEY_get1_EC_KEY(pub);
        /* the method first: EVP_PKEY_assign marks the key foreign by it */
        if (ec && EC_KEY_set_method(ec, ec_method) == 1 &&
            (stub = EVP_PKEY_new()) && EVP_PKEY_assign_EC_KEY(stub, ec) == 1) {
            /* the stub holds ec now, and ec the id once it took it */
            if (EC_KEY_set_ex_data(ec, ec_index, id) == 1)
                id = NULL;
            ec = NULL;
        }
        EC_KEY_free(ec);
    } else if (type == EVP_PKEY_RSA && rsa_method) {
        RSA *rsa = EVP_PKEY_get1_RSA(pub);
        if (rsa && RSA_set_method(rsa, rsa_method) == 1 &&
            (stub = EVP_PKEY_new()) && EVP_PKEY_assign_RSA(stub, rsa) == 1) {
            if (RSA_set_ex_data(rsa, rsa_index, id) == 1)
                id = NULL;
            rsa = NULL;
        }
        RSA_free(rsa);
    } else {
        errno = EINVAL;
    }
    if (id) { /* not taken over: the stub, if made, is no good */
        EVP_PKEY_free(stub);
        stub = NULL;
    }
out_free:
    free(id);
    EVP_PKEY_free(pub);
    ERR_clear_error();
    return stub;
}

int keyless_is_stub(const EVP_PKEY *key)
{
    int type = EVP_PKEY_get_base_id(key);

    if (type == EVP_PKEY_EC && ec_method)
        return EC_KEY_get_method(EVP_PKEY_get0_EC_KEY(key)) == ec_method;
    if (type == EVP_PKEY_RSA && rsa_method)
        return RSA_get_method(EVP_PKEY_get0_RSA(key)) == rsa_method;
    return 0;
}

/* ---- what the keeper said of each key file ---------------------------------
 */

struct said {
    char *path;
    char *pem;   /* or NULL */
    char *error; /* when pem is NULL: why; else a note (or "") */
};

static struct said *said; /* the main thread's, at start-up */
static size_t n_said;

int keyless_register(const char *path, const char *pem, const char *error)
{
    struct said *v = realloc(said, (n_said + 1) * sizeof *v);

    if (!v)
        return -ENOMEM;
    said = v;
    said[n_said] = (struct said){.path = strdup(path),
                                 .pem = pem ? strdup(pem) : NULL,
                                 .error = strdup(error ? error : "")};
    if (!said[n_said].path || (pem && !said[n_said].pem) ||
        !said[n_said].error) {
        free(said[n_said].path);
        free(said[n_said].pem);
        free(said[n_said].error);
        return -ENOMEM;
    }
    n_said++;
    return 0;
}

int keyless_key_for(const char *path, EVP_PKEY **key, char *why, size_t size)
{
    *key = NULL;
    for (size_t i = 0; i < n_said; i++) {
        if (strcmp(said[i].path, path) != 0)
            continue;
        snprintf(why, size, "%s", said[i].error);
        if (!said[i].pem)
            return 1;
        *key = keyless_stub(said[i].pem, strlen(said[i].pem));
        if (!*key)
            snprintf(why, size, "%s: the keeper's public key: %s", path,
                     strerror(errno));
        return 1;
    }
    return 0;
}

void keyless_registry_free(void)
{
    for (size_t i = 0; i < n_said; i++) {
        free(said[i].path);
        free(said[i].pem);
        free(said[i].error);
    }
    free(said);
    said = NULL;
    n_said = 0;
}
