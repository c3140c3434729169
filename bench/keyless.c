/* SPDX-License-Identifier: MIT */
/*
 * keyless.c - what it costs to keep the TLS private key out of the serving
 * process: new TLS 1.3 handshakes per second and server CPU per handshake
 * with the key in the server (local) or in a separate signer process that
 * makes each handshake's CertificateVerify signature over a socketpair
 * (keeper), like OpenBSD relayd's ca process. Not part of the build and not
 * a test: bench/keyless.sh compiles and runs it.
 *
 *   keyless local|keeper [--seconds S] [--clients N] [--port P] [--no-pin]
 *
 * One ECDSA P-256 key and a self-signed certificate, made in memory (in
 * keeper mode by the signer, which sends the server only the certificate).
 * One server thread: blocking accept, SSL_accept, close, in a loop; TLS 1.3
 * only, no session tickets, no session cache. In keeper mode the server's
 * SSL_CTX holds a stub key made of the public key alone: a legacy EC_KEY
 * whose EC_KEY_METHOD signs by sending the digest to the signer over a
 * SOCK_SEQPACKET socketpair and taking back the DER signature (OpenSSL 3.0
 * treats such a "foreign" key on its legacy path, so libssl calls it).
 * N client threads (default 4) make full handshakes (a new SSL each time,
 * SSL_OP_NO_TICKET, nothing verified) for S seconds (default 5); each waits
 * for the server's close before it counts the handshake and closes with a
 * reset (no TIME_WAIT). With 2 CPUs or more, the server thread and the
 * signer run on CPU 0 and the clients on CPU 1 (--no-pin: not pinned).
 * The threads are named server, client and signer (for perf --comm).
 *
 * Server CPU is the on-CPU time (schedstat) of the server thread, plus the
 * signer's in keeper mode, over the timed run. It prints one line
 *   KEYLESS mode=... handshakes=... server_handshakes=... signatures=...
 *   seconds=... hs_per_s=... server_cpu_ns=... signer_cpu_ns=...
 *   cpu_us_per_hs=...
 * and exits 1 when the counts differ (keeper: signatures must equal
 * handshakes, or the stub was bypassed).
 */
#define _GNU_SOURCE
#define OPENSSL_API_COMPAT 0x10100000L

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CLIENTS 64
#define MAX_DIGEST 64
#define MAX_CERT 4096

static int keeper_fd = -1;     /* the server's end of the socketpair */
static int listen_fd = -1;     /* the server's listening socket */
static int pin = 1;            /* pin the server to CPU 0, clients to CPU 1 */
static atomic_int server_tid;  /* the server thread, for its schedstat */
static atomic_long server_hs;  /* handshakes the server completed */
static atomic_long server_bad; /* handshakes the server saw fail */
static atomic_long client_bad; /* connections or handshakes that failed */
static struct sockaddr_in server_addr;
static double deadline;

static void die(const char *what)
{
    fprintf(stderr, "keyless: %s\n", what);
    ERR_print_errors_fp(stderr);
    exit(2);
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void pin_to(int cpu)
{
    cpu_set_t set;

    if (!pin)
        return;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0)
        die("sched_setaffinity failed");
}

/* The first field of a schedstat file: nanoseconds on a CPU, -1 if none. */
static long long schedstat_ns(const char *path)
{
    long long v = -1;
    FILE *f = fopen(path, "r");

    if (f == NULL)
        return -1;
    if (fscanf(f, "%lld", &v) != 1)
        v = -1;
    fclose(f);
    return v;
}

/* --- key and certificate ------------------------------------------------ */

static EVP_PKEY *make_key(void)
{
    EVP_PKEY *key = EVP_EC_gen("P-256");

    if (key == NULL)
        die("EVP_EC_gen failed");
    return key;
}

static X509 *make_cert(EVP_PKEY *key)
{
    X509 *cert = X509_new();
    X509_NAME *name;

    if (cert == NULL || !X509_set_version(cert, 2) ||
        !ASN1_INTEGER_set(X509_get_serialNumber(cert), 1) ||
        X509_gmtime_adj(X509_getm_notBefore(cert), -3600) == NULL ||
        X509_gmtime_adj(X509_getm_notAfter(cert), 86400) == NULL ||
        !X509_set_pubkey(cert, key))
        die("making the certificate failed");
    name = X509_get_subject_name(cert);
    if (!X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                    (const unsigned char *)"localhost", -1, -1,
                                    0) ||
        !X509_set_issuer_name(cert, name) ||
        X509_sign(cert, key, EVP_sha256()) <= 0)
        die("signing the certificate failed");
    return cert;
}

/* --- the signer (keeper mode) -------------------------------------------- */

/*
 * The signer: makes the key and the certificate, sends the certificate
 * (DER), then answers each request on fd until EOF. Requests: 'S' followed
 * by a digest, answered with the DER ECDSA signature (empty on failure);
 * 'C', answered with the number of signatures made (uint64_t).
 */
static void signer(int fd)
{
    unsigned char req[1 + MAX_DIGEST], sig[256], *der = NULL;
    uint64_t count = 0;
    EVP_PKEY *key = make_key();
    X509 *cert = make_cert(key);
    int len = i2d_X509(cert, &der);

    pthread_setname_np(pthread_self(), "signer");
    pin_to(0);
    if (len <= 0 || len > MAX_CERT || send(fd, der, (size_t)len, 0) != len)
        die("signer: sending the certificate failed");
    OPENSSL_free(der);
    X509_free(cert);
    for (;;) {
        ssize_t n = recv(fd, req, sizeof(req), 0);
        size_t siglen = sizeof(sig);
        EVP_PKEY_CTX *ctx;

        if (n <= 0)
            break;
        if (req[0] == 'C') {
            if (send(fd, &count, sizeof(count), 0) < 0)
                break;
            continue;
        }
        ctx = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
        if (req[0] != 'S' || n < 2 || ctx == NULL ||
            EVP_PKEY_sign_init(ctx) <= 0 ||
            EVP_PKEY_sign(ctx, sig, &siglen, req + 1, (size_t)n - 1) <= 0) {
            ERR_clear_error();
            siglen = 0;
        } else {
            count++;
        }
        EVP_PKEY_CTX_free(ctx);
        if (send(fd, sig, siglen, 0) < 0)
            break;
    }
    EVP_PKEY_free(key);
    _exit(0);
}

/* --- the stub key (keeper mode): signs through the signer ---------------- */

static int stub_sign(int type, const unsigned char *dgst, int dlen,
                     unsigned char *sig, unsigned int *siglen,
                     const BIGNUM *kinv, const BIGNUM *r, EC_KEY *eckey)
{
    unsigned char req[1 + MAX_DIGEST], rep[256];
    ssize_t n;

    (void)type;
    (void)kinv;
    (void)r;
    if (dlen <= 0 || dlen > MAX_DIGEST)
        return 0;
    req[0] = 'S';
    memcpy(req + 1, dgst, (size_t)dlen);
    if (send(keeper_fd, req, (size_t)dlen + 1, 0) != dlen + 1)
        return 0;
    n = recv(keeper_fd, rep, sizeof(rep), 0);
    if (n <= 0 || n > ECDSA_size(eckey))
        return 0;
    memcpy(sig, rep, (size_t)n);
    *siglen = (unsigned int)n;
    return 1;
}

static ECDSA_SIG *stub_sign_sig(const unsigned char *dgst, int dlen,
                                const BIGNUM *kinv, const BIGNUM *r,
                                EC_KEY *eckey)
{
    unsigned char der[256];
    const unsigned char *p = der;
    unsigned int len = 0;

    if (ECDSA_size(eckey) > (int)sizeof(der) ||
        !stub_sign(0, dgst, dlen, der, &len, kinv, r, eckey))
        return NULL;
    return d2i_ECDSA_SIG(NULL, &p, (long)len);
}

/* A key of the certificate's public key whose signing is the signer's. */
static EVP_PKEY *stub_key(X509 *cert)
{
    static EC_KEY_METHOD *meth;
    unsigned char *der = NULL;
    const unsigned char *p;
    EVP_PKEY *pkey = EVP_PKEY_new();
    EC_KEY *ec;
    int len = i2d_PUBKEY(X509_get0_pubkey(cert), &der);

    if (len <= 0 || pkey == NULL)
        die("i2d_PUBKEY failed");
    p = der;
    ec = d2i_EC_PUBKEY(NULL, &p, len);
    OPENSSL_free(der);
    meth = EC_KEY_METHOD_new(EC_KEY_get_default_method());
    if (ec == NULL || meth == NULL)
        die("making the stub key failed");
    EC_KEY_METHOD_set_sign(meth, stub_sign, NULL, stub_sign_sig);
    /* The method first: EVP_PKEY_assign marks the key foreign by it. */
    if (!EC_KEY_set_method(ec, meth) || !EVP_PKEY_assign_EC_KEY(pkey, ec))
        die("setting the stub key's method failed");
    return pkey;
}

static uint64_t signer_count(void)
{
    uint64_t count = 0;
    char c = 'C';

    if (send(keeper_fd, &c, 1, 0) != 1 ||
        recv(keeper_fd, &count, sizeof(count), 0) != sizeof(count))
        die("asking the signer for its count failed");
    return count;
}

/* --- server and clients -------------------------------------------------- */

static void *server(void *arg)
{
    SSL_CTX *ctx = arg;

    pthread_setname_np(pthread_self(), "server");
    atomic_store(&server_tid, (int)gettid());
    pin_to(0);
    for (;;) {
        int fd = accept(listen_fd, NULL, NULL);
        SSL *ssl;

        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            die("accept failed");
        }
        ssl = SSL_new(ctx);
        if (ssl == NULL || !SSL_set_fd(ssl, fd))
            die("SSL_new failed");
        if (SSL_accept(ssl) == 1) {
            atomic_fetch_add(&server_hs, 1);
        } else {
            atomic_fetch_add(&server_bad, 1);
            if (atomic_load(&server_bad) == 1)
                ERR_print_errors_fp(stderr);
            ERR_clear_error();
        }
        SSL_free(ssl);
        close(fd);
    }
    return NULL;
}

/* Full handshakes until the deadline; returns their count (a long). */
static void *client(void *arg)
{
    SSL_CTX *ctx = arg;
    const struct sockaddr *addr = (const struct sockaddr *)&server_addr;
    long done = 0;

    pthread_setname_np(pthread_self(), "client");
    pin_to(1);
    while (now() < deadline) {
        int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);
        struct linger reset = {.l_onoff = 1, .l_linger = 0};
        SSL *ssl;
        char c;

        if (fd < 0)
            die("socket failed");
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        if (connect(fd, addr, sizeof(server_addr)) != 0) {
            atomic_fetch_add(&client_bad, 1);
            close(fd);
            continue;
        }
        ssl = SSL_new(ctx);
        if (ssl == NULL || !SSL_set_fd(ssl, fd))
            die("SSL_new failed");
        /* Counted once the server closed: it completed its side too. */
        if (SSL_connect(ssl) == 1 && recv(fd, &c, 1, 0) == 0)
            done++;
        else
            atomic_fetch_add(&client_bad, 1);
        ERR_clear_error();
        SSL_free(ssl);
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
        close(fd);
    }
    return (void *)done;
}

static SSL_CTX *server_ctx(X509 *cert, EVP_PKEY *key)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());

    if (ctx == NULL || !SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) ||
        !SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION) ||
        SSL_CTX_use_certificate(ctx, cert) != 1 ||
        SSL_CTX_use_PrivateKey(ctx, key) != 1 ||
        SSL_CTX_check_private_key(ctx) != 1 || !SSL_CTX_set_num_tickets(ctx, 0))
        die("making the server's SSL_CTX failed");
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
    return ctx;
}

static SSL_CTX *client_ctx(void)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());

    if (ctx == NULL || !SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) ||
        !SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION))
        die("making the client's SSL_CTX failed");
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
    return ctx;
}

static void usage(void)
{
    fprintf(stderr, "usage: keyless local|keeper [--seconds S] "
                    "[--clients N] [--port P] [--no-pin]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int keeper, clients = 4, port = 0;
    double seconds = 5, t0, t1;
    pid_t signer_pid = -1;
    char signer_stat[64];
    char server_stat[64];
    long long srv0, srv1, sig0 = 0, sig1 = 0;
    long handshakes = 0, hs_before;
    uint64_t sigs0 = 0, sigs1 = 0;
    pthread_t srv, cli[MAX_CLIENTS];
    SSL_CTX *sctx, *cctx;
    EVP_PKEY *key;
    X509 *cert;
    struct sockaddr *addr = (struct sockaddr *)&server_addr;
    socklen_t alen = sizeof(server_addr);

    if (argc < 2)
        usage();
    if (strcmp(argv[1], "local") == 0)
        keeper = 0;
    else if (strcmp(argv[1], "keeper") == 0)
        keeper = 1;
    else
        usage();
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--no-pin") == 0)
            pin = 0;
        else if (i + 1 >= argc)
            usage();
        else if (strcmp(argv[i], "--seconds") == 0)
            seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--clients") == 0)
            clients = atoi(argv[++i]);
        else if (strcmp(argv[i], "--port") == 0)
            port = atoi(argv[++i]);
        else
            usage();
    }
    if (seconds <= 0 || clients < 1 || clients > MAX_CLIENTS || port < 0 ||
        port > 65535)
        usage();
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
        pin = 0;
    signal(SIGPIPE, SIG_IGN);

    if (keeper) {
        /* Fork before any thread; the key is only ever in the signer. */
        unsigned char der[MAX_CERT];
        const unsigned char *p = der;
        int sv[2];
        ssize_t n;

        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
            die("socketpair failed");
        signer_pid = fork();
        if (signer_pid < 0)
            die("fork failed");
        if (signer_pid == 0) {
            close(sv[0]);
            signer(sv[1]);
        }
        close(sv[1]);
        keeper_fd = sv[0];
        n = recv(keeper_fd, der, sizeof(der), 0);
        if (n <= 0 || (cert = d2i_X509(NULL, &p, (long)n)) == NULL)
            die("no certificate from the signer");
        key = stub_key(cert);
    } else {
        key = make_key();
        cert = make_cert(key);
    }
    sctx = server_ctx(cert, key);
    cctx = client_ctx();

    listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    memset(&server_addr, 0, sizeof(server_addr));
    server_addr.sin_family = AF_INET;
    server_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    server_addr.sin_port = htons((uint16_t)port);
    if (listen_fd < 0 || bind(listen_fd, addr, sizeof(server_addr)) != 0 ||
        listen(listen_fd, 1024) != 0 ||
        getsockname(listen_fd, addr, &alen) != 0)
        die("listening on 127.0.0.1 failed");
    if (pthread_create(&srv, NULL, server, sctx) != 0)
        die("pthread_create failed");
    while (atomic_load(&server_tid) == 0)
        usleep(1000);
    usleep(10000); /* the server thread is pinned and waits in accept */

    snprintf(server_stat, sizeof(server_stat), "/proc/self/task/%d/schedstat",
             atomic_load(&server_tid));
    snprintf(signer_stat, sizeof(signer_stat), "/proc/%d/schedstat",
             (int)signer_pid);
    if (keeper) {
        sigs0 = signer_count();
        sig0 = schedstat_ns(signer_stat);
    }
    hs_before = atomic_load(&server_hs);
    srv0 = schedstat_ns(server_stat);
    t0 = now();
    deadline = t0 + seconds;
    for (int i = 0; i < clients; i++)
        if (pthread_create(&cli[i], NULL, client, cctx) != 0)
            die("pthread_create failed");
    for (int i = 0; i < clients; i++) {
        void *done;

        pthread_join(cli[i], &done);
        handshakes += (long)done;
    }
    t1 = now();
    srv1 = schedstat_ns(server_stat);
    if (keeper) {
        sig1 = schedstat_ns(signer_stat);
        sigs1 = signer_count();
    }
    if (srv0 < 0 || srv1 < 0 || sig0 < 0 || sig1 < 0)
        die("reading schedstat failed");

    long shs = atomic_load(&server_hs) - hs_before;
    double cpu = (double)(srv1 - srv0) + (double)(sig1 - sig0);
    printf("KEYLESS mode=%s clients=%d pinned=%s handshakes=%ld "
           "server_handshakes=%ld",
           keeper ? "keeper" : "local", clients, pin ? "yes" : "no", handshakes,
           shs);
    if (keeper)
        printf(" signatures=%llu", (unsigned long long)(sigs1 - sigs0));
    else
        printf(" signatures=-");
    printf(" failed=%ld seconds=%.3f hs_per_s=%.1f server_cpu_ns=%lld "
           "signer_cpu_ns=%lld cpu_us_per_hs=%.2f\n",
           atomic_load(&client_bad) + atomic_load(&server_bad), t1 - t0,
           handshakes > 0 ? (double)handshakes / (t1 - t0) : 0.0, srv1 - srv0,
           sig1 - sig0,
           handshakes > 0 ? cpu / 1000.0 / (double)handshakes : 0.0);
    fflush(stdout);
    if (keeper)
        close(keeper_fd); /* the signer ends at EOF */
    if (signer_pid > 0)
        waitpid(signer_pid, NULL, 0);
    if (handshakes == 0 || shs != handshakes ||
        (keeper && sigs1 - sigs0 != (uint64_t)handshakes)) {
        fprintf(stderr, "keyless: counts differ (or no handshakes)\n");
        return 1;
    }
    return 0;
}
