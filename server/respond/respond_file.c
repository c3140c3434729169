// SPDX-License-Identifier: MIT
/*
 * respond_file.c - a regular file's reply: validators (the content ETag,
 * the variant's tag), conditionals, Range and several ranges, the body
 * (the file's fd from an offset, a compressed body from the compression
 * cache, a multipart plan), and the reply cache of ready small 200s.
 *
 * A 304 keeps the length a 200 would have had (RFC 9110 8.6): the reply's
 * length is the file's, its body is dropped.
 */
#include "files/compress.h"
#include "files/etag_cache.h"
#include "http/cond.h"
#include "http/date.h"
#include "http/field.h"
#include "http/multipart.h"
#include "http/negotiate.h"
#include "http/range.h"
#include "http/status.h"
#include "respond/reply_cache.h"
#include "respond/respond_internal.h"
#include "syntax/mime.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

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
    const char *f[] = {req_field(r, RF_IF_NONE_MATCH),
                       req_field(r, RF_IF_MATCH), req_field(r, RF_IF_RANGE)};

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
 * "mtime-size" tag (with the variant's coding), which earlier versions
 * handed out while the content hash was pending; "" when it is @etag
 * itself, when there is no @etag, or when @r names no tag (If-Match,
 * If-None-Match, If-Range): only those fields compare it.
 */
static void alt_tag(const struct req *r, const char *etag, char alt[ETAG_LEN])
{
    const struct plan *p = r->plan;

    alt[0] = '\0';
    if (!etag[0] ||
        (!req_field(r, RF_IF_MATCH) && !req_field(r, RF_IF_NONE_MATCH) &&
         !req_field(r, RF_IF_RANGE)))
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
 * it is ready the file is answered without an ETag (etag_cache.h): the one
 * tag a file is ever sent with is its content tag, which never changes
 * under a client while the file does not. Hashing before answering would
 * stall the first request of every large file instead (bench/
 * etag_first_byte.sh: 300 MiB cold, docs/wire.md). The "mtime-size" tag
 * earlier versions sent meanwhile is still accepted as @alt.
 */
static void validators(struct req *r, char etag[ETAG_LEN], char alt[ETAG_LEN],
                       struct etag_value *ev)
{
    const struct plan *p = r->plan;

    if (r->conf->etags) {
        bool digest = etag_cache_want_digest(req_field(r, RF_WANT_REPR_DIGEST));
        /* On a read error the value holds no content ETag. */
        etag_cache_get(r->conf->etags, p->fd, &p->st, digest, ev);
        /*
         * The content hash is not known yet, and the request names a tag
         * (a content tag handed out before a restart): hash now, once per
         * file version, so that the tag matches instead of costing the
         * client the whole file again.
         */
        if (ev->pending && names_other_tag(r, ev->etag))
            etag_cache_get_now(r->conf->etags, p->fd, &p->st, digest, ev);
        memcpy(etag, ev->etag, ETAG_LEN);
    } else {
        etag_cache_mtime_etag(&p->st, etag);
    }
    variant_tag(p, etag);
    alt_tag(r, etag, alt);
}

static void unsatisfiable(struct req *r, uint64_t size)
{
    reply_addf(r->out, "Content-Range", "bytes */%" PRIu64, size);
    plan_close(r->plan);
    req_finish(r, STATUS_RANGE_NOT_SATISFIABLE);
}

/*
 * Whether the 200 of this request may come from, or go into, the thread's
 * reply cache: a GET or HEAD of a small file, without the headers that
 * depend on the request (Server-Timing, HSTS over TLS, a variant's Vary and
 * Content-Encoding, Repr-Digest, a --cors list's answer to an Origin).
 * respond/reply_cache.h is the one place that says what a kept reply may
 * depend on.
 */
static bool reusable(struct req *r)
{
    const struct plan *p = r->plan;

    return (r->rq->method == HTTP_GET || r->rq->method == HTTP_HEAD) &&
           !(r->rq->tls && r->conf->hsts) && !r->conf->server_timing &&
           !p->encoding && !p->vary_encoding && p->st.st_size > 0 &&
           (uint64_t)p->st.st_size <= REPLY_CACHE_BODY_MAX &&
           !req_field(r, RF_WANT_REPR_DIGEST) && !r->cors.per_origin &&
           /* headers files give headers by request path, not by file */
           !(r->ah && access_headers_any(r->ah));
}

/* What describes the file in a reply: its validators and metadata. */
struct file_meta {
    const char *type; /* Content-Type */
    const char *cc;   /* Cache-Control, or NULL */
    char etag[ETAG_LEN], alt[ETAG_LEN];
    struct etag_value ev;
};

/* The fields of a file's reply. */
static void file_headers(struct req *r, bool full, const struct file_meta *m,
                         const char *type)
{
    const struct plan *p = r->plan;
    struct reply *out = r->out;
    char lastmod[DATE_LEN];

    /*
     * A 304 carries the validators and caching fields a 200 would, but no
     * other representation metadata (RFC 9110 15.4.5): no Content-Type,
     * Content-Encoding or Accept-Ranges, and Last-Modified only when there
     * is no ETag. Repr-Digest stays when asked for: it validates the
     * cached copy the 304 refreshes.
     */
    if (full && type == m->type)
        reply_add(out, "Content-Type", type); /* the map's: lives on */
    else if (full)
        reply_addf(out, "Content-Type", "%s", type); /* the caller's buffer */
    if (full || !m->etag[0]) {
        date_format(p->st.st_mtim.tv_sec, lastmod);
        reply_addf(out, "Last-Modified", "%s", lastmod);
    }
    if (m->etag[0])
        reply_addf(out, "ETag", "%s", m->etag);
    if (m->ev.repr_digest[0])
        reply_addf(out, "Repr-Digest", "%s", m->ev.repr_digest);
    if (full)
        reply_add(out, "Accept-Ranges", "bytes");
    if (full && p->encoding)
        reply_add(out, "Content-Encoding", p->encoding);
    if (m->cc)
        reply_add(out, "Cache-Control", m->cc);
}

/*
 * The whole small file, @size bytes long, read into memory and made into a
 * complete 200, kept in the thread's reply cache when reply_cache_keep
 * agrees. False, and nothing changed, when the read comes up short (the
 * file changed since the fstat) or fails: the caller sends from the fd.
 */
static bool fill(struct req *r, uint64_t size, const struct file_meta *m)
{
    struct plan *p = r->plan;
    char *buf = malloc((size_t)size);
    ssize_t got;

    if (!buf)
        return false;
    do
        got = pread(p->fd, buf, (size_t)size, 0);
    while (got < 0 && errno == EINTR);
    if (got != (ssize_t)size) {
        free(buf);
        return false;
    }
    reply_set_bytes(r->out, buf, size, free, buf);
    file_headers(r, true, m, m->type);
    req_finish(r, STATUS_OK);
    if (!r->out->failed &&
        reply_cache_keep(r->conf->serial, p->fd, &p->st, m->type, m->cc,
                         m->etag, r->out) &&
        r->conf->metrics)
        metrics_count_reply(r->conf->metrics, false);
    plan_close(p);
    return true;
}

/*
 * Compression on the fly: whether the plan's file may be compressed for
 * some client (then every answer varies on Accept-Encoding), and into
 * @enc the coding this request gets, if any (returns false for identity).
 * A sidecar the lookup chose wins; only compressible types of
 * COMPRESS_MIN_SIZE..COMPRESS_MAX_SIZE bytes are compressed.
 */
static bool on_the_fly(struct req *r, enum coding *enc)
{
    const struct plan *p = r->plan;
    uint64_t size = (uint64_t)p->st.st_size;
    enum coding order[CODING_N];
    struct negotiate_accept a;

    if (!r->conf->n_compress || p->encoding ||
        (r->rq->method != HTTP_GET && r->rq->method != HTTP_HEAD) ||
        size < COMPRESS_MIN_SIZE || size > COMPRESS_MAX_SIZE ||
        !mime_map_compressible(r->conf->files.mime, p->name))
        return false;
    r->vary_compress = true;
    negotiate_parse(req_field(r, RF_ACCEPT_ENCODING), &a);
    if (negotiate_order(&a, r->conf->compress, r->conf->n_compress, order) == 0)
        return false;
    *enc = order[0];
    return true;
}

/*
 * Whether this request may get the plan's file coded as it is sent
 * (compress_stream) while no compressed body is kept yet: a GET or HEAD
 * without Range (ranges of a body not made yet cannot be cut: those get
 * the identity file), of a file whose body the cache would keep (a larger
 * one would be coded again for every request).
 */
static bool streamable(struct req *r)
{
    return (r->rq->method == HTTP_GET || r->rq->method == HTTP_HEAD) &&
           !req_field(r, RF_RANGE) &&
           compress_cache_fits(r->conf->compress_cache,
                               (uint64_t)r->plan->st.st_size);
}

/*
 * The cache keys of the plan's file in @enc: @key under its content tag
 * @etag when there is one; @vkey under the file's version (its mtime-size
 * tag, device, inode and ctime, which any change of the file moves), the
 * key without a content tag, and the one a body made while the content
 * hash was pending is kept under.
 */
static void keys(const struct plan *p, enum coding enc, const char *etag,
                 char key[COMPRESS_KEY_LEN], char vkey[COMPRESS_KEY_LEN])
{
    char mtag[ETAG_LEN];

    etag_cache_mtime_etag(&p->st, mtag);
    snprintf(vkey, COMPRESS_KEY_LEN, "%s %s %jx:%jx %jx.%09ld", mtag,
             coding_token(enc), (uintmax_t)p->st.st_dev,
             (uintmax_t)p->st.st_ino, (uintmax_t)p->st.st_ctim.tv_sec,
             p->st.st_ctim.tv_nsec);
    if (etag[0] && strcmp(etag, mtag) != 0)
        snprintf(key, COMPRESS_KEY_LEN, "%s %s", etag, coding_token(enc));
    else
        memcpy(key, vkey, COMPRESS_KEY_LEN);
}

/*
 * The compressed body of the plan's file in @enc, with a reference for the
 * caller (*@cb), or, while none is kept, the file coded as it is sent: a
 * GET's stream (*@cs, which owns the plan's fd from now on and makes the
 * body to keep), a HEAD's promise of one (*@cs NULL). Returns false for
 * the identity file.
 *
 * A body is kept under the content ETag @etag and the coding, or, while
 * the content hash is @pending, under the file's version (keys): made here
 * for a small file, as it is sent for a larger one, or by the background
 * thread for a request that cannot be streamed (a Range: it gets the
 * identity file); not queued while the hash is pending, so that it is made
 * once rather than under each key.
 */
static bool compressed(struct req *r, enum coding enc, const char *etag,
                       bool pending, struct compress_body **cb,
                       struct compress_stream **cs)
{
    struct plan *p = r->plan;
    struct compress_cache *cc = r->conf->compress_cache;
    char key[COMPRESS_KEY_LEN], vkey[COMPRESS_KEY_LEN];
    struct compress_body *b;
    bool coded = false;

    *cs = NULL;
    keys(p, enc, etag, key, vkey);
    b = compress_cache_get(cc, key, strcmp(key, vkey) ? vkey : NULL);
    if (!b && (uint64_t)p->st.st_size <= COMPRESS_SYNC_MAX) {
        b = compress_cache_make(cc, key, enc, p->fd, &p->st);
    } else if (!b && streamable(r) && r->rq->method == HTTP_GET &&
               compress_stream_open(cc, pending ? vkey : key, enc, p->fd,
                                    &p->st, cs) == 0) {
        p->fd = -1; /* the stream owns it now */
        coded = true;
    } else if (!b) {
        if (!pending)
            compress_cache_queue(cc, key, enc, p->fd, &p->st);
        /* a HEAD says what its GET would get: coded as it is sent */
        coded = streamable(r) && r->rq->method == HTTP_HEAD;
    }
    if (b && b->no_gain) {
        compress_body_put(b);
        b = NULL;
    }
    *cb = b;
    return coded || b;
}

static void body_put(void *b)
{
    compress_body_put(b);
}

/*
 * A fresh random boundary (getrandom), or one from the clock and a counter
 * when the kernel has no entropy to give yet.
 */
static void boundary(char out[MULTIPART_BOUNDARY_LEN + 1])
{
    static atomic_uint_fast64_t counter;
    unsigned char rnd[MULTIPART_RANDOM];

    if (getrandom(rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd) {
        /* Unique per process, not secret: the boundary only has to be
         * absent from the parts, and the parts are the client's file. */
        struct timespec ts;
        uint64_t c = atomic_fetch_add(&counter, 1);

        clock_gettime(CLOCK_REALTIME, &ts);
        memcpy(rnd, &ts.tv_sec, 8);
        memcpy(rnd + 8, &c, 4);
        memcpy(rnd + 12, &ts.tv_nsec, 4);
    }
    multipart_boundary(rnd, out);
}

/*
 * Several ranges of the plan's file: one multipart/byteranges 206 whose
 * parts the transport reads from the fd, which the reply takes over. HEAD
 * gets the same fields. False, and nothing answered, when the set cannot
 * be written as parts (a type too long for a part header: the caller sends
 * the whole file).
 */
static bool byteranges(struct req *r, const struct range_set *rs,
                       const struct file_meta *m)
{
    struct plan *p = r->plan;
    struct multipart *mp = malloc(sizeof *mp);
    char b[MULTIPART_BOUNDARY_LEN + 1], ctype[MULTIPART_CTYPE_LEN];

    if (!mp)
        return false;
    boundary(b);
    if (multipart_init(mp, rs, (uint64_t)p->st.st_size, m->type, b) != 0) {
        free(mp);
        return false;
    }
    multipart_content_type(mp, ctype);
    r->out->body = REPLY_BODY_MULTIPART;
    r->out->mp = mp;
    r->out->fd = p->fd;
    p->fd = -1; /* the reply owns it now */
    r->out->length = mp->total;
    file_headers(r, true, m, ctype);
    req_finish(r, STATUS_PARTIAL_CONTENT);
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

static ssize_t stream_read(void *cs, char *buf, size_t n)
{
    return compress_stream_read(cs, buf, n);
}

static void stream_close(void *cs)
{
    compress_stream_close(cs);
}

/*
 * The variant compressed on the fly in @enc: the body the cache has or
 * makes now (*@cb, with a reference), or, while it has none, the file
 * coded as it is sent (*@cs, a GET's, owning the plan's fd from now on;
 * NULL for a HEAD, which sends no body). The reply is then the variant's,
 * with its own tags (@m's etag and alt rewritten) and no identity digest.
 * False, with neither: the identity file.
 */
static bool variant(struct req *r, enum coding enc, struct file_meta *m,
                    struct compress_body **cb, struct compress_stream **cs)
{
    struct plan *p = r->plan;

    if (!compressed(r, enc, m->etag, m->ev.pending, cb, cs))
        return false;
    p->encoding = coding_token(enc);
    r->out->res.encoding = p->encoding; /* for the log and metrics */
    variant_tag(p, m->etag);
    alt_tag(r, m->etag, m->alt);
    m->ev.repr_digest[0] = '\0';
    return true;
}

/* The conditionals against the current @tags: 0, 304 or 412. */
static int conditionals(struct req *r, const char *const *tags, size_t n)
{
    struct cond_request cr = {
        .if_match = req_field(r, RF_IF_MATCH),
        .if_none_match = req_field(r, RF_IF_NONE_MATCH),
        .if_modified_since = req_field(r, RF_IF_MODIFIED_SINCE),
        .if_unmodified_since = req_field(r, RF_IF_UNMODIFIED_SINCE),
    };

    return cond_evaluate_any(&cr, tags, n, r->plan->st.st_mtim.tv_sec);
}

/* The Range asked for, over @size bytes: RANGE_NONE without one, or when
 * If-Range names another version than @tags. */
static enum range_result wanted_range(struct req *r, uint64_t size,
                                      const char *const *tags, size_t n,
                                      struct range_set *rs)
{
    const char *range = req_field(r, RF_RANGE);

    if (!range || !range_if_range_any(req_field(r, RF_IF_RANGE), tags, n,
                                      r->plan->st.st_mtim.tv_sec))
        return RANGE_NONE;
    return range_plan(range, size, rs);
}

/* The 200 of the reply cache's entry: its fields and body as they are. */
static void from_cache(struct req *r, struct reply_hit *hit)
{
    struct reply *out = r->out;

    if (r->conf->metrics)
        metrics_count_reply(r->conf->metrics, true);
    reply_use_hit(out, hit);
    plan_close(r->plan);
    out->status = out->res.status = STATUS_OK;
    out->res.cache_hit = true;
    if (r->rq->method == HTTP_HEAD)
        reply_drop_body(out);
    out->res.bytes = out->head ? 0 : out->length;
}

/* A regular file: validators, conditionals, Range, body. */
void respond_file(struct req *r)
{
    struct plan *p = r->plan;
    struct file_meta m = {.type = mime_map_type(r->conf->files.mime, p->name),
                          .cc = cache_control(r)};
    uint64_t size = (uint64_t)p->st.st_size, start = 0, len = size;
    unsigned status = STATUS_OK;
    struct range_set rs;
    enum coding enc = CODING_GZIP; /* set by on_the_fly */
    bool otf = on_the_fly(r, &enc);
    /* the reply cache holds identity bodies only */
    bool reuse = !otf && reusable(r);
    struct reply_hit hit = {0};

    if (reuse &&
        reply_cache_find(r->conf->serial, &p->st, m.type, m.cc, &hit)) {
        memcpy(m.etag, hit.etag, strlen(hit.etag) + 1); /* < ETAG_LEN */
        alt_tag(r, m.etag, m.alt);
    } else {
        validators(r, m.etag, m.alt, &m.ev);
    }
    struct compress_body *cb = NULL;
    struct compress_stream *cs = NULL;
    /* coded as it is sent: no length, no ranges (streamable) */
    bool streamed = otf && variant(r, enc, &m, &cb, &cs) && !cb;
    if (cb)
        size = len = cb->len;
    const char *tags[2] = {m.etag, m.alt};
    size_t n_tags = m.alt[0] ? 2 : 1;
    int c = conditionals(r, tags, n_tags);
    if (c == STATUS_PRECONDITION_FAILED) {
        compress_body_put(cb);
        compress_stream_close(cs);
        reply_hit_drop(&hit);
        plan_close(p);
        req_builtin_page(r, STATUS_PRECONDITION_FAILED);
        req_finish(r, STATUS_PRECONDITION_FAILED);
        return;
    }
    if (c == STATUS_NOT_MODIFIED) {
        status = STATUS_NOT_MODIFIED;
    } else if (!streamed) {
        switch (wanted_range(r, size, tags, n_tags, &rs)) {
        case RANGE_MULTI:
            /* a coded variant's parts would read as coded bodies: whole */
            if (!p->encoding && byteranges(r, &rs, &m)) {
                reply_hit_drop(&hit);
                return;
            }
            break; /* not representable: the whole file */
        case RANGE_SINGLE:
            start = rs.v[0].start;
            len = rs.v[0].len;
            status = STATUS_PARTIAL_CONTENT;
            break;
        case RANGE_UNSATISFIABLE:
            compress_body_put(cb);
            reply_hit_drop(&hit);
            unsatisfiable(r, size);
            return;
        case RANGE_NONE:
            break;
        }
    }
    if (status == STATUS_OK && hit.entry) {
        /* This very version, opened and fstat()ed for this request. */
        from_cache(r, &hit);
        return;
    }
    reply_hit_drop(&hit);
    if (status == STATUS_OK && reuse && r->rq->method == HTTP_GET &&
        !m.ev.pending && fill(r, size, &m))
        return;
    if (cb) {
        reply_set_bytes(r->out, (const char *)cb->data + start, len, body_put,
                        cb);
    } else if (cs) {
        reply_set_stream(r->out,
                         &(struct reply_stream){cs, stream_read, stream_close});
    } else if (streamed) {
        r->out->length = REPLY_LENGTH_UNKNOWN; /* a HEAD: no body */
    } else {
        reply_set_fd(r->out, p->fd, start, len);
        p->fd = -1; /* the reply owns it now */
    }
    file_headers(r, status != STATUS_NOT_MODIFIED, &m, m.type);
    if (status == STATUS_PARTIAL_CONTENT)
        reply_addf(r->out, "Content-Range",
                   "bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64, start,
                   start + len - 1, size);
    req_finish(r, status);
}
