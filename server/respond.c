// SPDX-License-Identifier: MIT
/*
 * respond.c - a plan becomes a libmicrohttpd response.
 *
 * files/ decides what answers a request (lookup.c); this file only emits:
 * validators (ETag, Last-Modified, Repr-Digest), conditionals, Range, the
 * body and the headers every response carries. The plan is released here,
 * once, after its fd has been handed to the response or closed.
 *
 * A 304 is queued with a response of the file's size: libmicrohttpd sends
 * the response's size as Content-Length even for 304, and RFC 9110 8.6
 * allows only the length a 200 would have had.
 */
#include "respond.h"

#include "cond.h"
#include "date.h"
#include "listing.h"
#include "listing_json.h"
#include "mime.h"
#include "range.h"
#include "status.h"
#include "target.h"
#include "tls.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The per-request context shared by the helpers below. */
struct req {
    struct MHD_Connection *c;
    const struct respond_conf *conf;
    enum http_method method;
    struct respond_result *res;
    struct plan *plan; /* NULL for answers decided before any lookup */
    bool vary_accept;  /* the listing depends on Accept */
    bool tls;          /* the connection is HTTPS */
};

static const char *header(struct req *r, const char *name)
{
    return MHD_lookup_connection_value(r->c, MHD_HEADER_KIND, name);
}

/* The headers every response carries. */
static void common_headers(struct req *r, struct MHD_Response *resp)
{
    const struct headers_opt *h = r->conf->headers;
    bool vary_encoding = r->plan && r->plan->vary_encoding;

    if (!h || !headers_opt_find(h, "X-Content-Type-Options"))
        MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    for (size_t i = 0; h && i < h->n; i++)
        MHD_add_response_header(resp, h->v[i].name, h->v[i].value);
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

/* Queue @resp with @status and release our reference. */
static enum MHD_Result queue(struct req *r, unsigned status,
                             struct MHD_Response *resp, uint64_t body)
{
    enum MHD_Result ret;

    if (!resp)
        return MHD_NO;
    common_headers(r, resp);
    r->res->status = status;
    r->res->bytes = (r->method == HTTP_HEAD || status == STATUS_NOT_MODIFIED ||
                     status == STATUS_NO_CONTENT)
                        ? 0
                        : body;
    ret = MHD_queue_response(r->c, status, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* A small built-in HTML body for @status. */
static enum MHD_Result simple(struct req *r, unsigned status)
{
    char body[256];
    int n = snprintf(body, sizeof body,
                     "<!DOCTYPE html>\n<html><head><title>%u %s</title></head>"
                     "<body><h1>%u %s</h1></body></html>\n",
                     status, status_reason((int)status), status,
                     status_reason((int)status));
    struct MHD_Response *resp =
        MHD_create_response_from_buffer((size_t)n, body, MHD_RESPMEM_MUST_COPY);

    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, "Content-Type", "text/html; charset=utf-8");
    if (status == STATUS_METHOD_NOT_ALLOWED)
        MHD_add_response_header(resp, "Allow", HTTP_ALLOW);
    return queue(r, status, resp, (uint64_t)n);
}

/*
 * A small body from memory: one pread of the @len bytes at @start of @fd
 * (borrowed), so libmicrohttpd sends headers and body in one system call
 * instead of a header send plus a sendfile (each send wakes the client).
 * NULL when the read comes up short (the file changed since the fstat) or
 * fails: the caller then falls back to sendfile from the fd.
 */
static struct MHD_Response *small_body(int fd, uint64_t start, uint64_t len)
{
    struct MHD_Response *resp;
    char *buf = malloc((size_t)len);
    ssize_t got;

    if (!buf)
        return NULL;
    do
        got = pread(fd, buf, (size_t)len, (off_t)start);
    while (got < 0 && errno == EINTR);
    if (got != (ssize_t)len) {
        free(buf);
        return NULL;
    }
    resp = MHD_create_response_from_buffer((size_t)len, buf,
                                           MHD_RESPMEM_MUST_FREE);
    if (!resp)
        free(buf);
    return resp;
}

/*
 * The body of @len bytes at @start of the plan's fd, which the response
 * takes over (or which is closed here): from memory when small, else by
 * sendfile, or in TLS blocks on an HTTPS connection (no sendfile there).
 */
static struct MHD_Response *body(struct req *r, unsigned status, uint64_t start,
                                 uint64_t len)
{
    struct plan *p = r->plan;
    struct MHD_Response *resp = NULL;

    if (len == 0) {
        plan_close(p);
        return MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    }
    if (len <= RESPOND_SMALL_MAX && status != STATUS_NOT_MODIFIED &&
        r->method == HTTP_GET)
        resp = small_body(p->fd, start, len);
    if (resp) {
        plan_close(p);
        return resp;
    }
    if (r->tls)
        resp = tls_body_response(p->fd, start, len);
    else
        resp =
            MHD_create_response_from_fd_at_offset64(len, p->fd, (int64_t)start);
    if (resp)
        p->fd = -1; /* the response owns it now */
    return resp;
}

/* The validators of the plan's file: ETag (with its Repr-Digest). */
static void validators(struct req *r, char etag[ETAG_LEN],
                       struct etag_value *ev)
{
    const struct plan *p = r->plan;

    if (r->conf->etags) {
        /* On a read error the value still holds the mtime-size ETag. */
        etag_cache_get(r->conf->etags, p->fd, &p->st,
                       etag_cache_want_digest(header(r, "Want-Repr-Digest")),
                       ev);
        memcpy(etag, ev->etag, ETAG_LEN);
    } else {
        etag_cache_mtime_etag(&p->st, etag);
    }
    if (p->encoding && etag[0]) {
        /* The variant's own validator, from its own bytes or stat, with
         * the coding named: "...-br". */
        size_t n = strlen(etag);
        snprintf(etag + n - 1, ETAG_LEN - (n - 1), "-%s\"", p->encoding);
    }
}

static enum MHD_Result unsatisfiable(struct req *r, uint64_t size)
{
    char crange[80];
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);

    if (!resp)
        return MHD_NO;
    snprintf(crange, sizeof crange, "bytes */%" PRIu64, size);
    MHD_add_response_header(resp, "Content-Range", crange);
    return queue(r, STATUS_RANGE_NOT_SATISFIABLE, resp, 0);
}

/* A regular file: validators, conditionals, Range, body. */
static enum MHD_Result file(struct req *r)
{
    const struct plan *p = r->plan;
    char etag[ETAG_LEN], lastmod[DATE_LEN], crange[80];
    uint64_t size = (uint64_t)p->st.st_size, start = 0, len = size;
    unsigned status = STATUS_OK;
    struct etag_value ev = {0};
    const char *range;

    validators(r, etag, &ev);
    date_format(p->st.st_mtim.tv_sec, lastmod);
    struct cond_request cr = {
        .if_match = header(r, "If-Match"),
        .if_none_match = header(r, "If-None-Match"),
        .if_modified_since = header(r, "If-Modified-Since"),
        .if_unmodified_since = header(r, "If-Unmodified-Since"),
    };
    int c = cond_evaluate(&cr, etag, p->st.st_mtim.tv_sec);
    if (c == STATUS_PRECONDITION_FAILED)
        return simple(r, STATUS_PRECONDITION_FAILED);
    if (c == STATUS_NOT_MODIFIED) {
        status = STATUS_NOT_MODIFIED;
    } else if ((range = header(r, "Range")) &&
               range_if_range(header(r, "If-Range"), etag,
                              p->st.st_mtim.tv_sec)) {
        switch (range_parse(range, size, &start, &len)) {
        case RANGE_SINGLE:
            status = STATUS_PARTIAL_CONTENT;
            snprintf(crange, sizeof crange,
                     "bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64, start,
                     start + len - 1, size);
            break;
        case RANGE_UNSATISFIABLE:
            return unsatisfiable(r, size);
        case RANGE_NONE:
            break;
        }
    }

    struct MHD_Response *resp = body(r, status, start, len);
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, "Content-Type", mime_type(p->name));
    MHD_add_response_header(resp, "Last-Modified", lastmod);
    if (etag[0])
        MHD_add_response_header(resp, "ETag", etag);
    if (ev.repr_digest[0])
        MHD_add_response_header(resp, "Repr-Digest", ev.repr_digest);
    MHD_add_response_header(resp, "Accept-Ranges", "bytes");
    if (p->encoding)
        MHD_add_response_header(resp, "Content-Encoding", p->encoding);
    const char *cc =
        r->conf->cache ? cache_rules_match(r->conf->cache, p->name) : NULL;
    if (cc)
        MHD_add_response_header(resp, "Cache-Control", cc);
    if (status == STATUS_PARTIAL_CONTENT)
        MHD_add_response_header(resp, "Content-Range", crange);
    return queue(r, status, resp, len);
}

/* A file sent whole as the body of an error status (/404.html). */
static enum MHD_Result page(struct req *r)
{
    struct plan *p = r->plan;
    uint64_t size = (uint64_t)p->st.st_size;
    struct MHD_Response *resp =
        MHD_create_response_from_fd_at_offset64(size, p->fd, 0);

    if (!resp)
        return simple(r, p->status);
    p->fd = -1; /* the response owns it now */
    MHD_add_response_header(resp, "Content-Type", "text/html; charset=utf-8");
    return queue(r, p->status, resp, size);
}

static enum MHD_Result listing(struct req *r)
{
    struct plan *p = r->plan;
    struct listing l = {0};
    char *text = NULL;
    size_t len = 0;
    int err = listing_collect(p->fd, r->conf->files.dotfiles, &l);

    plan_close(p);
    if (!err)
        err = p->json ? listing_json(&l, p->name, &text, &len)
                      : listing_html(&l, p->name, &text, &len);
    listing_free(&l);
    if (err) {
        r->res->err = -err;
        return simple(r, STATUS_INTERNAL_SERVER_ERROR);
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
    return queue(r, STATUS_OK, resp, len);
}

static enum MHD_Result redirect(struct req *r)
{
    static const char html[] = "<!DOCTYPE html>\n<html><head><title>301 Moved "
                               "Permanently</title></head><body><h1>301 Moved "
                               "Permanently</h1></body></html>\n";
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        sizeof html - 1, (void *)(uintptr_t)html, MHD_RESPMEM_PERSISTENT);

    if (resp) {
        MHD_add_response_header(resp, "Location", r->plan->location);
        MHD_add_response_header(resp, "Content-Type",
                                "text/html; charset=utf-8");
    }
    return queue(r, STATUS_MOVED_PERMANENTLY, resp, sizeof html - 1);
}

/* Emit @r->plan, then release it. */
static enum MHD_Result emit(struct req *r)
{
    struct plan *p = r->plan;
    enum MHD_Result ret = MHD_NO;

    r->res->err = p->err;
    r->res->backend = p->backend;
    switch (p->kind) {
    case PLAN_STATUS:
        ret = simple(r, p->status);
        break;
    case PLAN_FILE:
        ret = file(r);
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
            return simple(r, STATUS_INTERNAL_SERVER_ERROR);
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
    return queue(r, STATUS_OK, resp, len);
}

static enum MHD_Result options(struct req *r)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);

    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, "Allow", HTTP_ALLOW);
    return queue(r, STATUS_NO_CONTENT, resp, 0);
}

enum MHD_Result respond_status(struct MHD_Connection *c,
                               const struct respond_conf *conf, unsigned status,
                               enum http_method method,
                               struct respond_result *res)
{
    struct req r = {.c = c, .conf = conf, .method = method, .res = res};

    memset(res, 0, sizeof *res);
    return simple(&r, status);
}

enum MHD_Result respond_request(struct MHD_Connection *c,
                                const struct respond_conf *conf, int root_fd,
                                struct resolver_cache *dir_cache,
                                enum http_method method, const char *raw,
                                char *buf, size_t size,
                                struct respond_result *res)
{
    struct req r = {.c = c,
                    .conf = conf,
                    .method = method,
                    .res = res,
                    .tls = tls_connection(c)};
    struct target t;
    struct plan p;
    struct files_request rq = {
        .root_fd = root_fd,
        .cache = dir_cache,
        .method = method,
        .target = &t,
    };

    memset(res, 0, sizeof *res);
    if (method == HTTP_OTHER)
        return simple(&r, STATUS_METHOD_NOT_ALLOWED);
    unsigned flags = (method == HTTP_OPTIONS ? TARGET_OPTIONS : 0) |
                     (conf->files.dotfiles ? 0 : TARGET_DENY_DOTFILES);
    int status = target_decode(raw, flags, buf, size, &t);
    if (status) {
        r.plan = &p;
        files_lookup_status(&conf->files, &rq, (unsigned)status, &p);
        return emit(&r);
    }
    if (method == HTTP_OPTIONS)
        return options(&r);
    if (conf->health && strcmp(t.path, conf->health) == 0)
        return builtin(&r, false);
    if (conf->metrics_path && conf->metrics &&
        strcmp(t.path, conf->metrics_path) == 0)
        return builtin(&r, true);
    rq.accept = header(&r, "Accept");
    rq.accept_encoding = header(&r, "Accept-Encoding");
    r.plan = &p;
    files_lookup(&conf->files, &rq, &p);
    return emit(&r);
}
