/* SPDX-License-Identifier: MIT */
/*
 * acme_agent.c - a test program that runs beneath_acme the way the server
 * will: a manager with its thread, and the two listeners the CA validates,
 * answering from the library's memory store over real sockets.
 *
 *   --http-port P   HTTP-01: GET /.well-known/acme-challenge/TOKEN
 *   --tls-port P    TLS-ALPN-01 (ALPN acme-tls/1 picks the challenge
 *                   certificate for the SNI), and for any other handshake
 *                   the certificate the library installed for that SNI, so
 *                   openssl s_client can verify what was obtained
 *
 * Both listeners set SO_REUSEPORT, so two agents sharing one --dir also share
 * the ports, as replicas behind one address do. Lines on standard output:
 * "ready", "installed ID stored=0|1 not_after=T", "log LEVEL MESSAGE".
 * SIGTERM or SIGINT stops it with status 0.
 *
 *   acme_agent --ca URL --ca-root FILE --dir DIR --names a.test[,b.test]
 *              [--challenge http-01|tls-alpn-01] [--clock-offset S]
 *              [--sabotage] [--share-delay S] [--backoff S]
 */
#include "acme_agent.h"

#include "acme/acme.h"

#include <errno.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static struct agent ag;

static time_t agent_clock(void *arg)
{
    (void)arg;
    return time(NULL) + ag.clock_offset;
}

static void on_log(void *arg, enum acme_log_level level, const char *msg)
{
    static const char *const names[] = {"ERROR", "WARNING", "INFO"};

    (void)arg;
    printf("log %s %s\n", names[level], msg);
}

/* Keep what the library installed, as OpenSSL objects for the TLS port. */
static void on_install(void *arg, const struct acme_cert *cert)
{
    BIO *b = BIO_new_mem_buf(cert->chain_pem, (int)cert->chain_len);
    BIO *k = BIO_new_mem_buf(cert->key_pem, (int)cert->key_len);
    struct served *s;
    X509 *x;

    (void)arg;
    if (cert->index >= AGENT_MAX_CERTS || !b || !k) {
        BIO_free(b);
        BIO_free(k);
        return;
    }
    pthread_mutex_lock(&ag.mu);
    s = &ag.served[cert->index];
    served_clear(s);
    s->leaf = PEM_read_bio_X509(b, NULL, NULL, NULL);
    s->chain = sk_X509_new_null();
    while (s->chain && (x = PEM_read_bio_X509(b, NULL, NULL, NULL)))
        sk_X509_push(s->chain, x);
    s->key = PEM_read_bio_PrivateKey(k, NULL, NULL, NULL);
    for (size_t i = 0; i < cert->names->n && i < AGENT_MAX_NAMES; i++)
        snprintf(s->names[i], sizeof s->names[i], "%s", cert->names->v[i]);
    s->n_names =
        cert->names->n < AGENT_MAX_NAMES ? cert->names->n : AGENT_MAX_NAMES;
    pthread_mutex_unlock(&ag.mu);
    ERR_clear_error();
    BIO_free(b);
    BIO_free(k);
    printf("installed %s stored=%d not_after=%lld\n", cert->id, cert->stored,
           (long long)cert->not_after);
}

static int split_names(char *list, struct acme_names *out, char **store)
{
    size_t n = 0;

    for (char *save = NULL, *t = strtok_r(list, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        if (n == AGENT_MAX_NAMES)
            return -1;
        store[n++] = t;
    }
    *out = (struct acme_names){.v = store, .n = n};
    return n ? 0 : -1;
}

static long number(const char *v)
{
    char *end;
    long n = strtol(v, &end, 10);

    return *end == '\0' && n >= 0 && n < 1000000 ? n : 0;
}

static bool hold; /* --hold */

static int parse_args(int argc, char **argv, struct acme_config *cfg)
{
    static char *names[AGENT_MAX_CERTS][AGENT_MAX_NAMES];
    static struct acme_names certs[AGENT_MAX_CERTS];

    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (strcmp(o, "--sabotage") == 0) {
            ag.sabotage = true;
            continue;
        }
        if (strcmp(o, "--hold") == 0) { /* start the manager at SIGUSR1 */
            hold = true;
            continue;
        }
        if (v == NULL)
            return -1;
        i++;
        if (strcmp(o, "--ca") == 0)
            cfg->directory = v;
        else if (strcmp(o, "--ca-root") == 0)
            cfg->ca_root = v;
        else if (strcmp(o, "--dir") == 0)
            cfg->dir = v;
        else if (strcmp(o, "--challenge") == 0)
            cfg->challenge =
                strcmp(v, "tls-alpn-01") == 0 ? ACME_TLSALPN01 : ACME_HTTP01;
        else if (strcmp(o, "--names") == 0 && cfg->n_certs < AGENT_MAX_CERTS) {
            if (split_names(argv[i], &certs[cfg->n_certs],
                            names[cfg->n_certs]) < 0)
                return -1;
            cfg->n_certs++;
        } else if (strcmp(o, "--http-port") == 0)
            ag.http_port = (int)number(v);
        else if (strcmp(o, "--tls-port") == 0)
            ag.tls_port = (int)number(v);
        else if (strcmp(o, "--clock-offset") == 0)
            ag.clock_offset = strtoll(v, NULL, 10);
        else if (strcmp(o, "--share-delay") == 0)
            cfg->share_delay = (unsigned)number(v);
        else if (strcmp(o, "--backoff") == 0)
            cfg->backoff = (struct acme_backoff){.first = (unsigned)number(v),
                                                 .max = (unsigned)number(v)};
        else
            return -1;
    }
    cfg->certs = certs;
    return cfg->directory && cfg->dir && cfg->n_certs ? 0 : -1;
}

int main(int argc, char **argv)
{
    struct acme_config cfg = {
        .log = on_log, .install = on_install, .clock = agent_clock};
    pthread_t http_thread, tls_thread;
    struct acme *a = NULL;
    char err[512];
    sigset_t set;
    int sig, status = 1;

    setvbuf(stdout, NULL, _IOLBF, 0);
    pthread_mutex_init(&ag.mu, NULL);
    if (parse_args(argc, argv, &cfg) < 0) {
        fprintf(stderr, "acme_agent: bad arguments (see the source)\n");
        return 2;
    }
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    sigdelset(&set, SIGUSR1);
    signal(SIGPIPE, SIG_IGN);
    ag.challenges = acme_challenges_new();
    if (ag.challenges == NULL || pipe(ag.stop_pipe) < 0)
        return 1;
    cfg.challenges = ag.challenges;
    /* a replica of the directory (and answering what others publish)
     * before it can be reached: another ordering replica then waits */
    if (acme_open(&cfg, &a, err, sizeof err) < 0) {
        fprintf(stderr, "acme_agent: %s\n", err);
        goto out;
    }
    if (agent_listen(&ag) < 0) {
        fprintf(stderr, "acme_agent: listen: %s\n", strerror(errno));
        goto out;
    }
    pthread_create(&http_thread, NULL, agent_http, &ag);
    pthread_create(&tls_thread, NULL, agent_tls, &ag);
    if (hold) { /* a replica of the directory that orders nothing yet */
        sigset_t go;

        sigemptyset(&go);
        sigaddset(&go, SIGUSR1);
        printf("held\n");
        sigwait(&go, &sig);
    }
    if (acme_start(a) < 0)
        goto out_join;
    printf("ready\n");
    sigwait(&set, &sig);
    status = 0;
out_join:
    acme_close(a);
    a = NULL;
    if (write(ag.stop_pipe[1], "x", 1) < 0)
        status = 1;
    pthread_join(http_thread, NULL);
    pthread_join(tls_thread, NULL);
out:
    acme_close(a);
    agent_free(&ag);
    acme_challenges_free(ag.challenges);
    printf("stopped\n");
    return status;
}
