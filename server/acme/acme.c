/* SPDX-License-Identifier: MIT */
/*
 * acme.c - the manager (acme.h): the certificates of one configuration,
 * what --acme-dir holds of them, and the thread that keeps them current.
 *
 * The thread's loop: answer the challenge files other replicas published,
 * notice a cert.pem another replica replaced, and order the certificate
 * whose next attempt is the earliest once it is due (acme_attempt.c);
 * between these it sleeps on a condition variable, at most a second (the
 * pace at which replicas see each other's files); acme_close wakes it, and
 * so does acme_request (a handshake waits for what it asked).
 * Nothing here talks to the CA: acme_open and a restart use only the files.
 * The manager's clock and schedule, which every part of the loop uses, are
 * below it in acme_clock.c.
 */
#include "acme/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Seconds between two looks at the shared directory. */
#define SCAN_INTERVAL 1

/* The logger: the caller's callback, and the last error for the state. */
static void log_through(void *arg, enum acme_log_level level, const char *msg)
{
    struct acme *a = arg;

    if (level == ACME_LOG_ERROR)
        snprintf(a->last_error, sizeof a->last_error, "%s", msg);
    if (a->log_fn)
        a->log_fn(a->arg, level, msg);
}

static int item_init(struct acme_item *it, const struct acme_names *names)
{
    if (names->n == 0 ||
        RAND_bytes((unsigned char *)&it->rnd, sizeof it->rnd) != 1)
        return -EINVAL;
    it->owned = calloc(names->n, sizeof *it->owned);
    if (it->owned == NULL)
        return -ENOMEM;
    it->names = (struct acme_names){.v = it->owned, .n = names->n};
    for (size_t i = 0; i < names->n; i++) {
        it->owned[i] = strdup(names->v[i]);
        if (it->owned[i] == NULL)
            return -ENOMEM;
        /* names are compared and stored lower case */
        for (char *p = it->owned[i]; *p; p++) {
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        }
    }
    it->id = strdup(it->owned[0]);
    return it->id ? 0 : -ENOMEM;
}

static void item_free(struct acme_item *it)
{
    for (size_t i = 0; it->owned && i < it->names.n; i++)
        free(it->owned[i]);
    free(it->owned);
    free(it->id);
}

static int copy_config(struct acme *a, const struct acme_config *cfg)
{
    struct acme_backoff dflt = ACME_BACKOFF_DEFAULT;

    a->directory = strdup(acme_ca_url(cfg->directory));
    a->ca_root = cfg->ca_root ? strdup(cfg->ca_root) : NULL;
    a->email = cfg->email ? strdup(cfg->email) : NULL;
    if (!a->directory || (cfg->ca_root && !a->ca_root) ||
        (cfg->email && !a->email))
        return -ENOMEM;
    acme_store_ca_id(a->directory, a->ca_id, sizeof a->ca_id);
    a->challenge = cfg->challenge;
    a->ch = cfg->challenges;
    a->install = cfg->install;
    a->log_fn = cfg->log;
    a->arg = cfg->arg;
    a->clock = cfg->clock;
    a->backoff = cfg->backoff.first ? cfg->backoff : dflt;
    a->share_delay = cfg->share_delay ? cfg->share_delay : 2;
    a->logger = (struct acme_logger){.fn = log_through, .arg = a};
    a->items = calloc(cfg->n_certs ? cfg->n_certs : 1, sizeof *a->items);
    if (a->items == NULL)
        return -ENOMEM;
    for (size_t i = 0; i < cfg->n_certs; i++) {
        int r = item_init(&a->items[i], &cfg->certs[i]);

        a->n_items = i + 1;
        if (r < 0)
            return r;
    }
    a->n_config = a->n_items;
    return 0;
}

int acme_open(const struct acme_config *cfg, struct acme **out, char *err,
              size_t errlen)
{
    struct acme *a = calloc(1, sizeof *a);
    pthread_condattr_t ca;
    int r;

    *out = NULL;
    if (a == NULL)
        return -ENOMEM;
    a->dirfd = -1;
    a->replicas_fd = -1;
    pthread_mutex_init(&a->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&a->cv, &ca);
    pthread_condattr_destroy(&ca);
    r = acme_check(cfg, err, errlen);
    if (r < 0)
        goto out_close;
    r = acme_http_global_init();
    if (r < 0) {
        snprintf(err, errlen, "acme: libcurl: out of memory");
        goto out_close;
    }
    r = copy_config(a, cfg);
    if (r < 0) {
        snprintf(err, errlen, "acme: out of memory");
        goto out_close;
    }
    a->dirfd = acme_store_open(cfg->dir);
    if (a->dirfd < 0) {
        r = a->dirfd;
        snprintf(err, errlen, "--acme-dir: %s: %s", cfg->dir, strerror(-r));
        goto out_close;
    }
    a->replicas_fd = acme_store_join(a->dirfd, "replicas");
    if (a->replicas_fd < 0)
        acme_log(&a->logger, ACME_LOG_WARNING,
                 "acme: --acme-dir %s: no lock on its file replicas (%s): "
                 "every order waits %u s for other replicas",
                 cfg->dir, strerror(-a->replicas_fd), a->share_delay);
    for (size_t i = 0; i < a->n_items; i++) {
        struct acme_item *it = &a->items[i];

        r = acme_item_load(a, it);
        if (r == -ENOMEM)
            goto out_close;
        acme_item_schedule(a, it, acme_now(a));
    }
    /* joined above, so a replica ordering from now on waits for this one;
     * one that is validating already finds its challenges answered here */
    acme_shared_scan(a);
    *out = a;
    return 0;
out_close:
    acme_close(a);
    return r;
}

/* The item whose next attempt comes first. */
static struct acme_item *earliest(struct acme *a)
{
    struct acme_item *first = NULL;

    for (size_t i = 0; i < a->n_items; i++) {
        if (first == NULL || a->items[i].next < first->next)
            first = &a->items[i];
    }
    return first;
}

/* A cert.pem replaced since it was read: another replica's order. */
static void notice_replaced(struct acme *a)
{
    for (size_t i = 0; i < a->n_items; i++) {
        struct acme_item *it = &a->items[i];
        char path[512];
        struct stat st;

        snprintf(path, sizeof path, "certs/%s/cert.pem", it->id);
        if (fstatat(a->dirfd, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        if (st.st_ino == it->ino && st.st_mtim.tv_sec == it->mtime.tv_sec &&
            st.st_mtim.tv_nsec == it->mtime.tv_nsec)
            continue;
        acme_item_load(a, it);
    }
}

/* A certificate within ACME_WARN_SECONDS of its end: said once. */
static void warn_expiring(struct acme *a, time_t now)
{
    for (size_t i = 0; i < a->n_items; i++) {
        struct acme_item *it = &a->items[i];
        enum acme_cert_state st = acme_cert_state_at(it->not_after, now);
        char until[40];

        if (st != ACME_CERT_WARNING && st != ACME_CERT_EXPIRED)
            continue;
        if (it->warned == it->not_after)
            continue;
        it->warned = it->not_after;
        acme_date(it->not_after, now, until, sizeof until);
        acme_log(&a->logger, ACME_LOG_WARNING,
                 "acme: %s: the certificate %s on %s", it->id,
                 st == ACME_CERT_EXPIRED ? "expired" : "expires", until);
    }
}

void acme_ari_check(struct acme *a, time_t now)
{
    struct acme_sleeper sleeper = {.sleep_ms = acme_sleep_ms, .arg = a};
    struct acme_client c = {0};
    bool open = false;
    int r = 0;

    for (size_t i = 0; i < a->n_items; i++) {
        struct acme_item *it = &a->items[i];
        time_t start = 0, end = 0, next;

        if (it->not_after == 0 || !it->ari_id[0] || it->ari_next > now)
            continue;
        if (!open) {
            open = true;
            r = acme_client_open(&c, a->directory, a->ca_root, &a->stop,
                                 &a->logger, sleeper);
            c.http.clock = a->clock;
            c.http.clock_arg = a->arg;
            if (r < 0)
                break;
        }
        r = acme_ari_fetch(&c, it->ari_id, now, &start, &end, &next);
        pthread_mutex_lock(&a->mu);
        it->ari_next = r == -ENOENT ? now + 86400 : next;
        if (r == 0) {
            it->ari_start = start;
            it->ari_end = end;
            acme_item_schedule(a, it, now);
        }
        pthread_mutex_unlock(&a->mu);
    }
    if (open && r < 0 && r != -ENOENT) {
        /* the CA unreachable: ask again in an hour */
        for (size_t i = 0; i < a->n_items; i++) {
            if (a->items[i].ari_next <= now)
                a->items[i].ari_next = now + 3600;
        }
    }
    if (open)
        acme_client_close(&c);
}

/* Whether an item (or a request not taken yet) is @name's; under mu. */
static bool asked(const struct acme *a, const char *name)
{
    for (size_t i = 0; i < a->n_items; i++)
        for (size_t k = 0; k < a->items[i].names.n; k++)
            if (strcasecmp(a->items[i].names.v[k], name) == 0)
                return true;
    for (size_t i = 0; i < a->n_requests; i++)
        if (strcasecmp(a->requests[i], name) == 0)
            return true;
    return false;
}

int acme_request(struct acme *a, const char *name)
{
    int r = 0;

    pthread_mutex_lock(&a->mu);
    if (asked(a, name)) {
        r = -EEXIST;
    } else if (a->n_items - a->n_config + a->n_requests >= ACME_REQUESTS_MAX) {
        r = -ENOSPC;
    } else {
        char **v = realloc(a->requests, (a->n_requests + 1) * sizeof *v);
        if (v)
            a->requests = v;
        if (!v || !(a->requests[a->n_requests] = strdup(name)))
            r = -ENOMEM;
        else
            a->n_requests++;
    }
    if (r == 0)
        pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    return r;
}

/*
 * When an order of a name acme_request asked for may go:
 * ACME_ONDEMAND_BURST at once, then one each ACME_ONDEMAND_EVERY seconds
 * (the CA's limits are the operator's to keep, whatever asks).
 */
static time_t order_slot(struct acme *a)
{
    time_t now = acme_now(a),
           floor = now - (time_t)ACME_ONDEMAND_BURST * ACME_ONDEMAND_EVERY;

    if (a->ordered < floor)
        a->ordered = floor;
    a->ordered += ACME_ONDEMAND_EVERY;
    return a->ordered > now ? a->ordered : now;
}

/*
 * The requests made meanwhile become items (the ACME thread's: it alone
 * moves the items array), each loaded from --acme-dir or due now.
 */
static void take_requests(struct acme *a)
{
    char **names;
    size_t n;

    pthread_mutex_lock(&a->mu);
    names = a->requests;
    n = a->n_requests;
    a->requests = NULL;
    a->n_requests = 0;
    struct acme_item *v =
        n ? realloc(a->items, (a->n_items + n) * sizeof *v) : NULL;
    if (v)
        a->items = v;
    size_t first = a->n_items;
    for (size_t i = 0; v && i < n; i++) {
        struct acme_item *it = &a->items[a->n_items];
        struct acme_names one = {.v = &names[i], .n = 1};

        memset(it, 0, sizeof *it);
        if (item_init(it, &one) != 0) {
            item_free(it);
            continue;
        }
        a->n_items++;
    }
    pthread_mutex_unlock(&a->mu);
    for (size_t i = first; i < a->n_items; i++) {
        acme_log(&a->logger, ACME_LOG_INFO,
                 "acme: %s: a certificate asked for by a handshake",
                 a->items[i].id);
        /* a stored one is installed; else it is due (rate-limited) */
        if (acme_item_load(a, &a->items[i]) == -ENOENT) {
            time_t at = order_slot(a), now = acme_now(a);

            if (at > now)
                acme_log(&a->logger, ACME_LOG_INFO,
                         "acme: %s: ordered in %lld s (at most %d orders "
                         "on demand a minute)",
                         a->items[i].id, (long long)(at - now),
                         60 / ACME_ONDEMAND_EVERY);
            pthread_mutex_lock(&a->mu);
            a->items[i].next = at;
            pthread_mutex_unlock(&a->mu);
        }
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static void *run(void *arg)
{
    struct acme *a = arg;

    while (!atomic_load(&a->stop)) {
        struct acme_item *it;
        time_t now, until;

        take_requests(a);
        acme_shared_scan(a);
        notice_replaced(a);
        now = acme_now(a);
        warn_expiring(a, now);
        acme_ari_check(a, now);
        it = earliest(a);
        if (it && it->next <= now) {
            acme_attempt(a, it);
            continue;
        }
        until = now + SCAN_INTERVAL;
        if (it && it->next < until)
            until = it->next;
        acme_idle_until(a, until);
    }
    return NULL;
}

int acme_start(struct acme *a)
{
    int r = pthread_create(&a->thread, NULL, run, a);

    if (r != 0)
        return -r;
    a->started = true;
    return 0;
}

int acme_status(struct acme *a, size_t i, time_t now, struct acme_status *st)
{
    const struct acme_item *it;

    pthread_mutex_lock(&a->mu); /* the items may move (take_requests) */
    if (i >= a->n_items) {
        pthread_mutex_unlock(&a->mu);
        return -ENOENT;
    }
    it = &a->items[i];
    *st = (struct acme_status){
        .state = acme_cert_state_at(it->not_after, now),
        .not_after = it->not_after,
        .expiry_seconds =
            it->not_after ? acme_expiry_seconds(it->not_after, now) : 0,
        .next = it->next,
        .failures = it->failures,
    };
    snprintf(st->id, sizeof st->id, "%s", it->id);
    snprintf(st->last_error, sizeof st->last_error, "%s", it->last_error);
    pthread_mutex_unlock(&a->mu);
    return 0;
}

void acme_stop(struct acme *a)
{
    if (a == NULL)
        return;
    pthread_mutex_lock(&a->mu);
    atomic_store(&a->stop, true);
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
}

void acme_close(struct acme *a)
{
    if (a == NULL)
        return;
    if (a->started) {
        acme_stop(a);
        pthread_join(a->thread, NULL);
    }
    acme_shared_clear(a);
    for (size_t i = 0; i < a->n_items; i++)
        item_free(&a->items[i]);
    free(a->items);
    for (size_t i = 0; i < a->n_requests; i++)
        free(a->requests[i]);
    free(a->requests);
    if (a->replicas_fd >= 0)
        close(a->replicas_fd);
    if (a->dirfd >= 0)
        close(a->dirfd);
    free(a->directory);
    free(a->ca_root);
    free(a->email);
    pthread_cond_destroy(&a->cv);
    pthread_mutex_destroy(&a->mu);
    free(a);
}
