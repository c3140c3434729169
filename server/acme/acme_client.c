/* SPDX-License-Identifier: MIT */
/*
 * acme_client.c - the request layer of RFC 8555: the directory (7.1.1),
 * nonces (7.2; one kept from each response, newNonce when there is none),
 * signed POSTs with "jwk" until the account is known and "kid" after (6.2),
 * badNonce retried with the fresh nonce the error carries (6.5), problem
 * documents logged with the CA's detail text (6.7), Retry-After kept for the
 * caller, and the account (7.3).
 */
#include "acme/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* badNonce is retried this many times before the request fails. */
#define NONCE_TRIES 8
#define PROBLEM "urn:ietf:params:acme:error:"

static int dup_field(json_t *o, const char *key, char **out)
{
    const char *s = json_string_value(json_object_get(o, key));

    *out = NULL;
    if (s && (*out = strdup(s)) == NULL)
        return -ENOMEM;
    return 0;
}

json_t *acme_client_json(struct acme_client *c, const struct acme_response *r,
                         const char *what)
{
    json_error_t jerr;
    json_t *j = json_loadb(r->body, r->len, 0, &jerr);

    if (j && json_is_object(j))
        return j;
    json_decref(j);
    acme_log(c->log, ACME_LOG_ERROR,
             "acme: %s: the CA's answer is not a JSON "
             "object (%s)",
             what, jerr.text);
    return NULL;
}

int acme_client_open(struct acme_client *c, const char *directory,
                     const char *ca_root, const atomic_bool *stop,
                     const struct acme_logger *log, struct acme_sleeper sleeper)
{
    struct acme_response r;
    char err[512];
    json_t *dir;
    int e;

    *c = (struct acme_client){.log = log, .sleeper = sleeper};
    e = acme_http_init(&c->http, ca_root, stop);
    if (e < 0)
        return e;
    c->directory = strdup(directory);
    if (c->directory == NULL)
        return -ENOMEM;
    e = acme_http_request(&c->http, directory, NULL, NULL, &r, err, sizeof err);
    if (e == -EIO)
        acme_log(log, ACME_LOG_ERROR, "acme: directory: %s", err);
    if (e < 0)
        return e;
    if (r.status != 200) {
        acme_log(log, ACME_LOG_ERROR, "acme: directory %s: HTTP %ld", directory,
                 r.status);
        acme_response_free(&r);
        return -EPROTO;
    }
    dir = acme_client_json(c, &r, "directory");
    acme_response_free(&r);
    if (dir == NULL)
        return -EPROTO;
    e = dup_field(dir, "newNonce", &c->new_nonce);
    if (e == 0)
        e = dup_field(dir, "newAccount", &c->new_account);
    if (e == 0)
        e = dup_field(dir, "newOrder", &c->new_order);
    if (e == 0)
        e = dup_field(dir, "renewalInfo", &c->renewal_info);
    json_decref(dir);
    if (e == 0 && (!c->new_nonce || !c->new_account || !c->new_order)) {
        acme_log(log, ACME_LOG_ERROR,
                 "acme: directory %s lacks newNonce, "
                 "newAccount or newOrder",
                 directory);
        e = -EPROTO;
    }
    return e;
}

void acme_client_close(struct acme_client *c)
{
    acme_http_free(&c->http);
    free(c->directory);
    free(c->new_nonce);
    free(c->new_account);
    free(c->new_order);
    free(c->renewal_info);
    free(c->nonce);
    free(c->thumbprint);
    free(c->kid);
    *c = (struct acme_client){0};
}

int acme_client_set_key(struct acme_client *c, EVP_PKEY *key, const char *kid)
{
    c->key = key;
    free(c->thumbprint);
    free(c->kid);
    c->kid = NULL;
    c->thumbprint = acme_thumbprint(key);
    if (c->thumbprint == NULL || (kid && (c->kid = strdup(kid)) == NULL))
        return -ENOMEM;
    return 0;
}

/* Keep the Replay-Nonce of @r (every ACME response may carry one). */
static void take_nonce(struct acme_client *c, struct acme_response *r)
{
    if (r->nonce) {
        free(c->nonce);
        c->nonce = r->nonce;
        r->nonce = NULL;
    }
}

static int fresh_nonce(struct acme_client *c)
{
    struct acme_response r;
    char err[512];
    int e;

    if (c->nonce)
        return 0;
    /* HEAD would do; GET is allowed too (RFC 8555 7.2) and simpler */
    e = acme_http_request(&c->http, c->new_nonce, NULL, NULL, &r, err,
                          sizeof err);
    if (e == -EIO)
        acme_log(c->log, ACME_LOG_ERROR, "acme: newNonce: %s", err);
    if (e < 0)
        return e;
    take_nonce(c, &r);
    acme_response_free(&r);
    if (c->nonce == NULL) {
        acme_log(c->log, ACME_LOG_ERROR, "acme: newNonce gave no nonce");
        return -EPROTO;
    }
    return 0;
}

/*
 * An error status: its problem's type (without the ACME prefix) into
 * @type, logged with the detail and subproblems. Returns -EAGAIN for
 * rateLimited, 429 and 503, else -EPROTO.
 */
static int problem(struct acme_client *c, const char *url,
                   const struct acme_response *r, char *type, size_t size)
{
    json_t *p = json_loadb(r->body, r->len, 0, NULL);
    const char *t = json_string_value(json_object_get(p, "type"));
    const char *detail = json_string_value(json_object_get(p, "detail"));
    json_t *subs = json_object_get(p, "subproblems");
    size_t i;
    json_t *sub;

    snprintf(type, size, "%s",
             t && strncmp(t, PROBLEM, strlen(PROBLEM)) == 0
                 ? t + strlen(PROBLEM)
                 : "");
    snprintf(c->problem, sizeof c->problem, "%s", type);
    /* a refused nonce is routine (retried), not an error */
    acme_log(c->log,
             strcmp(type, "badNonce") == 0 ? ACME_LOG_INFO : ACME_LOG_ERROR,
             "acme: %s: HTTP %ld %s: %s", url, r->status,
             t ? t : "(no problem type)", detail ? detail : "(no detail)");
    json_array_foreach(subs, i, sub)
    {
        const char *sd = json_string_value(json_object_get(sub, "detail"));
        const char *id = json_string_value(
            json_object_get(json_object_get(sub, "identifier"), "value"));

        acme_log(c->log, ACME_LOG_ERROR, "acme:   %s: %s", id ? id : "?",
                 sd ? sd : "(no detail)");
    }
    json_decref(p);
    if (r->status == 429 || r->status == 503 ||
        strcmp(type, "rateLimited") == 0)
        return -EAGAIN;
    return -EPROTO;
}

int acme_client_post(struct acme_client *c, const char *url,
                     const char *payload, const char *accept,
                     struct acme_response *r)
{
    char err[512], type[128];
    int e = 0;

    c->problem[0] = '\0';
    for (int tries = 0; tries < NONCE_TRIES; tries++) {
        char *jws;

        e = fresh_nonce(c);
        if (e < 0)
            return e;
        jws = acme_jws(c->key, c->kid, c->nonce, url, payload ? payload : "");
        free(c->nonce); /* a nonce is good for one request */
        c->nonce = NULL;
        if (jws == NULL)
            return -ENOMEM;
        e = acme_http_request(&c->http, url, jws, accept, r, err, sizeof err);
        free(jws);
        if (e == -EIO)
            acme_log(c->log, ACME_LOG_ERROR, "acme: %s", err);
        if (e < 0)
            return e;
        take_nonce(c, r);
        if (r->retry_after)
            c->retry_after = r->retry_after;
        if (r->status >= 200 && r->status < 300)
            return 0;
        e = problem(c, url, r, type, sizeof type);
        acme_response_free(r);
        if (strcmp(type, "badNonce") != 0)
            return e;
        acme_log(c->log, ACME_LOG_INFO,
                 "acme: badNonce, retrying with the "
                 "CA's fresh nonce");
    }
    acme_log(c->log, ACME_LOG_ERROR,
             "acme: %s: the CA refused %d nonces in "
             "a row (urn:ietf:params:acme:error:badNonce)",
             url, NONCE_TRIES);
    return e;
}

int acme_client_account(struct acme_client *c, const char *email)
{
    struct acme_response r;
    json_t *req = json_pack("{s:b}", "termsOfServiceAgreed", 1);
    char *payload, *contact = NULL;
    int e;

    if (req == NULL)
        return -ENOMEM;
    if (email) {
        if (asprintf(&contact, "mailto:%s", email) < 0) {
            json_decref(req);
            return -ENOMEM;
        }
        json_object_set_new(req, "contact", json_pack("[s]", contact));
        free(contact);
    }
    payload = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    if (payload == NULL)
        return -ENOMEM;
    free(c->kid); /* newAccount is signed with the JWK */
    c->kid = NULL;
    e = acme_client_post(c, c->new_account, payload, NULL, &r);
    free(payload);
    if (e < 0)
        return e;
    if (r.location == NULL) {
        acme_log(c->log, ACME_LOG_ERROR, "acme: newAccount gave no Location");
        acme_response_free(&r);
        return -EPROTO;
    }
    c->kid = r.location;
    r.location = NULL;
    acme_log(c->log, ACME_LOG_INFO, "acme: account %s %s", c->kid,
             r.status == 201 ? "created" : "found");
    acme_response_free(&r);
    return 0;
}
