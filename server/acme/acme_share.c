/* SPDX-License-Identifier: MIT */
/*
 * acme_share.c - challenge material shared by the replicas of one
 * --acme-dir. The replica that orders puts each key authorization in the
 * memory store and in challenges/TOKEN (written atomically); when another
 * replica holds the directory's "replicas" lock (acme_store_join), it waits
 * a few seconds so that the others can see it; then it asks the CA to
 * validate (a lone server asks at once); every
 * replica's thread reads challenges/ each second and answers the files the
 * others wrote from its own memory store too, since the CA's validation may
 * reach any replica behind a load balancer. Withdrawing removes both.
 */
#include "acme/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void withdraw(void *arg, enum acme_challenge_type type, const char *name,
                     const char *token);

static int publish(void *arg, enum acme_challenge_type type, const char *name,
                   const char *token, const char *keyauth)
{
    struct acme *a = arg;
    json_t *j = json_pack("{s:s, s:s, s:s}", "type", acme_challenge_name(type),
                          "name", name, "keyauth", keyauth);
    char path[256], *text = j ? json_dumps(j, JSON_COMPACT) : NULL, *tok;
    char **own = realloc(a->own, (a->n_own + 1) * sizeof *own);
    int r;

    json_decref(j);
    if (own)
        a->own = own;
    tok = strdup(token);
    if (text == NULL || own == NULL || tok == NULL) {
        free(text);
        free(tok);
        return -ENOMEM;
    }
    a->own[a->n_own++] = tok;
    r = type == ACME_HTTP01
            ? acme_challenges_put_http01(a->ch, token, keyauth)
            : acme_challenges_put_tlsalpn01(a->ch, name, keyauth);
    snprintf(path, sizeof path, "challenges/%s", token);
    if (r == 0 &&
        (r = acme_store_write(a->dirfd, path, text, strlen(text), 0600)) < 0)
        withdraw(a, type, name, token);
    free(text);
    if (r < 0)
        acme_log(&a->logger, ACME_LOG_ERROR,
                 "acme: %s: challenge material: "
                 "%s",
                 name, strerror(-r));
    return r;
}

static int ready(void *arg)
{
    struct acme *a = arg;
    int others = a->replicas_fd < 0 ? 1 : acme_store_others(a->replicas_fd);

    if (others == 0)
        return 0; /* alone: the CA's requests can only reach this process */
    acme_log(&a->logger, ACME_LOG_INFO,
             "acme: another replica shares --acme-dir; waiting %u s for it "
             "to answer the challenges too",
             a->share_delay);
    return acme_sleep_until(a, acme_now(a) + (time_t)a->share_delay);
}

static void withdraw(void *arg, enum acme_challenge_type type, const char *name,
                     const char *token)
{
    struct acme *a = arg;
    char path[256];

    if (type == ACME_HTTP01)
        acme_challenges_drop_http01(a->ch, token);
    else
        acme_challenges_drop_tlsalpn01(a->ch, name);
    snprintf(path, sizeof path, "challenges/%s", token);
    unlinkat(a->dirfd, path, 0);
    for (size_t i = 0; i < a->n_own; i++) {
        if (strcmp(a->own[i], token) == 0) {
            free(a->own[i]);
            a->own[i] = a->own[--a->n_own];
            break;
        }
    }
}

void acme_share_publisher(struct acme *a, struct acme_publisher *pub)
{
    *pub = (struct acme_publisher){
        .publish = publish, .ready = ready, .withdraw = withdraw, .arg = a};
}

static bool is_own(const struct acme *a, const char *token)
{
    for (size_t i = 0; i < a->n_own; i++) {
        if (strcmp(a->own[i], token) == 0)
            return true;
    }
    return false;
}

static struct acme_shared *find_shared(struct acme *a, const char *token)
{
    for (size_t i = 0; i < a->n_shared; i++) {
        if (strcmp(a->shared[i].token, token) == 0)
            return &a->shared[i];
    }
    return NULL;
}

/* Stop answering @s and free what it holds. */
static void forget(struct acme *a, struct acme_shared *s)
{
    if (s->type == ACME_HTTP01)
        acme_challenges_drop_http01(a->ch, s->token);
    else
        acme_challenges_drop_tlsalpn01(a->ch, s->name);
    free(s->token);
    free(s->name);
}

/* Answer the file challenges/@token another replica wrote. */
static void import(struct acme *a, int dfd, const char *token)
{
    struct acme_shared s = {0}, *grown;
    char *text = NULL;
    json_t *j = NULL;
    const char *type, *name, *keyauth;
    size_t len, tlen = strlen(token);
    int r;

    if (acme_store_read(dfd, token, &text, &len) < 0)
        return;
    j = json_loadb(text, len, 0, NULL);
    free(text);
    type = json_string_value(json_object_get(j, "type"));
    name = json_string_value(json_object_get(j, "name"));
    keyauth = json_string_value(json_object_get(j, "keyauth"));
    /* written by a replica, still checked: a name and this token's keyauth */
    if (!type || !name || !keyauth || !acme_is_name(name) ||
        strncmp(keyauth, token, tlen) != 0 || keyauth[tlen] != '.')
        goto out_free;
    s.type = strcmp(type, "tls-alpn-01") == 0 ? ACME_TLSALPN01 : ACME_HTTP01;
    s.token = strdup(token);
    s.name = strdup(name);
    grown = realloc(a->shared, (a->n_shared + 1) * sizeof *grown);
    if (grown)
        a->shared = grown;
    if (!s.token || !s.name || !grown)
        goto out_free;
    r = s.type == ACME_HTTP01
            ? acme_challenges_put_http01(a->ch, token, keyauth)
            : acme_challenges_put_tlsalpn01(a->ch, name, keyauth);
    if (r < 0)
        goto out_free;
    s.seen = true;
    a->shared[a->n_shared++] = s;
    s = (struct acme_shared){0};
    acme_log(&a->logger, ACME_LOG_INFO,
             "acme: %s: answering %s for another replica", name, type);
out_free:
    free(s.token);
    free(s.name);
    json_decref(j);
}

void acme_shared_scan(struct acme *a)
{
    int dfd = openat(a->dirfd, "challenges",
                     O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
    struct dirent *de;

    if (d == NULL) {
        if (dfd >= 0)
            close(dfd);
        return;
    }
    for (size_t i = 0; i < a->n_shared; i++)
        a->shared[i].seen = false;
    while ((de = readdir(d)) != NULL) {
        struct acme_shared *s;

        if (!acme_token_ok(de->d_name) || is_own(a, de->d_name))
            continue;
        s = find_shared(a, de->d_name);
        if (s)
            s->seen = true;
        else
            import(a, dirfd(d), de->d_name);
    }
    closedir(d);
    /* keep the ones still there, in place */
    size_t kept = 0;

    for (size_t i = 0; i < a->n_shared; i++) {
        if (a->shared[i].seen)
            a->shared[kept++] = a->shared[i];
        else
            forget(a, &a->shared[i]);
    }
    a->n_shared = kept;
}

void acme_shared_clear(struct acme *a)
{
    for (size_t i = 0; i < a->n_shared; i++)
        forget(a, &a->shared[i]);
    a->n_shared = 0;
    free(a->shared);
    a->shared = NULL;
    for (size_t i = 0; i < a->n_own; i++)
        free(a->own[i]);
    free(a->own);
    a->own = NULL;
    a->n_own = 0;
}
