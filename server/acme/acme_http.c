/* SPDX-License-Identifier: MIT */
/*
 * acme_http.c - one HTTPS exchange with the CA through libcurl: HTTPS only,
 * the --acme-ca-root trust anchor (or the system's), bounded time and body
 * size, and the headers ACME reads (Location, Replay-Nonce, Retry-After,
 * Content-Type). One easy handle is reused, so its connection is too. A
 * transfer in flight is abandoned when the manager's stop flag turns true.
 */
#include "acme/internal.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define BODY_MAX ((size_t)1 << 20)

int acme_http_global_init(void)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static bool done;
    int r = 0;

    /* once per process, and before the ACME thread exists: libcurl older
     * than 7.84 needs curl_global_init to run while no thread uses it */
    pthread_mutex_lock(&mu);
    if (!done && curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        r = -ENOMEM;
    done = r == 0;
    pthread_mutex_unlock(&mu);
    return r;
}

int acme_http_init(struct acme_http *h, const char *ca_root,
                   const atomic_bool *stop)
{
    *h = (struct acme_http){.stop = stop};
    if (acme_http_global_init() < 0)
        return -ENOMEM;
    if (ca_root && (h->ca_root = strdup(ca_root)) == NULL)
        return -ENOMEM;
    h->curl = curl_easy_init();
    if (h->curl == NULL) {
        free(h->ca_root);
        h->ca_root = NULL;
        return -ENOMEM;
    }
    return 0;
}

void acme_http_free(struct acme_http *h)
{
    if (h->curl)
        curl_easy_cleanup(h->curl);
    free(h->ca_root);
    *h = (struct acme_http){0};
}

void acme_response_free(struct acme_response *r)
{
    free(r->body);
    free(r->content_type);
    free(r->location);
    free(r->nonce);
    *r = (struct acme_response){0};
}

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
    struct acme_response *r = arg;
    size_t len = size * n;
    char *grown;

    if (r->len + len > BODY_MAX)
        return 0; /* curl fails the transfer */
    grown = realloc(r->body, r->len + len + 1);
    if (grown == NULL)
        return 0;
    memcpy(grown + r->len, p, len);
    r->len += len;
    grown[r->len] = '\0';
    r->body = grown;
    return len;
}

/* The value of a header line "Name: value\r\n" as a new string. */
static char *header_value(const char *p, size_t len, const char *name)
{
    size_t nlen = strlen(name);
    const char *v, *end = p + len;

    if (len <= nlen || strncasecmp(p, name, nlen) != 0 || p[nlen] != ':')
        return NULL;
    v = p + nlen + 1;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && isspace((unsigned char)end[-1]))
        end--;
    return strndup(v, (size_t)(end - v));
}

/* Retry-After: delta-seconds or an HTTP-date (RFC 9110 10.2.3). */
static time_t retry_after(const char *v, time_t now)
{
    char *end;
    unsigned long s;

    if (isdigit((unsigned char)v[0])) {
        s = strtoul(v, &end, 10);
        if (*end == '\0' && s < 30UL * 86400)
            return now + (time_t)s;
        return 0;
    }
    time_t t = curl_getdate(v, NULL);
    return t > 0 ? t : 0;
}

struct header_ctx {
    struct acme_response *r;
    time_t now;
};

static void keep(char **slot, char *v)
{
    if (v == NULL)
        return;
    free(*slot);
    *slot = v;
}

static size_t on_header(char *p, size_t size, size_t n, void *arg)
{
    struct header_ctx *ctx = arg;
    size_t len = size * n;
    char *v;

    /* a new status line (after a 100 Continue) starts afresh */
    if (len > 5 && strncmp(p, "HTTP/", 5) == 0) {
        free(ctx->r->location);
        free(ctx->r->nonce);
        free(ctx->r->content_type);
        ctx->r->location = ctx->r->nonce = ctx->r->content_type = NULL;
        ctx->r->retry_after = 0;
        return len;
    }
    keep(&ctx->r->location, header_value(p, len, "Location"));
    keep(&ctx->r->nonce, header_value(p, len, "Replay-Nonce"));
    keep(&ctx->r->content_type, header_value(p, len, "Content-Type"));
    v = header_value(p, len, "Retry-After");
    if (v) {
        ctx->r->retry_after = retry_after(v, ctx->now);
        free(v);
    }
    return len;
}

static int on_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut,
                       curl_off_t un)
{
    const struct acme_http *h = arg;

    (void)dt, (void)dn, (void)ut, (void)un;
    return h->stop && atomic_load(h->stop) ? 1 : 0;
}

int acme_http_request(struct acme_http *h, const char *url, const char *jws,
                      const char *accept, struct acme_response *r, char *err,
                      size_t errlen)
{
    char errbuf[CURL_ERROR_SIZE] = "", accept_line[128];
    struct header_ctx ctx = {.r = r, .now = time(NULL)};
    struct curl_slist *hdrs = NULL, *more;
    CURL *c = h->curl;
    CURLcode rc;

    *r = (struct acme_response){0};
    if (h->clock)
        ctx.now = h->clock(h->clock_arg);
    snprintf(accept_line, sizeof accept_line, "Accept: %s",
             accept ? accept : "application/json");
    hdrs = curl_slist_append(NULL, accept_line);
    if (hdrs && jws) {
        more = curl_slist_append(hdrs, "Content-Type: application/jose+json");
        if (more == NULL)
            curl_slist_free_all(hdrs);
        hdrs = more;
    }
    if (hdrs == NULL)
        return -ENOMEM;
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https");
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 15L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "beneath/" BENEATH_VERSION " acme");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &ctx);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, h);
    if (h->ca_root)
        curl_easy_setopt(c, CURLOPT_CAINFO, h->ca_root);
    if (jws) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, jws);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(jws));
    }
    rc = curl_easy_perform(c);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
    curl_slist_free_all(hdrs);
    if (rc == CURLE_ABORTED_BY_CALLBACK) {
        acme_response_free(r);
        return -ECANCELED;
    }
    if (rc != CURLE_OK) {
        snprintf(err, errlen, "%s: %s", url,
                 errbuf[0] ? errbuf : curl_easy_strerror(rc));
        acme_response_free(r);
        return rc == CURLE_OUT_OF_MEMORY ? -ENOMEM : -EIO;
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    if (r->body == NULL && (r->body = strdup("")) == NULL) {
        acme_response_free(r);
        return -ENOMEM;
    }
    return 0;
}
