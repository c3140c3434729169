// SPDX-License-Identifier: MIT
/*
 * test_tls.c - the certificate store (tls/store.c): what a new connection
 * is given before, across and after puts, by SNI name (exact, wildcard,
 * unknown, garbage), a put that fails keeps the certificate in use, names
 * dropped by a new configuration, and the ACME challenge hook.
 */
#include "check_main.h"
#include "fixture.h"
#include "tls/store.h"
#include "tls_fixture.h"

#include <errno.h>
#include <limits.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char cert[PATH_MAX], key[PATH_MAX];
static struct tls_store *store;

static void setup(void)
{
    fixture_dir_setup();
    snprintf(cert, sizeof(cert), "%s", fixture_path("cert.pem"));
    snprintf(key, sizeof(key), "%s", fixture_path("key.pem"));
    ck_assert_int_eq(tls_store_new(NULL, NULL, &store), 0);
}

static void teardown(void)
{
    tls_store_free(store);
    store = NULL;
    fixture_dir_teardown();
}

/* The CN of @x into @cn, or "". */
static void cn_of(X509 *x, char *cn, size_t size)
{
    cn[0] = '\0';
    if (x)
        X509_NAME_get_text_by_NID(X509_get_subject_name(x), NID_commonName, cn,
                                  (int)size);
}

/* The CN a new connection with SNI @sni (NULL: none) is given, or "". */
static const char *served(const char *sni)
{
    static char cn[128];
    SSL *ssl = tls_store_new_ssl(store);

    cn[0] = '\0';
    if (!ssl)
        return cn;
    tls_store_select(store, ssl, sni);
    cn_of(SSL_get_certificate(ssl), cn, sizeof cn);
    SSL_free(ssl);
    return cn;
}

/* A certificate for CN @cn valid @from..@to s from now, into the store as
 * @name. The put's result. */
static int put(const char *name, const char *cn, long from, long to)
{
    EVP_PKEY *k = tls_fixture_key();
    X509 *x =
        tls_fixture_cert(cn, k, NULL, NULL, time(NULL), from, to, false, NULL);
    struct tls_material m;
    struct tls_material_diag d;
    int err;

    tls_fixture_write_certs(cert, &x, 1);
    tls_fixture_write_key(key, k, NULL);
    X509_free(x);
    EVP_PKEY_free(k);
    err = tls_material_load(&m, cert, key, NULL, time(NULL), &d);
    if (err == 0)
        err = tls_store_put(store, name, &m, &d);
    tls_material_free(&m);
    return err;
}

#define DAY TLS_FIXTURE_DAY

START_TEST(default_swap_keep)
{
    struct tls_material m;
    struct tls_material_diag d;

    ck_assert_ptr_null(tls_store_new_ssl(store)); /* nothing loaded */
    ck_assert(!tls_store_has(store, NULL));

    ck_assert_int_eq(tls_material_self_signed(&m, time(NULL), 30, &d), 0);
    ck_assert_int_eq(tls_store_put(store, NULL, &m, &d), 0);
    tls_material_free(&m);
    ck_assert_str_eq(served(NULL), "localhost");
    ck_assert(tls_store_has(store, ""));

    /* an open connection keeps its context across a put */
    SSL *open = tls_store_new_ssl(store);
    ck_assert_int_eq(put(NULL, "first", -DAY, 30 * DAY), 0);
    ck_assert_str_eq(served(NULL), "first");
    char cn[64];
    cn_of(SSL_get_certificate(open), cn, sizeof cn);
    ck_assert_str_eq(cn, "localhost");
    SSL_free(open);

    /* expired: refused by the material check, "first" stays */
    ck_assert_int_eq(put(NULL, "expired", -30 * DAY, -DAY), -EKEYEXPIRED);
    ck_assert_str_eq(served(NULL), "first");

    /* a key that is not the certificate's: refused by OpenSSL */
    ck_assert_int_eq(put(NULL, "second", -DAY, 30 * DAY), 0);
    ck_assert_int_eq(tls_material_load(&m, cert, key, NULL, time(NULL), &d), 0);
    EVP_PKEY *other = tls_fixture_key();
    tls_fixture_write_key(key, other, NULL);
    EVP_PKEY_free(other);
    struct tls_material bad;
    ck_assert_int_eq(tls_material_load(&bad, cert, key, NULL, time(NULL), &d),
                     -EKEYREJECTED);
    /* the same, past the material check: the store's own */
    free(m.key_pem);
    m.key_pem = strdup("-----BEGIN PRIVATE KEY-----\nAAAA\n"
                       "-----END PRIVATE KEY-----\n");
    m.key_len = strlen(m.key_pem);
    ck_assert_int_eq(tls_store_put(store, NULL, &m, &d), -EINVAL);
    ck_assert_ptr_nonnull(strstr(d.error, "private key"));
    tls_material_free(&m);
    ck_assert_str_eq(served(NULL), "second");
}
END_TEST

static const struct {
    const char *sni;
    const char *cn;
} by_name[] = {
    {NULL, "default"},
    {"", "default"},
    {"docs.example.com", "docs"},
    {"DOCS.Example.COM.", "docs"},
    {"a.example.com", "wild"},
    {"x.a.example.com", "deeper"},
    {"example.com", "default"},
    {"other.test", "default"},
    {"bad name!", "default"},
    {"docs.example.com:443", "docs"},
};

LOOP_TEST(sni_picks, by_name)
{
    ck_assert_int_eq(put(NULL, "default", -DAY, 30 * DAY), 0);
    ck_assert_int_eq(put("docs.example.com", "docs", -DAY, 30 * DAY), 0);
    ck_assert_int_eq(put("*.example.com", "wild", -DAY, 30 * DAY), 0);
    ck_assert_int_eq(put("*.a.example.com", "deeper", -DAY, 30 * DAY), 0);
    ck_assert_str_eq(served(by_name[_i].sni), by_name[_i].cn);
}
END_TEST

START_TEST(names_dropped)
{
    const char *keep[] = {"", "b.test"};

    /* named only: the first name serves as the default */
    ck_assert_int_eq(put("a.test", "a", -DAY, 30 * DAY), 0);
    ck_assert_str_eq(served(NULL), "a");
    ck_assert_int_eq(put("b.test", "b", -DAY, 30 * DAY), 0);
    ck_assert_int_eq(put(NULL, "default", -DAY, 30 * DAY), 0);
    ck_assert_str_eq(served("a.test"), "a");
    tls_store_keep_only(store, keep, 2);
    ck_assert(!tls_store_has(store, "a.test"));
    ck_assert_str_eq(served("a.test"), "default");
    ck_assert_str_eq(served("b.test"), "b");
    tls_store_drop(store, "b.test");
    ck_assert_str_eq(served("b.test"), "default");
    tls_store_keep_only(store, NULL, 0);
    ck_assert_ptr_null(tls_store_new_ssl(store));
}
END_TEST

static int challenge(void *arg, const char *name, X509 **x, EVP_PKEY **k)
{
    (void)arg;
    if (strcmp(name, "acme.test") != 0)
        return -ENOENT;
    *k = tls_fixture_key();
    *x = tls_fixture_cert("challenge", *k, NULL, NULL, time(NULL), -60, DAY,
                          false, "DNS:acme.test");
    return 0;
}

START_TEST(acme_challenge)
{
    char cn[64];

    ck_assert_int_eq(put(NULL, "default", -DAY, 30 * DAY), 0);
    SSL *ssl = tls_store_new_ssl(store);
    ck_assert_int_eq(tls_store_challenge(store, ssl, "acme.test"), -ENOENT);
    tls_store_set_challenge(store, challenge, NULL);
    ck_assert_int_eq(tls_store_challenge(store, ssl, "other.test"), -ENOENT);
    ck_assert_int_eq(tls_store_challenge(store, ssl, "ACME.test"), 0);
    cn_of(SSL_get_certificate(ssl), cn, sizeof cn);
    ck_assert_str_eq(cn, "challenge");
    SSL_free(ssl);
    ck_assert_str_eq(served("acme.test"), "default");
}
END_TEST

const struct check_main check_main = {
    .suite = "tls",
    .tcases = {
        {"store", setup, teardown, .loops = {LOOP(sni_picks)},
         .tests = {&default_swap_keep, &names_dropped, &acme_challenge}}}};
