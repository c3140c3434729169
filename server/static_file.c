// SPDX-License-Identifier: MIT
/*
 * static_file.c - one request: target -> resolver -> fstat -> response.
 *
 * Security decisions, all here:
 * - Every path, including the index file and 404.html, is opened by the
 *   confined resolver from the root fd; nothing is joined into a string
 *   path and opened, and nothing is stat()ed by name.
 * - O_NONBLOCK: a FIFO in the tree must never block a worker. It has no
 *   effect on regular files, so the fd goes to sendfile as it is.
 * - Only regular files are served; FIFOs, sockets and devices get 403.
 * - Precompressed sidecars (FILE.br ...), try-html candidates (guide.html)
 *   and the fallback file are paths like any other: opened by the resolver
 *   from the root, so a sidecar symlink that leaves the root is refused and
 *   the plain file is served instead.
 */
#include "static_file.h"

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
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define ALLOW "GET, HEAD, OPTIONS"

void static_file_etag(const struct stat *st, char buf[STATIC_FILE_ETAG_LEN])
{
    uint64_t ns = (uint64_t)st->st_mtim.tv_sec * 1000000000u +
                  (uint64_t)st->st_mtim.tv_nsec;

    snprintf(buf, STATIC_FILE_ETAG_LEN, "\"%" PRIx64 "-%" PRIx64 "\"", ns,
             (uint64_t)st->st_size);
}

enum static_file_method static_file_method(const char *method)
{
    if (strcmp(method, "GET") == 0)
        return STATIC_FILE_GET;
    if (strcmp(method, "HEAD") == 0)
        return STATIC_FILE_HEAD;
    if (strcmp(method, "OPTIONS") == 0)
        return STATIC_FILE_OPTIONS;
    return STATIC_FILE_OTHER;
}

/* The per-request context shared by the helpers below. */
struct req {
    struct MHD_Connection *c;
    const struct static_file_conf *conf;
    int root_fd;
    struct resolver_cache *dir_cache; /* for root_fd, or NULL */
    enum static_file_method method;
    struct static_file_result *res;
    uint64_t resolve_ns;  /* time spent in the resolver, for Server-Timing */
    const char *encoding; /* Content-Encoding of the variant served, or NULL */
    bool vary;            /* the file has variants: Vary: Accept-Encoding */
    bool vary_accept;     /* the listing depends on Accept */
    bool tls;             /* the connection is HTTPS */
};

static const char *header(struct req *r, const char *name)
{
    return MHD_lookup_connection_value(r->c, MHD_HEADER_KIND, name);
}

static int open_beneath(struct req *r, const char *path, int flags)
{
    struct resolver_how how = {
        .open_flags = flags,
        .resolve = r->conf->confine,
        .backend = RESOLVER_BACKEND_DEFAULT,
        .cache = r->dir_cache,
    };

    uint64_t t0 = metrics_now_ns(), ns;
    int fd = resolver_open_how(r->root_fd, path[0] ? path : ".", &how,
                               &r->res->backend);

    ns = metrics_now_ns() - t0;
    r->resolve_ns += ns;
    if (r->conf->metrics)
        metrics_count_resolve(r->conf->metrics, r->res->backend, ns, fd);
    return fd;
}

/* Queue @resp with @status and release our reference. */
static enum MHD_Result queue(struct req *r, unsigned status,
                             struct MHD_Response *resp, uint64_t body)
{
    enum MHD_Result ret;

    const struct headers_opt *h = r->conf->headers;

    if (!resp)
        return MHD_NO;
    if (!h || !headers_opt_find(h, "X-Content-Type-Options"))
        MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    for (size_t i = 0; h && i < h->n; i++)
        MHD_add_response_header(resp, h->v[i].name, h->v[i].value);
    if (r->vary || r->vary_accept)
        MHD_add_response_header(resp, "Vary",
                                r->vary && r->vary_accept
                                    ? "Accept-Encoding, Accept"
                                : r->vary ? "Accept-Encoding"
                                          : "Accept");
    if (r->conf->server_timing) {
        char st[64];

        snprintf(st, sizeof st, "resolve;dur=%.3f",
                 (double)r->resolve_ns / 1e6);
        MHD_add_response_header(resp, "Server-Timing", st);
    }
    if (r->tls && r->conf->hsts &&
        !(h && headers_opt_find(h, "Strict-Transport-Security"))) {
        char hsts[32];
        snprintf(hsts, sizeof hsts, "max-age=%u", r->conf->hsts);
        MHD_add_response_header(resp, "Strict-Transport-Security", hsts);
    }
    r->res->status = status;
    r->res->bytes =
        (r->method == STATIC_FILE_HEAD || status == 304 || status == 204)
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
        MHD_add_response_header(resp, "Allow", ALLOW);
    return queue(r, status, resp, (uint64_t)n);
}

static enum MHD_Result serve_file(struct req *r, int fd, const struct stat *st,
                                  const char *path);

/*
 * --fallback: a GET or HEAD that would be 404 gets this file with 200 (a
 * single-page app routes on the client). Through the resolver like any
 * path; if it is missing or refused, the 404 stands.
 */
static bool fallback(struct req *r, enum MHD_Result *ret)
{
    struct stat st;
    int fd;

    if (!r->conf->fallback ||
        (r->method != STATIC_FILE_GET && r->method != STATIC_FILE_HEAD))
        return false;
    fd = open_beneath(r, r->conf->fallback, O_RDONLY | O_NONBLOCK);
    if (fd < 0)
        return false;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return false;
    }
    r->res->err = 0;
    *ret = serve_file(r, fd, &st, r->conf->fallback);
    return true;
}

/* 404, with /404.html as the body when the root has one. */
static enum MHD_Result not_found(struct req *r)
{
    struct stat st;
    enum resolver_backend served = r->res->backend;
    enum MHD_Result ret;

    if (fallback(r, &ret))
        return ret;
    int fd = open_beneath(r, "404.html", O_RDONLY | O_NONBLOCK);

    /* The log names the backend that refused the request, not 404.html's. */
    r->res->backend = served;
    if (fd < 0)
        return simple(r, STATUS_NOT_FOUND);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
        close(fd);
        return simple(r, STATUS_NOT_FOUND);
    }
    struct MHD_Response *resp =
        MHD_create_response_from_fd_at_offset64((uint64_t)st.st_size, fd, 0);
    if (!resp) {
        close(fd);
        return simple(r, STATUS_NOT_FOUND);
    }
    MHD_add_response_header(resp, "Content-Type", "text/html; charset=utf-8");
    return queue(r, STATUS_NOT_FOUND, resp, (uint64_t)st.st_size);
}

/* The answer for a failed open or a refused request. */
static enum MHD_Result failure(struct req *r, int status)
{
    if (status == STATUS_NOT_FOUND)
        return not_found(r);
    return simple(r, (unsigned)status);
}

static enum MHD_Result refused(struct req *r, int err)
{
    r->res->err = err < 0 ? -err : err;
    return failure(r, status_from_errno(err));
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

/* Serve the regular file @fd (owned: always consumed) described by @st. */
static enum MHD_Result regular(struct req *r, int fd, const struct stat *st,
                               const char *name)
{
    char etag[ETAG_LEN], lastmod[DATE_LEN], crange[80];
    uint64_t size = (uint64_t)st->st_size, start = 0, len = size;
    unsigned status = STATUS_OK;
    struct MHD_Response *resp = NULL;
    struct etag_value ev = {0};

    if (r->conf->etags) {
        /* On a read error the value still holds the mtime-size ETag. */
        etag_cache_get(r->conf->etags, fd, st,
                       etag_cache_want_digest(header(r, "Want-Repr-Digest")),
                       &ev);
        memcpy(etag, ev.etag, sizeof etag);
    } else {
        static_file_etag(st, etag);
    }
    if (r->encoding && etag[0]) {
        /* The variant's own validator, from its own bytes or stat, with
         * the coding named: "...-br". */
        size_t n = strlen(etag);
        snprintf(etag + n - 1, sizeof etag - (n - 1), "-%s\"", r->encoding);
    }
    date_format(st->st_mtim.tv_sec, lastmod);

    struct cond_request cr = {
        .if_match = header(r, "If-Match"),
        .if_none_match = header(r, "If-None-Match"),
        .if_modified_since = header(r, "If-Modified-Since"),
        .if_unmodified_since = header(r, "If-Unmodified-Since"),
    };
    int c = cond_evaluate(&cr, etag, st->st_mtim.tv_sec);
    if (c == STATUS_PRECONDITION_FAILED) {
        close(fd);
        return simple(r, STATUS_PRECONDITION_FAILED);
    }
    if (c == STATUS_NOT_MODIFIED) {
        status = STATUS_NOT_MODIFIED;
    } else {
        const char *range = header(r, "Range");
        if (range &&
            range_if_range(header(r, "If-Range"), etag, st->st_mtim.tv_sec)) {
            switch (range_parse(range, size, &start, &len)) {
            case RANGE_SINGLE:
                status = STATUS_PARTIAL_CONTENT;
                snprintf(crange, sizeof crange,
                         "bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64, start,
                         start + len - 1, size);
                break;
            case RANGE_UNSATISFIABLE: {
                close(fd);
                snprintf(crange, sizeof crange, "bytes */%" PRIu64, size);
                resp = MHD_create_response_from_buffer(0, NULL,
                                                       MHD_RESPMEM_PERSISTENT);
                if (!resp)
                    return MHD_NO;
                MHD_add_response_header(resp, "Content-Range", crange);
                return queue(r, STATUS_RANGE_NOT_SATISFIABLE, resp, 0);
            }
            case RANGE_NONE:
                break;
            }
        }
    }

    /*
     * A 304 is queued with a response of the file's size: libmicrohttpd
     * sends the response's size as Content-Length even for 304, and RFC 9110
     * 8.6 allows only the length a 200 would have had.
     */
    if (len == 0) {
        close(fd);
        resp = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    } else {
        resp = NULL;
        if (len <= STATIC_FILE_SMALL_MAX && status != STATUS_NOT_MODIFIED &&
            r->method == STATIC_FILE_GET)
            resp = small_body(fd, start, len);
        if (resp)
            close(fd);
        else if (r->tls) /* no sendfile under TLS: large pread blocks */
            resp = tls_body_response(fd, start, len);
        else
            resp = MHD_create_response_from_fd_at_offset64(len, fd,
                                                           (int64_t)start);
        if (!resp)
            close(fd);
    }
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, "Content-Type", mime_type(name));
    MHD_add_response_header(resp, "Last-Modified", lastmod);
    if (etag[0])
        MHD_add_response_header(resp, "ETag", etag);
    if (ev.repr_digest[0])
        MHD_add_response_header(resp, "Repr-Digest", ev.repr_digest);
    MHD_add_response_header(resp, "Accept-Ranges", "bytes");
    if (r->encoding)
        MHD_add_response_header(resp, "Content-Encoding", r->encoding);
    const char *cc =
        r->conf->cache ? cache_rules_match(r->conf->cache, name) : NULL;
    if (cc)
        MHD_add_response_header(resp, "Cache-Control", cc);
    if (status == STATUS_PARTIAL_CONTENT)
        MHD_add_response_header(resp, "Content-Range", crange);
    return queue(r, status, resp, len);
}

/*
 * Open @path + the suffix of @enc as a variant of the file @st: a regular
 * file not older than it. Returns an fd (owned by the caller) and its stat,
 * or -1.
 */
static int open_variant(struct req *r, const char *path,
                        enum negotiate_encoding enc, const struct stat *st,
                        struct stat *vst)
{
    char vpath[PATH_MAX];
    enum resolver_backend served = r->res->backend;
    int fd;

    if ((size_t)snprintf(vpath, sizeof vpath, "%s%s", path,
                         negotiate_suffix(enc)) >= sizeof vpath)
        return -1;
    fd = open_beneath(r, vpath, O_RDONLY | O_NONBLOCK);
    r->res->backend = served;
    if (fd < 0)
        return -1;
    /*
     * Older by whole seconds only: brotli and zstd copy the source's mtime
     * with second precision, so a fresh sidecar may look older by < 1 s.
     */
    if (fstat(fd, vst) != 0 || !S_ISREG(vst->st_mode) ||
        vst->st_mtim.tv_sec < st->st_mtim.tv_sec) {
        close(fd); /* stale (older than the file) or not a file: ignored */
        return -1;
    }
    return fd;
}

/*
 * A regular file @fd (owned) at @path: serve the best variant the client
 * accepts, else the file. Vary: Accept-Encoding is sent when any variant
 * exists, also to a client that accepts none of them (so a shared cache
 * never hands a compressed body to it, nor the plain one to everybody).
 */
static enum MHD_Result serve_file(struct req *r, int fd, const struct stat *st,
                                  const char *path)
{
    enum negotiate_encoding order[NEGOTIATE_N_ENCODINGS];
    struct negotiate_accept a;
    struct stat vst;
    unsigned tried = 0;
    size_t n;

    if (r->conf->n_precompressed == 0 ||
        !negotiate_compressible(mime_type(path)))
        return regular(r, fd, st, path);
    negotiate_parse(header(r, "Accept-Encoding"), &a);
    n = negotiate_order(&a, r->conf->precompressed, r->conf->n_precompressed,
                        order);
    for (size_t i = 0; i < n; i++) {
        int vfd = open_variant(r, path, order[i], st, &vst);

        tried |= 1u << order[i];
        if (vfd < 0)
            continue;
        close(fd);
        r->vary = true;
        r->encoding = negotiate_token(order[i]);
        return regular(r, vfd, &vst, path);
    }
    for (size_t i = 0; i < r->conf->n_precompressed && !r->vary; i++) {
        enum negotiate_encoding e = r->conf->precompressed[i];
        int vfd;

        if (tried & (1u << e))
            continue;
        vfd = open_variant(r, path, e, st, &vst);
        if (vfd >= 0) {
            close(vfd);
            r->vary = true;
        }
    }
    return regular(r, fd, st, path);
}

/* Directory without a trailing slash: 301 to the slash form, query kept. */
static enum MHD_Result redirect(struct req *r, const struct target *t)
{
    char *loc = NULL;
    size_t qlen = t->query ? strlen(t->query) : 0;
    size_t n = t->raw_path_len + 1 + (t->query ? 1 + qlen : 0) + 1;

    loc = malloc(n);
    if (!loc)
        return simple(r, STATUS_INTERNAL_SERVER_ERROR);
    memcpy(loc, t->raw_path, t->raw_path_len);
    loc[t->raw_path_len] = '/';
    if (t->query) {
        loc[t->raw_path_len + 1] = '?';
        memcpy(loc + t->raw_path_len + 2, t->query, qlen);
    }
    loc[n - 1] = '\0';

    static const char body[] = "<!DOCTYPE html>\n<html><head><title>301 Moved "
                               "Permanently</title></head><body><h1>301 Moved "
                               "Permanently</h1></body></html>\n";
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        sizeof body - 1, (void *)(uintptr_t)body, MHD_RESPMEM_PERSISTENT);
    if (resp) {
        MHD_add_response_header(resp, "Location", loc);
        MHD_add_response_header(resp, "Content-Type",
                                "text/html; charset=utf-8");
    }
    free(loc);
    return queue(r, STATUS_MOVED_PERMANENTLY, resp, sizeof body - 1);
}

/*
 * Whether the client asked for JSON: an Accept element "application/json"
 * (q not 0) and none for text/html, which browsers always send.
 */
static bool wants_json(const char *accept)
{
    bool json = false;

    for (const char *p = accept; p && *p;) {
        size_t len = strcspn(p, ",");
        const char *e = p;
        size_t tl;

        while (*e == ' ' || *e == '\t')
            e++;
        tl = strcspn(e, ";, \t");
        if (tl == 9 && strncasecmp(e, "text/html", 9) == 0)
            return false;
        if (tl == 16 && strncasecmp(e, "application/json", 16) == 0) {
            const char *q = e + tl;
            json = true;
            while (q < p + len) {
                if (strncasecmp(q, "q=0", 3) == 0 &&
                    strspn(q + 3, ".0") == strcspn(q + 3, ",; \t"))
                    json = false;
                q++;
            }
        }
        p += len;
        if (*p == ',')
            p++;
    }
    return json;
}

static int render_json(const struct listing *l, const char *path, char **out,
                       size_t *len)
{
    struct listing_json_entry *e = calloc(l->n ? l->n : 1, sizeof *e);
    char *slashed = malloc(strlen(path) + 2);
    int err = -ENOMEM;

    if (e && slashed) {
        snprintf(slashed, strlen(path) + 2, "/%s", path);
        for (size_t i = 0; i < l->n; i++)
            e[i] = (struct listing_json_entry){
                .name = l->v[i].name,
                .type = l->v[i].kind == LISTING_FILE  ? LISTING_JSON_FILE
                        : l->v[i].kind == LISTING_DIR ? LISTING_JSON_DIR
                                                      : LISTING_JSON_OTHER,
                .size = l->v[i].size,
                .mtime = l->v[i].mtime,
            };
        err = listing_json_render(slashed, e, l->n, out, len);
    }
    free(slashed);
    free(e);
    return err;
}

static enum MHD_Result list(struct req *r, const char *path)
{
    struct listing l = {0};
    char *html = NULL;
    size_t len = 0;
    bool json = wants_json(header(r, "Accept"));
    int fd = open_beneath(r, path, O_RDONLY | O_DIRECTORY | O_NONBLOCK);

    if (fd < 0)
        return refused(r, fd);
    int err = listing_collect(fd, r->conf->dotfiles, &l);
    close(fd);
    if (!err)
        err = json ? render_json(&l, path, &html, &len)
                   : listing_html(&l, path, &html, &len);
    listing_free(&l);
    if (err) {
        r->res->err = -err;
        return simple(r, STATUS_INTERNAL_SERVER_ERROR);
    }
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(len, html, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(html);
        return MHD_NO;
    }
    MHD_add_response_header(resp, "Content-Type",
                            json ? "application/json; charset=utf-8"
                                 : "text/html; charset=utf-8");
    r->vary_accept = true;
    return queue(r, STATUS_OK, resp, len);
}

/* Directory with a trailing slash: index file, else listing, else 403. */
static enum MHD_Result directory(struct req *r, const char *path)
{
    char ipath[PATH_MAX];

    for (size_t i = 0; i < r->conf->n_index; i++) {
        const char *name = r->conf->index[i];
        struct stat st;

        if ((size_t)snprintf(ipath, sizeof ipath, "%s%s", path, name) >=
            sizeof ipath)
            continue;
        /* From the root again, not from the directory's fd: one rule. */
        int fd = open_beneath(r, ipath, O_RDONLY | O_NONBLOCK);
        if (fd == -ENOENT || fd == -ENOTDIR)
            continue;
        if (fd < 0)
            return refused(r, fd);
        if (fstat(fd, &st) != 0) {
            int err = errno;
            close(fd);
            return refused(r, err);
        }
        if (!S_ISREG(st.st_mode)) {
            close(fd);
            continue;
        }
        return serve_file(r, fd, &st, ipath);
    }
    if (r->conf->listing)
        return list(r, path);
    return simple(r, STATUS_FORBIDDEN);
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

/*
 * --try-html: /guide, which does not exist, is served from guide.html when
 * that is a regular file. Returns false to let the 404 stand.
 */
static bool try_html(struct req *r, const struct target *t, int *fd_err,
                     enum MHD_Result *ret)
{
    char hpath[PATH_MAX];
    struct stat st;
    int fd;

    if (!r->conf->try_html || t->slash || !t->path[0] ||
        (size_t)snprintf(hpath, sizeof hpath, "%s.html", t->path) >=
            sizeof hpath)
        return false;
    fd = open_beneath(r, hpath, O_RDONLY | O_NONBLOCK);
    if (fd == -ENOENT || fd == -ENOTDIR)
        return false;
    if (fd < 0) {
        *fd_err = fd; /* refused (escaping link ...): report that instead */
        return false;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return false;
    }
    *ret = serve_file(r, fd, &st, hpath);
    return true;
}

static enum MHD_Result options(struct req *r)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);

    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, "Allow", ALLOW);
    return queue(r, STATUS_NO_CONTENT, resp, 0);
}

enum MHD_Result static_file_error(struct MHD_Connection *c,
                                  const struct static_file_conf *conf,
                                  unsigned status,
                                  enum static_file_method method,
                                  struct static_file_result *res)
{
    struct req r = {.c = c, .conf = conf, .method = method, .res = res};

    memset(res, 0, sizeof *res);
    return simple(&r, status);
}

enum MHD_Result static_file_respond(
    struct MHD_Connection *c, const struct static_file_conf *conf, int root_fd,
    struct resolver_cache *dir_cache, enum static_file_method method,
    const char *raw, char *buf, size_t size, struct static_file_result *res)
{
    struct req r = {.c = c,
                    .conf = conf,
                    .root_fd = root_fd,
                    .dir_cache = dir_cache,
                    .method = method,
                    .res = res,
                    .tls = tls_connection(c)};
    struct target t;
    struct stat st;

    memset(res, 0, sizeof *res);
    if (method == STATIC_FILE_OTHER)
        return simple(&r, STATUS_METHOD_NOT_ALLOWED);
    unsigned flags = (method == STATIC_FILE_OPTIONS ? TARGET_OPTIONS : 0) |
                     (conf->dotfiles ? 0 : TARGET_DENY_DOTFILES);
    int status = target_decode(raw, flags, buf, size, &t);
    if (status)
        return failure(&r, status);
    if (method == STATIC_FILE_OPTIONS)
        return options(&r);
    if (conf->health && strcmp(t.path, conf->health) == 0)
        return builtin(&r, false);
    if (conf->metrics_path && conf->metrics &&
        strcmp(t.path, conf->metrics_path) == 0)
        return builtin(&r, true);
    if (root_fd < 0)
        return refused(&r, root_fd);

    int fd = open_beneath(&r, t.path, O_RDONLY | O_NONBLOCK);
    if (fd == -ENOENT) {
        enum MHD_Result ret;
        if (try_html(&r, &t, &fd, &ret))
            return ret;
    }
    if (fd < 0)
        return refused(&r, fd);
    if (fstat(fd, &st) != 0) {
        int err = errno;
        close(fd);
        return refused(&r, err);
    }
    if (S_ISREG(st.st_mode))
        return serve_file(&r, fd, &st, t.path);
    close(fd);
    if (!S_ISDIR(st.st_mode))
        return simple(&r, STATUS_FORBIDDEN);
    if (!t.slash)
        return redirect(&r, &t);
    return directory(&r, t.path);
}
