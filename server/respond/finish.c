// SPDX-License-Identifier: MIT
/*
 * finish.c - what every reply ends with, and the one error exit.
 *
 * req_finish adds the fields every reply carries and settles what the log
 * says of the body; req_fail turns a refusal into its status with an error
 * page (a file looked up like any other by files_lookup_status, whose own
 * failure gives the built-in page) and never goes back into the success
 * path: a plan it gets is a page or a bare status, never a file to serve.
 * Both respond.c and respond_file.c call down into this file, never the
 * other way.
 */
#include "http/status.h"
#include "respond/respond_internal.h"
#include "syntax/mime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_field(void *out, const char *name, const char *value)
{
    reply_add(out, name, value);
}

/*
 * --cors's fields: static text or the request's Origin, which outlive the
 * reply's writing, and the preflight's list of headers, which lives in
 * struct req and is copied into the reply (up to CORS_HEADERS_MAX bytes:
 * the heap, not the reply's scratch).
 */
static void cors_fields(struct req *r)
{
    for (size_t i = 0; i < r->cors.n; i++) {
        const char *v = r->cors.h[i].value;

        if (v == r->cors.allow_headers)
            v = reply_own(r->out, strdup(v));
        if (v)
            reply_add(r->out, r->cors.h[i].name, v);
    }
}

void req_common_headers(struct req *r)
{
    struct reply *out = r->out;
    const struct headers_opt *h = r->conf->headers;
    bool vary_encoding =
        (r->plan && r->plan->vary_encoding) || r->vary_compress;

    if ((!h || !headers_opt_find(h, "X-Content-Type-Options")) &&
        !(r->ah && access_headers_drop(r->ah, "X-Content-Type-Options")))
        reply_add(out, "X-Content-Type-Options", "nosniff");
    for (size_t i = 0; h && i < h->n; i++)
        if (!r->ah || !access_headers_drop(r->ah, h->v[i].name))
            reply_add(out, h->v[i].name, h->v[i].value);
    if (r->ah)
        access_headers_each(r->ah, add_field, out);
    /* a path's own Access-Control-Allow-Origin (--header, _headers) wins */
    if (!(h && headers_opt_find(h, "Access-Control-Allow-Origin")) &&
        !(r->ah && access_headers_sets(r->ah, "Access-Control-Allow-Origin")))
        cors_fields(r);
    if (vary_encoding || r->vary_accept)
        reply_add(out, "Vary",
                  vary_encoding && r->vary_accept ? "Accept-Encoding, Accept"
                  : vary_encoding                 ? "Accept-Encoding"
                                                  : "Accept");
    if (r->conf->server_timing)
        reply_addf(out, "Server-Timing", "resolve;dur=%.3f",
                   r->plan ? (double)r->plan->resolve_ns / 1e6 : 0.0);
    if (r->rq->tls && r->conf->hsts &&
        !(h && headers_opt_find(h, "Strict-Transport-Security")))
        reply_addf(out, "Strict-Transport-Security", "max-age=%u",
                   r->conf->hsts);
}

/*
 * Out of memory while the reply was built: whatever it holds goes, and a
 * bare 500 without a body answers (nothing here allocates).
 */
static void bare_500(struct reply *out)
{
    struct respond_result res = out->res;
    void (*unhold)(void *) = out->unhold;
    void *hold = out->hold;

    /* the request still uses what the reply holds: it stays held */
    out->unhold = NULL;
    reply_release(out);
    reply_init(out);
    reply_hold(out, unhold, hold);
    out->res = res;
    out->res.err = out->res.err ? out->res.err : 12; /* ENOMEM */
    out->status = out->res.status = STATUS_INTERNAL_SERVER_ERROR;
}

void req_finish(struct req *r, unsigned status)
{
    struct reply *out = r->out;

    out->status = status;
    req_common_headers(r);
    if (status == STATUS_UNAUTHORIZED && r->challenge)
        reply_add(out, "WWW-Authenticate", r->challenge);
    if (r->rq->method == HTTP_HEAD || status == STATUS_NOT_MODIFIED ||
        status == STATUS_NO_CONTENT)
        reply_drop_body(out);
    out->res.status = status;
    /* a body made while it is sent: its length is not known yet */
    out->res.bytes =
        out->head || out->length == REPLY_LENGTH_UNKNOWN ? 0 : out->length;
    if (out->failed)
        bare_500(out);
}

void req_builtin_page(struct req *r, unsigned status)
{
    struct reply *out = r->out;
    size_t room = sizeof out->scratch - out->scratch_used;
    char *body = out->scratch + out->scratch_used;
    int n = snprintf(body, room,
                     "<!DOCTYPE html>\n<html><head><title>%u %s</title></head>"
                     "<body><h1>%u %s</h1></body></html>\n",
                     status, status_reason((int)status), status,
                     status_reason((int)status));

    if (n < 0 || (size_t)n >= room) {
        out->failed = true;
        return;
    }
    out->scratch_used += (size_t)n + 1;
    reply_set_bytes(out, body, (uint64_t)n, NULL, NULL);
    reply_add(out, "Content-Type", "text/html; charset=utf-8");
}

/* A small built-in HTML body for @status. */
void req_simple(struct req *r, unsigned status)
{
    req_builtin_page(r, status);
    if (status == STATUS_METHOD_NOT_ALLOWED)
        reply_add(r->out, "Allow", HTTP_ALLOW);
    req_finish(r, status);
}

/* A file sent whole as the body of an error status (an error page). */
void req_page(struct req *r)
{
    struct plan *p = r->plan;

    reply_set_fd(r->out, p->fd, 0, (uint64_t)p->st.st_size);
    p->fd = -1; /* the reply owns it now */
    reply_add(r->out, "Content-Type",
              mime_map_type(r->conf->files.mime, p->name));
    req_finish(r, p->status);
}

void req_fail(struct req *r, unsigned status)
{
    struct respond_result *res = &r->out->res;
    struct plan p;

    files_lookup_status(&r->conf->files, r->lookup, status, &p);
    r->plan = &p;
    res->err = p.err;
    res->backend = p.backend;
    res->encoding = NULL;
    /* a page or the built-in body; a plan to serve a file is never taken
     * from here (the fallback is lookup's last candidate, not an error's) */
    if (p.kind == PLAN_PAGE && p.status == status)
        req_page(r);
    else
        req_simple(r, status);
    plan_close(&p);
    r->plan = NULL;
}
