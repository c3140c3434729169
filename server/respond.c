// SPDX-License-Identifier: MIT
/*
 * respond.c - a request becomes a plan, and a plan a libmicrohttpd response.
 *
 * This file takes the request's way to its plan (methods, OPTIONS, the
 * built-in paths, access rules and rewrites, the lookup in files/) and
 * emits each kind of plan; a regular file's response (validators,
 * conditionals, Range, the body) is respond_file.c's. files/ decides what
 * answers a request (lookup.c); the plan is released here, once, after its
 * fd has been handed to the response or closed.
 */
#include "listing.h"
#include "listing_json.h"
#include "mime.h"
#include "respond_internal.h"
#include "status.h"
#include "target.h"
#include "tls.h"
#include "urlpath.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *req_header(struct req *r, const char *name)
{
    return MHD_lookup_connection_value(r->c, MHD_HEADER_KIND, name);
}

/* The headers every response carries. */
void req_common_headers(struct req *r, struct MHD_Response *resp)
{
    const struct headers_opt *h = r->conf->headers;
    bool vary_encoding =
        (r->plan && r->plan->vary_encoding) || r->vary_compress;

    if ((!h || !headers_opt_find(h, "X-Content-Type-Options")) &&
        !(r->ah && access_headers_drop(r->ah, "X-Content-Type-Options")))
        MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    for (size_t i = 0; h && i < h->n; i++)
        if (!r->ah || !access_headers_drop(r->ah, h->v[i].name))
            MHD_add_response_header(resp, h->v[i].name, h->v[i].value);
    if (r->ah)
        access_headers_add(r->ah, resp);
    /* a path's own Access-Control-Allow-Origin (--header, _headers) wins */
    if (!(h && headers_opt_find(h, "Access-Control-Allow-Origin")) &&
        !(r->ah && access_headers_sets(r->ah, "Access-Control-Allow-Origin")))
        for (size_t i = 0; i < r->cors.n; i++)
            MHD_add_response_header(resp, r->cors.h[i].name,
                                    r->cors.h[i].value);
    if (vary_encoding || r->vary_accept)
        MHD_add_response_header(resp, "Vary",
                                vary_encoding && r->vary_accept
                                    ? "Accept-Encoding, Accept"
                                : vary_encoding ? "Accept-Encoding"
                                                : "Accept");
    if (r->conf->server_timing) {
        char st[64];

        snprintf(st, sizeof st, "resolve;dur=%.3f",
                 r->plan ? (double)r->plan->resolve_ns / 1e6 : 0.0);
        MHD_add_response_header(resp, "Server-Timing", st);
    }
    if (r->tls && r->conf->hsts &&
        !(h && headers_opt_find(h, "Strict-Transport-Security"))) {
        char hsts[32];

        snprintf(hsts, sizeof hsts, "max-age=%u", r->conf->hsts);
        MHD_add_response_header(resp, "Strict-Transport-Security", hsts);
    }
}

/*
 * Queue @resp, complete with its headers, with @status; release our
 * reference unless @kept (the reply cache holds it).
 */
enum MHD_Result req_deliver(struct req *r, unsigned status,
                            struct MHD_Response *resp, uint64_t body, bool kept)
{
    enum MHD_Result ret;

    r->res->status = status;
    r->res->bytes = (r->method == HTTP_HEAD || status == STATUS_NOT_MODIFIED ||
                     status == STATUS_NO_CONTENT)
                        ? 0
                        : body;
    ret = MHD_queue_response(r->c, status, resp);
    if (!kept)
        MHD_destroy_response(resp);
    return ret;
}

/* Queue @resp with @status and release our reference. */
enum MHD_Result req_queue(struct req *r, unsigned status,
                          struct MHD_Response *resp, uint64_t body)
{
    if (!resp)
        return MHD_NO;
    req_common_headers(r, resp);
    if (status == STATUS_UNAUTHORIZED && r->challenge)
        MHD_add_response_header(resp, "WWW-Authenticate", r->challenge);
    return req_deliver(r, status, resp, body, false);
}

/* A response with the small built-in HTML body for @status, of *@len
 * bytes. */
static struct MHD_Response *builtin_page(unsigned status, uint64_t *len)
{
    char body[256];
    int n = snprintf(body, sizeof body,
                     "<!DOCTYPE html>\n<html><head><title>%u %s</title></head>"
                     "<body><h1>%u %s</h1></body></html>\n",
                     status, status_reason((int)status), status,
                     status_reason((int)status));
    struct MHD_Response *resp =
        MHD_create_response_from_buffer((size_t)n, body, MHD_RESPMEM_MUST_COPY);

    if (resp)
        MHD_add_response_header(resp, "Content-Type",
                                "text/html; charset=utf-8");
    *len = (uint64_t)n;
    return resp;
}

/* A small built-in HTML body for @status. */
enum MHD_Result req_simple(struct req *r, unsigned status)
{
    uint64_t n;
    struct MHD_Response *resp = builtin_page(status, &n);

    if (!resp)
        return MHD_NO;
    if (status == STATUS_METHOD_NOT_ALLOWED)
        MHD_add_response_header(resp, "Allow", HTTP_ALLOW);
    return req_queue(r, status, resp, n);
}

/* A file sent whole as the body of an error status (an error page). */
static enum MHD_Result page(struct req *r)
{
    struct plan *p = r->plan;
    uint64_t size = (uint64_t)p->st.st_size;
    struct MHD_Response *resp =
        MHD_create_response_from_fd_at_offset64(size, p->fd, 0);

    if (!resp)
        return req_simple(r, p->status);
    p->fd = -1; /* the response owns it now */
    MHD_add_response_header(resp, "Content-Type",
                            mime_map_type(r->conf->files.mime, p->name));
    return req_queue(r, p->status, resp, size);
}

static enum MHD_Result listing(struct req *r)
{
    struct plan *p = r->plan;
    struct listing l = {0};
    char *text = NULL;
    size_t len = 0;
    int err = listing_collect(p->fd, r->conf->files.dotfiles, &l);
    struct listing_order o;

    plan_close(p);
    /* ?sort=name|size|time&order=asc|desc; anything else: by name */
    listing_order_from(
        MHD_lookup_connection_value(r->c, MHD_GET_ARGUMENT_KIND, "sort"),
        MHD_lookup_connection_value(r->c, MHD_GET_ARGUMENT_KIND, "order"), &o);
    listing_sort(&l, &o);
    if (!err)
        err = p->json ? listing_json(&l, p->name, &text, &len)
                      : listing_html(&l, p->name, &o, &text, &len);
    listing_free(&l);
    if (err) {
        r->res->err = -err;
        return req_simple(r, STATUS_INTERNAL_SERVER_ERROR);
    }
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(text);
        return MHD_NO;
    }
    MHD_add_response_header(resp, "Content-Type",
                            p->json ? "application/json; charset=utf-8"
                                    : "text/html; charset=utf-8");
    r->vary_accept = true;
    return req_queue(r, STATUS_OK, resp, len);
}

/* A redirect with @status to @location, and a small body naming it. */
static enum MHD_Result redirect_to(struct req *r, unsigned status,
                                   const char *location)
{
    uint64_t n;
    struct MHD_Response *resp = builtin_page(status, &n);

    if (resp)
        MHD_add_response_header(resp, "Location", location);
    return req_queue(r, status, resp, n);
}

static enum MHD_Result redirect(struct req *r)
{
    return redirect_to(r, STATUS_MOVED_PERMANENTLY, r->plan->location);
}

/* Emit @r->plan, then release it. */
static enum MHD_Result emit(struct req *r)
{
    struct plan *p = r->plan;
    enum MHD_Result ret = MHD_NO;

    r->res->err = p->err;
    r->res->backend = p->backend;
    /* the coding of a file's body (a sidecar's); error pages have none */
    r->res->encoding = p->kind == PLAN_FILE ? p->encoding : NULL;
    switch (p->kind) {
    case PLAN_STATUS:
        ret = req_simple(r, p->status);
        break;
    case PLAN_FILE:
        ret = respond_file(r);
        break;
    case PLAN_PAGE:
        ret = page(r);
        break;
    case PLAN_LISTING:
        ret = listing(r);
        break;
    case PLAN_REDIRECT:
        ret = redirect(r);
        break;
    }
    plan_close(p);
    return ret;
}

/* --health and --metrics: built-in answers, not files. */
static enum MHD_Result builtin(struct req *r, bool metrics)
{
    struct MHD_Response *resp;
    size_t len = 3;
    char *text = NULL;

    if (metrics) {
        text = metrics_render_alloc(r->conf->metrics, &len);
        if (!text)
            return req_simple(r, STATUS_INTERNAL_SERVER_ERROR);
        resp =
            MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
        if (!resp)
            free(text);
    } else {
        resp = MHD_create_response_from_buffer(len, (void *)(uintptr_t) "ok\n",
                                               MHD_RESPMEM_PERSISTENT);
    }
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, "Content-Type",
                            metrics ? "text/plain; version=0.0.4; charset=utf-8"
                                    : "text/plain; charset=utf-8");
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    return req_queue(r, STATUS_OK, resp, len);
}

static enum MHD_Result options(struct req *r)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);

    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, "Allow", HTTP_ALLOW);
    return req_queue(r, STATUS_NO_CONTENT, resp, 0);
}

enum MHD_Result respond_status(struct MHD_Connection *c,
                               const struct respond_conf *conf, unsigned status,
                               enum http_method method,
                               struct respond_result *res)
{
    struct req r = {.c = c, .conf = conf, .method = method, .res = res};

    memset(res, 0, sizeof *res);
    return req_simple(&r, status);
}

/* Emit the plan @p (the caller's) as @r's, then forget it. */
static enum MHD_Result emit_plan(struct req *r, struct plan *p)
{
    enum MHD_Result ret;

    r->plan = p;
    ret = emit(r);
    r->plan = NULL;
    return ret;
}

/* The built-in answer (or error page) for @status, decided before lookup. */
static enum MHD_Result status_page(struct req *r, struct files_request *rq,
                                   unsigned status)
{
    struct plan p;

    files_lookup_status(&r->conf->files, rq, status, &p);
    return emit_plan(r, &p);
}

/*
 * --mount: a path at or below a mount's URL prefix (@norm, normalised) is
 * looked up beneath the mount's own root, any other beneath the site's
 * (@norm NULL: the site's).
 */
static void route(struct req *r, struct files_request *rq, struct target *t,
                  const char *norm)
{
    struct access_route m;

    rq->root_fd = r->site->root_fd;
    rq->cache = r->site->dir_cache;
    rq->name_prefix = NULL;
    if (!norm || !access_mount(r->site, norm, &m))
        return;
    rq->root_fd = m.root_fd;
    rq->cache = m.dir_cache;
    rq->name_prefix = m.prefix;
    t->path = m.path;
}

/* Look @rq up and emit it; a site's own rule file is answered 404. */
static enum MHD_Result lookup_emit(struct req *r, struct files_request *rq)
{
    struct plan p;

    files_lookup(&r->conf->files, rq, &p);
    if (r->av && p.fd >= 0 && access_hidden_file(r->av, &p.st)) {
        plan_close(&p);
        return status_page(r, rq, STATUS_NOT_FOUND);
    }
    return emit_plan(r, &p);
}

/*
 * A 200 rewrite: @url (a raw path with placeholders already substituted)
 * is decoded like a request-target and served under the requested URL,
 * after the same authentication and hidden-file checks as a request.
 */
static enum MHD_Result rewrite(struct req *r, struct files_request *rq,
                               unsigned flags, const char *url)
{
    size_t len = strlen(url) + 1;
    char *buf = malloc(len), *norm = malloc(len + 2);
    struct target t;
    enum MHD_Result ret;
    int status = buf && norm ? target_decode(url, flags, buf, len, &t)
                             : STATUS_INTERNAL_SERVER_ERROR;

    if (!status && urlpath_normalize(t.path, t.slash, norm, len + 2) != 0)
        status = STATUS_NOT_FOUND;
    if (!status)
        status = (int)access_auth(r->av, norm, req_header(r, "Authorization"),
                                  r->res->user, sizeof r->res->user);
    if (status == STATUS_UNAUTHORIZED)
        r->challenge = access_challenge(r->av);
    if (!status && access_hidden_name(r->av, norm))
        status = STATUS_NOT_FOUND;
    route(r, rq, &t, status ? NULL : norm);
    if (status) {
        ret = status_page(r, rq, (unsigned)status);
    } else {
        rq->target = &t;
        ret = lookup_emit(r, rq);
    }
    free(norm);
    free(buf);
    return ret;
}

/*
 * The request with rules (access.h): the site's own rule files are 404,
 * then the first redirect or rewrite rule applies, unless the path has
 * something to serve and the rule is not forced (Netlify's shadowing).
 */
static enum MHD_Result with_rules(struct req *r, struct files_request *rq,
                                  unsigned flags, const struct target *t)
{
    struct access_target at;
    enum MHD_Result ret;
    int k;

    if (access_hidden_name(r->av, r->norm))
        return status_page(r, rq, STATUS_NOT_FOUND);
    k = access_redirect(r->av, r->norm, t->query, &at);
    if (k < 0)
        return status_page(r, rq, STATUS_INTERNAL_SERVER_ERROR);
    if (k == 0)
        return lookup_emit(r, rq);
    if (!at.force) {
        struct plan p;

        rq->bare = true;
        files_lookup(&r->conf->files, rq, &p);
        rq->bare = false;
        if (p.status != STATUS_NOT_FOUND) {
            free(at.url);
            if (p.fd >= 0 && access_hidden_file(r->av, &p.st)) {
                plan_close(&p);
                return status_page(r, rq, STATUS_NOT_FOUND);
            }
            return emit_plan(r, &p);
        }
        plan_close(&p);
    }
    if (at.status == STATUS_OK)
        ret = rewrite(r, rq, flags, at.url);
    else
        ret = redirect_to(r, at.status, at.url);
    free(at.url);
    return ret;
}

enum MHD_Result respond_request(struct MHD_Connection *c,
                                const struct respond_conf *conf,
                                const struct access_site *site,
                                enum http_method method, const char *raw,
                                char *buf, size_t size,
                                struct respond_result *res)
{
    struct req r = {.c = c,
                    .conf = conf,
                    .method = method,
                    .res = res,
                    .tls = tls_connection(c),
                    .av = site->view.a ? &site->view : NULL,
                    .site = site};
    struct target t;
    struct files_request rq = {
        .root_fd = site->root_fd,
        .cache = site->dir_cache,
        .method = method,
        .target = &t,
    };
    struct access_headers ah;
    char *norm = NULL, small[512];
    enum MHD_Result ret;

    memset(res, 0, sizeof *res);
    if (method == HTTP_OTHER)
        return req_simple(&r, STATUS_METHOD_NOT_ALLOWED);
    unsigned flags = (method == HTTP_OPTIONS ? TARGET_OPTIONS : 0) |
                     (conf->files.dotfiles ? 0 : TARGET_DENY_DOTFILES);
    int status = target_decode(raw, flags, buf, size, &t);
    if (status)
        return status_page(&r, &rq, (unsigned)status);
    cors_decide(conf->cors, req_header(&r, "Origin"), method == HTTP_OPTIONS,
                req_header(&r, "Access-Control-Request-Method"),
                req_header(&r, "Access-Control-Request-Headers"), &r.cors);
    if (method == HTTP_OPTIONS && (!r.av || t.asterisk))
        return options(&r);
    if (method != HTTP_OPTIONS && conf->health &&
        strcmp(t.path, conf->health) == 0)
        return builtin(&r, false);
    if (r.av || site->mounts) {
        /* rules and mounts match the lexically normalised path: /a/../b
         * is /b */
        size_t need = strlen(t.path) + 3;
        char *np = need <= sizeof small ? small : (norm = malloc(need));

        if (!np || urlpath_normalize(t.path, t.slash, np, need)) {
            free(norm);
            return status_page(&r, &rq, STATUS_INTERNAL_SERVER_ERROR);
        }
        r.norm = np;
    }
    if (r.av) {
        const char *np = r.norm;

        access_headers(r.av, np, &ah);
        r.ah = &ah;
        /* with the path's headers; a preflight carries no credentials */
        if (method == HTTP_OPTIONS) {
            ret = options(&r);
            free(norm);
            return ret;
        }
        status = (int)access_auth(r.av, np, req_header(&r, "Authorization"),
                                  res->user, sizeof res->user);
        if (status) {
            r.challenge = access_challenge(r.av);
            ret = status_page(&r, &rq, (unsigned)status);
            free(norm);
            return ret;
        }
    }
    if (conf->metrics_path && conf->metrics &&
        strcmp(t.path, conf->metrics_path) == 0) {
        ret = builtin(&r, true);
        free(norm);
        return ret;
    }
    rq.accept = req_header(&r, "Accept");
    rq.accept_encoding = req_header(&r, "Accept-Encoding");
    route(&r, &rq, &t, r.norm);
    ret = r.av ? with_rules(&r, &rq, flags, &t) : lookup_emit(&r, &rq);
    free(norm);
    return ret;
}
