// SPDX-License-Identifier: MIT
/*
 * test_tls_material.c - certificate and key checks. Every bad input is made
 * here with OpenSSL (dates, keys, chains, encryption), written to a temporary
 * directory, and loaded through the same function the server calls.
 */
#include "check_main.h"
#include "fixture.h"
#include "tls/material.h"
#include "tls_fixture.h"

#include <errno.h>
#include <limits.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DAY TLS_FIXTURE_DAY

static char cert_path[PATH_MAX], key_path[PATH_MAX], pw_path[PATH_MAX];
static time_t now;

static void setup(void)
{
    fixture_dir_setup();
    snprintf(cert_path, sizeof(cert_path), "%s", fixture_path("cert.pem"));
    snprintf(key_path, sizeof(key_path), "%s", fixture_path("key.pem"));
    snprintf(pw_path, sizeof(pw_path), "%s", fixture_path("password"));
    now = time(NULL);
}

static X509 *make_cert(const char *cn, EVP_PKEY *key, X509 *issuer,
                       EVP_PKEY *issuer_key, long from, long to, bool ca)
{
    return tls_fixture_cert(cn, key, issuer, issuer_key, now, from, to, ca,
                            NULL);
}

static void write_text(const char *path, const void *text, size_t len)
{
    FILE *f = fopen(path, "w");

    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    fclose(f);
}

enum scenario {
    GOOD_SINGLE,
    GOOD_CHAIN,
    COMBINED_FILE,
    EXPIRING_SOON,
    EXPIRED,
    NOT_YET_VALID,
    INTERMEDIATE_EXPIRED,
    MISMATCHED_KEY,
    WRONG_ORDER,
    LEAF_LAST,
    MISSING_ISSUER,
    GARBAGE_CERT,
    DER_CERT,
    EMPTY_CERT,
    BAD_BASE64,
    GARBAGE_KEY,
    CERT_AS_KEY,
    MISSING_CERT,
    MISSING_KEY,
    CERT_IS_DIR,
    ENCRYPTED_KEY,
    ENCRYPTED_NO_PASSWORD,
    ENCRYPTED_WRONG_PASSWORD,
    EMPTY_PASSWORD_FILE,
};

static const struct {
    const char *name;
    enum scenario s;
    int want;
    const char *blame; /* "cert", "key" or "pw": the file named */
    const char *says;  /* in the message */
    bool warns;
    size_t n_certs;
} cases[] = {
    {"single", GOOD_SINGLE, 0, NULL, NULL, false, 1},
    {"leaf, intermediate, root", GOOD_CHAIN, 0, NULL, NULL, false, 3},
    {"cert and key in one file", COMBINED_FILE, 0, NULL, NULL, false, 1},
    {"expires in 3 days", EXPIRING_SOON, 0, "cert", "expires on", true, 1},
    {"expired", EXPIRED, -EKEYEXPIRED, "cert", "expired on", false, 0},
    {"not yet valid", NOT_YET_VALID, -EKEYEXPIRED, "cert", "not valid yet",
     false, 0},
    {"intermediate expired", INTERMEDIATE_EXPIRED, -EKEYEXPIRED, "cert",
     "certificate 2 (CN=Test Intermediate) expired", false, 0},
    {"key of another cert", MISMATCHED_KEY, -EKEYREJECTED, "key",
     "does not match", false, 0},
    {"root before intermediate", WRONG_ORDER, -EINVAL, "cert",
     "its issuer is certificate 3", false, 0},
    {"leaf last", LEAF_LAST, -EINVAL, "cert", "the key in", false, 0},
    {"intermediate missing", MISSING_ISSUER, -EINVAL, "cert",
     "chain out of order", false, 0},
    {"garbage cert", GARBAGE_CERT, -EBADMSG, "cert", "not a PEM file", false,
     0},
    {"DER cert", DER_CERT, -EBADMSG, "cert", "openssl x509 -inform der", false,
     0},
    {"empty cert file", EMPTY_CERT, -EBADMSG, "cert", "not a PEM file", false,
     0},
    {"corrupt base64", BAD_BASE64, -EBADMSG, "cert", "malformed", false, 0},
    {"garbage key", GARBAGE_KEY, -EBADMSG, "key", "not a PEM file", false, 0},
    {"cert given as key", CERT_AS_KEY, -EBADMSG, "key", "no readable PEM",
     false, 0},
    {"cert file missing", MISSING_CERT, -ENOENT, "cert", "cannot open", false,
     0},
    {"key file missing", MISSING_KEY, -ENOENT, "key", "cannot open", false, 0},
    {"cert is a directory", CERT_IS_DIR, -EISDIR, "cert", "is a directory",
     false, 0},
    {"encrypted key + password", ENCRYPTED_KEY, 0, NULL, NULL, false, 1},
    {"encrypted key, no password", ENCRYPTED_NO_PASSWORD, -EKEYREJECTED, "key",
     "--tls-key-password-file", false, 0},
    {"encrypted key, wrong password", ENCRYPTED_WRONG_PASSWORD, -EKEYREJECTED,
     "key", "wrong password", false, 0},
    {"empty password file", EMPTY_PASSWORD_FILE, -EINVAL, "pw", "empty", false,
     0},
};

/*
 * @n certificates into the cert file; @key, encrypted with @key_pw unless
 * that is NULL, into the key file.
 */
static void write_pair(X509 *const *certs, size_t n, EVP_PKEY *key,
                       const char *key_pw)
{
    tls_fixture_write_certs(cert_path, certs, n);
    tls_fixture_write_key(key_path, key, key_pw);
}

/*
 * The certificate @self and its key @lk encrypted with @key_pw, and the
 * password file holding @pw_text unless that is NULL: returns the password
 * file's path, or NULL for none.
 */
static const char *encrypted(X509 *self, EVP_PKEY *lk, const char *key_pw,
                             const char *pw_text)
{
    write_pair(&self, 1, lk, key_pw);
    if (pw_text == NULL)
        return NULL;
    write_text(pw_path, pw_text, strlen(pw_text));
    return pw_path;
}

/* build - write the files of @s; returns the password file to pass or NULL. */
static const char *build(enum scenario s)
{
    EVP_PKEY *rk = tls_fixture_key(), *ik = tls_fixture_key(),
             *lk = tls_fixture_key();
    X509 *root = make_cert("Test Root", rk, NULL, NULL, -DAY, 365 * DAY, true);
    X509 *inter =
        make_cert("Test Intermediate", ik, root, rk, -DAY, 365 * DAY, true);
    X509 *leaf = make_cert("localhost", lk, inter, ik, -DAY, 90 * DAY, false);
    X509 *self = make_cert("self", lk, NULL, NULL, -DAY, 90 * DAY, false);
    const char *pw = NULL;
    X509 *x = NULL;

    switch (s) {
    case GOOD_SINGLE:
        write_pair(&self, 1, lk, NULL);
        break;
    case GOOD_CHAIN:
        write_pair((X509 *[]){leaf, inter, root}, 3, lk, NULL);
        break;
    case COMBINED_FILE: {
        tls_fixture_write_key(cert_path, lk, NULL);
        BIO *b = BIO_new_file(cert_path, "a");
        PEM_write_bio_X509(b, self);
        BIO_free(b);
        snprintf(key_path, sizeof(key_path), "%s", cert_path);
        break;
    }
    case EXPIRING_SOON:
        x = make_cert("soon", lk, NULL, NULL, -DAY, 3 * DAY + 3600, false);
        write_pair(&x, 1, lk, NULL);
        break;
    case EXPIRED:
        x = make_cert("old", lk, NULL, NULL, -30 * DAY, -DAY, false);
        write_pair(&x, 1, lk, NULL);
        break;
    case NOT_YET_VALID:
        x = make_cert("future", lk, NULL, NULL, DAY, 30 * DAY, false);
        write_pair(&x, 1, lk, NULL);
        break;
    case INTERMEDIATE_EXPIRED: {
        X509 *old =
            make_cert("Test Intermediate", ik, root, rk, -30 * DAY, -DAY, true);
        write_pair((X509 *[]){leaf, old, root}, 3, lk, NULL);
        X509_free(old);
        break;
    }
    case MISMATCHED_KEY:
        write_pair(&self, 1, ik, NULL);
        break;
    case WRONG_ORDER:
        write_pair((X509 *[]){leaf, root, inter}, 3, lk, NULL);
        break;
    case LEAF_LAST:
        write_pair((X509 *[]){root, inter, leaf}, 3, lk, NULL);
        break;
    case MISSING_ISSUER:
        write_pair((X509 *[]){leaf, root}, 2, lk, NULL);
        break;
    case GARBAGE_CERT:
        write_text(cert_path, "hello, I am not a certificate\n", 30);
        tls_fixture_write_key(key_path, lk, NULL);
        break;
    case DER_CERT: {
        unsigned char *der = NULL;
        int n = i2d_X509(self, &der);
        ck_assert_int_gt(n, 0);
        write_text(cert_path, der, (size_t)n);
        OPENSSL_free(der);
        tls_fixture_write_key(key_path, lk, NULL);
        break;
    }
    case EMPTY_CERT:
        write_text(cert_path, "", 0);
        tls_fixture_write_key(key_path, lk, NULL);
        break;
    case BAD_BASE64: {
        static const char bad[] = "-----BEGIN CERTIFICATE-----\n"
                                  "MIIB!!!!not*base64*at*all\n"
                                  "-----END CERTIFICATE-----\n";
        write_text(cert_path, bad, sizeof(bad) - 1);
        tls_fixture_write_key(key_path, lk, NULL);
        break;
    }
    case GARBAGE_KEY:
        tls_fixture_write_certs(cert_path, &self, 1);
        write_text(key_path, "\x01\x02garbage", 9);
        break;
    case CERT_AS_KEY:
        tls_fixture_write_certs(cert_path, &self, 1);
        tls_fixture_write_certs(key_path, &self, 1);
        break;
    case MISSING_CERT:
        tls_fixture_write_key(key_path, lk, NULL);
        break;
    case MISSING_KEY:
        tls_fixture_write_certs(cert_path, &self, 1);
        break;
    case CERT_IS_DIR:
        ck_assert_int_eq(mkdir(cert_path, 0700), 0);
        tls_fixture_write_key(key_path, lk, NULL);
        break;
    case ENCRYPTED_KEY:
        pw = encrypted(self, lk, "s3cret pass",
                       "s3cret pass\nsecond line ignored\n");
        break;
    case ENCRYPTED_NO_PASSWORD:
        pw = encrypted(self, lk, "s3cret", NULL);
        break;
    case ENCRYPTED_WRONG_PASSWORD:
        pw = encrypted(self, lk, "s3cret", "guess\n");
        break;
    case EMPTY_PASSWORD_FILE:
        pw = encrypted(self, lk, "s3cret", "\n");
        break;
    }
    X509_free(x);
    X509_free(self);
    X509_free(leaf);
    X509_free(inter);
    X509_free(root);
    EVP_PKEY_free(lk);
    EVP_PKEY_free(ik);
    EVP_PKEY_free(rk);
    return pw;
}

LOOP_TEST(material_case, cases)
{
    struct tls_material m;
    struct tls_material_diag d;
    const char *pw = build(cases[_i].s);
    int fds = fixture_count_fds();
    int rc = tls_material_load(&m, cert_path, key_path, pw, now, &d);

    ck_assert_msg(rc == cases[_i].want, "%s: rc %d (%s), want %d",
                  cases[_i].name, rc, d.error, cases[_i].want);
    ck_assert_int_eq(fixture_count_fds(), fds);
    if (cases[_i].want < 0) {
        const char *file = strcmp(cases[_i].blame, "cert") == 0  ? cert_path
                           : strcmp(cases[_i].blame, "key") == 0 ? key_path
                                                                 : pw_path;
        ck_assert_msg(strncmp(d.error, file, strlen(file)) == 0,
                      "%s: message does not start with %s: %s", cases[_i].name,
                      file, d.error);
        ck_assert_msg(strstr(d.error, cases[_i].says) != NULL,
                      "%s: message lacks \"%s\": %s", cases[_i].name,
                      cases[_i].says, d.error);
        ck_assert_ptr_null(m.cert_pem);
        ck_assert_ptr_null(m.key_pem);
        return;
    }
    ck_assert_str_eq(d.error, "");
    if (cases[_i].warns) {
        ck_assert_msg(strstr(d.warning, cases[_i].says) != NULL &&
                          strstr(d.warning, cert_path) != NULL &&
                          strstr(d.warning, "in 3 days") != NULL,
                      "%s: warning: %s", cases[_i].name, d.warning);
    } else {
        ck_assert_msg(d.warning[0] == '\0', "%s: unexpected warning: %s",
                      cases[_i].name, d.warning);
    }
    ck_assert_uint_eq(m.n_certs, cases[_i].n_certs);
    ck_assert_ptr_nonnull(strstr(m.cert_pem, "-----BEGIN CERTIFICATE-----"));
    ck_assert_uint_eq(strlen(m.cert_pem), m.cert_len);
    /* Whatever came in, an unencrypted PKCS#8 key goes out. */
    ck_assert_ptr_nonnull(strstr(m.key_pem, "-----BEGIN PRIVATE KEY-----"));
    ck_assert_ptr_null(strstr(m.key_pem, "ENCRYPTED"));
    ck_assert_uint_eq(strlen(m.fingerprint), 95);
    tls_material_free(&m);
    ck_assert_ptr_null(m.key_pem);
    ck_assert_uint_eq(m.key_len, 0);
}
END_TEST

/* The output PEM reads back with OpenSSL, chain in order, key matching. */
START_TEST(output_round_trip)
{
    struct tls_material m;
    struct tls_material_diag d;
    BIO *b;
    X509 *x[4] = {NULL};
    EVP_PKEY *k;
    int n = 0;

    build(GOOD_CHAIN);
    ck_assert_int_eq(tls_material_load(&m, cert_path, key_path, NULL, now, &d),
                     0);
    b = BIO_new_mem_buf(m.cert_pem, (int)m.cert_len);
    while (n < 4 && (x[n] = PEM_read_bio_X509(b, NULL, NULL, NULL)) != NULL)
        n++;
    BIO_free(b);
    ck_assert_int_eq(n, 3);
    ck_assert_int_eq(X509_check_issued(x[1], x[0]), X509_V_OK);
    ck_assert_int_eq(X509_check_issued(x[2], x[1]), X509_V_OK);
    b = BIO_new_mem_buf(m.key_pem, (int)m.key_len);
    k = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
    BIO_free(b);
    ck_assert_ptr_nonnull(k);
    ck_assert_int_eq(X509_check_private_key(x[0], k), 1);
    ck_assert_str_eq(m.subject, "CN=localhost");
    ck_assert_int_eq((long)m.not_after, (long)(now + 90 * DAY));
    EVP_PKEY_free(k);
    for (n = 0; n < 3; n++)
        X509_free(x[n]);
    tls_material_free(&m);
}
END_TEST

START_TEST(self_signed)
{
    struct tls_material m, back;
    struct tls_material_diag d;
    EVP_PKEY *k;
    X509 *x;
    BIO *b;

    ck_assert_int_eq(tls_material_self_signed(&m, now, 7, &d), 0);
    ck_assert_str_eq(d.error, "");
    ck_assert_uint_eq(m.n_certs, 1);
    ck_assert_str_eq(m.subject, "CN=localhost");
    ck_assert_int_eq((long)m.not_after, (long)(now + 7 * DAY));
    ck_assert_uint_eq(strlen(m.fingerprint), 95);
    for (int i = 0; i < 95; i++)
        ck_assert(i % 3 == 2
                      ? m.fingerprint[i] == ':'
                      : strchr("0123456789ABCDEF", m.fingerprint[i]) != NULL);

    b = BIO_new_mem_buf(m.cert_pem, (int)m.cert_len);
    x = PEM_read_bio_X509(b, NULL, NULL, NULL);
    BIO_free(b);
    ck_assert_ptr_nonnull(x);
    ck_assert_int_eq(X509_check_host(x, "localhost", 0, 0, NULL), 1);
    ck_assert_int_eq(X509_check_host(x, "example.com", 0, 0, NULL), 0);
    ck_assert_int_eq(X509_check_ip_asc(x, "127.0.0.1", 0), 1);
    ck_assert_int_eq(X509_check_ip_asc(x, "::1", 0), 1);
    ck_assert_int_eq(X509_check_ip_asc(x, "10.0.0.1", 0), 0);
    ck_assert_int_eq(X509_verify(x, X509_get0_pubkey(x)), 1);
    ck_assert_int_eq(X509_get_signature_nid(x), NID_ecdsa_with_SHA256);
    k = X509_get0_pubkey(x);
    ck_assert(EVP_PKEY_is_a(k, "EC"));
    ck_assert_int_eq(EVP_PKEY_get_bits(k), 256);
    X509_free(x);

    /* It passes the same checks as a certificate from files. */
    write_text(cert_path, m.cert_pem, m.cert_len);
    write_text(key_path, m.key_pem, m.key_len);
    ck_assert_int_eq(
        tls_material_load(&back, cert_path, key_path, NULL, now, &d), 0);
    ck_assert_str_eq(back.fingerprint, m.fingerprint);
    /* 7 days is short: the same warning an operator would get. */
    ck_assert_ptr_nonnull(strstr(d.warning, "expires on"));
    tls_material_free(&back);
    tls_material_free(&m);

    /* Two runs: two keys. */
    ck_assert_int_eq(tls_material_self_signed(&m, now, 30, &d), 0);
    ck_assert_int_eq(tls_material_self_signed(&back, now, 30, &d), 0);
    ck_assert_str_ne(back.fingerprint, m.fingerprint);
    tls_material_free(&back);
    tls_material_free(&m);
}
END_TEST

START_TEST(self_signed_bad_days)
{
    struct tls_material m;
    struct tls_material_diag d;

    ck_assert_int_eq(tls_material_self_signed(&m, now, 0, &d), -EINVAL);
    ck_assert_ptr_nonnull(strstr(d.error, "days"));
    ck_assert_int_eq(tls_material_self_signed(&m, now, 100000, &d), -EINVAL);
    ck_assert_ptr_null(m.key_pem);
    tls_material_free(NULL);
}
END_TEST

/* A file past the size cap is refused, not read into memory whole. */
START_TEST(too_large)
{
    struct tls_material m;
    struct tls_material_diag d;
    FILE *f = fopen(cert_path, "w");

    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(ftruncate(fileno(f), TLS_MATERIAL_MAX_FILE + 1), 0);
    fclose(f);
    build(MISSING_CERT); /* writes the key only */
    ck_assert_int_eq(tls_material_load(&m, cert_path, key_path, NULL, now, &d),
                     -EFBIG);
    ck_assert_ptr_nonnull(strstr(d.error, cert_path));
}
END_TEST

const struct check_main check_main = {
    .suite = "tls_material",
    .tcases = {{"load", setup, fixture_dir_teardown,
                .loops = {LOOP(material_case)},
                .tests = {&output_round_trip, &too_large}},
               {"self_signed", setup, fixture_dir_teardown,
                .tests = {&self_signed, &self_signed_bad_days}}}};
