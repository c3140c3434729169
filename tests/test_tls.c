// SPDX-License-Identifier: MIT
/*
 * test_tls.c - the GnuTLS side: what the certificate callback hands out
 * before, across and after loads, good and bad (a bad load keeps the
 * certificate in use), and the unload.
 */
#include "tls.h"
#include "tls_fixture.h"

#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <gnutls/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64], cert[128], key[128];

static int rm_one(const char *p, const struct stat *st, int flag,
                  struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(p);
}

static void setup(void)
{
    const char *tmp = getenv("TMPDIR");

    snprintf(dir, sizeof(dir), "%s/beneath-XXXXXX", tmp ? tmp : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cert, sizeof(cert), "%s/cert.pem", dir);
    snprintf(key, sizeof(key), "%s/key.pem", dir);
}

static void teardown(void)
{
    tls_free();
    nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
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

int main(void)
{
    Suite *s = suite_create("tls");
    TCase *tc = tcase_create("creds");
    SRunner *sr;
    int failed;

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, load_swap_keep_unload);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
