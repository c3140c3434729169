/* SPDX-License-Identifier: MIT */
/*
 * test_acme.c - beneath_acme without a CA: the renewal policy (a table of
 * instants), names and CA URLs, the JWS (verified with OpenSSL), the CSR,
 * the TLS-ALPN-01 certificate, the challenge store under concurrent readers,
 * the --acme-dir files (modes, atomic replacement), its lock held by
 * another process and the lock that tells a lone server from replicas, a
 * name asked on demand taken at once from another replica's files; the
 * pace of polls and the dates of the log lines.
 */
#include "acme/acme.h"
#include "acme/internal.h"
#include "check_main.h"
#include "fixture.h"

#include <dirent.h>
#include <errno.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/sha.h>
#include <openssl/x509v3.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define DAY 86400
#define T0 1700000000

static const struct {
    time_t nb, na, ari_start, ari_end;
    uint32_t rnd;
    time_t want;
} renew_cases[] = {
    /* 90 days: two thirds is day 60; the jitter takes up to 4.5 days */
    {T0, T0 + 90 * DAY, 0, 0, 0, T0 + 60 * DAY},
    {T0, T0 + 90 * DAY, 0, 0, 0x80000000u, T0 + 60 * DAY - 194400},
    {T0, T0 + 90 * DAY, 0, 0, 0xffffffffu, T0 + 60 * DAY - 388794},
    /* Pebble's 5 years, and its 2-minute test certificates */
    {T0, T0 + 1826 * DAY, 0, 0, 0, T0 + 1826 * DAY / 3 * 2},
    {T0, T0 + 120, 0, 0, 0, T0 + 80},
    {T0, T0 + 120, 0, 0, 0xffffffffu, T0 + 80 - 5},
    /* an ACME Renewal Information window wins */
    {T0, T0 + 90 * DAY, T0 + 50 * DAY, T0 + 52 * DAY, 0, T0 + 50 * DAY},
    {T0, T0 + 90 * DAY, T0 + 50 * DAY, T0 + 52 * DAY, 0x80000000u,
     T0 + 51 * DAY},
    /* nonsense dates: due at once */
    {T0, T0, 0, 0, 0, T0},
    {T0, T0 - 5, 0, 0, 0, T0},
};

LOOP_TEST(renew_case, renew_cases)
{
    ck_assert_int_eq(acme_renew_at(renew_cases[_i].nb, renew_cases[_i].na,
                                   renew_cases[_i].ari_start,
                                   renew_cases[_i].ari_end,
                                   renew_cases[_i].rnd),
                     renew_cases[_i].want);
}
END_TEST

static const struct {
    time_t retry_after, want;
    unsigned failures;
    uint32_t rnd;
} retry_cases[] = {
    {0, T0 + 60, 1, 0},           {0, T0 + 120, 2, 0},
    {0, T0 + 240, 3, 0},          {0, T0 + 21600, 30, 0}, /* the ceiling */
    {0, T0 + 65, 1, 0xffffffffu}, /* a tenth of jitter at most */
    {T0 + 3600, T0 + 3600, 1, 0}, /* the CA's Retry-After is respected */
    {T0 + 10, T0 + 240, 3, 0},    /* but never shortens the backoff */
};

LOOP_TEST(retry_case, retry_cases)
{
    struct acme_backoff b = ACME_BACKOFF_DEFAULT;

    ck_assert_int_eq(acme_retry_at(T0, retry_cases[_i].failures,
                                   retry_cases[_i].retry_after, b,
                                   retry_cases[_i].rnd),
                     retry_cases[_i].want);
}
END_TEST

/* The polls of an authorization or order: quick at first, a second at
 * most, never sooner than the CA's Retry-After. */
static const struct {
    unsigned polls;
    long retry_after_ms, want;
} poll_cases[] = {
    {0, 0, 50},       {1, 0, 100},       {4, 0, 800},
    {5, 0, 1000},     {299, 0, 1000},    /* the ceiling */
    {0, 3000, 3000},  {6, 5000, 5000},   /* Retry-After respected */
    {5, 200, 1000},                      /* but never shortens the wait */
    {0, 3600000, 50}, {0, 86400000, 50}, /* an hour or more: not believed */
};

LOOP_TEST(poll_case, poll_cases)
{
    ck_assert_int_eq(
        acme_poll_ms(poll_cases[_i].polls, poll_cases[_i].retry_after_ms),
        poll_cases[_i].want);
}
END_TEST

/* Dates in the log lines: the day, and the time as well when near. */
START_TEST(log_dates)
{
    char buf[40];

    acme_date(T0 + 400 * DAY, T0, buf, sizeof buf);
    ck_assert_str_eq(buf, "2024-12-18");
    acme_date(T0 - 3 * DAY, T0, buf, sizeof buf);
    ck_assert_str_eq(buf, "2023-11-11");
    acme_date(T0 + 120, T0, buf, sizeof buf);
    ck_assert_str_eq(buf, "2023-11-14 22:15:20 UTC");
    acme_date(T0 - 60, T0, buf, sizeof buf);
    ck_assert_str_eq(buf, "2023-11-14 22:12:20 UTC");
    acme_date(T0 + 400 * DAY, T0, buf, 4); /* too small: empty, no overrun */
    ck_assert_str_eq(buf, "");
}
END_TEST

START_TEST(next_and_state)
{
    /* no certificate: now; failed: after the backoff; else the renewal */
    ck_assert_int_eq(acme_next_attempt(0, 0, 0, 0, T0), T0);
    ck_assert_int_eq(acme_next_attempt(0, 0, T0 + 60, 1, T0), T0 + 60);
    ck_assert_int_eq(acme_next_attempt(T0 + 500, T0 + 900, 0, 0, T0), T0 + 500);
    ck_assert_int_eq(acme_next_attempt(T0 + 500, T0 + 900, T0 + 700, 2, T0),
                     T0 + 700);
    ck_assert_int_eq(acme_next_attempt(T0 + 500, T0 + 900, T0 + 100, 2, T0),
                     T0 + 500);
    ck_assert_int_eq(acme_cert_state_at(0, T0), ACME_CERT_NONE);
    ck_assert_int_eq(acme_cert_state_at(T0 + 8 * DAY, T0), ACME_CERT_VALID);
    ck_assert_int_eq(acme_cert_state_at(T0 + 7 * DAY, T0), ACME_CERT_WARNING);
    ck_assert_int_eq(acme_cert_state_at(T0 + 1, T0), ACME_CERT_WARNING);
    ck_assert_int_eq(acme_cert_state_at(T0, T0), ACME_CERT_EXPIRED);
    ck_assert_str_eq(acme_cert_state_name(ACME_CERT_WARNING), "warning");
    ck_assert_int_eq(acme_expiry_seconds(T0 + 90, T0), 90);
    ck_assert_int_eq(acme_expiry_seconds(T0 - 5, T0), -5);
}
END_TEST

static const struct {
    const char *name;
    bool ok;
} name_cases[] = {
    {"example.org", true},
    {"a-b.example.org", true},
    {"xn--bcher-kva.example", true},
    {"192.0.2.1", false}, /* an IP address is not a DNS identifier */
    {"host.123a", true},
    {"localhost", false},     /* one label: no public CA names it */
    {"*.example.org", false}, /* wildcards need DNS-01 */
    {"-a.example.org", false},
    {"a-.example.org", false},
    {"a..example.org", false},
    {".example.org", false},
    {"example.org.", false},
    {"exa_mple.org", false},
    {"a.b/c", false},
    {"", false},
};

LOOP_TEST(name_case, name_cases)
{
    ck_assert_int_eq(acme_is_name(name_cases[_i].name), name_cases[_i].ok);
}
END_TEST

START_TEST(ca_urls)
{
    ck_assert_str_eq(acme_ca_url("letsencrypt"), ACME_CA_LETSENCRYPT);
    ck_assert_str_eq(acme_ca_url("letsencrypt-staging"),
                     ACME_CA_LETSENCRYPT_STAGING);
    ck_assert_str_eq(acme_ca_url("https://ca.example/dir"),
                     "https://ca.example/dir");
    ck_assert_ptr_null(acme_ca_url("http://ca.example/dir"));
    ck_assert_ptr_null(acme_ca_url("https://"));
    ck_assert_ptr_null(acme_ca_url("staging"));
}
END_TEST

/* base64url decoding, for checking what the library encoded. */
static size_t unb64url(const char *s, unsigned char *out, size_t size)
{
    static const char abc[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    unsigned v = 0, bits = 0;
    size_t n = 0;

    for (; *s; s++) {
        const char *p = strchr(abc, *s);

        ck_assert_ptr_nonnull(p);
        v = v << 6 | (unsigned)(p - abc);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            ck_assert_uint_lt(n, size);
            out[n++] = (unsigned char)(v >> bits);
        }
    }
    return n;
}

START_TEST(jws_verifies)
{
    EVP_PKEY *k = acme_key_new();
    char *jws = acme_jws(k, NULL, "n0nce", "https://ca/x", "{\"a\":1}");
    json_t *j = json_loads(jws, 0, NULL), *prot;
    const char *p64 = json_string_value(json_object_get(j, "protected"));
    const char *s64 = json_string_value(json_object_get(j, "signature"));
    const char *y64 = json_string_value(json_object_get(j, "payload"));
    unsigned char raw[64], hdr[512];
    char input[1024], *kid_jws;
    ECDSA_SIG *sig = ECDSA_SIG_new();
    unsigned char *der = NULL;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int dlen;

    ck_assert_ptr_nonnull(j);
    hdr[unb64url(p64, hdr, sizeof hdr - 1)] = '\0';
    prot = json_loads((const char *)hdr, 0, NULL);
    ck_assert_str_eq(json_string_value(json_object_get(prot, "alg")), "ES256");
    ck_assert_str_eq(json_string_value(json_object_get(prot, "nonce")),
                     "n0nce");
    ck_assert_ptr_nonnull(json_object_get(prot, "jwk"));
    ck_assert_ptr_null(json_object_get(prot, "kid"));
    /* r || s, 64 bytes, verifies over "protected.payload" */
    ck_assert_uint_eq(unb64url(s64, raw, sizeof raw), 64);
    ECDSA_SIG_set0(sig, BN_bin2bn(raw, 32, NULL),
                   BN_bin2bn(raw + 32, 32, NULL));
    dlen = i2d_ECDSA_SIG(sig, &der);
    snprintf(input, sizeof input, "%s.%s", p64, y64);
    ck_assert_int_eq(EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, k), 1);
    ck_assert_int_eq(EVP_DigestVerify(md, der, (size_t)dlen,
                                      (const unsigned char *)input,
                                      strlen(input)),
                     1);
    /* with a kid, no jwk */
    kid_jws = acme_jws(k, "https://ca/acct/1", "n", "https://ca/y", "");
    ck_assert_ptr_nonnull(strstr(kid_jws, "\"payload\":\"\""));
    json_decref(prot);
    json_decref(j);
    free(kid_jws);
    free(jws);
    OPENSSL_free(der);
    ECDSA_SIG_free(sig);
    EVP_MD_CTX_free(md);
    EVP_PKEY_free(k);
}
END_TEST

START_TEST(thumbprint_stable)
{
    EVP_PKEY *k = acme_key_new(), *back;
    char *pem = acme_key_to_pem(k), *t1 = acme_thumbprint(k), *t2;

    back = acme_key_from_pem(pem, strlen(pem));
    ck_assert_ptr_nonnull(back);
    t2 = acme_thumbprint(back);
    ck_assert_str_eq(t1, t2);
    ck_assert_uint_eq(strlen(t1), 43); /* SHA-256, base64url */
    free(t1);
    free(t2);
    acme_pem_free(pem);
    EVP_PKEY_free(back);
    EVP_PKEY_free(k);
}
END_TEST

START_TEST(csr_names)
{
    char *names[] = {"a.example", "b.example"};
    EVP_PKEY *k = acme_key_new();
    char *csr = acme_csr(k, names, 2);
    unsigned char der[2048];
    const unsigned char *p = der;
    size_t n = unb64url(csr, der, sizeof der);
    X509_REQ *req = d2i_X509_REQ(NULL, &p, (long)n);
    STACK_OF(X509_EXTENSION) * exts;
    GENERAL_NAMES *gens;

    ck_assert_ptr_nonnull(req);
    ck_assert_int_eq(X509_REQ_verify(req, k), 1);
    exts = X509_REQ_get_extensions(req);
    gens = X509V3_get_d2i(exts, NID_subject_alt_name, NULL, NULL);
    ck_assert_int_eq(sk_GENERAL_NAME_num(gens), 2);
    GENERAL_NAMES_free(gens);
    sk_X509_EXTENSION_pop_free(exts, X509_EXTENSION_free);
    X509_REQ_free(req);
    free(csr);
    EVP_PKEY_free(k);
}
END_TEST

START_TEST(alpn_certificate)
{
    struct acme_challenges *ch = acme_challenges_new();
    ASN1_OBJECT *oid = OBJ_txt2obj("1.3.6.1.5.5.7.1.31", 1);
    unsigned char md[32];
    X509 *x = NULL;
    EVP_PKEY *k = NULL;
    X509_EXTENSION *ext;
    const ASN1_OCTET_STRING *v;
    int at;

    ck_assert_int_eq(acme_challenges_put_tlsalpn01(ch, "a.example", "tok.tp"),
                     0);
    ck_assert_int_eq(acme_tlsalpn01_lookup(ch, "A.Example", &x, &k), 0);
    ck_assert_int_eq(acme_tlsalpn01_lookup(ch, "b.example", &x, &k), -ENOENT);
    ck_assert_int_eq(X509_check_private_key(x, k), 1);
    ck_assert_int_eq(X509_check_host(x, "a.example", 0, 0, NULL), 1);
    at = X509_get_ext_by_OBJ(x, oid, -1);
    ck_assert_int_ge(at, 0);
    ext = X509_get_ext(x, at);
    ck_assert_int_eq(X509_EXTENSION_get_critical(ext), 1);
    v = X509_EXTENSION_get_data(ext);
    SHA256((const unsigned char *)"tok.tp", 6, md);
    ck_assert_int_eq(ASN1_STRING_length(v), 34); /* OCTET STRING of 32 */
    ck_assert_mem_eq(ASN1_STRING_get0_data(v) + 2, md, 32);
    acme_challenges_drop_tlsalpn01(ch, "a.example");
    ck_assert_uint_eq(acme_challenges_count(ch), 0);
    X509_free(x); /* the reference outlives the dropped entry */
    EVP_PKEY_free(k);
    ASN1_OBJECT_free(oid);
    acme_challenges_free(ch);
}
END_TEST

struct reader {
    struct acme_challenges *ch;
    atomic_bool *stop;
    long hits;
};

static void *read_loop(void *arg)
{
    struct reader *r = arg;
    char buf[ACME_KEYAUTH_MAX];

    while (!atomic_load(r->stop)) {
        int n = acme_http01_lookup(r->ch, "tok", buf, sizeof buf);

        if (n >= 0) {
            ck_assert_str_eq(buf, "tok.thumb");
            r->hits++;
        }
    }
    return NULL;
}

/* Readers never see a torn or freed entry while the writer churns. */
START_TEST(http01_concurrent)
{
    struct acme_challenges *ch = acme_challenges_new();
    atomic_bool stop = false;
    struct reader rs[2] = {{ch, &stop, 0}, {ch, &stop, 0}};
    pthread_t t[2];
    char small[4];

    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, read_loop, &rs[i]);
    for (int i = 0; i < 20000; i++) {
        ck_assert_int_eq(acme_challenges_put_http01(ch, "tok", "tok.thumb"), 0);
        acme_challenges_put_http01(ch, "other", "other.thumb");
        acme_challenges_drop_http01(ch, "tok");
    }
    acme_challenges_put_http01(ch, "tok", "tok.thumb");
    atomic_store(&stop, true);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    ck_assert_int_eq(acme_http01_lookup(ch, "tok", small, sizeof small),
                     -ENOSPC);
    ck_assert_int_eq(acme_http01_lookup(ch, "nope", small, sizeof small),
                     -ENOENT);
    ck_assert_uint_eq(acme_challenges_count(ch), 2);
    acme_challenges_free(ch);
}
END_TEST

START_TEST(store_files)
{
    char path[256], *data;
    size_t len;
    struct stat st;
    int fd;

    snprintf(path, sizeof path, "%s/var/lib/acme", fixture_dir);
    fd = acme_store_open(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_uint_eq(st.st_mode & 0777, 0700);
    ck_assert_int_eq(acme_store_open("relative/dir"), -EINVAL);
    ck_assert_int_eq(acme_store_mkdir(fd, "certs/x"), 0);
    ck_assert_int_eq(acme_store_write(fd, "certs/x/key.pem", "k1", 2, 0600), 0);
    ck_assert_int_eq(acme_store_write(fd, "certs/x/key.pem", "k22", 3, 0600),
                     0);
    ck_assert_int_eq(acme_store_read(fd, "certs/x/key.pem", &data, &len), 0);
    ck_assert_str_eq(data, "k22");
    free(data);
    ck_assert_int_eq(fstatat(fd, "certs/x/key.pem", &st, 0), 0);
    ck_assert_uint_eq(st.st_mode & 0777, 0600);
    ck_assert_int_eq(acme_store_read(fd, "certs/x/none", &data, &len), -ENOENT);
    /* no temporary file is left behind */
    snprintf(path, sizeof path, "%s/var/lib/acme/certs/x", fixture_dir);
    DIR *d = opendir(path);
    struct dirent *de;
    int n = 0;

    ck_assert_ptr_nonnull(d);
    while ((de = readdir(d)) != NULL)
        n += de->d_name[0] != '.' || strncmp(de->d_name, ".tmp", 4) == 0;
    closedir(d);
    ck_assert_int_eq(n, 1);
    close(fd);
}
END_TEST

/* A child process that took @take(@dirfd, @name) and holds it until it is
 * killed; its PID once it has. */
static pid_t holder(int dirfd, int (*take)(int, const char *), const char *name)
{
    char c;
    int p[2];
    pid_t pid;

    ck_assert_int_eq(pipe(p), 0);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int l = take(dirfd, name);

        if (write(p[1], l >= 0 ? "y" : "n", 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    ck_assert_int_eq(read(p[0], &c, 1), 1);
    ck_assert_int_eq(c, 'y');
    close(p[0]);
    close(p[1]);
    return pid;
}

/* The lock is another process's while it lives, and free when it dies. */
START_TEST(store_lock_two_processes)
{
    char path[256];
    int fd;
    pid_t pid;

    snprintf(path, sizeof path, "%s/acme", fixture_dir);
    fd = acme_store_open(path);
    ck_assert_int_ge(fd, 0);
    pid = holder(fd, acme_store_lock, "lock");
    ck_assert_int_eq(acme_store_lock(fd, "lock"), -EWOULDBLOCK);
    kill(pid, SIGKILL); /* no clean-up: the kernel drops its lock */
    waitpid(pid, NULL, 0);
    int l = acme_store_lock(fd, "lock");
    ck_assert_int_ge(l, 0);
    close(l);
    close(fd);
}
END_TEST

/*
 * Who else uses the directory: nobody, until another process joins (or a
 * second open in this one); its death (no clean-up) ends it.
 */
START_TEST(store_replicas)
{
    char path[256];
    int fd, me;
    pid_t pid;

    snprintf(path, sizeof path, "%s/acme", fixture_dir);
    fd = acme_store_open(path);
    ck_assert_int_ge(fd, 0);
    me = acme_store_join(fd, "replicas");
    ck_assert_int_ge(me, 0);
    ck_assert_int_eq(acme_store_others(me), 0);
    int second = acme_store_join(fd, "replicas");

    ck_assert_int_ge(second, 0);
    ck_assert_int_eq(acme_store_others(me), 1);
    close(second);
    ck_assert_int_eq(acme_store_others(me), 0);
    pid = holder(fd, acme_store_join, "replicas");
    ck_assert_int_eq(acme_store_others(me), 1);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    ck_assert_int_eq(acme_store_others(me), 0);
    close(me);
    close(fd);
}
END_TEST

/* What request_stored's install callback saw. */
struct installed {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char id[64];
    bool stored;
    struct timespec at;
};

static void on_install(void *arg, const struct acme_cert *cert)
{
    struct installed *in = arg;

    pthread_mutex_lock(&in->mu);
    snprintf(in->id, sizeof in->id, "%s", cert->id);
    in->stored = cert->stored;
    clock_gettime(CLOCK_MONOTONIC, &in->at);
    pthread_cond_broadcast(&in->cv);
    pthread_mutex_unlock(&in->mu);
}

static double ms_between(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) * 1e3 +
           (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

/*
 * A name asked for on demand whose certificate another replica stored in
 * the shared directory: installed from there, marked stored, at once --
 * not at the loop's next round (up to a second later, which a handshake
 * waiting for it would wait too) -- and without an order (the CA's URL
 * leads nowhere).
 */
START_TEST(request_stored)
{
    struct installed in = {.mu = PTHREAD_MUTEX_INITIALIZER,
                           .cv = PTHREAD_COND_INITIALIZER};
    char path[256], err[256], *key;
    X509 *x = NULL;
    EVP_PKEY *k = NULL;
    BIO *b = BIO_new(BIO_s_mem());
    char *pem;
    long len;
    struct acme *a;
    int fd;

    /* another replica's certificate of x.test, in certs/x.test/ */
    snprintf(path, sizeof path, "%s/acme", fixture_dir);
    fd = acme_store_open(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(acme_alpn_cert("x.test", "ka", &x, &k), 0);
    ck_assert_int_eq(PEM_write_bio_X509(b, x), 1);
    len = BIO_get_mem_data(b, &pem);
    ck_assert_int_eq(acme_store_mkdir(fd, "certs/x.test"), 0);
    ck_assert_int_eq(
        acme_store_write(fd, "certs/x.test/cert.pem", pem, (size_t)len, 0644),
        0);
    key = acme_key_to_pem(k);
    ck_assert_ptr_nonnull(key);
    ck_assert_int_eq(
        acme_store_write(fd, "certs/x.test/key.pem", key, strlen(key), 0600),
        0);
    acme_pem_free(key);
    BIO_free(b);
    X509_free(x);
    EVP_PKEY_free(k);
    close(fd);

    struct acme_config cfg = {.directory = "https://127.0.0.1:1/dir",
                              .dir = path,
                              .challenge = ACME_HTTP01,
                              .install = on_install,
                              .arg = &in};
    ck_assert_int_eq(acme_open(&cfg, &a, err, sizeof err), 0);
    ck_assert_int_eq(acme_start(a), 0);
    /* the loop's first round done: it sleeps until its next */
    usleep(300 * 1000);
    struct timespec t0, deadline;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(acme_request(a, "x.test"), 0);
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 5;
    pthread_mutex_lock(&in.mu);
    while (!in.id[0] &&
           pthread_cond_timedwait(&in.cv, &in.mu, &deadline) == 0) {
    }
    pthread_mutex_unlock(&in.mu);
    ck_assert_str_eq(in.id, "x.test");
    ck_assert(in.stored);
    ck_assert_msg(ms_between(&t0, &in.at) < 500,
                  "installed %.0f ms after the request: the loop's round, not "
                  "the request, woke it",
                  ms_between(&t0, &in.at));
    ck_assert_int_eq(acme_request(a, "x.test"), -EEXIST);
    acme_close(a);
}
END_TEST

START_TEST(ca_ids)
{
    char id[64];

    acme_store_ca_id("https://127.0.0.1:14000/dir", id, sizeof id);
    ck_assert_str_eq(id, "127.0.0.1_14000_dir");
    acme_store_ca_id(ACME_CA_LETSENCRYPT, id, sizeof id);
    ck_assert_str_eq(id, "acme-v02.api.letsencrypt.org_directory");
    acme_store_ca_id("https://../", id, sizeof id);
    ck_assert_str_eq(id, "ca");
}
END_TEST

static const struct {
    const char *body;
    int want;
    time_t start, end;
} ari_cases[] = {
    {"{\"suggestedWindow\": {\"start\": \"2023-11-14T22:13:20Z\", "
     "\"end\": \"2023-11-15T22:13:20Z\"}}",
     0, T0, T0 + DAY},
    /* fractions and offsets (RFC 3339) */
    {"{\"suggestedWindow\": {\"start\": \"2023-11-14T23:13:20.5+01:00\", "
     "\"end\": \"2023-11-15T20:13:20-02:00\"}, \"explanationURL\": \"x\"}",
     0, T0, T0 + DAY},
    /* an empty or reversed window, a missing end, no date, not JSON */
    {"{\"suggestedWindow\": {\"start\": \"2023-11-15T22:13:20Z\", "
     "\"end\": \"2023-11-14T22:13:20Z\"}}",
     -EPROTO, 0, 0},
    {"{\"suggestedWindow\": {\"start\": \"2023-11-14T22:13:20Z\"}}", -EPROTO, 0,
     0},
    {"{\"suggestedWindow\": {\"start\": \"yesterday\", \"end\": "
     "\"2023-11-14T22:13:20Z\"}}",
     -EPROTO, 0, 0},
    {"{\"suggestedWindow\": {\"start\": \"2023-11-14T22:13:20\", "
     "\"end\": \"2023-11-15T22:13:20Z\"}}",
     -EPROTO, 0, 0},
    {"<html>", -EPROTO, 0, 0},
};

LOOP_TEST(ari_case, ari_cases)
{
    time_t start = 0, end = 0;
    int r = acme_ari_parse(ari_cases[_i].body, strlen(ari_cases[_i].body),
                           &start, &end);

    ck_assert_int_eq(r, ari_cases[_i].want);
    if (r == 0) {
        ck_assert_int_eq(start, ari_cases[_i].start);
        ck_assert_int_eq(end, ari_cases[_i].end);
    }
}
END_TEST

const struct check_main check_main = {
    .suite = "acme",
    .tcases = {{"policy",
                .loops = {LOOP(renew_case), LOOP(retry_case), LOOP(ari_case),
                          LOOP(poll_case)},
                .tests = {&next_and_state, &log_dates}},
               {"names", .loops = {LOOP(name_case)}, .tests = {&ca_urls}},
               {"crypto", .tests = {&jws_verifies, &thumbprint_stable,
                                    &csr_names, &alpn_certificate}},
               {"challenges", .tests = {&http01_concurrent}},
               {"store", fixture_dir_setup, fixture_dir_teardown,
                .tests = {&store_files, &store_lock_two_processes,
                          &store_replicas, &request_stored, &ca_ids}}},
};
