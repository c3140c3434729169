// SPDX-License-Identifier: MIT
/*
 * test_keyless.c - the TLS private keys stay in the keeper (tls/keyless.h):
 * the serving process holds stubs of their public half, and the keeper
 * makes each private operation.
 *
 * For an ECDSA key (--tls-self-signed, made by the keeper) and an RSA key
 * (--tls-cert/--tls-key files), under --sandbox on and off: handshakes in
 * TLS 1.3 and 1.2 succeed (with an RSA key: PSS and PKCS#1 signatures),
 * and a scan of the serving process's whole memory (/proc/PID/mem) finds
 * neither the key's secret numbers (as bytes in either order) nor a line
 * of its PEM text, while the same scan of the keeper finds them (the
 * control: the scan can see a key where there is one). A SIGHUP after the
 * key and certificate files were replaced serves the new certificate, its
 * key kept by the keeper too.
 */
#include "harness.h"

#include <errno.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hmem_needle {
    const unsigned char *p;
    size_t len;
};

/* Whether any of the @n byte strings @needles is in @pid's memory. */
static bool in_memory(pid_t pid, const struct hmem_needle *needles, size_t n)
{
    char *maps = tree_read(hfmt("/proc/%d/maps", (int)pid), NULL);
    FILE *mem = fopen(hfmt("/proc/%d/mem", (int)pid), "rb");
    bool hit = false;

    EXPECT(maps && mem, "cannot read the memory of pid %d", (int)pid);
    if (!maps || !mem) {
        if (mem)
            fclose(mem);
        return false;
    }
    for (const char *p = maps, *line; !hit && (line = hline(&p)) != NULL;) {
        char *end;
        unsigned long a = strtoul(line, &end, 16), b = 0;

        if (*end == '-')
            b = strtoul(end + 1, &end, 16);
        /* "a-b rw-p ...": readable regions, 1 GiB at most each */
        if (*end != ' ' || end[1] != 'r' || b <= a || b - a > (1ul << 30))
            continue;
        char *buf = malloc(b - a);
        if (!buf)
            continue;
        if (fseek(mem, (long)a, SEEK_SET) == 0 &&
            fread(buf, 1, b - a, mem) == b - a)
            for (size_t i = 0; !hit && i < n; i++)
                hit = memmem(buf, b - a, needles[i].p, needles[i].len) != NULL;
        clearerr(mem);
        free(buf);
    }
    fclose(mem);
    return hit;
}

/* The big number @name of @key, as bytes, big-endian and little-endian. */
static void secret(const EVP_PKEY *key, const char *name,
                   struct hmem_needle *be, struct hmem_needle *le)
{
    BIGNUM *bn = NULL;

    EXPECT(EVP_PKEY_get_bn_param(key, name, &bn) == 1, "no %s in the key",
           name);
    size_t len = (size_t)BN_num_bytes(bn);
    unsigned char *b = (unsigned char *)hbuf(len);
    unsigned char *l = (unsigned char *)hbuf(len);
    BN_bn2bin(bn, b);
    BN_bn2lebinpad(bn, l, (int)len);
    BN_free(bn);
    /* 24 bytes of a secret number are a match, not chance */
    *be = (struct hmem_needle){b, len < 24 ? len : 24};
    *le = (struct hmem_needle){l, len < 24 ? len : 24};
}

/* What of @pem_file (a private key) must not be in a serving process: its
 * secret numbers, either way round, and its second line of PEM text. */
static size_t needles_of(const char *pem_file, struct hmem_needle *v)
{
    FILE *f = fopen(pem_file, "r");
    EVP_PKEY *key = f ? PEM_read_PrivateKey(f, NULL, NULL, NULL) : NULL;
    size_t n = 0;

    if (f)
        fclose(f);
    EXPECT(key, "cannot read the key %s", pem_file);
    if (EVP_PKEY_get_base_id(key) == EVP_PKEY_EC) {
        secret(key, OSSL_PKEY_PARAM_PRIV_KEY, &v[0], &v[1]);
        n = 2;
    } else {
        secret(key, OSSL_PKEY_PARAM_RSA_FACTOR1, &v[0], &v[1]);
        secret(key, OSSL_PKEY_PARAM_RSA_D, &v[2], &v[3]);
        n = 4;
    }
    EVP_PKEY_free(key);
    const char *text = tree_read(pem_file, NULL), *p = text;
    (void)hline(&p); /* -----BEGIN ... */
    char *line = hline(&p);
    EXPECT(line && strlen(line) >= 40, "no PEM body in %s", pem_file);
    v[n++] = (struct hmem_needle){(const unsigned char *)line, strlen(line)};
    return n;
}

/* The https:// listener's URL, from the start-up lines. */
static char *https_url(const struct server *s)
{
    const char *p = strstr(server_stderr(s), "listening on https://");

    EXPECT(p, "no https:// listener:\n%s", server_stderr(s));
    p += strlen("listening on ");
    return hfmt("%.*s/", (int)strcspn(p, "\n"), p);
}

/* A handshake (and GET /) with @args; true when it served. */
static bool served(const struct server *s, const char *args)
{
    char *cmd =
        hfmt("curl -sk --max-time 10 %s -o /dev/null -w '%%{http_code}' "
             "%s",
             args, https_url(s));
    FILE *p = popen(cmd, "r");
    char out[16] = "";

    if (p) {
        if (!fgets(out, sizeof out, p))
            out[0] = '\0';
        pclose(p);
    }
    return strcmp(out, "200") == 0;
}

static void check(const struct server *s, const char *key_file,
                  const char *what)
{
    struct hmem_needle v[8];
    size_t n = needles_of(key_file, v);
    pid_t serving = server_serving_pid(s);

    EXPECT(serving != s->pid, "%s: no serving process", what);
    EXPECT(served(s, "--tlsv1.3"), "%s: no TLS 1.3 handshake", what);
    EXPECT(served(s, "--tlsv1.2 --tls-max 1.2"), "%s: no TLS 1.2 handshake",
           what);
    EXPECT(!in_memory(serving, v, n),
           "%s: the private key is in the serving process's memory", what);
    EXPECT(in_memory(s->pid, v, n),
           "%s: the keeper's memory does not hold the key either: the scan "
           "sees nothing",
           what);
}

static const char *const sandboxes[] = {"on", "off"};

/* ECDSA: the self-signed certificate the keeper makes. */
LOOP_TEST(ecdsa_self_signed, sandboxes)
{
    char *state = tree_new();
    struct server_opts o = {
        .root = tree_site("x\n"),
        .args = (const char *[]){"--listen", "https://127.0.0.1:0",
                                 "--tls-self-signed", "--state-dir", state,
                                 "--sandbox", sandboxes[_i], NULL},
    };
    struct server *s = server_start_opts(&o);

    check(s, tree_path(state, "tls-self-signed/key.pem"), "ECDSA");
    server_stop_clean(s);
}
END_TEST

static void rsa_files(const char *dir, const char *cert, const char *key)
{
    char *cmd = hfmt("openssl req -x509 -newkey rsa:2048 -nodes -keyout %s "
                     "-out %s -days 30 -subj /CN=localhost -addext "
                     "subjectAltName=DNS:localhost,IP:127.0.0.1 2>/dev/null",
                     tree_path(dir, key), tree_path(dir, cert));
    EXPECT(system(cmd) == 0, "openssl req failed");
}

/* RSA from files; then new files and SIGHUP: the new key, kept too. */
LOOP_TEST(rsa_files_and_reload, sandboxes)
{
    char *d = tree_new();
    rsa_files(d, "c.pem", "k.pem");
    struct server_opts o = {
        .root = tree_site("x\n"),
        .args = (const char *[]){"--listen", "https://127.0.0.1:0",
                                 "--tls-cert", tree_path(d, "c.pem"),
                                 "--tls-key", tree_path(d, "k.pem"),
                                 "--sandbox", sandboxes[_i], NULL},
    };
    struct server *s = server_start_opts(&o);

    check(s, tree_path(d, "k.pem"), "RSA");
    EXPECT(served(s, "--tlsv1.2 --tls-max 1.2 --ciphers "
                     "ECDHE-RSA-AES128-GCM-SHA256 --curves P-256"),
           "RSA: a PKCS#1 signature (TLS 1.2)");

    /* a new key: the reload serves it, and it stays in the keeper */
    char *before = server_stderr(s);
    int before_n = 0;
    for (const char *p = before; (p = strstr(p, "serving;")); p++)
        before_n++;
    rsa_files(d, "c2.pem", "k2.pem");
    EXPECT(rename(tree_path(d, "k2.pem"), tree_path(d, "k.pem")) == 0 &&
               rename(tree_path(d, "c2.pem"), tree_path(d, "c.pem")) == 0,
           "rename: %s", strerror(errno));
    server_signal(s, SIGHUP);
    long long deadline = now_ms() + 15000;
    int n = before_n;
    while (n == before_n && now_ms() < deadline) {
        sleep_ms(10);
        n = 0;
        for (const char *p = server_stderr(s); (p = strstr(p, "serving;")); p++)
            n++;
    }
    EXPECT(n > before_n, "no new generation serving after SIGHUP:\n%s",
           server_stderr(s));
    check(s, tree_path(d, "k.pem"), "RSA after SIGHUP");
    server_stop_clean(s);
}
END_TEST

const struct check_main check_main = {
    .suite = "e2e_keyless",
    .fixture = HARNESS_FIXTURE(120),
    .tcases = {{"keyless", .loops = {LOOP(ecdsa_self_signed),
                                     LOOP(rsa_files_and_reload)}}}};
