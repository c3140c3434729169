// SPDX-License-Identifier: MIT
/*
 * acme_serve.c - beneath_acme wired into the serving process: what the
 * manager installs goes into the TLS store under each of its names, its
 * messages go to stderr, its status to the metrics.
 */
#include "process/acme_serve.h"

#include "access/access.h"
#include "acme/acme.h"
#include "common/mono.h"
#include "process/acme_conf.h"
#include "process/certs.h"
#include "process/keeper.h"
#include "resolver.h"
#include "syntax/host.h"
#include "tls/keyless.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/crypto.h>
#include <openssl/pem.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * --acme-on-demand. A handshake naming a site with no certificate waits
 * for one this long (s), within its own bound; the name is asked for again
 * after ONDEMAND_AGAIN_S (the keeper may have refused it: rate limit).
 * The serving process remembers ONDEMAND_NAMES names at once.
 */
#define ONDEMAND_WAIT_S 10
#define ONDEMAND_AGAIN_S 60
#define ONDEMAND_NAMES 1024

/* A name a handshake asked for (the serving process's table). */
struct asked {
    char name[HOST_MAX];
    time_t at; /* monotonic s; 0: a free slot */
    bool refused;
};

struct acme_serve {
    struct acme_conf ac;
    struct acme *a;               /* the manager; NULL under a keeper */
    struct tls_store *store;      /* NULL: no https:// listener */
    struct acme_challenges *own;  /* the keeper's store, mirrored over */
    time_t *not_after;            /* under a keeper: per certificate */
    struct keyless_keys *keys;    /* the keeper's: where keys go */
    char started[PATH_MAX + 256]; /* the start-up line: ac.cfg points into
                                     a conf the keeper frees before */
    /* --acme-on-demand, serving: the names asked for (under mu) */
    struct access *access;
    int keeper_fd;
    pthread_mutex_t mu;
    struct asked *asked;
    /* keeper: refusals said (the keeper's loop alone) */
    time_t said; /* the last refusal said (one line a minute) */
    unsigned unsaid;
};

/* Monotonic seconds, never 0 (0 is a free slot). */
static time_t mono_s(void)
{
    return (time_t)(mono_ms() / 1000) + 1;
}

/* What acme_serve_start will say, while ac.cfg's strings are there. */
static void say_started(struct acme_serve *as)
{
    snprintf(as->started, sizeof as->started,
             "%zu certificate%s from %s (%s), state in %s", as->ac.n_certs,
             as->ac.n_certs == 1 ? "" : "s", acme_ca_url(as->ac.cfg.directory),
             as->ac.cfg.challenge == ACME_TLSALPN01 ? "tls-alpn-01" : "http-01",
             as->ac.cfg.dir);
}

/* "2026-12-05 07:37 UTC" */
static void utc(time_t t, char *buf, size_t size)
{
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(buf, size, "%Y-%m-%d %H:%M UTC", &tm);
}

/*
 * A certificate of the manager's, for new handshakes under each of its
 * names; @key is the stub of its key (the keeper keeps the key itself).
 */
static void install(struct acme_serve *as, const struct acme_cert *cert,
                    EVP_PKEY *key)
{
    /* tls_store_put only reads the PEM text and takes its own reference */
    struct tls_material m = {
        .cert_pem = (char *)(uintptr_t)cert->chain_pem,
        .cert_len = cert->chain_len,
        .pkey = key,
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

    if (!as->a) { /* under a keeper: what it handed over */
        *more = i < as->ac.n_certs;
        if (!*more || as->not_after[i] == 0)
            return false;
        snprintf(name, size, "%s", as->ac.certs[i].v[0]);
        *seconds = (long long)(as->not_after[i] - time(NULL));
        return true;
    }
    *more = acme_status(as->a, i, time(NULL), &st) == 0;
    if (!*more || st.not_after == 0)
        return false;
    snprintf(name, size, "%s", st.id);
    *seconds = st.expiry_seconds;
    return true;
}

/* A new acme_serve for @c's --acme, its callbacks' argument set; NULL
 * after a line (out of memory). */
static struct acme_serve *serve_new(const struct conf *c)
{
    struct acme_serve *as = calloc(1, sizeof *as);

    if (as && acme_conf_build(c, &as->ac) != 0) {
        free(as);
        as = NULL;
    }
    if (!as) {
        fprintf(stderr, "beneath: acme: out of memory\n");
        return NULL;
    }
    as->ac.cfg.log = log_line;
    as->ac.cfg.arg = as;
    as->keeper_fd = -1;
    pthread_mutex_init(&as->mu, NULL);
    return as;
}

/* @as's manager: --acme-dir read, its certificates installed (acme_open).
 * 0 or -errno after a line. */
static int manager_open(struct acme_serve *as)
{
    char err[512];
    int r = acme_open(&as->ac.cfg, &as->a, err, sizeof err);

    if (r < 0)
        fprintf(stderr,
                "beneath: %s: the ACME manager cannot start; giving up\n", err);
    else
        say_started(as);
    return r;
}

/*
 * The store's on-demand hook (any front thread): whether a certificate of
 * @host is on its way. A site's name is asked of the keeper once, then
 * again ONDEMAND_AGAIN_S later if none came; a name no site has never.
 */
static int ondemand(void *arg, const char *host)
{
    struct acme_serve *as = arg;
    struct asked *e = NULL, *oldest = NULL;
    time_t now = mono_s();
    bool ask = false;
    int r;

    if (host_site_name(host) != 1 || access_site_exists(as->access, host) != 1)
        return 0;
    pthread_mutex_lock(&as->mu);
    for (size_t i = 0; i < ONDEMAND_NAMES && !e; i++) {
        struct asked *a = &as->asked[i];

        if (a->at && strcmp(a->name, host) == 0)
            e = a;
        else if (!oldest || a->at < oldest->at)
            oldest = a;
    }
    if (e && now - e->at < ONDEMAND_AGAIN_S) {
        r = !e->refused && now - e->at < ONDEMAND_WAIT_S;
    } else {
        e = e ? e : oldest;
        snprintf(e->name, sizeof e->name, "%s", host);
        e->at = now;
        e->refused = false;
        ask = true;
        r = 1;
    }
    pthread_mutex_unlock(&as->mu);
    if (ask && keeper_send(as->keeper_fd, KEEPER_ONDEMAND, 0,
                           (const char *const[]){host}, 1, -1) != 0)
        r = 0;
    return r;
}

/* The keeper will not get @name's certificate now: its handshakes go on. */
static void refused(struct acme_serve *as, const char *name)
{
    pthread_mutex_lock(&as->mu);
    for (size_t i = 0; as->asked && i < ONDEMAND_NAMES; i++)
        if (as->asked[i].at && strcmp(as->asked[i].name, name) == 0)
            as->asked[i].refused = true;
    pthread_mutex_unlock(&as->mu);
}

int acme_serve_open(const struct conf *c, struct tls_store *store,
                    struct acme_challenges *ch, struct metrics *m,
                    struct access *access, int keeper_fd,
                    struct acme_serve **out)
{
    struct acme_serve *as;
    int r;

    *out = NULL;
    if (!c->acme.n && !c->acme_on_demand)
        return 0;
    if (!(as = serve_new(c)))
        return -ENOMEM;
    as->store = store;
    as->ac.cfg.challenges = ch;
    as->not_after = calloc(as->ac.n_certs, sizeof *as->not_after);
    if (!as->not_after)
        fprintf(stderr, "beneath: acme: out of memory\n");
    r = as->not_after ? 0 : -ENOMEM;
    if (r < 0) {
        acme_serve_close(as);
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
    if (store && c->acme_on_demand) {
        /* a default place, if nothing else is: a handshake needs a
         * context to start from before its name is known (one with no
         * certificate, so a name with none fails cleanly) */
        if (tls_store_put_pending(store, "") != 0) {
            fprintf(stderr, "beneath: acme: out of memory\n");
            acme_serve_close(as);
            return -ENOMEM;
        }
        as->access = access;
        as->keeper_fd = keeper_fd;
        if (!(as->asked = calloc(ONDEMAND_NAMES, sizeof *as->asked))) {
            fprintf(stderr, "beneath: acme: out of memory\n");
            acme_serve_close(as);
            return -ENOMEM;
        }
        tls_store_set_ondemand(store, ondemand, as);
    }
    if (m)
        metrics_set_expiry(m, expiry, as);
    *out = as;
    return 0;
}

/* ---- under a keeper: the manager there, its work handed over ---- */

/* Post a record the serving processes apply, and wait until one has. */
static void hand(int type, const char *const *f, size_t n)
{
    int seq = keeper_next_seq();
    int r = keeper_post(type, seq, f, n);

    if (r == 0)
        r = keeper_acked(seq, 5000);
    if (r && r != -ECANCELED) /* canceled: the keeper stops */
        fprintf(stderr,
                "beneath: acme: the serving process did not take a "
                "challenge: %s\n",
                strerror(-r));
}

static void hand_http01(void *arg, const char *token, const char *keyauth)
{
    (void)arg;
    hand(KEEPER_HTTP01, (const char *const[]){token, keyauth}, 2);
}

/* @x's PEM text, or NULL (out of memory); OPENSSL_free it. */
static char *pem(X509 *x, EVP_PKEY *k)
{
    BIO *b = BIO_new(BIO_s_mem());
    char *p = NULL, *out = NULL;
    long len;

    if (b &&
        (x ? PEM_write_bio_X509(b, x)
           : PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL)) &&
        (len = BIO_get_mem_data(b, &p)) > 0 &&
        (out = OPENSSL_malloc((size_t)len + 1))) {
        memcpy(out, p, (size_t)len);
        out[len] = '\0';
    }
    BIO_free(b);
    return out;
}

static void hand_cert(void *arg, const char *name, const char *keyauth,
                      X509 *cert, EVP_PKEY *pkey)
{
    char *c = pem(cert, NULL), *k = pem(NULL, pkey);

    (void)arg;
    if (c && k)
        hand(KEEPER_TLSALPN01, (const char *const[]){name, keyauth, c, k}, 4);
    OPENSSL_free(c);
    OPENSSL_clear_free(k, k ? strlen(k) : 0);
}

static void hand_drop(void *arg, const char *key, int tlsalpn01)
{
    (void)arg;
    hand(tlsalpn01 ? KEEPER_TLSALPN01_DROP : KEEPER_HTTP01_DROP,
         (const char *const[]){key}, 1);
}

/*
 * The manager's certificates go over as they come (no wait: the first
 * ones come before the keeper reads acknowledgements), with the public
 * half of their keys: the keys stay in the keeper's table (keyless.h),
 * which makes their private operations.
 */
static void hand_install(void *arg, const struct acme_cert *cert)
{
    struct acme_serve *as = arg;
    char index[24], until[24];
    BIO *b = BIO_new_mem_buf(cert->key_pem, (int)cert->key_len);
    EVP_PKEY *key = b ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL) : NULL;
    uint8_t id[KEYLESS_ID_LEN];
    char *pub = NULL;
    int r = key ? keyless_keys_add(as->keys, key, id) : -EINVAL;

    if (r == 0 && !(pub = keyless_public_pem(key)))
        r = -ENOMEM;
    BIO_free(b);
    EVP_PKEY_free(key);
    snprintf(index, sizeof index, "%zu", cert->index);
    snprintf(until, sizeof until, "%lld", (long long)cert->not_after);
    /* its names too: one asked for on demand is in no configuration */
    char names[1024] = "";
    for (size_t i = 0, n = 0; i < cert->names->n && n < sizeof names; i++)
        n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", i ? "," : "",
                              cert->names->v[i]);
    if (r == 0)
        r = keeper_post(KEEPER_CERT, 0,
                        (const char *const[]){index, cert->chain_pem, pub,
                                              until, cert->stored ? "1" : "0",
                                              names},
                        6);
    free(pub);
    if (r)
        fprintf(stderr, "beneath: acme: %s: cannot hand it over: %s\n",
                cert->id, strerror(-r));
}

int acme_serve_keep(const struct conf *c, struct keyless_keys *keys,
                    struct acme_serve **out)
{
    struct acme_challenges_mirror mirror = {
        .put_http01 = hand_http01,
        .put_cert = hand_cert,
        .drop = hand_drop,
    };
    struct acme_serve *as;
    int r;

    *out = NULL;
    if (!c->acme.n && !c->acme_on_demand)
        return 0;
    if (!(as = serve_new(c)))
        return -ENOMEM;
    if (!(as->own = acme_challenges_new())) {
        fprintf(stderr, "beneath: acme: out of memory\n");
        acme_serve_close(as);
        return -ENOMEM;
    }
    mirror.arg = as;
    as->keys = keys;
    acme_challenges_set_mirror(as->own, &mirror);
    as->ac.cfg.challenges = as->own;
    as->ac.cfg.install = hand_install;
    r = manager_open(as);
    if (r < 0) {
        acme_serve_close(as);
        return r;
    }
    *out = as;
    return 0;
}

/* A certificate the keeper's manager handed over, into the store. */
static void take_cert(struct acme_serve *as, const struct keeper_msg *m)
{
    const char *index = keeper_field(m, 0), *chain = keeper_field(m, 1),
               *key = keeper_field(m, 2), *until = keeper_field(m, 3),
               *stored = keeper_field(m, 4), *names = keeper_field(m, 5);
    size_t i = index ? strtoul(index, NULL, 10) : SIZE_MAX;
    /* one of the configuration's, or asked for on demand: its one name */
    char *one = (char *)(uintptr_t)names;
    struct acme_names ondemand = {.v = &one, .n = 1};

    if (!stored || !names || (i >= as->ac.n_certs && strchr(names, ',')))
        return;
    const struct acme_names *ns =
        i < as->ac.n_certs ? &as->ac.certs[i] : &ondemand;
    struct acme_cert cert = {
        .id = ns->v[0],
        .index = i,
        .names = ns,
        .chain_pem = chain,
        .chain_len = strlen(chain),
        .not_after = (time_t)strtoll(until, NULL, 10),
        .stored = stored[0] == '1',
    };
    /* the key's public half: the keeper keeps the key */
    EVP_PKEY *stub = keyless_stub(key, strlen(key));
    if (!stub) {
        fprintf(stderr,
                "beneath: acme: %s: the key's public half from the "
                "keeper did not parse\n",
                cert.id);
        return;
    }
    if (i < as->ac.n_certs)
        as->not_after[i] = cert.not_after;
    install(as, &cert, stub);
    EVP_PKEY_free(stub);
}

/* A TLS-ALPN-01 certificate and key handed over, into @ch. */
static void take_tlsalpn01(struct acme_challenges *ch,
                           const struct keeper_msg *m)
{
    const char *name = keeper_field(m, 0), *keyauth = keeper_field(m, 1),
               *c = keeper_field(m, 2), *k = keeper_field(m, 3);
    BIO *bc = k ? BIO_new_mem_buf(c, -1) : NULL;
    BIO *bk = bc ? BIO_new_mem_buf(k, -1) : NULL;
    X509 *x = bk ? PEM_read_bio_X509(bc, NULL, NULL, NULL) : NULL;
    EVP_PKEY *p = x ? PEM_read_bio_PrivateKey(bk, NULL, NULL, NULL) : NULL;

    BIO_free(bc);
    BIO_free(bk);
    if (!p) {
        X509_free(x);
        fprintf(stderr, "beneath: acme: a tls-alpn-01 certificate from the "
                        "keeper did not parse\n");
        return;
    }
    if (acme_challenges_put_cert(ch, name, keyauth, x, p) != 0)
        fprintf(stderr,
                "beneath: acme: %s: the tls-alpn-01 certificate "
                "was not kept\n",
                name);
}

bool acme_serve_take(struct acme_serve *as, struct acme_challenges *ch,
                     const struct keeper_msg *m)
{
    const char *f0 = keeper_field(m, 0), *f1 = keeper_field(m, 1);

    if (!as || !ch || !f0)
        return false;
    switch (m->type) {
    case KEEPER_CERT:
        take_cert(as, m);
        return true;
    case KEEPER_HTTP01:
        if (f1 && acme_challenges_put_http01(ch, f0, f1) != 0)
            fprintf(stderr, "beneath: acme: token %s was not kept\n", f0);
        return true;
    case KEEPER_HTTP01_DROP:
        acme_challenges_drop_http01(ch, f0);
        return true;
    case KEEPER_TLSALPN01:
        take_tlsalpn01(ch, m);
        return true;
    case KEEPER_TLSALPN01_DROP:
        acme_challenges_drop_tlsalpn01(ch, f0);
        return true;
    case KEEPER_ONDEMAND:
        refused(as, f0);
        return true;
    default:
        return false;
    }
}

/* Whether @name has a directory in --sites DIR (looked at afresh: a deploy
 * may have renamed a new tree over it). */
static bool site_there(const struct conf *c, const char *name)
{
    int dir = open(c->sites, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int fd = dir < 0 ? dir
                     : resolver_open(dir, name, O_PATH | O_DIRECTORY,
                                     RESOLVER_BENEATH | RESOLVER_NO_MAGICLINKS);

    if (fd >= 0)
        close(fd);
    if (dir >= 0)
        close(dir);
    return fd >= 0;
}

int acme_serve_request(struct acme_serve *as, const struct conf *c,
                       const char *name)
{
    char host[HOST_MAX];
    const char *why = NULL;
    int r;

    if (!as || !as->a || !c->acme_on_demand || !c->sites)
        return -EPERM;
    /* the serving process checked all this; it is not trusted to */
    if (!name || strlen(name) >= sizeof host || host_normalize(name, host) ||
        strcmp(host, name) != 0 || host_site_name(host) != 1) {
        why = "not a site's name";
        r = -EINVAL;
    } else if (!site_there(c, host)) {
        why = "no directory of that name in --sites";
        r = -ENOENT;
    } else if ((r = acme_request(as->a, host)) == -ENOSPC) {
        why = "too many certificates on demand already";
    }
    if (!why)
        return r;
    /* a line a minute at most: the asking may be hostile */
    time_t now = mono_s();
    if (as->said && now - as->said < 60) {
        as->unsaid++;
        return r;
    }
    fprintf(stderr,
            "beneath: acme: on demand: %.*s: %s; not ordered (%u more "
            "refused in the last minute)\n",
            (int)strnlen(host, 80), r == -EINVAL ? "(a bad name)" : host, why,
            as->unsaid);
    as->said = now;
    as->unsaid = 0;
    return r;
}

int acme_serve_start(struct acme_serve *as)
{
    if (as && !as->a) /* under a keeper: the manager runs there */
        return 0;
    int r = as ? acme_start(as->a) : 0;

    if (r < 0)
        fprintf(stderr, "beneath: acme: cannot start its thread: %s\n",
                strerror(-r));
    else if (as)
        fprintf(stderr, "beneath: acme: %s\n", as->started);
    return r;
}

void acme_serve_stop(struct acme_serve *as)
{
    if (as)
        acme_stop(as->a);
}

void acme_serve_close(struct acme_serve *as)
{
    if (!as)
        return;
    acme_close(as->a); /* its thread writes into as->own */
    acme_challenges_free(as->own);
    acme_conf_free(&as->ac);
    free(as->not_after);
    free(as->asked);
    pthread_mutex_destroy(&as->mu);
    free(as);
}
