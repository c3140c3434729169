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

#include "byteranges.h"
#include "cond.h"
#include "date.h"
#include "field.h"
#include "listing.h"
#include "listing_json.h"
#include "mime.h"
#include "range.h"
#include "reply_cache.h"
#include "status.h"
#include "target.h"
#include "tls.h"
#include "urlpath.h"

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
    struct plan *plan;  /* NULL for answers decided before any lookup */
    bool vary_accept;   /* the listing depends on Accept */
    bool vary_compress; /* the file is compressed on the fly for some */
    bool tls;           /* the connection is HTTPS */
    /* access rules (access.h); all NULL without any */
    const struct access_view *av;
    const char *norm;                /* the normalised request path */
    const char *challenge;           /* WWW-Authenticate of a 401 */
    const struct access_headers *ah; /* headers files' headers for norm */
};

static const char *header(struct req *r, const char *name)
{
    return MHD_lookup_connection_value(r->c, MHD_HEADER_KIND, name);
}

/* The headers every response carries. */
static void common_headers(struct req *r, struct MHD_Response *resp)
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
static enum MHD_Result deliver(struct req *r, unsigned status,
                               struct MHD_Response *resp, uint64_t body,
                               bool kept)
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
static enum MHD_Result queue(struct req *r, unsigned status,
                             struct MHD_Response *resp, uint64_t body)
{
    if (!resp)
        return MHD_NO;
    common_headers(r, resp);
    if (status == STATUS_UNAUTHORIZED && r->challenge)
        MHD_add_response_header(resp, "WWW-Authenticate", r->challenge);
    return deliver(r, status, resp, body, false);
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

/* The variant's own validator names its coding: "...-br". */
static void variant_tag(const struct plan *p, char etag[ETAG_LEN])
{
    if (p->encoding && etag[0]) {
        size_t n = strlen(etag);
        snprintf(etag + n - 1, ETAG_LEN - (n - 1), "-%s\"", p->encoding);
    }
}

/* Whether a precondition names an entity-tag other than @etag. */
static bool names_other_tag(struct req *r, const char *etag)
{
    const char *f[] = {header(r, "If-None-Match"), header(r, "If-Match"),
                       header(r, "If-Range")};

    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        const char *v = f[i] ? field_ows(f[i]) : NULL;
        if (v && (*v == '"' || strncmp(v, "W/", 2) == 0) &&
            !cond_etag_match(v, etag, true))
            return true;
    }
    return false;
}

/*
 * The second tag a request may name for the plan's file besides @etag: its
 * "mtime-size" tag (with the variant's coding), handed out while the content
 * hash was pending; "" when it is @etag itself.
 */
static void alt_tag(const struct plan *p, const char *etag, char alt[ETAG_LEN])
{
    alt[0] = '\0';
    if (!etag[0])
        return;
    etag_cache_mtime_etag(&p->st, alt);
    variant_tag(p, alt);
    if (strcmp(alt, etag) == 0)
        alt[0] = '\0';
}

/*
 * The validators of the plan's file: ETag (with its Repr-Digest), and in
 * @alt the other strong tag that stands for the same unchanged file, or "".
 *
 * A content ETag is computed in the background for a large file, and until
 * it is ready the file is answered with its "mtime-size" tag. Both tags
 * change only when the file's stat does, so both are accepted as long as
 * it does not: a tag handed out keeps matching when the hash finishes, and
 * after a restart (both are functions of the file alone). Hashing before
 * answering would stall the first request of every large file instead.
 */
static void validators(struct req *r, char etag[ETAG_LEN], char alt[ETAG_LEN],
                       struct etag_value *ev)
{
    const struct plan *p = r->plan;

    if (r->conf->etags) {
        bool digest = etag_cache_want_digest(header(r, "Want-Repr-Digest"));
        /* On a read error the value still holds the mtime-size ETag. */
        etag_cache_get(r->conf->etags, p->fd, &p->st, digest, ev);
        /*
         * The content hash is not known yet, and the request names a tag
         * that is not the provisional one (a content tag handed out before
         * a restart): hash now, once per file version, so that the tag
         * matches instead of costing the client the whole file again.
         */
        if (ev->pending && names_other_tag(r, ev->etag))
            etag_cache_get_now(r->conf->etags, p->fd, &p->st, digest, ev);
        memcpy(etag, ev->etag, ETAG_LEN);
    } else {
        etag_cache_mtime_etag(&p->st, etag);
    }
    variant_tag(p, etag);
    alt_tag(p, etag, alt);
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

/*
 * Whether the 200 of this request may come from, or go into, the thread's
 * reply cache: a GET or HEAD of a small file, without the headers that
 * depend on the request (Server-Timing, HSTS over TLS, a variant's Vary and
 * Content-Encoding, Repr-Digest).
 */
static bool reusable(struct req *r)
{
    const struct plan *p = r->plan;

    return (r->method == HTTP_GET || r->method == HTTP_HEAD) && !r->tls &&
           !r->conf->server_timing && !p->encoding && !p->vary_encoding &&
           p->st.st_size > 0 &&
           (uint64_t)p->st.st_size <= REPLY_CACHE_BODY_MAX &&
           !header(r, "Want-Repr-Digest") &&
           /* headers files give headers by request path, not by file */
           !(r->ah && access_headers_any(r->ah));
}

/* The headers of a file's response. */
static void file_headers(struct req *r, struct MHD_Response *resp, bool full,
                         const char *type, const char *cc, const char *etag,
                         const struct etag_value *ev)
{
    const struct plan *p = r->plan;
    char lastmod[DATE_LEN];

    /*
     * A 304 carries the validators and caching fields a 200 would, but no
     * other representation metadata (RFC 9110 15.4.5): no Content-Type,
     * Content-Encoding or Accept-Ranges, and Last-Modified only when there
     * is no ETag. Repr-Digest stays when asked for: it validates the
     * cached copy the 304 refreshes.
     */
    if (full)
        MHD_add_response_header(resp, "Content-Type", type);
    if (full || !etag[0]) {
        date_format(p->st.st_mtim.tv_sec, lastmod);
        MHD_add_response_header(resp, "Last-Modified", lastmod);
    }
    if (etag[0])
        MHD_add_response_header(resp, "ETag", etag);
    if (ev->repr_digest[0])
        MHD_add_response_header(resp, "Repr-Digest", ev->repr_digest);
    if (full)
        MHD_add_response_header(resp, "Accept-Ranges", "bytes");
    if (full && p->encoding)
        MHD_add_response_header(resp, "Content-Encoding", p->encoding);
    if (cc)
        MHD_add_response_header(resp, "Cache-Control", cc);
}

/*
 * The whole small file @size bytes long, read into memory, made into a
 * complete 200 response and queued; kept in the thread's reply cache when
 * reply_cache_keep agrees. MHD_NO with the fd untouched when the read fails.
 */
static enum MHD_Result fill(struct req *r, uint64_t size, const char *type,
                            const char *cc, const char *etag,
                            const struct etag_value *ev, bool *done)
{
    struct plan *p = r->plan;
    struct MHD_Response *resp = small_body(p->fd, 0, size);
    bool kept;

    *done = resp != NULL;
    if (!resp)
        return MHD_NO;
    file_headers(r, resp, true, type, cc, etag, ev);
    common_headers(r, resp);
    kept =
        reply_cache_keep(r->conf->serial, p->fd, &p->st, type, cc, etag, resp);
    if (kept && r->conf->metrics)
        metrics_count_reply(r->conf->metrics, false);
    plan_close(p);
    return deliver(r, STATUS_OK, resp, size, kept);
}

/*
 * Compression on the fly: whether the plan's file may be compressed for
 * some client (then every answer varies on Accept-Encoding), and into
 * @enc the coding this request gets, if any (returns false for identity).
 * A sidecar the lookup chose wins; only compressible types of
 * COMPRESS_MIN_SIZE..COMPRESS_MAX_SIZE bytes are compressed.
 */
static bool on_the_fly(struct req *r, enum negotiate_encoding *enc)
{
    const struct plan *p = r->plan;
    uint64_t size = (uint64_t)p->st.st_size;
    enum negotiate_encoding order[NEGOTIATE_N_ENCODINGS];
    struct negotiate_accept a;

    if (!r->conf->n_compress || p->encoding ||
        (r->method != HTTP_GET && r->method != HTTP_HEAD) ||
        size < COMPRESS_MIN_SIZE || size > COMPRESS_MAX_SIZE ||
        !mime_compressible(p->name))
        return false;
    r->vary_compress = true;
    negotiate_parse(header(r, "Accept-Encoding"), &a);
    if (negotiate_order(&a, r->conf->compress, r->conf->n_compress, order) == 0)
        return false;
    *enc = order[0];
    return true;
}

/*
 * The compressed body of the plan's file in @enc, with a reference for the
 * caller, or NULL: serve the identity body. Kept under the file's content
 * ETag @etag and the coding (plus the file's identity when the tag is not a
 * content hash yet); made here for a small file, queued for the background
 * thread for a larger one, which this request then gets uncompressed
 * (not while the content hash is @pending: the body is then made once, under
 * the content tag, rather than once under each tag).
 */
static struct compress_body *compressed(struct req *r,
                                        enum negotiate_encoding enc,
                                        const char *etag, bool pending)
{
    const struct plan *p = r->plan;
    struct compress_cache *cc = r->conf->compress_cache;
    char key[COMPRESS_KEY_LEN], mtag[ETAG_LEN];
    struct compress_body *b;

    etag_cache_mtime_etag(&p->st, mtag);
    if (etag[0] && strcmp(etag, mtag) != 0) {
        snprintf(key, sizeof key, "%s %s", etag, negotiate_token(enc));
    } else {
        snprintf(key, sizeof key, "%s %s %jx:%jx", mtag, negotiate_token(enc),
                 (uintmax_t)p->st.st_dev, (uintmax_t)p->st.st_ino);
    }
    b = compress_cache_get(cc, key);
    if (!b && (uint64_t)p->st.st_size <= COMPRESS_SYNC_MAX)
        b = compress_cache_make(cc, key, enc, p->fd, &p->st);
    else if (!b && !pending)
        compress_cache_queue(cc, key, enc, p->fd, &p->st);
    if (b && b->no_gain) {
        compress_body_put(b);
        b = NULL;
    }
    return b;
}

static void body_done(void *cls)
{
    compress_body_put(cls);
}

/* A response sending @len bytes at @start of @b (whose reference it takes
 * over; released here on failure). */
static struct MHD_Response *body_mem(struct compress_body *b, uint64_t start,
                                     uint64_t len)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer_with_free_callback_cls(
            (size_t)len, b->data + start, body_done, b);

    if (!resp)
        compress_body_put(b);
    return resp;
}

/*
 * Several ranges of the plan's file: one multipart/byteranges 206 streamed
 * from the fd, which the response takes over. HEAD gets the same headers
 * (libmicrohttpd sends no body for it). *@done false, and nothing queued,
 * when the set cannot be written as parts.
 */
static enum MHD_Result byteranges(struct req *r, const struct range_set *rs,
                                  const char *type, const char *cc,
                                  const char *etag, const struct etag_value *ev,
                                  bool *done)
{
    struct plan *p = r->plan;
    struct multipart m;
    char boundary[MULTIPART_BOUNDARY_LEN + 1], ctype[MULTIPART_CTYPE_LEN];
    struct MHD_Response *resp;

    byteranges_boundary(boundary);
    /* a type too long for a part header: the caller sends the whole file */
    *done =
        multipart_init(&m, rs, (uint64_t)p->st.st_size, type, boundary) == 0;
    if (!*done)
        return MHD_NO;
    resp = byteranges_response(p->fd, &m);
    if (!resp)
        return MHD_NO;
    p->fd = -1; /* the response owns it now */
    multipart_content_type(&m, ctype);
    file_headers(r, resp, true, ctype, cc, etag, ev);
    return queue(r, STATUS_PARTIAL_CONTENT, resp, m.total);
}

/* A regular file: validators, conditionals, Range, body. */
static enum MHD_Result file(struct req *r)
{
    const struct plan *p = r->plan;
    char etag[ETAG_LEN], alt[ETAG_LEN], crange[80];
    uint64_t size = (uint64_t)p->st.st_size, start = 0, len = size;
    unsigned status = STATUS_OK;
    struct etag_value ev = {0};
    const char *range;
    struct range_set rs;
    enum MHD_Result multi;
    bool sent;
    const char *type = mime_type(p->name);
    /* a headers file's Cache-Control for the path wins over --cache */
    const char *cc =
        r->conf->cache &&
                !(r->ah && access_headers_sets(r->ah, "Cache-Control"))
            ? cache_rules_match(r->conf->cache, p->name)
            : NULL;
    enum negotiate_encoding enc;
    bool otf = on_the_fly(r, &enc);
    /* the reply cache holds identity bodies only */
    bool reuse = !otf && reusable(r);
    struct reply_hit hit = {0};
    struct compress_body *cb = NULL;

    if (reuse && reply_cache_find(r->conf->serial, &p->st, type, cc, &hit)) {
        memcpy(etag, hit.etag, strlen(hit.etag) + 1); /* < ETAG_LEN */
        alt_tag(p, etag, alt);
    } else {
        validators(r, etag, alt, &ev);
    }
    if (otf)
        cb = compressed(r, enc, etag, ev.pending);
    if (cb) {
        /* the variant: its own tags, length and no identity digest */
        r->plan->encoding = negotiate_token(enc);
        r->res->encoding = r->plan->encoding; /* for the log and metrics */
        variant_tag(p, etag);
        alt_tag(p, etag, alt);
        ev.repr_digest[0] = '\0';
        size = len = cb->len;
    }
    const char *tags[2] = {etag, alt};
    size_t n_tags = alt[0] ? 2 : 1;
    struct cond_request cr = {
        .if_match = header(r, "If-Match"),
        .if_none_match = header(r, "If-None-Match"),
        .if_modified_since = header(r, "If-Modified-Since"),
        .if_unmodified_since = header(r, "If-Unmodified-Since"),
    };
    int c = cond_evaluate_any(&cr, tags, n_tags, p->st.st_mtim.tv_sec);
    if (c == STATUS_PRECONDITION_FAILED) {
        compress_body_put(cb);
        return simple(r, STATUS_PRECONDITION_FAILED);
    }
    if (c == STATUS_NOT_MODIFIED) {
        status = STATUS_NOT_MODIFIED;
    } else if ((range = header(r, "Range")) &&
               range_if_range_any(header(r, "If-Range"), tags, n_tags,
                                  p->st.st_mtim.tv_sec)) {
        switch (range_plan(range, size, &rs)) {
        case RANGE_MULTI:
            /* a coded variant's parts would read as coded bodies: whole */
            if (p->encoding)
                break;
            multi = byteranges(r, &rs, type, cc, etag, &ev, &sent);
            if (sent)
                return multi;
            break; /* not representable: the whole file */
        case RANGE_SINGLE:
            start = rs.v[0].start;
            len = rs.v[0].len;
            status = STATUS_PARTIAL_CONTENT;
            snprintf(crange, sizeof crange,
                     "bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64, start,
                     start + len - 1, size);
            break;
        case RANGE_UNSATISFIABLE:
            compress_body_put(cb);
            return unsatisfiable(r, size);
        case RANGE_NONE:
            break;
        }
    }
    if (status == STATUS_OK && hit.resp) {
        /* This very version, opened and fstat()ed for this request. */
        if (r->conf->metrics)
            metrics_count_reply(r->conf->metrics, true);
        return deliver(r, STATUS_OK, hit.resp, size, true);
    }
    if (status == STATUS_OK && reuse && r->method == HTTP_GET && !ev.pending) {
        bool done;
        enum MHD_Result ret = fill(r, size, type, cc, etag, &ev, &done);
        if (done)
            return ret;
    }

    struct MHD_Response *resp =
        cb ? body_mem(cb, start, len) : body(r, status, start, len);
    if (!resp)
        return MHD_NO;
    file_headers(r, resp, status != STATUS_NOT_MODIFIED, type, cc, etag, &ev);
    if (status == STATUS_PARTIAL_CONTENT)
        MHD_add_response_header(resp, "Content-Range", crange);
    return queue(r, status, resp, len);
}

/* A file sent whole as the body of an error status (an error page). */
static enum MHD_Result page(struct req *r)
{
    struct plan *p = r->plan;
    uint64_t size = (uint64_t)p->st.st_size;
    struct MHD_Response *resp =
        MHD_create_response_from_fd_at_offset64(size, p->fd, 0);

    if (!resp)
        return simple(r, p->status);
    p->fd = -1; /* the response owns it now */
    MHD_add_response_header(resp, "Content-Type", mime_type(p->name));
    return queue(r, p->status, resp, size);
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

/* A redirect with @status to @location, and a small body naming it. */
static enum MHD_Result redirect_to(struct req *r, unsigned status,
                                   const char *location)
{
    char html[256];
    int n = snprintf(html, sizeof html,
                     "<!DOCTYPE html>\n<html><head><title>%u %s</title>"
                     "</head><body><h1>%u %s</h1></body></html>\n",
                     status, status_reason((int)status), status,
                     status_reason((int)status));
    struct MHD_Response *resp =
        MHD_create_response_from_buffer((size_t)n, html, MHD_RESPMEM_MUST_COPY);

    if (resp) {
        MHD_add_response_header(resp, "Location", location);
        MHD_add_response_header(resp, "Content-Type",
                                "text/html; charset=utf-8");
    }
    return queue(r, status, resp, (uint64_t)n);
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
        status = (int)access_auth(r->av, norm, header(r, "Authorization"),
                                  r->res->user, sizeof r->res->user);
    if (status == STATUS_UNAUTHORIZED)
        r->challenge = access_challenge(r->av);
    if (!status && access_hidden_name(r->av, norm))
        status = STATUS_NOT_FOUND;
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
                    .av = site->view.a ? &site->view : NULL};
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
        return simple(&r, STATUS_METHOD_NOT_ALLOWED);
    unsigned flags = (method == HTTP_OPTIONS ? TARGET_OPTIONS : 0) |
                     (conf->files.dotfiles ? 0 : TARGET_DENY_DOTFILES);
    int status = target_decode(raw, flags, buf, size, &t);
    if (status)
        return status_page(&r, &rq, (unsigned)status);
    if (method == HTTP_OPTIONS)
        return options(&r);
    if (conf->health && strcmp(t.path, conf->health) == 0)
        return builtin(&r, false);
    if (r.av) {
        /* rules match the lexically normalised path: /a/../b is /b */
        size_t need = strlen(t.path) + 3;
        char *np = need <= sizeof small ? small : (norm = malloc(need));

        if (!np || urlpath_normalize(t.path, t.slash, np, need)) {
            free(norm);
            return status_page(&r, &rq, STATUS_INTERNAL_SERVER_ERROR);
        }
        r.norm = np;
        access_headers(r.av, np, &ah);
        r.ah = &ah;
        status = (int)access_auth(r.av, np, header(&r, "Authorization"),
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
    rq.accept = header(&r, "Accept");
    rq.accept_encoding = header(&r, "Accept-Encoding");
    ret = r.av ? with_rules(&r, &rq, flags, &t) : lookup_emit(&r, &rq);
    free(norm);
    return ret;
}
