/* SPDX-License-Identifier: MIT */
/*
 * acme_attempt.c - one attempt at a certificate, as one replica among
 * several sharing --acme-dir: take the certificate's lock (or wait for the
 * replica that holds it), read what the directory says now (another replica
 * may have just renewed it, or just failed and set a backoff), and only if
 * it is still due: the account (loaded, or made once under its own lock),
 * the order, the files, the install. A failure keeps the old certificate
 * and writes the backoff where every replica reads it.
 *
 * Challenge material goes to the memory store and to challenges/TOKEN, and
 * every replica answers the files the others wrote: the CA's validation
 * may reach any replica behind a load balancer.
 */
#include "acme/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Seconds to wait for the account lock another replica holds. */
#define ACCOUNT_LOCK_WAIT 120

static void read_state(struct acme *a, struct acme_item *it)
{
    char path[512], *text;
    size_t len;
    json_t *st;

    snprintf(path, sizeof path, "certs/%s/state.json", it->id);
    if (acme_store_read(a->dirfd, path, &text, &len) < 0)
        return;
    st = json_loadb(text, len, 0, NULL);
    free(text);
    if (st == NULL)
        return;
    pthread_mutex_lock(&a->mu);
    it->failures =
        (unsigned)json_integer_value(json_object_get(st, "failures"));
    it->failed_at = json_integer_value(json_object_get(st, "failed_at"));
    it->retry_after = json_integer_value(json_object_get(st, "retry_after"));
    snprintf(it->last_error, sizeof it->last_error, "%s",
             json_string_value(json_object_get(st, "last_error"))
                 ? json_string_value(json_object_get(st, "last_error"))
                 : "");
    pthread_mutex_unlock(&a->mu);
    json_decref(st);
}

static int write_state(struct acme *a, struct acme_item *it)
{
    char path[512], *text;
    json_t *names = json_array(), *st;
    int r;

    for (size_t i = 0; names && i < it->names.n; i++)
        json_array_append_new(names, json_string(it->names.v[i]));
    st = json_pack("{s:o, s:I, s:I, s:I, s:s, s:I}", "names", names, "failures",
                   (json_int_t)it->failures, "failed_at",
                   (json_int_t)it->failed_at, "retry_after",
                   (json_int_t)it->retry_after, "last_error", it->last_error,
                   "not_after", (json_int_t)it->not_after);
    text = st ? json_dumps(st, JSON_INDENT(2)) : NULL;
    json_decref(st);
    if (text == NULL)
        return -ENOMEM;
    snprintf(path, sizeof path, "certs/%s/state.json", it->id);
    r = acme_store_write(a->dirfd, path, text, strlen(text), 0600);
    free(text);
    return r;
}

/* Hand a chain to the server; the key is wiped by the caller. */
static void install(struct acme *a, struct acme_item *it, const char *chain,
                    const char *key, bool stored)
{
    struct acme_cert cert = {
        .id = it->id,
        .index = (size_t)(it - a->items),
        .names = &it->names,
        .chain_pem = chain,
        .chain_len = strlen(chain),
        .key_pem = key,
        .key_len = strlen(key),
        .not_before = it->not_before,
        .not_after = it->not_after,
        .stored = stored,
    };

    if (a->install)
        a->install(a->arg, &cert);
}

/* Take a checked chain as the item's certificate. */
static void adopt(struct acme *a, struct acme_item *it,
                  const struct acme_chain_info *info, const struct stat *st)
{
    pthread_mutex_lock(&a->mu);
    it->not_before = info->not_before;
    it->not_after = info->not_after;
    if (strcmp(it->ari_id, info->ari_id) != 0) {
        /* a new certificate: its own window, asked for in 1 to 6 hours */
        it->ari_start = it->ari_end = 0;
        it->ari_next = acme_now(a) + 3600 + (time_t)(it->rnd % (5 * 3600));
    }
    snprintf(it->ari_id, sizeof it->ari_id, "%s", info->ari_id);
    it->ino = st->st_ino;
    it->mtime = st->st_mtim;
    pthread_mutex_unlock(&a->mu);
}

int acme_item_load(struct acme *a, struct acme_item *it)
{
    char path[512], err[256], *chain = NULL, *key = NULL;
    struct acme_chain_info info;
    struct stat st;
    size_t len, klen;
    int r;

    read_state(a, it);
    snprintf(path, sizeof path, "certs/%s/cert.pem", it->id);
    if (fstatat(a->dirfd, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return -ENOENT;
    r = acme_store_read(a->dirfd, path, &chain, &len);
    snprintf(path, sizeof path, "certs/%s/key.pem", it->id);
    if (r == 0)
        r = acme_store_read(a->dirfd, path, &key, &klen);
    if (r == 0 && acme_chain_check(chain, len, key, it->names.v, it->names.n,
                                   &info, err, sizeof err) < 0) {
        acme_log(&a->logger, ACME_LOG_WARNING,
                 "acme: %s: stored certificate not used: %s", it->id, err);
        r = -ENOENT;
    }
    if (r == 0) {
        adopt(a, it, &info, &st);
        install(a, it, chain, key, true);
    } else {
        /* read once: a broken file is not read again every second */
        it->ino = st.st_ino;
        it->mtime = st.st_mtim;
    }
    pthread_mutex_lock(&a->mu);
    acme_item_schedule(a, it, acme_now(a));
    pthread_mutex_unlock(&a->mu);
    free(chain);
    if (key) {
        OPENSSL_cleanse(key, klen);
        free(key);
    }
    return r == -ENOMEM ? r : r < 0 ? -ENOENT : 0;
}

/* ---- the account: loaded, or made once for every replica ---- */

static int account_lock(struct acme *a, const char *dir)
{
    char path[256];
    int fd;

    snprintf(path, sizeof path, "%s/lock", dir);
    for (int i = 0; i < ACCOUNT_LOCK_WAIT; i++) {
        fd = acme_store_lock(a->dirfd, path);
        if (fd != -EWOULDBLOCK)
            return fd;
        if (acme_sleep_until(a, acme_now(a) + 1) < 0)
            return -ECANCELED;
    }
    return -EWOULDBLOCK;
}

static int save_account(struct acme *a, const char *dir, const char *url)
{
    json_t *j = json_pack("{s:s, s:s}", "url", url, "directory", a->directory);
    char path[256], *text = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
    int r;

    json_decref(j);
    if (text == NULL)
        return -ENOMEM;
    snprintf(path, sizeof path, "%s/account.json", dir);
    r = acme_store_write(a->dirfd, path, text, strlen(text), 0600);
    free(text);
    return r;
}

static int account(struct acme *a, struct acme_client *c, EVP_PKEY **keyp)
{
    char dir[192], path[256], *text = NULL, *pem = NULL;
    const char *url = NULL;
    json_t *j = NULL;
    size_t len;
    int fd, r;

    snprintf(dir, sizeof dir, "accounts/%s", a->ca_id);
    r = acme_store_mkdir(a->dirfd, dir);
    fd = r < 0 ? r : account_lock(a, dir);
    if (fd < 0)
        return fd;
    snprintf(path, sizeof path, "%s/key.pem", dir);
    r = acme_store_read(a->dirfd, path, &pem, &len);
    if (r == 0) {
        *keyp = acme_key_from_pem(pem, len);
        r = *keyp ? 0 : -EINVAL;
        OPENSSL_cleanse(pem, len);
        free(pem);
    } else if (r == -ENOENT) {
        *keyp = acme_key_new();
        pem = *keyp ? acme_key_to_pem(*keyp) : NULL;
        r = pem ? acme_store_write(a->dirfd, path, pem, strlen(pem), 0600)
                : -ENOMEM;
        acme_pem_free(pem);
    }
    if (r < 0) {
        acme_log(&a->logger, ACME_LOG_ERROR, "acme: %s: %s", path,
                 strerror(-r));
        goto out_unlock;
    }
    snprintf(path, sizeof path, "%s/account.json", dir);
    if (acme_store_read(a->dirfd, path, &text, &len) == 0)
        j = json_loadb(text, len, 0, NULL);
    url = json_string_value(json_object_get(j, "url"));
    r = acme_client_set_key(c, *keyp, url);
    if (r == 0 && url == NULL) {
        r = acme_client_account(c, a->email);
        if (r == 0)
            r = save_account(a, dir, c->kid);
    }
out_unlock:
    json_decref(j);
    free(text);
    close(fd);
    return r;
}

/* ---- the attempt ---- */

/* Account and order; on accountDoesNotExist (the CA forgot it) once more
 * with a new registration of the same key. */
static int obtain(struct acme *a, struct acme_item *it, char **chain,
                  char **key, time_t *retry_after)
{
    struct acme_sleeper sleeper = {.sleep_ms = acme_sleep_ms, .arg = a};
    struct acme_publisher pub;
    struct acme_client c;
    EVP_PKEY *akey = NULL;
    char dir[192];
    int r;

    acme_share_publisher(a, &pub);
    r = acme_client_open(&c, a->directory, a->ca_root, &a->stop, &a->logger,
                         sleeper);
    c.http.clock = a->clock;
    c.http.clock_arg = a->arg;
    if (r == 0)
        r = account(a, &c, &akey);
    if (r == 0)
        r = acme_order(&c, it->names.v, it->names.n, a->challenge, &pub, chain,
                       key);
    if (r == -EPROTO && strcmp(c.problem, "accountDoesNotExist") == 0) {
        acme_log(&a->logger, ACME_LOG_WARNING,
                 "acme: the CA does not know "
                 "the stored account; registering the key again");
        snprintf(dir, sizeof dir, "accounts/%s", a->ca_id);
        r = acme_client_account(&c, a->email);
        if (r == 0)
            r = save_account(a, dir, c.kid);
        if (r == 0)
            r = acme_order(&c, it->names.v, it->names.n, a->challenge, &pub,
                           chain, key);
    }
    *retry_after = c.retry_after;
    acme_client_close(&c);
    EVP_PKEY_free(akey);
    return r;
}

/* Write key, then chain, then state: a reader that sees the new cert.pem
 * finds its key already there. */
static int save(struct acme *a, struct acme_item *it, const char *chain,
                const char *key, struct stat *st)
{
    char path[512];
    int r;

    snprintf(path, sizeof path, "certs/%s/key.pem", it->id);
    r = acme_store_write(a->dirfd, path, key, strlen(key), 0600);
    snprintf(path, sizeof path, "certs/%s/cert.pem", it->id);
    if (r == 0)
        r = acme_store_write(a->dirfd, path, chain, strlen(chain), 0644);
    if (r == 0 && fstatat(a->dirfd, path, st, AT_SYMLINK_NOFOLLOW) < 0)
        r = -errno;
    if (r == 0)
        r = write_state(a, it);
    return r;
}

static void succeeded(struct acme *a, struct acme_item *it, const char *chain,
                      const char *key)
{
    struct acme_chain_info info;
    char err[256], until[40], renew[40];
    struct stat st;
    time_t now;
    int r;

    acme_chain_check(chain, strlen(chain), NULL, NULL, 0, &info, err,
                     sizeof err);
    pthread_mutex_lock(&a->mu);
    it->failures = 0;
    it->failed_at = it->retry_after = 0;
    it->last_error[0] = '\0';
    pthread_mutex_unlock(&a->mu);
    r = save(a, it, chain, key, &st);
    if (r < 0) {
        /* served anyway; the next start orders again */
        acme_log(&a->logger, ACME_LOG_ERROR,
                 "acme: %s: storing the "
                 "certificate: %s",
                 it->id, strerror(-r));
        st = (struct stat){0};
    }
    adopt(a, it, &info, &st);
    pthread_mutex_lock(&a->mu);
    acme_item_schedule(a, it, acme_now(a));
    pthread_mutex_unlock(&a->mu);
    install(a, it, chain, key, false);
    now = acme_now(a);
    acme_date(info.not_after, now, until, sizeof until);
    acme_date(it->next, now, renew, sizeof renew);
    acme_log(&a->logger, ACME_LOG_INFO,
             "acme: %s: certificate obtained, valid until %s, renewal from %s",
             it->id, until, renew);
}

static void failed(struct acme *a, struct acme_item *it, time_t retry_after)
{
    time_t now = acme_now(a);
    char until[40];

    pthread_mutex_lock(&a->mu);
    it->failures++;
    it->failed_at = now;
    it->retry_after = retry_after;
    snprintf(it->last_error, sizeof it->last_error, "%s",
             a->last_error[0] ? a->last_error : "failed");
    acme_item_schedule(a, it, now);
    pthread_mutex_unlock(&a->mu);
    write_state(a, it);
    acme_date(it->not_after, now, until, sizeof until);
    if (it->not_after)
        acme_log(&a->logger, ACME_LOG_WARNING,
                 "acme: %s: attempt %u failed; keeping the certificate valid "
                 "until %s; next attempt in %lld s",
                 it->id, it->failures, until, (long long)(it->next - now));
    else
        acme_log(&a->logger, ACME_LOG_WARNING,
                 "acme: %s: attempt %u failed; "
                 "no certificate yet; next attempt in %lld s",
                 it->id, it->failures, (long long)(it->next - now));
}

void acme_attempt(struct acme *a, struct acme_item *it)
{
    char path[512], *chain = NULL, *key = NULL;
    time_t retry_after = 0, now = acme_now(a);
    int fd, r;

    snprintf(path, sizeof path, "certs/%s", it->id);
    r = acme_store_mkdir(a->dirfd, path);
    snprintf(path, sizeof path, "certs/%s/lock", it->id);
    fd = r < 0 ? r : acme_store_lock(a->dirfd, path);
    if (fd == -EWOULDBLOCK) {
        if (!it->waiting)
            acme_log(&a->logger, ACME_LOG_INFO,
                     "acme: %s: another replica "
                     "is ordering it; waiting for its result",
                     it->id);
        it->waiting = true;
        pthread_mutex_lock(&a->mu);
        it->next = now + 1;
        pthread_mutex_unlock(&a->mu);
        return;
    }
    it->waiting = false;
    if (fd < 0) {
        acme_log(&a->logger, ACME_LOG_ERROR, "acme: %s: %s", path,
                 strerror(-fd));
        failed(a, it, 0);
        return;
    }
    /* what the directory says now: another replica may have done it */
    if (acme_item_load(a, it) == -ENOMEM || it->next > now) {
        close(fd);
        return;
    }
    a->last_error[0] = '\0';
    acme_log(&a->logger, ACME_LOG_INFO, "acme: %s: %s", it->id,
             it->not_after ? "renewing" : "ordering");
    r = obtain(a, it, &chain, &key, &retry_after);
    if (r == 0)
        succeeded(a, it, chain, key);
    else if (r != -ECANCELED)
        failed(a, it, retry_after);
    free(chain);
    acme_pem_free(key);
    close(fd);
}
