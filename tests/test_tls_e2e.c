// SPDX-License-Identifier: MIT
/*
 * test_tls_e2e.c - HTTPS and content validators against the real binary:
 * --tls-self-signed (fingerprint printed = certificate served), a chain made
 * here and verified by libcurl against its own CA, GET, Range and big bodies
 * over TLS, 304 by content ETag, HSTS on HTTPS only, SIGHUP certificate swap
 * (new connections get the new one, a keep-alive client fails no request, a
 * bad new one is refused; each reload a new serving process), start-up
 * checks (exit 2 with the file named), two
 * servers over two copies of a tree with different mtimes (same ETag), and a
 * big file served without an ETag until its hash is ready.
 *
 * The TLS front (tcase "front", through openssl s_client and curl): SNI
 * picks the --tls-cert NAME= chain and an unknown name the default one (also
 * across a SIGHUP), ALPN http/1.1 or none is HTTP/1.1 and a client that
 * offers only h2 gets the no_application_protocol alert, session tickets
 * resume in TLS 1.2 and 1.3, a handshake left unfinished is closed within
 * --header-timeout while other clients are served,
 * --max-connections-per-ip counts handshakes, and the descriptors return to
 * their count after many connections of every kind.
 */
#include "harness.h"
#include "tls_fixture.h"

#include <errno.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define DAY TLS_FIXTURE_DAY

#define BIG_LEN (3 * 1024 * 1024 + 17)

/* ===== an HTTPS client ==================================================== */

struct hs {
    long status;
    char *head;
    char *body;
    size_t body_len;
    char *cert_fp;   /* SHA-256 of the server's leaf, "AB:CD:...", or NULL */
    char *cert_cn;   /* its subject, or NULL */
    long connects;   /* new connections this request made */
    int curl_result; /* CURLE_* */
};

/* fingerprint - SHA-256 and subject of the PEM certificate @pem. */
static void fingerprint(const char *pem, struct hs *r)
{
    BIO *b = BIO_new_mem_buf(pem, -1);
    X509 *x = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
    unsigned char md[32];
    unsigned int n = 0;
    char fp[32 * 3 + 1], cn[256];

    BIO_free(b);
    if (x == NULL)
        return;
    if (X509_digest(x, EVP_sha256(), md, &n) == 1 && n == 32) {
        for (size_t i = 0; i < n; i++)
            snprintf(fp + 3 * i, sizeof(fp) - 3 * i,
                     i + 1 < n ? "%02X:" : "%02X", md[i]);
        r->cert_fp = hfmt("%s", fp);
    }
    if (X509_NAME_get_text_by_NID(X509_get_subject_name(x), NID_commonName, cn,
                                  sizeof(cn)) > 0)
        r->cert_cn = hfmt("%s", cn);
    X509_free(x);
}

/*
 * https - one request to https://127.0.0.1:@port@path. @e: a handle to reuse
 * (keep-alive) or NULL. @ca: verify the server against this CA file, or NULL
 * to not verify (self-signed).
 */
static struct hs *https(CURL *e, unsigned port, const char *method,
                        const char *path, const char **headers, const char *ca)
{
    struct hs *r = (struct hs *)hbuf(sizeof(*r));
    struct http_buf head = {0}, body = {0};
    struct curl_slist *hl = NULL;
    bool own = e == NULL;

    if (own)
        e = curl_easy_init();
    EXPECT(e != NULL, "curl_easy_init");
    for (const char **h = headers; h && *h; h++)
        hl = curl_slist_append(hl, *h);
    curl_easy_setopt(e, CURLOPT_URL,
                     hfmt("https://127.0.0.1:%u%s", port, path));
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(e, CURLOPT_NOBODY, strcmp(method, "HEAD") == 0 ? 1L : 0L);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, http_write);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &head);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, http_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 20000L);
    curl_easy_setopt(e, CURLOPT_CERTINFO, 1L);
    if (ca) {
        curl_easy_setopt(e, CURLOPT_CAINFO, ca);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
    } else {
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    r->curl_result = (int)curl_easy_perform(e);
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &r->status);
    curl_easy_getinfo(e, CURLINFO_NUM_CONNECTS, &r->connects);
    struct curl_certinfo *ci = NULL;
    if (curl_easy_getinfo(e, CURLINFO_CERTINFO, &ci) == CURLE_OK && ci &&
        ci->num_of_certs > 0) {
        for (struct curl_slist *s = ci->certinfo[0]; s; s = s->next)
            if (strncmp(s->data, "Cert:", 5) == 0)
                fingerprint(s->data + 5, r);
    }
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, NULL);
    curl_slist_free_all(hl);
    if (own)
        curl_easy_cleanup(e);
    r->head = hmem(head.p ? head.p : "", head.n);
    r->body = hmem(body.p ? body.p : "", body.n);
    r->body_len = body.n;
    free(head.p);
    free(body.p);
    return r;
}

/* The value of header @name in @r->head, harness-owned, or NULL. */
static const char *hs_header(const struct hs *r, const char *name)
{
    size_t n = strlen(name);

    for (const char *p = r->head; p && *p; p = strchr(p, '\n')) {
        if (*p == '\n')
            p++;
        if (strncasecmp(p, name, n) == 0 && p[n] == ':') {
            const char *v = p + n + 1;
            while (*v == ' ')
                v++;
            return hmem(v, strcspn(v, "\r\n"));
        }
    }
    return NULL;
}

/* What --tls-self-signed printed as the fingerprint. */
static char *printed_fingerprint(const struct server *s)
{
    const char *needle = "SHA-256 fingerprint ";
    const char *p = strstr(server_stderr(s), needle);

    EXPECT(p != NULL, "no fingerprint line");
    p += strlen(needle);
    return hmem(p, strcspn(p, "\n;"));
}

static char *b64_sha256(const void *data, size_t len)
{
    unsigned char md[32];
    unsigned int n = 0;
    char out[64];

    EXPECT(EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) == 1, "digest");
    EVP_EncodeBlock((unsigned char *)out, md, (int)n);
    return hfmt("%s", out);
}

/* ===== fixtures =========================================================== */

static char *www; /* index.html, range.txt, big.bin */
static char *big;

static void test_setup(void)
{
    harness_test_setup();
    www = tree_site("<h1>beneath over TLS</h1>\n");
    tree_write_str(www, "range.txt", "0123456789abcdefghijklmnopqrstuvwxyz");
    big = hbuf(BIG_LEN);
    for (size_t i = 0; i < BIG_LEN; i++)
        big[i] = (char)((i * 2654435761u) >> 13);
    tree_write(www, "big.bin", big, BIG_LEN);
}

/* A CA, an intermediate and leaves for 127.0.0.1/localhost, in files. */
struct pki {
    char *dir;
    char *ca;   /* root certificate (trust anchor for curl) */
    char *cert; /* leaf + intermediate */
    char *key;
    EVP_PKEY *rk, *ik;
    X509 *root, *inter;
    time_t now;
};

static struct pki pki;

/* A leaf for @san issued by the intermediate, with it, into @cert, @key. */
static void pki_leaf_for(const char *cn, const char *san, long from, long to,
                         const char *cert, const char *key, bool reversed)
{
    EVP_PKEY *lk = tls_fixture_key();
    X509 *leaf = tls_fixture_cert(cn, lk, pki.inter, pki.ik, pki.now, from, to,
                                  false, san);
    X509 *chain[2] = {leaf, pki.inter};

    if (reversed) {
        chain[0] = pki.inter;
        chain[1] = leaf;
    }
    tls_fixture_write_certs(cert, chain, 2);
    tls_fixture_write_key(key, lk, NULL);
    X509_free(leaf);
    EVP_PKEY_free(lk);
}

static void pki_leaf(const char *cn, long from, long to, const char *cert,
                     const char *key, bool reversed)
{
    pki_leaf_for(cn, "DNS:localhost,IP:127.0.0.1", from, to, cert, key,
                 reversed);
}

static void pki_build(void)
{
    pki.now = time(NULL);
    pki.dir = tree_new();
    pki.ca = tree_path(pki.dir, "ca.pem");
    pki.cert = tree_path(pki.dir, "cert.pem");
    pki.key = tree_path(pki.dir, "key.pem");
    pki.rk = tls_fixture_key();
    pki.ik = tls_fixture_key();
    pki.root = tls_fixture_cert("E2E Root", pki.rk, NULL, NULL, pki.now, -DAY,
                                365 * DAY, true, NULL);
    pki.inter = tls_fixture_cert("E2E Intermediate", pki.ik, pki.root, pki.rk,
                                 pki.now, -DAY, 365 * DAY, true, NULL);
    tls_fixture_write_certs(pki.ca, &pki.root, 1);
    pki_leaf("leaf-a", -DAY, 90 * DAY, pki.cert, pki.key, false);
}

static void pki_free(void)
{
    X509_free(pki.inter);
    X509_free(pki.root);
    EVP_PKEY_free(pki.ik);
    EVP_PKEY_free(pki.rk);
    memset(&pki, 0, sizeof(pki));
}

/* ===== tests ============================================================== */

/* A server over www on plain HTTP and on HTTPS with a self-signed
 * certificate and HSTS; *@port is its HTTPS port. */
static struct server *self_signed(unsigned *port)
{
    struct server *s = server_start(www, "--listen", "https://127.0.0.1:0",
                                    "--tls-self-signed", "--hsts", "600", NULL);

    *port = server_https_port(s);
    return s;
}

START_TEST(self_signed_get)
{
    unsigned port;
    struct server *s = self_signed(&port);
    struct hs *r = https(NULL, port, "GET", "/index.html", NULL, NULL);

    EXPECT(r->curl_result == CURLE_OK, "curl: %s",
           curl_easy_strerror((CURLcode)r->curl_result));
    EXPECT(r->status == 200, "status %ld", r->status);
    EXPECT(strcmp(r->body, "<h1>beneath over TLS</h1>\n") == 0, "body '%s'",
           r->body);
    EXPECT(r->cert_fp && strcmp(r->cert_fp, printed_fingerprint(s)) == 0,
           "served certificate %s, printed %s", r->cert_fp ? r->cert_fp : "?",
           printed_fingerprint(s));
    EXPECT(r->cert_cn && strcmp(r->cert_cn, "localhost") == 0, "CN %s",
           r->cert_cn ? r->cert_cn : "?");
    const char *hsts = hs_header(r, "Strict-Transport-Security");
    EXPECT(hsts && strcmp(hsts, "max-age=600") == 0, "HSTS '%s'",
           hsts ? hsts : "(none)");
    /* Plain HTTP on the other listener: no HSTS (RFC 6797 7.2). */
    struct http_response *p = http_get(s, "/index.html");
    EXPECT_STATUS(p, 200, "http GET");
    EXPECT(http_header(p, "Strict-Transport-Security") == NULL,
           "HSTS over plain HTTP");
    /* The same ETag on both: one cache, content-based. */
    EXPECT(http_header(p, "ETag") &&
               strcmp(http_header(p, "ETag"), hs_header(r, "ETag")) == 0,
           "ETag differs between HTTP and HTTPS");
    server_stop_clean(s);
}
END_TEST

/* The mode bits of @path (0 when it is missing). */
static unsigned mode_of(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0 ? (unsigned)(st.st_mode & 07777) : 0;
}

/* A --tls-self-signed server with @state as XDG_STATE_HOME: the
 * fingerprint it printed, and the one it served into *@served. */
static char *self_signed_in(const char *state, char **served)
{
    struct server_opts o = {
        .root = www,
        .args = (const char *[]){"--listen", "https://127.0.0.1:0",
                                 "--tls-self-signed", NULL},
        .env = (const char *[]){hfmt("XDG_STATE_HOME=%s", state), NULL},
    };
    struct server *s = server_start_opts(&o);
    struct hs *r =
        https(NULL, server_https_port(s), "GET", "/index.html", NULL, NULL);
    char *printed = printed_fingerprint(s);

    EXPECT(r->status == 200 && r->cert_fp, "GET: %ld", r->status);
    *served = r->cert_fp;
    EXPECT(strcmp(*served, printed) == 0, "served %s, printed %s", *served,
           printed);
    server_stop_clean(s);
    return hfmt("%s\n%s", printed, server_stderr(s));
}

/*
 * --tls-self-signed keeps its certificate and key in the state directory
 * ($XDG_STATE_HOME/beneath/tls-self-signed, key 0600, directories 0700)
 * and serves the same one at the next start; a key others may read, or a
 * certificate in its last 7 days, is replaced; --check and --state-dir off
 * write nothing.
 */
START_TEST(self_signed_kept)
{
    char *state = tree_new(), *served, *again, *out, *err;
    char *dir = tree_path(state, "beneath/tls-self-signed");
    char *key = tree_path(dir, "key.pem"), *cert = tree_path(dir, "cert.pem");
    char *first = self_signed_in(state, &served);
    char *fp = hmem(first, strcspn(first, "\n"));

    EXPECT(strstr(first, hfmt("kept in %s;", dir)), "not kept:\n%s", first);
    EXPECT(mode_of(key) == 0600 && mode_of(cert) == 0644 &&
               mode_of(dir) == 0700 &&
               mode_of(tree_path(state, "beneath")) == 0700,
           "modes: key %o, cert %o, dirs %o", mode_of(key), mode_of(cert),
           mode_of(dir));
    char *second = self_signed_in(state, &again);
    EXPECT(strncmp(second, fp, strlen(fp)) == 0 && strcmp(again, served) == 0,
           "another certificate at the second start:\n%s", second);
    EXPECT(strstr(second, hfmt("read from %s;", dir)), "not read:\n%s", second);

    /* a key group and others may read is no key of ours: a new pair */
    EXPECT(chmod(key, 0644) == 0, "chmod");
    char *third = self_signed_in(state, &again);
    EXPECT(strncmp(third, fp, strlen(fp)) != 0 && mode_of(key) == 0600,
           "a 0644 key was used:\n%s", third);
    fp = hmem(third, strcspn(third, "\n"));

    /* one in its last 7 days (3 left): a new pair */
    EVP_PKEY *k = tls_fixture_key();
    X509 *x = tls_fixture_cert("localhost", k, NULL, NULL, time(NULL), -60,
                               3 * TLS_FIXTURE_DAY, false,
                               "DNS:localhost,IP:127.0.0.1");
    tls_fixture_write_certs(cert, &x, 1);
    tls_fixture_write_key(key, k, NULL);
    EXPECT(chmod(key, 0600) == 0, "chmod");
    X509_free(x);
    EVP_PKEY_free(k);
    char *fourth = self_signed_in(state, &again);
    EXPECT(strstr(fourth, hfmt("kept in %s;", dir)) &&
               strncmp(fourth, fp, strlen(fp)) != 0,
           "a certificate with 3 days left was used:\n%s", fourth);

    /* systemd's StateDirectory= (the first of its list) wins */
    char *sd = tree_new();
    struct server_opts u = {
        .root = www,
        .args = (const char *[]){"--listen", "https://127.0.0.1:0",
                                 "--tls-self-signed", NULL},
        .env =
            (const char *[]){hfmt("STATE_DIRECTORY=%s:/nonexistent", sd), NULL},
    };
    struct server *s = server_start_opts(&u);
    EXPECT(strstr(server_stderr(s), hfmt("kept in %s/tls-self-signed;", sd)),
           "STATE_DIRECTORY:\n%s", server_stderr(s));
    server_stop_clean(s);

    /* --check and --state-dir off write nothing */
    char *empty = tree_new();
    int ws = beneath_run(
        (const char *[]){"--check", "--listen", "https://127.0.0.1:0",
                         "--tls-self-signed", www, NULL},
        (const char *[]){hfmt("XDG_STATE_HOME=%s", empty), NULL}, 30000, &out,
        &err);
    EXPECT_EXIT(ws, 0, err);
    EXPECT(mode_of(tree_path(empty, "beneath")) == 0, "--check wrote %s",
           empty);
    struct server_opts o = {
        .root = www,
        .args =
            (const char *[]){"--listen", "https://127.0.0.1:0",
                             "--tls-self-signed", "--state-dir", "off", NULL},
        .env = (const char *[]){hfmt("XDG_STATE_HOME=%s", empty), NULL},
    };
    s = server_start_opts(&o);
    EXPECT(strstr(server_stderr(s), "not kept (no state directory)"),
           "--state-dir off:\n%s", server_stderr(s));
    server_stop_clean(s);
    EXPECT(mode_of(tree_path(empty, "beneath")) == 0, "off wrote %s", empty);
}
END_TEST

/*
 * A keep-alive HTTPS connection that waits is parked in the front (its SSL
 * with it, buffers released) and carries on: after 2.5 s of silence (1 s
 * parks it) the next requests go on the same TCP connection and TLS
 * session, a big body among them, whole.
 */
START_TEST(https_waits_parked)
{
    unsigned port;
    struct server *s = self_signed(&port);
    CURL *e = http_easy();
    struct hs *r = https(e, port, "GET", "/index.html", NULL, NULL);

    EXPECT(r->status == 200, "first: status %ld", r->status);
    for (int i = 0; i < 2; i++) {
        sleep_ms(2500);
        r = https(e, port, "GET", i ? "/big.bin" : "/index.html", NULL, NULL);
        EXPECT(r->curl_result == CURLE_OK && r->status == 200 &&
                   r->connects == 0,
               "after 2.5 s of waiting: %s, status %ld, %ld new connections",
               curl_easy_strerror((CURLcode)r->curl_result), r->status,
               r->connects);
    }
    EXPECT(r->body_len == BIG_LEN, "the big body after the wait: %zu bytes",
           r->body_len);
    server_stop_clean(s);
}
END_TEST

START_TEST(https_range_and_big)
{
    unsigned port;
    struct server *s = self_signed(&port);
    CURL *e = http_easy();
    struct hs *r = https(e, port, "GET", "/big.bin", NULL, NULL);

    EXPECT(r->status == 200 && r->body_len == BIG_LEN &&
               memcmp(r->body, big, BIG_LEN) == 0,
           "big.bin over TLS: status %ld, %zu bytes", r->status, r->body_len);
    r = https(e, port, "GET", "/big.bin",
              (const char *[]){"Range: bytes=1000000-1300009", NULL}, NULL);
    EXPECT(r->status == 206 && r->body_len == 300010 &&
               memcmp(r->body, big + 1000000, 300010) == 0,
           "range of big.bin over TLS: status %ld, %zu bytes", r->status,
           r->body_len);
    const char *cr = hs_header(r, "Content-Range");
    EXPECT(cr && strcmp(cr, hfmt("bytes 1000000-1300009/%d", BIG_LEN)) == 0,
           "Content-Range '%s'", cr ? cr : "(none)");
    r = https(e, port, "GET", "/range.txt",
              (const char *[]){"Range: bytes=-6", NULL}, NULL);
    EXPECT(r->status == 206 && strcmp(r->body, "uvwxyz") == 0,
           "suffix range: %ld '%s'", r->status, r->body);
    /* two ranges: a multipart body read with pread, over TLS as well */
    r = https(e, port, "GET", "/big.bin",
              (const char *[]){"Range: bytes=0-99999,1000000-1300009", NULL},
              NULL);
    const char *ct = hs_header(r, "Content-Type");
    const char *cl = hs_header(r, "Content-Length");
    char *p2 = r->status == 206
                   ? memmem(r->body, r->body_len, "bytes 1000000-1300009", 21)
                   : NULL;
    EXPECT(r->status == 206 && ct &&
               strncmp(ct, "multipart/byteranges; boundary=", 31) == 0 && cl &&
               strtoull(cl, NULL, 10) == r->body_len && p2,
           "two ranges over TLS: %ld, %s, %zu bytes", r->status,
           ct ? ct : "(none)", r->body_len);
    char *d1 = memmem(r->body, r->body_len, "\r\n\r\n", 4);
    char *d2 = strstr(p2, "\r\n\r\n");
    EXPECT(d1 && d2 && memcmp(d1 + 4, big, 100000) == 0 &&
               memcmp(d2 + 4, big + 1000000, 300010) == 0,
           "the parts over TLS are not the file's bytes");
    r = https(e, port, "HEAD", "/big.bin", NULL, NULL);
    EXPECT(r->status == 200 && r->body_len == 0, "HEAD: %ld", r->status);
    EXPECT(r->connects == 0, "keep-alive over TLS: a new connection");
    server_stop_clean(s);
}
END_TEST

START_TEST(https_304_by_etag)
{
    unsigned port;
    struct server *s = self_signed(&port);
    struct hs *r = https(NULL, port, "GET", "/index.html", NULL, NULL);
    const char *etag = hs_header(r, "ETag");

    /* A content ETag: 22 base64url characters in quotes. */
    EXPECT(etag && strlen(etag) == 24 && etag[0] == '"' &&
               strspn(etag + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrs"
                                "tuvwxyz0123456789-_") == 22,
           "ETag '%s' is not a content ETag", etag ? etag : "(none)");
    r = https(NULL, port, "GET", "/index.html",
              (const char *[]){hfmt("If-None-Match: %s", etag), NULL}, NULL);
    EXPECT(r->status == 304 && r->body_len == 0, "If-None-Match: %ld",
           r->status);
    EXPECT(hs_header(r, "ETag") && strcmp(hs_header(r, "ETag"), etag) == 0,
           "304 without the ETag");
    r = https(NULL, port, "GET", "/index.html",
              (const char *[]){"If-None-Match: \"other\"", NULL}, NULL);
    EXPECT(r->status == 200, "another ETag: %ld", r->status);
    server_stop_clean(s);
}
END_TEST

/* A chain made here, verified by libcurl against its CA (no -k). */
START_TEST(verified_chain)
{
    pki_build();
    struct server *s =
        server_start(www, "--listen", "https://127.0.0.1:0", "--tls-cert",
                     pki.cert, "--tls-key", pki.key, NULL);
    struct hs *r =
        https(NULL, server_https_port(s), "GET", "/index.html", NULL, pki.ca);

    EXPECT(r->curl_result == CURLE_OK, "verified GET: %s",
           curl_easy_strerror((CURLcode)r->curl_result));
    EXPECT(r->status == 200 && r->cert_cn && strcmp(r->cert_cn, "leaf-a") == 0,
           "status %ld, CN %s", r->status, r->cert_cn ? r->cert_cn : "?");
    EXPECT(strstr(server_stderr(s), hfmt("certificate %s loaded", pki.cert)),
           "no load line");
    server_stop_clean(s);
    pki_free();
}
END_TEST

START_TEST(sighup_swap)
{
    pki_build();
    struct server *s =
        server_start(www, "--listen", "https://127.0.0.1:0", "--tls-cert",
                     pki.cert, "--tls-key", pki.key, NULL);
    unsigned port = server_https_port(s);
    CURL *old = http_easy();
    struct hs *r = https(old, port, "GET", "/index.html", NULL, pki.ca);

    EXPECT(r->status == 200 && r->cert_cn && strcmp(r->cert_cn, "leaf-a") == 0,
           "before: %s, %ld %s", curl_easy_strerror((CURLcode)r->curl_result),
           r->status, r->cert_cn ? r->cert_cn : "?");

    /* New files in place, then SIGHUP: a new serving process loads them,
     * the old one drains and exits. */
    pki_leaf("leaf-b", -DAY, 90 * DAY, pki.cert, pki.key, false);
    EXPECT(server_reload(s, 15000) > 0, "the new certificate is not served");
    EXPECT(
        strstr(server_stderr(s),
               hfmt("beneath: SIGHUP: tls: certificate %s loaded", pki.cert)),
        "no load line of the new generation");
    r = https(NULL, port, "GET", "/index.html", NULL, pki.ca);
    EXPECT(r->curl_result == CURLE_OK && r->status == 200 && r->cert_cn &&
               strcmp(r->cert_cn, "leaf-b") == 0,
           "a new connection after SIGHUP: %s, %ld, CN %s",
           curl_easy_strerror((CURLcode)r->curl_result), r->status,
           r->cert_cn ? r->cert_cn : "?");
    /* The keep-alive client made before fails no request: the old process
     * closed its idle connection when it drained, and the client's next
     * request goes on a new connection, to the new certificate. */
    r = https(old, port, "GET", "/range.txt", NULL, pki.ca);
    EXPECT(r->curl_result == CURLE_OK && r->status == 200 && r->connects == 1 &&
               r->cert_cn && strcmp(r->cert_cn, "leaf-b") == 0,
           "the old client after SIGHUP: %s, %ld, %ld new connections, CN %s",
           curl_easy_strerror((CURLcode)r->curl_result), r->status, r->connects,
           r->cert_cn ? r->cert_cn : "?");

    /* A bad certificate (expired): the new process refuses it and exits,
     * leaf-b's process serves on, and its keep-alive client with it. */
    pki_leaf("leaf-c", -30 * DAY, -DAY, pki.cert, pki.key, false);
    server_reload_refused(s, hfmt("beneath: SIGHUP: tls: %s: certificate 1 "
                                  "(CN=leaf-c) expired",
                                  pki.cert));
    EXPECT(strstr(server_stderr(s), "exited with status 2 before serving"),
           "the new process did not refuse it:\n%s", server_stderr(s));
    r = https(NULL, port, "GET", "/index.html", NULL, pki.ca);
    EXPECT(r->status == 200 && r->cert_cn && strcmp(r->cert_cn, "leaf-b") == 0,
           "after a bad reload: %ld, CN %s", r->status,
           r->cert_cn ? r->cert_cn : "?");
    r = https(old, port, "GET", "/index.html", NULL, pki.ca);
    EXPECT(r->status == 200 && r->connects == 0,
           "the kept connection after a bad reload: %ld, %ld new "
           "connections",
           r->status, r->connects);
    server_stop_clean(s);
    pki_free();
}
END_TEST

enum bad_start {
    NO_CERT,
    CERT_WITHOUT_KEY,
    EXPIRED,
    MISMATCHED,
    REVERSED_CHAIN,
    NOT_PEM,
    EXPIRING_SOON,
    ENCRYPTED_KEY,
};

static const struct {
    const char *name;
    enum bad_start what;
    int exit;
    const char *says; /* {CERT} {KEY} replaced by the paths */
} starts[] = {
    {"https without a certificate", NO_CERT, 2, "needs --tls-cert"},
    {"cert without key", CERT_WITHOUT_KEY, 2, "go together"},
    {"expired", EXPIRED, 2, "{CERT}: certificate 1 (CN=old) expired on"},
    {"key of another certificate", MISMATCHED, 2,
     "{KEY}: the private key does not match"},
    {"chain out of order", REVERSED_CHAIN, 2, "{CERT}: chain out of order"},
    {"not PEM", NOT_PEM, 2, "{CERT}: not a PEM file"},
    {"expiring in 5 days", EXPIRING_SOON, 0, "warning: {CERT}: certificate"},
    {"encrypted key with password file", ENCRYPTED_KEY, 0, "loaded"},
};

LOOP_TEST(startup_checks, starts)
{
    const char *args[16];
    size_t n = 0;
    char *out, *err;

    pki_build();
    args[n++] = "--check";
    args[n++] = "--listen";
    args[n++] = "https://127.0.0.1:0";
    switch (starts[_i].what) {
    case NO_CERT:
        break;
    case CERT_WITHOUT_KEY:
        args[n++] = "--tls-cert";
        args[n++] = pki.cert;
        break;
    case EXPIRED:
    case EXPIRING_SOON: {
        EVP_PKEY *k = tls_fixture_key();
        X509 *x = starts[_i].what == EXPIRED
                      ? tls_fixture_cert("old", k, NULL, NULL, pki.now,
                                         -30 * DAY, -DAY, false, NULL)
                      : tls_fixture_cert("soon", k, NULL, NULL, pki.now, -DAY,
                                         5 * DAY + 60, false, NULL);
        tls_fixture_write_certs(pki.cert, &x, 1);
        tls_fixture_write_key(pki.key, k, NULL);
        X509_free(x);
        EVP_PKEY_free(k);
        break;
    }
    case MISMATCHED: {
        EVP_PKEY *other = tls_fixture_key();
        tls_fixture_write_key(pki.key, other, NULL);
        EVP_PKEY_free(other);
        break;
    }
    case REVERSED_CHAIN:
        pki_leaf("leaf-a", -DAY, 90 * DAY, pki.cert, pki.key, true);
        break;
    case NOT_PEM:
        tree_write_str(pki.dir, "cert.pem", "not a certificate\n");
        break;
    case ENCRYPTED_KEY: {
        EVP_PKEY *k = tls_fixture_key();
        X509 *x = tls_fixture_cert("enc", k, NULL, NULL, pki.now, -DAY,
                                   90 * DAY, false, NULL);
        tls_fixture_write_certs(pki.cert, &x, 1);
        tls_fixture_write_key(pki.key, k, "e2e secret");
        tree_write_str(pki.dir, "pw", "e2e secret\n");
        args[n++] = "--tls-key-password-file";
        args[n++] = tree_path(pki.dir, "pw");
        X509_free(x);
        EVP_PKEY_free(k);
        break;
    }
    }
    if (starts[_i].what != NO_CERT && starts[_i].what != CERT_WITHOUT_KEY) {
        args[n++] = "--tls-cert";
        args[n++] = pki.cert;
        args[n++] = "--tls-key";
        args[n++] = pki.key;
    }
    args[n++] = www;
    args[n] = NULL;
    int ws = beneath_run(args, NULL, 20000, &out, &err);
    EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) == starts[_i].exit,
           "%s: %s, want exit %d; stderr:\n%s", starts[_i].name,
           wstatus_str(ws), starts[_i].exit, err);
    /* Fill {CERT} and {KEY}. */
    char *want = hfmt("%s", starts[_i].says), *p;
    while ((p = strstr(want, "{CERT}")))
        want = hfmt("%.*s%s%s", (int)(p - want), want, pki.cert, p + 6);
    while ((p = strstr(want, "{KEY}")))
        want = hfmt("%.*s%s%s", (int)(p - want), want, pki.key, p + 5);
    EXPECT(strstr(err, want) != NULL, "%s: stderr lacks '%s':\n%s",
           starts[_i].name, want, err);
    pki_free();
}
END_TEST

/* Two replicas: the same bytes copied at different times, same ETag. */
START_TEST(replicas_same_etag)
{
    static const char page[] = "<p>one page, two replicas</p>\n";
    char *a = tree_new(), *b = tree_new();

    tree_write_str(a, "page.html", page);
    tree_write_str(b, "page.html", page);
    tree_mtime(a, "page.html", 1600000000);
    tree_mtime(b, "page.html", 1700000000);
    struct server *sa = server_start(a, NULL), *sb = server_start(b, NULL);
    const char *want[] = {"Want-Repr-Digest: sha-512=3, sha-256=1", NULL};
    struct http_response *ra = http_do(NULL, sa, "GET", "/page.html", want);
    struct http_response *rb = http_do(NULL, sb, "GET", "/page.html", want);

    EXPECT_STATUS(ra, 200, "replica a");
    EXPECT_STATUS(rb, 200, "replica b");
    EXPECT(http_header(ra, "ETag") && http_header(rb, "ETag") &&
               strcmp(http_header(ra, "ETag"), http_header(rb, "ETag")) == 0,
           "replicas disagree: %s vs %s", http_header(ra, "ETag"),
           http_header(rb, "ETag"));
    EXPECT(strcmp(http_header(ra, "Last-Modified"),
                  http_header(rb, "Last-Modified")) != 0,
           "the mtimes were meant to differ");
    const char *digest = hfmt("sha-256=:%s:", b64_sha256(page, strlen(page)));
    EXPECT(http_header(ra, "Repr-Digest") &&
               strcmp(http_header(ra, "Repr-Digest"), digest) == 0,
           "Repr-Digest '%s', want '%s'", http_header(ra, "Repr-Digest"),
           digest);
    /* A validator from replica a is good at replica b. */
    const char *inm[] = {hfmt("If-None-Match: %s", http_header(ra, "ETag")),
                         NULL};
    struct http_response *c = http_do(NULL, sb, "GET", "/page.html", inm);
    EXPECT_STATUS(c, 304, "replica a's ETag at replica b");
    /* No Want-Repr-Digest: no Repr-Digest. */
    c = http_get(sa, "/page.html");
    EXPECT(http_header(c, "Repr-Digest") == NULL, "unasked Repr-Digest");
    server_stop_clean(sa);
    server_stop_clean(sb);

    /* --etag mtime: the replicas disagree, which is the point of content. */
    sa = server_start(a, "--etag", "mtime", NULL);
    sb = server_start(b, "--etag", "mtime", NULL);
    ra = http_get(sa, "/page.html");
    rb = http_get(sb, "/page.html");
    EXPECT(http_header(ra, "ETag") && http_header(rb, "ETag") &&
               strcmp(http_header(ra, "ETag"), http_header(rb, "ETag")) != 0,
           "mtime ETags agree across mtimes");
    server_stop_clean(sa);
    server_stop_clean(sb);

    sa = server_start(a, "--etag", "off", NULL);
    ra = http_get(sa, "/page.html");
    EXPECT(http_header(ra, "ETag") == NULL, "--etag off sent an ETag");
    server_stop_clean(sa);
}
END_TEST

/*
 * A big file: the first answer has no ETag (not a provisional one that
 * would change), then the content one.
 */
START_TEST(big_file_hashed_in_background)
{
    struct server *s = server_start(www, NULL);
    struct http_response *r = http_get(s, "/big.bin");

    EXPECT_STATUS(r, 200, "first GET");
    EXPECT(r->body_len == BIG_LEN, "first GET body");
    EXPECT(http_header(r, "ETag") == NULL, "first ETag '%s' before the hash",
           http_header(r, "ETag"));
    const char *etag = NULL;
    for (int i = 0; i < 1000; i++) {
        r = http_do(NULL, s, "HEAD", "/big.bin", NULL);
        etag = http_header(r, "ETag");
        if (etag && strlen(etag) == 24)
            break;
        usleep(10000);
    }
    EXPECT(etag && strlen(etag) == 24, "no content ETag after 10 s: %s",
           etag ? etag : "(none)");
    const char *inm[] = {hfmt("If-None-Match: %s", etag),
                         "Want-Repr-Digest: sha-256=5", NULL};
    r = http_do(NULL, s, "GET", "/big.bin", inm);
    EXPECT_STATUS(r, 304, "content ETag of big.bin");
    const char *digest = hfmt("sha-256=:%s:", b64_sha256(big, BIG_LEN));
    EXPECT(http_header(r, "Repr-Digest") &&
               strcmp(http_header(r, "Repr-Digest"), digest) == 0,
           "big.bin Repr-Digest '%s', want '%s'", http_header(r, "Repr-Digest"),
           digest);
    server_stop_clean(s);
}
END_TEST

/* ===== the TLS front ====================================================== */

/* The output (stdout and stderr) of the shell command @cmd, bounded. */
static char *sh(const char *cmd)
{
    FILE *p = popen(hfmt("timeout 20 sh -c '%s' 2>&1", cmd), "r");
    char *out = hbuf(65536);
    size_t n = 0, k;

    EXPECT(p != NULL, "popen");
    while (n + 1 < 65536 && (k = fread(out + n, 1, 65535 - n, p)) > 0)
        n += k;
    out[n] = '\0';
    pclose(p);
    return out;
}

/* openssl s_client to @port with @opts, stdin empty; its output. */
static char *s_client(unsigned port, const char *opts)
{
    return sh(
        hfmt("echo | openssl s_client -connect 127.0.0.1:%u %s", port, opts));
}

/* The subject CN of the server's leaf in s_client output @out, or "". */
static const char *leaf_cn(const char *out)
{
    const char *p = strstr(out, "subject=");
    const char *cn = p ? strstr(p, "CN = ") : NULL;

    if (!cn || cn > strchr(p, '\n'))
        return "";
    return hmem(cn + 5, strcspn(cn + 5, ",\n"));
}

/* The default chain (leaf-a) and one for docs.test (leaf-docs), a server
 * with both and the vhosts they name; *@port its HTTPS port. */
static struct server *two_certs(unsigned *port, char **docs_cert,
                                char **docs_key)
{
    char *docs = tree_site("<p>docs</p>\n");
    char *other = tree_site("<p>other</p>\n");

    pki_build();
    *docs_cert = tree_path(pki.dir, "docs.pem");
    *docs_key = tree_path(pki.dir, "docs-key.pem");
    pki_leaf_for("leaf-docs", "DNS:docs.test", -DAY, 90 * DAY, *docs_cert,
                 *docs_key, false);
    struct server *s = server_start(
        NULL, "--listen", "https://127.0.0.1:0", "--root", www, "--vhost",
        hfmt("docs.test=%s", docs), "--vhost", hfmt("*.other.test=%s", other),
        "--tls-cert", pki.cert, "--tls-key", pki.key, "--tls-cert",
        hfmt("docs.test=%s", *docs_cert), "--tls-key",
        hfmt("docs.test=%s", *docs_key), NULL);
    *port = server_https_port(s);
    return s;
}

START_TEST(sni_picks_the_chain)
{
    unsigned port;
    char *dc, *dk;
    struct server *s = two_certs(&port, &dc, &dk);
    static const struct {
        const char *opts, *cn;
    } rows[] = {
        {"-servername docs.test", "leaf-docs"},
        {"-servername DOCS.test", "leaf-docs"},
        {"-servername unknown.test", "leaf-a"},
        {"-servername a.other.test", "leaf-a"},
        {"-noservername", "leaf-a"},
    };

    for (size_t i = 0; i < N_ELEMS(rows); i++) {
        char *out = s_client(port, rows[i].opts);
        EXPECT(strcmp(leaf_cn(out), rows[i].cn) == 0,
               "%s: CN '%s', want %s\n%s", rows[i].opts, leaf_cn(out),
               rows[i].cn, out);
    }
    /* the chain verifies by name, and the vhost of that name answers */
    char *out = sh(hfmt("curl -sS --cacert %s --resolve docs.test:%u:127.0.0.1 "
                        "https://docs.test:%u/",
                        pki.ca, port, port));
    EXPECT(strstr(out, "<p>docs</p>"), "curl docs.test: %s", out);

    /* SIGHUP: the named chain is read again; a bad one keeps the old */
    pki_leaf("leaf-docs-2", -DAY, 90 * DAY, dc, dk, false);
    EXPECT(server_reload(s, 15000) > 0, "the reload was not applied");
    EXPECT(strstr(server_stderr(s),
                  hfmt("beneath: SIGHUP: tls: docs.test: certificate %s "
                       "loaded",
                       dc)),
           "no load line for docs.test:\n%s", server_stderr(s));
    out = s_client(port, "-servername docs.test");
    EXPECT(strcmp(leaf_cn(out), "leaf-docs-2") == 0, "after SIGHUP: '%s'",
           leaf_cn(out));
    pki_leaf("leaf-docs-3", -30 * DAY, -DAY, dc, dk, false);
    server_reload_refused(s, hfmt("beneath: SIGHUP: tls: docs.test: %s: "
                                  "certificate 1 (CN=leaf-docs-3) expired",
                                  dc));
    out = s_client(port, "-servername docs.test");
    EXPECT(strcmp(leaf_cn(out), "leaf-docs-2") == 0, "after a bad SIGHUP: '%s'",
           leaf_cn(out));
    EXPECT(strcmp(leaf_cn(s_client(port, "-noservername")), "leaf-a") == 0,
           "the default changed");
    server_stop_clean(s);
    pki_free();
}
END_TEST

/* --tls-cert NAME= options that do not go together: exit 2, said why. */
START_TEST(named_cert_checks)
{
    static const struct {
        const char *args[8];
        const char *says;
    } rows[] = {
        {{"--tls-cert", "nohost.test=/x.pem", "--tls-key", "nohost.test=/k",
          NULL},
         "nohost.test is not the NAME of a --vhost"},
        {{"--tls-cert", "docs.test=/x.pem", NULL}, "go together"},
        {{"--tls-key", "docs.test=/k.pem", NULL}, "no --tls-cert for it"},
        {{"--tls-cert", "docs.test=/a", "--tls-cert", "docs.test=/b", NULL},
         "given twice"},
    };

    for (size_t i = 0; i < N_ELEMS(rows); i++) {
        const char *args[24];
        size_t n = 0;
        char *out, *err;
        args[n++] = "--check";
        args[n++] = "--listen";
        args[n++] = "https://127.0.0.1:0";
        args[n++] = "--tls-self-signed";
        args[n++] = "--vhost";
        args[n++] = hfmt("docs.test=%s", www);
        for (size_t k = 0; rows[i].args[k]; k++)
            args[n++] = rows[i].args[k];
        args[n] = NULL;
        int ws = beneath_run(args, NULL, 20000, &out, &err);
        EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) == 2 &&
                   strstr(err, rows[i].says),
               "row %zu: %s, want exit 2 and '%s':\n%s", i, wstatus_str(ws),
               rows[i].says, err);
    }
}
END_TEST

START_TEST(alpn_choices)
{
    unsigned port;
    struct server *s = self_signed(&port);
    char *out = s_client(port, "-alpn http/1.1");

    EXPECT(strstr(out, "ALPN protocol: http/1.1"), "-alpn http/1.1:\n%s", out);
    out = s_client(port, "-alpn spdy/3,http/1.1");
    EXPECT(strstr(out, "ALPN protocol: http/1.1"), "-alpn spdy/3,http/1.1:\n%s",
           out);
    out = s_client(port, "");
    EXPECT(strstr(out, "No ALPN negotiated"), "no ALPN:\n%s", out);
    out = s_client(port, "-alpn h2");
    EXPECT(strstr(out, "ALPN protocol: h2"), "-alpn h2:\n%s", out);
    out = sh(hfmt("curl -sk --http1.1 -w \"%%{http_version}\" -o /dev/null "
                  "https://127.0.0.1:%u/ && curl -sk --http2 -w "
                  "\" %%{http_version}\" -o /dev/null https://127.0.0.1:%u/",
                  port, port));
    EXPECT(strcmp(out, "1.1 2") == 0, "curl --http1.1, --http2: '%s'", out);
    server_stop_clean(s);
}
END_TEST

/*
 * HTTP/2 over TLS: curl --http2 gets big.bin whole, nghttp
 * (nghttp2-client) gets it on two streams at once under its 64 KiB
 * windows; with --http2 off "h2" is never chosen.
 */
START_TEST(h2_over_tls)
{
    unsigned port;
    struct server *s = self_signed(&port);
    char *dir = tree_new();
    const char *got = tree_path(dir, "got.bin");
    const char *file = tree_path(www, "big.bin");
    const char *url = hfmt("https://127.0.0.1:%u/big.bin", port);

    char *out = sh(hfmt("curl -sk --http2 -o %s -w \"%%{http_version} "
                        "%%{http_code}\" %s && cmp %s %s && echo same",
                        got, url, got, file));
    EXPECT(strcmp(out, "2 200same\n") == 0, "curl --http2: '%s'", out);
    out = sh(hfmt("nghttp -n %s %s && echo done", url, url));
    EXPECT(strstr(out, "done\n"), "nghttp, two streams: '%s'", out);
    server_stop_clean(s);

    s = server_start(www, "--listen", "https://127.0.0.1:0",
                     "--tls-self-signed", "--http2", "off", NULL);
    port = server_https_port(s);
    out = sh(hfmt("curl -sk --http2 -w \"%%{http_version}\" -o /dev/null "
                  "https://127.0.0.1:%u/",
                  port));
    EXPECT(strcmp(out, "1.1") == 0, "--http2 off, curl --http2: '%s'", out);
    out = s_client(port, "-alpn h2");
    EXPECT(strstr(out, "alert no application protocol"),
           "--http2 off, -alpn h2:\n%s", out);
    server_stop_clean(s);
}
END_TEST

/*
 * HTTP/2 with prior knowledge on a plain listener (the front takes plain
 * listeners with --http2 on): the preface gets a session, HTTP/1.1 goes on
 * to libmicrohttpd, half a preface ends within --header-timeout while a
 * fresh client is served, and --http2 off leaves HTTP/1.1 alone.
 */
START_TEST(h2_prior_knowledge)
{
    struct server *s = server_start(www, "--header-timeout", "1", NULL);
    unsigned port = s->port;
    char *dir = tree_new();
    const char *got = tree_path(dir, "got.bin");
    const char *file = tree_path(www, "big.bin");
    const char *url = hfmt("http://127.0.0.1:%u/big.bin", port);

    char *out = sh(hfmt("curl -s --http2-prior-knowledge -o %s -w "
                        "\"%%{http_version} %%{http_code}\" %s && cmp %s %s "
                        "&& echo same",
                        got, url, got, file));
    EXPECT(strcmp(out, "2 200same\n") == 0, "prior knowledge: '%s'", out);
    out = sh(hfmt("nghttp -n %s %s && echo done", url, url));
    EXPECT(strstr(out, "done\n"), "nghttp, two streams: '%s'", out);
    out = sh(hfmt("curl -s -o /dev/null -w \"%%{http_version} %%{http_code}\" "
                  "-X POST http://127.0.0.1:%u/",
                  port));
    EXPECT(strcmp(out, "1.1 405") == 0, "HTTP/1.1 POST: '%s'", out);

    /* before the connects: the server's clock starts at its accept, which
     * may come before this thread runs again on a busy machine */
    long long t0 = now_ms();
    struct raw_conn *half = raw_connect(port), *mute = raw_connect(port);
    EXPECT(half && mute, "connect");
    EXPECT(raw_send_str(half, "PRI * HTTP/2.0\r\n") == 0, "send");
    out = sh(hfmt("curl -s -m 1 -o /dev/null -w \"%%{http_code}\" "
                  "http://127.0.0.1:%u/index.html",
                  port));
    EXPECT(strcmp(out, "200") == 0 && now_ms() - t0 < 900,
           "a fresh client: '%s' after %lld ms", out, now_ms() - t0);
    EXPECT(raw_wait_closed(half, 4000) && raw_wait_closed(mute, 1000),
           "half a preface still open after %lld ms", now_ms() - t0);
    long long took = now_ms() - t0;
    EXPECT(took >= 900 && took < 3500, "closed after %lld ms (limit 1 s)",
           took);
    raw_close(half);
    raw_close(mute);
    server_stop_clean(s);

    s = server_start(www, "--http2", "off", NULL);
    out = sh(hfmt("curl -s --http2-prior-knowledge -o /dev/null -w "
                  "\"%%{http_version}\" http://127.0.0.1:%u/",
                  s->port));
    EXPECT(strcmp(out, "2") != 0, "--http2 off, prior knowledge: '%s'", out);
    out = sh(hfmt("curl -s -o /dev/null -w \"%%{http_version}\" "
                  "http://127.0.0.1:%u/",
                  s->port));
    EXPECT(strcmp(out, "1.1") == 0, "--http2 off, HTTP/1.1: '%s'", out);
    server_stop_clean(s);
}
END_TEST

START_TEST(tickets_resume)
{
    unsigned port;
    struct server *s = self_signed(&port);
    const char *sess = tree_path(www, "../sess");

    for (int v = 0; v < 2; v++) {
        const char *ver = v ? "-tls1_3" : "-tls1_2";
        bool reused = false;
        /* a TLS 1.3 ticket comes after the handshake: let a request pass */
        for (int tries = 0; tries < 3 && !reused; tries++) {
            unlink(sess);
            sh(hfmt("printf \"GET / HTTP/1.1\\r\\nHost: t\\r\\nConnection: "
                    "close\\r\\n\\r\\n\" | openssl s_client -quiet -connect "
                    "127.0.0.1:%u %s -sess_out %s",
                    port, ver, sess));
            char *out = s_client(port, hfmt("%s -sess_in %s", ver, sess));
            reused = strstr(out, "\nReused,") != NULL;
        }
        EXPECT(reused, "%s: no resumption by ticket", ver);
    }
    server_stop_clean(s);
}
END_TEST

/* A session of @ver (-tls1_2, -tls1_3) for SNI @sni (an s_client option)
 * into @sess, a request passing (a TLS 1.3 ticket comes after the
 * handshake). */
static void session_out(unsigned port, const char *ver, const char *sni,
                        const char *sess)
{
    unlink(sess);
    sh(hfmt("printf \"GET / HTTP/1.1\\r\\nHost: t\\r\\nConnection: "
            "close\\r\\n\\r\\n\" | openssl s_client -quiet -connect "
            "127.0.0.1:%u %s %s -sess_out %s",
            port, ver, sni, sess));
}

/* s_client's output for @ver, SNI @sni, offering the session in @sess. */
static char *session_in(unsigned port, const char *ver, const char *sni,
                        const char *sess)
{
    return s_client(port, hfmt("%s %s -sess_in %s", ver, sni, sess));
}

static bool reused(const char *out)
{
    return strstr(out, "\nReused,") != NULL;
}

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* SIGHUP, then wait up to 10 s for one more @needle on stderr. */
static bool hup_and_wait(struct server *s, const char *needle)
{
    int before = count(server_stderr(s), needle);
    long long until = now_ms() + 10000;

    server_signal(s, SIGHUP);
    while (count(server_stderr(s), needle) == before && now_ms() < until)
        sleep_ms(10);
    return count(server_stderr(s), needle) > before;
}

/*
 * A session resumes only under the SNI name and the certificate it was
 * issued for, in TLS 1.2 and 1.3: a ticket of docs.test offered under
 * another name (the default certificate's, or none) gets a full handshake
 * with that name's certificate; one of a.other.test (the default
 * certificate) is not resumed under b.other.test either; a SIGHUP that
 * replaces docs.test's certificate ends its sessions, one that loads the
 * same certificate again keeps them. Each refusal is checked against the
 * same session resuming under its own name.
 */
START_TEST(sessions_bound_to_name_and_cert)
{
    unsigned port;
    char *dc, *dk;
    struct server *s = two_certs(&port, &dc, &dk);
    const char *sess = tree_path(www, "../sess");
    static const struct {
        const char *issued, *offered, *cn;
    } rows[] = {
        {"-servername docs.test", "-servername unknown.test", "leaf-a"},
        {"-servername docs.test", "-noservername", "leaf-a"},
        {"-servername unknown.test", "-servername docs.test", "leaf-docs"},
        {"-servername a.other.test", "-servername b.other.test", "leaf-a"},
        {"-noservername", "-servername unknown.test", "leaf-a"},
    };

    for (int v = 0; v < 2; v++) {
        const char *ver = v ? "-tls1_3" : "-tls1_2";

        for (size_t i = 0; i < N_ELEMS(rows); i++) {
            session_out(port, ver, rows[i].issued, sess);
            char *out = session_in(port, ver, rows[i].offered, sess);
            EXPECT(!reused(out) && strcmp(leaf_cn(out), rows[i].cn) == 0,
                   "%s: a session of %s offered under %s: %s, CN '%s' (want "
                   "a full handshake, %s)",
                   ver, rows[i].issued, rows[i].offered,
                   reused(out) ? "resumed" : "not resumed", leaf_cn(out),
                   rows[i].cn);
            out = session_in(port, ver, rows[i].issued, sess);
            EXPECT(reused(out),
                   "%s: the session of %s does not resume under "
                   "its own name (the control)",
                   ver, rows[i].issued);
        }
    }
    for (int v = 0; v < 2; v++) {
        const char *ver = v ? "-tls1_3" : "-tls1_2";

        /* a reload is a new serving process, with ticket keys of its own
         * (as nginx's reload): a session from before is not resumed */
        session_out(port, ver, "-servername docs.test", sess);
        EXPECT(hup_and_wait(s, "SIGHUP: configuration applied"), "no reload");
        EXPECT(!reused(session_in(port, ver, "-servername docs.test", sess)),
               "%s: a session resumed across a reload", ver);
        /* a new certificate: the sessions of the old one end */
        pki_leaf(v ? "leaf-docs-3" : "leaf-docs-2", -DAY, 90 * DAY, dc, dk,
                 false);
        EXPECT(hup_and_wait(s, "SIGHUP: tls: docs.test: certificate"),
               "no reload line for docs.test");
        char *out = session_in(port, ver, "-servername docs.test", sess);
        EXPECT(!reused(out) &&
                   strcmp(leaf_cn(out), v ? "leaf-docs-3" : "leaf-docs-2") == 0,
               "%s: a session of the replaced certificate: %s, CN '%s'", ver,
               reused(out) ? "resumed" : "not resumed", leaf_cn(out));
    }
    server_stop_clean(s);
    pki_free();
}
END_TEST

/* Whether a fresh client gets its page within @ms. */
static bool fresh_client_served(unsigned port, int ms)
{
    long long t0 = now_ms();
    struct hs *r = https(NULL, port, "GET", "/index.html", NULL, NULL);

    return r->status == 200 && now_ms() - t0 < ms;
}

START_TEST(unfinished_handshake_bounded)
{
    struct server *s =
        server_start(www, "--listen", "https://127.0.0.1:0",
                     "--tls-self-signed", "--header-timeout", "1", NULL);
    unsigned port = server_https_port(s);
    /* half a ClientHello record, nothing at all, and 48 of the first (under
     * the default --max-connections-per-ip, 64, with the fresh client) */
    struct raw_conn *half = raw_connect(port), *mute = raw_connect(port);
    struct raw_conn *many[48];
    long long t0 = now_ms();

    EXPECT(half && mute, "connect");
    EXPECT(raw_send(half, "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11) ==
               0,
           "send");
    for (size_t i = 0; i < N_ELEMS(many); i++) {
        many[i] = raw_connect(port);
        EXPECT(many[i] && raw_send(many[i], "\x16\x03\x01", 3) == 0, "many");
    }
    EXPECT(fresh_client_served(port, 900), "a fresh client waited");
    EXPECT(raw_wait_closed(half, 4000) && raw_wait_closed(mute, 1000),
           "an unfinished handshake still open after %lld ms", now_ms() - t0);
    long long took = now_ms() - t0;
    EXPECT(took >= 900 && took < 3500, "closed after %lld ms (limit 1 s)",
           took);
    for (size_t i = 0; i < N_ELEMS(many); i++) {
        EXPECT(raw_wait_closed(many[i], 2000), "many[%zu] still open", i);
        raw_close(many[i]);
    }
    raw_close(half);
    raw_close(mute);
    server_stop_clean(s);
}
END_TEST

/* --max-connections-per-ip counts a connection from its accept, handshake
 * included, to its close. Of three connections that begin no handshake one
 * is closed at once: which one is the order the front's loops admit them in,
 * not the order of connect (two loops accept at once). The handshake's own
 * limit (--header-timeout) is set far beyond the test's bounds, so that only
 * the per-IP limit closes one. */
START_TEST(per_ip_limit_from_accept)
{
    struct server *s = server_start(
        www, "--listen", "https://127.0.0.1:0", "--tls-self-signed",
        "--max-connections-per-ip", "2", "--header-timeout", "120", NULL);
    unsigned port = server_https_port(s);
    struct raw_conn *c[3];
    int closed = -1;

    for (int i = 0; i < 3; i++) {
        c[i] = raw_connect(port);
        EXPECT(c[i], "connect %d", i);
    }
    /* up to 10 s for the one refused to be closed */
    for (long long end = now_ms() + 10000; closed < 0 && now_ms() < end;)
        for (int i = 0; i < 3 && closed < 0; i++)
            if (raw_wait_closed(c[i], 20))
                closed = i;
    EXPECT(closed >= 0, "three connections open, limit 2");
    for (int i = 0; i < 3; i++)
        EXPECT(i == closed || !raw_wait_closed(c[i], 200),
               "connection %d closed as well as %d", i, closed);
    struct hs *r = https(NULL, port, "GET", "/index.html", NULL, NULL);
    EXPECT(r->curl_result != CURLE_OK, "a third client was served");
    raw_close(c[closed]);
    raw_close(c[closed == 0 ? 1 : 0]);
    /* one closed: one more may come, and is served (up to 10 s for the
     * server to see the close) */
    for (long long end = now_ms() + 10000;;) {
        r = https(NULL, port, "GET", "/index.html", NULL, NULL);
        if (r->status == 200 || now_ms() >= end)
            break;
        sleep_ms(20);
    }
    EXPECT(r->status == 200, "after a close: %ld (%s)", r->status,
           curl_easy_strerror((CURLcode)r->curl_result));
    raw_close(c[closed == 2 ? 1 : 2]);
    server_stop_clean(s);
}
END_TEST

/* Many connections of every kind: the descriptors come back to the start. */
START_TEST(fds_come_back)
{
    struct server *s =
        server_start(www, "--listen", "https://127.0.0.1:0",
                     "--tls-self-signed", "--header-timeout", "2", NULL);
    unsigned port = server_https_port(s);
    int before = server_fd_count_settled(s);
    CURL *e = curl_easy_init(); /* closed before the count, so not the
                                   harness's */

    EXPECT(e, "curl_easy_init");
    for (int i = 0; i < 40; i++) {
        /* a request each on new connections, and on one kept alive */
        struct hs *r = https(NULL, port, "GET", "/range.txt", NULL, NULL);
        EXPECT(r->status == 200, "GET %d: %ld", i, r->status);
        r = https(e, port, "GET", "/index.html", NULL, NULL);
        EXPECT(r->status == 200, "keep-alive GET %d: %ld", i, r->status);
        /* plain HTTP, a refused version, a refused ALPN, a cut handshake */
        struct raw_conn *c = raw_connect(port);
        EXPECT(c && raw_send_str(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n") == 0,
               "plain");
        raw_close(c);
        c = raw_connect(port);
        EXPECT(c && raw_send(c, "\x16\x03\x01\x00\x40\x01", 6) == 0, "cut");
        raw_close(c);
    }
    sh(hfmt("for i in 1 2 3 4 5; do echo | openssl s_client -connect "
            "127.0.0.1:%u -tls1_1; echo | openssl s_client -connect "
            "127.0.0.1:%u -alpn h2; done",
            port, port));
    curl_easy_cleanup(e);
    int after = server_fd_count_settled(s);
    EXPECT(after == before, "fds: %d before, %d after", before, after);
    server_stop_clean(s);
}
END_TEST

const struct check_main check_main = {
    .suite = "tls_e2e",
    .fixture = HARNESS_FIXTURE(120),
    .tcases = {{"https", test_setup, .loops = {LOOP(startup_checks)},
                .tests = {&self_signed_get, &self_signed_kept,
                          &https_waits_parked, &https_range_and_big,
                          &https_304_by_etag, &verified_chain, &sighup_swap,
                          &replicas_same_etag, &big_file_hashed_in_background}},
               {"front", test_setup,
                .tests = {&sni_picks_the_chain, &named_cert_checks,
                          &alpn_choices, &h2_over_tls, &h2_prior_knowledge,
                          &tickets_resume, &sessions_bound_to_name_and_cert,
                          &unfinished_handshake_bounded,
                          &per_ip_limit_from_accept, &fds_come_back}}}};
