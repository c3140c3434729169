// SPDX-License-Identifier: MIT
/*
 * test_tls.c - the GnuTLS side: what the certificate callback hands out
 * before, across and after loads, good and bad (a bad load keeps the
 * certificate in use), and the unload.
 */
#include "check_main.h"
#include "fixture.h"
#include "tls_fixture.h"
#include "transport/tls_gnutls.h"

#include <errno.h>
#include <gnutls/x509.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char cert[PATH_MAX], key[PATH_MAX];

static void setup(void)
{
    fixture_dir_setup();
    snprintf(cert, sizeof(cert), "%s", fixture_path("cert.pem"));
    snprintf(key, sizeof(key), "%s", fixture_path("key.pem"));
}

static void teardown(void)
{
    tls_free();
    fixture_dir_teardown();
}

/* The callback's answer: the leaf's CN, or "" when it refuses. */
static void served(char *cn, size_t size, unsigned *n)
{
    gnutls_pcert_st *pc = NULL;
    gnutls_privkey_t pk = NULL;
    gnutls_x509_crt_t crt;

    cn[0] = '\0';
    *n = 0;
    if (tls_cert_callback(NULL, NULL, 0, NULL, 0, &pc, n, &pk) != 0)
        return;
    ck_assert_ptr_nonnull(pc);
    ck_assert_ptr_nonnull(pk);
    ck_assert_int_eq(gnutls_x509_crt_init(&crt), 0);
    ck_assert_int_eq(
        gnutls_x509_crt_import(crt, &pc[0].cert, GNUTLS_X509_FMT_DER), 0);
    ck_assert_int_eq(gnutls_x509_crt_get_dn_by_oid(
                         crt, GNUTLS_OID_X520_COMMON_NAME, 0, 0, cn, &size),
                     0);
    gnutls_x509_crt_deinit(crt);
}

static void write_pair(const char *cn, long from, long to)
{
    EVP_PKEY *k = tls_fixture_key();
    X509 *x =
        tls_fixture_cert(cn, k, NULL, NULL, time(NULL), from, to, false, NULL);

    tls_fixture_write_certs(cert, &x, 1);
    tls_fixture_write_key(key, k, NULL);
    X509_free(x);
    EVP_PKEY_free(k);
}

START_TEST(load_swap_keep_unload)
{
    struct tls_source files = {.cert = cert, .key = key};
    struct tls_source self = {.self_signed = true};
    struct tls_material_diag d;
    char fp[TLS_MATERIAL_FINGERPRINT_LEN], fp2[TLS_MATERIAL_FINGERPRINT_LEN];
    char cn[128];
    unsigned n;

    served(cn, sizeof(cn), &n);
    ck_assert_str_eq(cn, ""); /* nothing loaded: the handshake fails */

    ck_assert_int_eq(tls_load(&self, &d, fp), 0);
    served(cn, sizeof(cn), &n);
    ck_assert_str_eq(cn, "localhost");
    ck_assert_uint_eq(n, 1);

    write_pair("first", -TLS_FIXTURE_DAY, 30 * TLS_FIXTURE_DAY);
    ck_assert_int_eq(tls_load(&files, &d, fp2), 0);
    ck_assert_str_ne(fp, fp2);
    served(cn, sizeof(cn), &n);
    ck_assert_str_eq(cn, "first");

    /* Expired: refused, "first" stays. */
    write_pair("expired", -30 * TLS_FIXTURE_DAY, -TLS_FIXTURE_DAY);
    ck_assert_int_eq(tls_load(&files, &d, fp), -EKEYEXPIRED);
    ck_assert_ptr_nonnull(strstr(d.error, cert));
    served(cn, sizeof(cn), &n);
    ck_assert_str_eq(cn, "first");

    /* Missing file: refused too. */
    ck_assert_int_eq(unlink(key), 0);
    ck_assert_int_eq(tls_load(&files, &d, fp), -ENOENT);
    served(cn, sizeof(cn), &n);
    ck_assert_str_eq(cn, "first");

    tls_free();
    served(cn, sizeof(cn), &n);
    ck_assert_str_eq(cn, "");
}
END_TEST

const struct check_main check_main = {
    .suite = "tls",
    .tcases = {{"creds", setup, teardown, .tests = {&load_swap_keep_unload}}}};
