// SPDX-License-Identifier: MIT
/*
 * acme_serve.c - beneath_acme wired into the serving process: what the
 * manager installs goes into the TLS store under each of its names, its
 * messages go to stderr, its status to the metrics.
 */
#include "process/acme_serve.h"

#include "acme/acme.h"
#include "http/host.h"
#include "process/acme_conf.h"
#include "process/certs.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct acme_serve {
    struct acme_conf ac;
    struct acme *a;
    struct tls_store *store; /* NULL: no https:// listener */
};

int acme_serve_check(const struct conf *c)
{
    if (c->acme.n && c->sandbox == CONF_SANDBOX_STRICT) {
        fprintf(stderr, "beneath: --acme needs --sandbox on or off, not "
                        "strict: its thread connects to the CA and writes "
                        "--acme-dir, which the sandbox forbids (until "
                        "privilege separation, docs/acme.md)\n");
        return 1;
    }
    return 0;
}

/* "2026-12-05 07:37 UTC" */
static void utc(time_t t, char *buf, size_t size)
{
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(buf, size, "%Y-%m-%d %H:%M UTC", &tm);
}

/* The manager's certificate for each of its names, for new handshakes. */
static void install(void *arg, const struct acme_cert *cert)
{
    struct acme_serve *as = arg;
    /* tls_store_put only reads the PEM text */
    struct tls_material m = {
        .cert_pem = (char *)(uintptr_t)cert->chain_pem,
        .cert_len = cert->chain_len,
        .key_pem = (char *)(uintptr_t)cert->key_pem,
        .key_len = cert->key_len,
    };
    char until[32];

    utc(cert->not_after, until, sizeof until);
    if (!as->store) {
        fprintf(stderr,
                "beneath: acme: %s: certificate until %s in --acme-dir; no "
                "https:// listener serves it\n",
                cert->id, until);
        return;
    }
    for (size_t i = 0; i < cert->names->n; i++) {
        struct tls_material_diag d = {0};
        char host[HOST_MAX];
        const char *name = cert->names->v[i];

        if (strlen(name) >= sizeof host || host_normalize(name, host) != 0)
            snprintf(host, sizeof host, "%s", name);
        if (tls_store_put(as->store, host, &m, &d) != 0)
            fprintf(stderr,
                    "beneath: acme: %s: %s; keeping the old certificate\n",
                    host, d.error);
    }
    fprintf(stderr, "beneath: acme: %s: certificate %s until %s, served\n",
            cert->id, cert->stored ? "from --acme-dir" : "issued", until);
}

static void log_line(void *arg, enum acme_log_level level, const char *msg)
{
    (void)arg;
    fprintf(stderr, "beneath: %s%s\n",
            level == ACME_LOG_ERROR     ? "error: "
            : level == ACME_LOG_WARNING ? "warning: "
                                        : "",
            msg);
}

/* The store's TLS-ALPN-01 hook. */
static int challenge(void *arg, const char *name, X509 **cert, EVP_PKEY **key)
{
    return acme_tlsalpn01_lookup(arg, name, cert, key);
}

static bool expiry(void *arg, size_t i, char *name, size_t size,
                   long long *seconds, bool *more)
{
    struct acme_serve *as = arg;
    struct acme_status st;

    *more = acme_status(as->a, i, time(NULL), &st) == 0;
    if (!*more || st.not_after == 0)
        return false;
    snprintf(name, size, "%s", st.id);
    *seconds = st.expiry_seconds;
    return true;
}

int acme_serve_open(const struct conf *c, struct tls_store *store,
                    struct acme_challenges *ch, struct metrics *m,
                    struct acme_serve **out)
{
    struct acme_serve *as;
    char err[512];
    int r;

    *out = NULL;
    if (!c->acme.n)
        return 0;
    as = calloc(1, sizeof *as);
    if (!as || acme_conf_build(c, &as->ac) != 0) {
        free(as);
        fprintf(stderr, "beneath: acme: out of memory\n");
        return -ENOMEM;
    }
    as->store = store;
    as->ac.cfg.challenges = ch;
    as->ac.cfg.install = install;
    as->ac.cfg.log = log_line;
    as->ac.cfg.arg = as;
    r = acme_open(&as->ac.cfg, &as->a, err, sizeof err);
    if (r < 0) {
        fprintf(stderr, "beneath: %s\n", err);
        acme_conf_free(&as->ac);
        free(as);
        return r;
    }
    if (store) {
        /* names without a certificate yet: their handshakes fail cleanly */
        for (size_t i = 0; i < as->ac.n_certs; i++)
            for (size_t k = 0; k < as->ac.certs[i].n; k++) {
                char host[HOST_MAX];
                const char *name = as->ac.certs[i].v[k];

                if (strlen(name) < sizeof host &&
                    host_normalize(name, host) == 0 && certs_keep(host) == 0 &&
                    tls_store_put_pending(store, host) == 0)
                    continue;
                fprintf(stderr, "beneath: acme: %s: out of memory\n", name);
                acme_serve_close(as);
                return -ENOMEM;
            }
        tls_store_set_challenge(store, challenge, ch);
    }
    if (m)
        metrics_set_expiry(m, expiry, as);
    *out = as;
    return 0;
}

int acme_serve_start(struct acme_serve *as)
{
    int r = as ? acme_start(as->a) : 0;

    if (r < 0)
        fprintf(stderr, "beneath: acme: cannot start its thread: %s\n",
                strerror(-r));
    else if (as)
        fprintf(stderr,
                "beneath: acme: %zu certificate%s from %s "
                "(%s), state in %s\n",
                as->ac.n_certs, as->ac.n_certs == 1 ? "" : "s",
                acme_ca_url(as->ac.cfg.directory),
                as->ac.cfg.challenge == ACME_TLSALPN01 ? "tls-alpn-01"
                                                       : "http-01",
                as->ac.cfg.dir);
    return r;
}

void acme_serve_close(struct acme_serve *as)
{
    if (!as)
        return;
    acme_close(as->a);
    acme_conf_free(&as->ac);
    free(as);
}
