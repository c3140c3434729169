// SPDX-License-Identifier: MIT
/*
 * respond_file.c - a regular file's response: validators (the content ETag,
 * the variant's tag), conditionals, Range and several ranges, the body
 * (from memory for small files, sendfile otherwise, a compressed body from
 * the compression cache), and the reply cache of ready small 200s.
 *
 * A 304 is queued with a response of the file's size: libmicrohttpd sends
 * the response's size as Content-Length even for 304, and RFC 9110 8.6
 * allows only the length a 200 would have had.
 */
#include "byteranges.h"
#include "compress.h"
#include "cond.h"
#include "date.h"
#include "etag_cache.h"
#include "field.h"
#include "mime.h"
#include "negotiate.h"
#include "range.h"
#include "reply_cache.h"
#include "respond_internal.h"
#include "status.h"
#include "tls.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    const char *f[] = {req_header(r, "If-None-Match"),
                       req_header(r, "If-Match"), req_header(r, "If-Range")};

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
        bool digest = etag_cache_want_digest(req_header(r, "Want-Repr-Digest"));
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
    return req_queue(r, STATUS_RANGE_NOT_SATISFIABLE, resp, 0);
}

/*
 * Whether the 200 of this request may come from, or go into, the thread's
 * reply cache: a GET or HEAD of a small file, without the headers that
 * depend on the request (Server-Timing, HSTS over TLS, a variant's Vary and
 * Content-Encoding, Repr-Digest, a --cors list's answer to an Origin).
 */
static bool reusable(struct req *r)
{
    const struct plan *p = r->plan;

    return (r->method == HTTP_GET || r->method == HTTP_HEAD) && !r->tls &&
           !r->conf->server_timing && !p->encoding && !p->vary_encoding &&
           p->st.st_size > 0 &&
           (uint64_t)p->st.st_size <= REPLY_CACHE_BODY_MAX &&
           !req_header(r, "Want-Repr-Digest") && !r->cors.per_origin &&
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
    req_common_headers(r, resp);
    kept =
        reply_cache_keep(r->conf->serial, p->fd, &p->st, type, cc, etag, resp);
    if (kept && r->conf->metrics)
        metrics_count_reply(r->conf->metrics, false);
    plan_close(p);
    return req_deliver(r, STATUS_OK, resp, size, kept);
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
        !mime_map_compressible(r->conf->files.mime, p->name))
        return false;
    r->vary_compress = true;
    negotiate_parse(req_header(r, "Accept-Encoding"), &a);
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
 * (libmicrohttpd sends no body for it). Whether it answered (*@ret its
 * result); false, and nothing queued, when the set cannot be written as
 * parts.
 */
static bool byteranges(struct req *r, const struct range_set *rs,
                       const char *type, const char *cc, const char *etag,
                       const struct etag_value *ev, enum MHD_Result *ret)
{
    struct plan *p = r->plan;
    struct multipart m;
    char boundary[MULTIPART_BOUNDARY_LEN + 1], ctype[MULTIPART_CTYPE_LEN];
    struct MHD_Response *resp;

    byteranges_boundary(boundary);
    /* a type too long for a part header: the caller sends the whole file */
    if (multipart_init(&m, rs, (uint64_t)p->st.st_size, type, boundary) != 0)
        return false;
    *ret = MHD_NO;
    resp = byteranges_response(p->fd, &m);
    if (!resp)
        return true;
    p->fd = -1; /* the response owns it now */
    multipart_content_type(&m, ctype);
    file_headers(r, resp, true, ctype, cc, etag, ev);
    *ret = req_queue(r, STATUS_PARTIAL_CONTENT, resp, m.total);
    return true;
}

/* The Cache-Control of --cache for the file; a headers file's Cache-Control
 * for the path wins over it. */
static const char *cache_control(struct req *r)
{
    if (!r->conf->cache ||
        (r->ah && access_headers_sets(r->ah, "Cache-Control")))
        return NULL;
    return cache_rules_match(r->conf->cache, r->plan->name);
}

/*
 * The variant compressed on the fly in @enc, when the cache has it or makes
 * it now: the response is then the variant's, with its own tags (@etag and
 * @alt rewritten) and no identity digest. NULL: the identity file.
 */
static struct compress_body *variant(struct req *r, enum negotiate_encoding enc,
                                     char etag[ETAG_LEN], char alt[ETAG_LEN],
                                     struct etag_value *ev)
{
    struct compress_body *cb = compressed(r, enc, etag, ev->pending);

    if (!cb)
        return NULL;
    r->plan->encoding = negotiate_token(enc);
    r->res->encoding = r->plan->encoding; /* for the log and metrics */
    variant_tag(r->plan, etag);
    alt_tag(r->plan, etag, alt);
    ev->repr_digest[0] = '\0';
    return cb;
}

/* The conditionals against the current @tags: 0, 304 or 412. */
static int conditionals(struct req *r, const char *const *tags, size_t n)
{
    struct cond_request cr = {
        .if_match = req_header(r, "If-Match"),
        .if_none_match = req_header(r, "If-None-Match"),
        .if_modified_since = req_header(r, "If-Modified-Since"),
        .if_unmodified_since = req_header(r, "If-Unmodified-Since"),
    };

    return cond_evaluate_any(&cr, tags, n, r->plan->st.st_mtim.tv_sec);
}

/* The Range asked for, over @size bytes: RANGE_NONE without one, or when
 * If-Range names another version than @tags. */
static enum range_result wanted_range(struct req *r, uint64_t size,
                                      const char *const *tags, size_t n,
                                      struct range_set *rs)
{
    const char *range = req_header(r, "Range");

    if (!range || !range_if_range_any(req_header(r, "If-Range"), tags, n,
                                      r->plan->st.st_mtim.tv_sec))
        return RANGE_NONE;
    return range_plan(range, size, rs);
}

/* A regular file: validators, conditionals, Range, body. */
enum MHD_Result respond_file(struct req *r)
{
    const struct plan *p = r->plan;
    char etag[ETAG_LEN], alt[ETAG_LEN], crange[80];
    uint64_t size = (uint64_t)p->st.st_size, start = 0, len = size;
    unsigned status = STATUS_OK;
    struct etag_value ev = {0};
    struct range_set rs;
    enum MHD_Result multi;
    const char *type = mime_map_type(r->conf->files.mime, p->name);
    const char *cc = cache_control(r);
    enum negotiate_encoding enc;
    bool otf = on_the_fly(r, &enc);
    /* the reply cache holds identity bodies only */
    bool reuse = !otf && reusable(r);
    struct reply_hit hit = {0};

    if (reuse && reply_cache_find(r->conf->serial, &p->st, type, cc, &hit)) {
        memcpy(etag, hit.etag, strlen(hit.etag) + 1); /* < ETAG_LEN */
        alt_tag(p, etag, alt);
    } else {
        validators(r, etag, alt, &ev);
    }
    struct compress_body *cb = otf ? variant(r, enc, etag, alt, &ev) : NULL;
    if (cb)
        size = len = cb->len;
    const char *tags[2] = {etag, alt};
    size_t n_tags = alt[0] ? 2 : 1;
    int c = conditionals(r, tags, n_tags);
    if (c == STATUS_PRECONDITION_FAILED) {
        compress_body_put(cb);
        return req_simple(r, STATUS_PRECONDITION_FAILED);
    }
    if (c == STATUS_NOT_MODIFIED) {
        status = STATUS_NOT_MODIFIED;
    } else {
        switch (wanted_range(r, size, tags, n_tags, &rs)) {
        case RANGE_MULTI:
            /* a coded variant's parts would read as coded bodies: whole */
            if (!p->encoding && byteranges(r, &rs, type, cc, etag, &ev, &multi))
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
        return req_deliver(r, STATUS_OK, hit.resp, size, true);
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
    return req_queue(r, status, resp, len);
}
