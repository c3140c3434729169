/* SPDX-License-Identifier: MIT */
/*
 * acme_order.c - one certificate from newOrder to the downloaded chain
 * (RFC 8555 7.4 - 7.5.1): the order, each pending authorization answered
 * with a challenge whose material the publisher holds (all published
 * first, then all answered, then all polled), finalize with a CSR of a
 * fresh P-256 key, the order polled until valid, the chain downloaded and
 * checked against the key and the names. The polls back off from 50 ms to
 * a second (acme_poll_ms: a CA that validates at once is asked again at
 * once, a slow one no more than once a second) and never come sooner than
 * the CA's Retry-After; they wait through the manager's sleeper, so a stop
 * interrupts them.
 */
#include "acme/acme_renew.h"
#include "acme/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Polls of one authorization or order before giving up (about 5 min). */
#define POLLS 300

struct pending {
    char *authz;    /* the authorization URL */
    char *name;     /* its identifier */
    char *token;    /* of the chosen challenge; NULL: already valid */
    char *chall;    /* the challenge URL */
    bool published; /* the publisher holds its material */
};

const char *acme_challenge_name(enum acme_challenge_type t)
{
    return t == ACME_TLSALPN01 ? "tls-alpn-01" : "http-01";
}

bool acme_token_ok(const char *t)
{
    size_t n = strspn(t, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                         "0123456789-_");

    return n > 0 && n <= 128 && t[n] == '\0';
}

/* POST-as-GET @url, its JSON object into *@out. */
static int fetch(struct acme_client *c, const char *url, const char *what,
                 json_t **out)
{
    struct acme_response r;
    int e = acme_client_post(c, url, NULL, NULL, &r);

    if (e < 0)
        return e;
    *out = acme_client_json(c, &r, what);
    acme_response_free(&r);
    return *out ? 0 : -EPROTO;
}

static const char *status_of(json_t *o)
{
    const char *s = json_string_value(json_object_get(o, "status"));

    return s ? s : "";
}

/* Wait before poll number @polls: the back-off, or the CA's Retry-After. */
static int wait_poll(struct acme_client *c, unsigned polls)
{
    time_t now = c->http.clock ? c->http.clock(c->http.clock_arg) : time(NULL);
    long asked = c->retry_after > now && c->retry_after - now < 3600
                     ? (long)(c->retry_after - now) * 1000
                     : 0;

    c->retry_after = 0;
    return c->sleeper.sleep_ms(c->sleeper.arg, acme_poll_ms(polls, asked));
}

/* The error of a failed challenge, in the log. */
static void log_invalid(struct acme_client *c, const struct pending *p,
                        json_t *authz)
{
    size_t i;
    json_t *ch;

    json_array_foreach(json_object_get(authz, "challenges"), i, ch)
    {
        json_t *err = json_object_get(ch, "error");
        const char *type = json_string_value(json_object_get(err, "type"));
        const char *detail = json_string_value(json_object_get(err, "detail"));
        const char *ctype = json_string_value(json_object_get(ch, "type"));

        if (err == NULL)
            continue;
        acme_log(c->log, ACME_LOG_ERROR, "acme: %s: challenge %s: %s: %s",
                 p->name, ctype ? ctype : "(no type)",
                 type ? type : "(no problem type)",
                 detail ? detail : "(no detail)");
    }
}

/* Read one authorization; choose its challenge when it is pending. */
static int prepare(struct acme_client *c, struct pending *p,
                   enum acme_challenge_type type)
{
    json_t *authz, *ch;
    const char *s;
    size_t i;
    int e = fetch(c, p->authz, "authorization", &authz);

    if (e < 0)
        return e;
    s = json_string_value(
        json_object_get(json_object_get(authz, "identifier"), "value"));
    p->name = strdup(s ? s : "?");
    e = p->name ? 0 : -ENOMEM;
    if (e < 0 || strcmp(status_of(authz), "valid") == 0)
        goto out_free; /* reused: nothing to answer */
    if (strcmp(status_of(authz), "pending") != 0) {
        acme_log(c->log, ACME_LOG_ERROR, "acme: %s: authorization is %s",
                 p->name, status_of(authz));
        e = -EPROTO;
        goto out_free;
    }
    json_array_foreach(json_object_get(authz, "challenges"), i, ch)
    {
        const char *t = json_string_value(json_object_get(ch, "type"));
        const char *tok = json_string_value(json_object_get(ch, "token"));
        const char *url = json_string_value(json_object_get(ch, "url"));

        if (!t || !tok || !url || strcmp(t, acme_challenge_name(type)) != 0)
            continue;
        if (!acme_token_ok(tok)) {
            acme_log(c->log, ACME_LOG_ERROR, "acme: %s: malformed token",
                     p->name);
            e = -EPROTO;
            goto out_free;
        }
        p->token = strdup(tok);
        p->chall = strdup(url);
        e = p->token && p->chall ? 0 : -ENOMEM;
        goto out_free;
    }
    acme_log(c->log, ACME_LOG_ERROR, "acme: %s: the CA offers no %s challenge",
             p->name, acme_challenge_name(type));
    e = -EPROTO;
out_free:
    json_decref(authz);
    return e;
}

/* Poll one answered authorization until it is valid or invalid. */
static int settle(struct acme_client *c, const struct pending *p)
{
    for (unsigned polls = 0; polls < POLLS; polls++) {
        json_t *authz;
        int e = fetch(c, p->authz, "authorization", &authz);
        const char *s;

        if (e < 0)
            return e;
        s = status_of(authz);
        if (strcmp(s, "valid") == 0) {
            json_decref(authz);
            return 0;
        }
        if (strcmp(s, "pending") != 0) {
            acme_log(c->log, ACME_LOG_ERROR, "acme: %s: authorization %s",
                     p->name, s);
            log_invalid(c, p, authz);
            json_decref(authz);
            return -EPROTO;
        }
        json_decref(authz);
        e = wait_poll(c, polls);
        if (e < 0)
            return e;
    }
    acme_log(c->log, ACME_LOG_ERROR, "acme: %s: still pending, giving up",
             p->name);
    return -EAGAIN;
}

static int authorize(struct acme_client *c, struct pending *ps, size_t n,
                     enum acme_challenge_type type,
                     const struct acme_publisher *pub)
{
    struct acme_response r;
    char *keyauth = NULL;
    int e = 0;

    for (size_t i = 0; i < n && e == 0; i++)
        e = prepare(c, &ps[i], type);
    for (size_t i = 0; i < n && e == 0; i++) {
        if (ps[i].token == NULL)
            continue;
        free(keyauth);
        if (asprintf(&keyauth, "%s.%s", ps[i].token, c->thumbprint) < 0) {
            keyauth = NULL;
            e = -ENOMEM;
            break;
        }
        e = pub->publish(pub->arg, type, ps[i].name, ps[i].token, keyauth);
        ps[i].published = e == 0;
    }
    free(keyauth);
    if (e == 0 && pub->ready)
        e = pub->ready(pub->arg);
    for (size_t i = 0; i < n && e == 0; i++) {
        if (ps[i].token == NULL)
            continue;
        acme_log(c->log, ACME_LOG_INFO, "acme: %s: answering %s", ps[i].name,
                 acme_challenge_name(type));
        e = acme_client_post(c, ps[i].chall, "{}", NULL, &r);
        if (e == 0)
            acme_response_free(&r);
    }
    for (size_t i = 0; i < n && e == 0; i++) {
        if (ps[i].token)
            e = settle(c, &ps[i]);
    }
    for (size_t i = 0; i < n; i++) {
        if (ps[i].published)
            pub->withdraw(pub->arg, type, ps[i].name, ps[i].token);
    }
    return e;
}

/* Poll the order until its status is @want (or past it). */
static int order_wait(struct acme_client *c, const char *url, json_t **order,
                      const char *want)
{
    for (unsigned polls = 0; polls < POLLS; polls++) {
        const char *s = status_of(*order);
        int e;

        if (strcmp(s, want) == 0 || strcmp(s, "valid") == 0)
            return 0;
        if (strcmp(s, "pending") != 0 && strcmp(s, "processing") != 0 &&
            strcmp(s, "ready") != 0) {
            json_t *err = json_object_get(*order, "error");
            const char *d = json_string_value(json_object_get(err, "detail"));

            acme_log(c->log, ACME_LOG_ERROR, "acme: order %s is %s: %s", url, s,
                     d ? d : "(no detail)");
            return -EPROTO;
        }
        e = wait_poll(c, polls);
        if (e < 0)
            return e;
        json_decref(*order);
        *order = NULL;
        e = fetch(c, url, "order", order);
        if (e < 0)
            return e;
    }
    acme_log(c->log, ACME_LOG_ERROR, "acme: order %s: no answer, giving up",
             url);
    return -EAGAIN;
}

static int new_order(struct acme_client *c, char *const *names, size_t n,
                     json_t **order, char **url)
{
    json_t *ids = json_array(), *req;
    struct acme_response r;
    char *payload;
    int e;

    for (size_t i = 0; ids && i < n; i++)
        json_array_append_new(
            ids, json_pack("{s:s, s:s}", "type", "dns", "value", names[i]));
    req = json_pack("{s:o}", "identifiers", ids);
    payload = req ? json_dumps(req, JSON_COMPACT) : NULL;
    json_decref(req);
    if (payload == NULL)
        return -ENOMEM;
    e = acme_client_post(c, c->new_order, payload, NULL, &r);
    free(payload);
    if (e < 0)
        return e;
    *order = acme_client_json(c, &r, "order");
    *url = r.location;
    r.location = NULL;
    acme_response_free(&r);
    if (*order == NULL || *url == NULL) {
        acme_log(c->log, ACME_LOG_ERROR, "acme: newOrder gave no order");
        return -EPROTO;
    }
    return 0;
}

static int finalize(struct acme_client *c, json_t **order, const char *url,
                    char *const *names, size_t n, EVP_PKEY *key)
{
    const char *fin = json_string_value(json_object_get(*order, "finalize"));
    char *csr = acme_csr(key, names, n), *payload = NULL;
    struct acme_response r;
    json_t *req;
    int e;

    if (csr == NULL)
        return -ENOMEM;
    req = json_pack("{s:s}", "csr", csr);
    free(csr);
    payload = req ? json_dumps(req, JSON_COMPACT) : NULL;
    json_decref(req);
    if (payload == NULL)
        return -ENOMEM;
    if (fin == NULL) {
        free(payload);
        acme_log(c->log, ACME_LOG_ERROR, "acme: order %s has no finalize", url);
        return -EPROTO;
    }
    e = acme_client_post(c, fin, payload, NULL, &r);
    free(payload);
    if (e < 0)
        return e;
    json_decref(*order);
    *order = acme_client_json(c, &r, "order");
    acme_response_free(&r);
    if (*order == NULL)
        return -EPROTO;
    return order_wait(c, url, order, "valid");
}

static int download(struct acme_client *c, json_t *order, char **chain)
{
    const char *url = json_string_value(json_object_get(order, "certificate"));
    struct acme_response r;
    int e;

    if (url == NULL) {
        acme_log(c->log, ACME_LOG_ERROR,
                 "acme: valid order without a "
                 "certificate URL");
        return -EPROTO;
    }
    e = acme_client_post(c, url, NULL, "application/pem-certificate-chain", &r);
    if (e < 0)
        return e;
    *chain = r.body;
    r.body = NULL;
    acme_response_free(&r);
    return 0;
}

int acme_order(struct acme_client *c, char *const *names, size_t n,
               enum acme_challenge_type type, const struct acme_publisher *pub,
               char **chain_pem, char **key_pem)
{
    json_t *order = NULL, *authzs;
    struct pending *ps = NULL;
    struct acme_chain_info info;
    EVP_PKEY *key = NULL;
    char *url = NULL, *chain = NULL, err[256];
    size_t np, i;
    json_t *a;
    int e = new_order(c, names, n, &order, &url);

    if (e < 0)
        goto out_free;
    acme_log(c->log, ACME_LOG_INFO, "acme: %s: order %s", names[0], url);
    authzs = json_object_get(order, "authorizations");
    np = json_array_size(authzs);
    ps = calloc(np ? np : 1, sizeof *ps);
    e = -ENOMEM;
    if (ps == NULL)
        goto out_free;
    json_array_foreach(authzs, i, a)
    {
        const char *s = json_string_value(a);

        if (s == NULL || (ps[i].authz = strdup(s)) == NULL)
            goto out_free;
    }
    e = authorize(c, ps, np, type, pub);
    /* the order as newOrder gave it, before the authorizations were won */
    if (e == 0 && strcmp(status_of(order), "ready") != 0 &&
        strcmp(status_of(order), "valid") != 0) {
        json_decref(order);
        order = NULL;
        e = fetch(c, url, "order", &order);
    }
    if (e == 0)
        e = order_wait(c, url, &order, "ready");
    if (e == 0 && (key = acme_key_new()) == NULL)
        e = -ENOMEM;
    if (e == 0)
        e = finalize(c, &order, url, names, n, key);
    if (e == 0)
        e = download(c, order, &chain);
    if (e == 0 && (*key_pem = acme_key_to_pem(key)) == NULL)
        e = -ENOMEM;
    if (e == 0 && acme_chain_check(chain, strlen(chain), *key_pem, names, n,
                                   &info, err, sizeof err) < 0) {
        acme_log(c->log, ACME_LOG_ERROR, "acme: %s: downloaded chain: %s",
                 names[0], err);
        acme_pem_free(*key_pem);
        *key_pem = NULL;
        e = -EPROTO;
    }
    if (e == 0) {
        *chain_pem = chain;
        chain = NULL;
    }
out_free:
    for (i = 0; ps && i < np; i++) {
        free(ps[i].authz);
        free(ps[i].name);
        free(ps[i].token);
        free(ps[i].chall);
    }
    free(ps);
    free(chain);
    EVP_PKEY_free(key);
    json_decref(order);
    free(url);
    return e;
}
