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
 */
#include "static_file.h"

#include "cond.h"
#include "date.h"
#include "listing.h"
#include "mime.h"
#include "range.h"
#include "status.h"
#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    enum static_file_method method;
    struct static_file_result *res;
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
    };

    return resolver_open_how(r->root_fd, path[0] ? path : ".", &how,
                             &r->res->backend);
}

/* Queue @resp with @status and release our reference. */
static enum MHD_Result queue(struct req *r, unsigned status,
                             struct MHD_Response *resp, uint64_t body)
{
    enum MHD_Result ret;

    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
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

/* 404, with /404.html as the body when the root has one. */
static enum MHD_Result not_found(struct req *r)
{
    struct stat st;
    enum resolver_backend served = r->res->backend;
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

/* Serve the regular file @fd (owned: always consumed) described by @st. */
static enum MHD_Result regular(struct req *r, int fd, const struct stat *st,
                               const char *name)
{
    char etag[STATIC_FILE_ETAG_LEN], lastmod[DATE_LEN], crange[80];
    uint64_t size = (uint64_t)st->st_size, start = 0, len = size;
    unsigned status = STATUS_OK;
    struct MHD_Response *resp = NULL;

    static_file_etag(st, etag);
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
        resp = MHD_create_response_from_fd_at_offset64(len, fd, (int64_t)start);
        if (!resp)
            close(fd);
    }
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, "Content-Type", mime_type(name));
    MHD_add_response_header(resp, "Last-Modified", lastmod);
    MHD_add_response_header(resp, "ETag", etag);
    MHD_add_response_header(resp, "Accept-Ranges", "bytes");
    if (status == STATUS_PARTIAL_CONTENT)
        MHD_add_response_header(resp, "Content-Range", crange);
    return queue(r, status, resp, len);
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

static enum MHD_Result list(struct req *r, const char *path)
{
    struct listing l = {0};
    char *html = NULL;
    size_t len = 0;
    int fd = open_beneath(r, path, O_RDONLY | O_DIRECTORY | O_NONBLOCK);

    if (fd < 0)
        return refused(r, fd);
    int err = listing_collect(fd, r->conf->dotfiles, &l);
    close(fd);
    if (!err)
        err = listing_html(&l, path, &html, &len);
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
    MHD_add_response_header(resp, "Content-Type", "text/html; charset=utf-8");
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
        return regular(r, fd, &st, ipath);
    }
    if (r->conf->listing)
        return list(r, path);
    return simple(r, STATUS_FORBIDDEN);
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

enum MHD_Result static_file_respond(struct MHD_Connection *c,
                                    const struct static_file_conf *conf,
                                    int root_fd, enum static_file_method method,
                                    const char *raw, char *buf, size_t size,
                                    struct static_file_result *res)
{
    struct req r = {
        .c = c, .conf = conf, .root_fd = root_fd, .method = method, .res = res};
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
    if (root_fd < 0)
        return refused(&r, root_fd);

    int fd = open_beneath(&r, t.path, O_RDONLY | O_NONBLOCK);
    if (fd < 0)
        return refused(&r, fd);
    if (fstat(fd, &st) != 0) {
        int err = errno;
        close(fd);
        return refused(&r, err);
    }
    if (S_ISREG(st.st_mode))
        return regular(&r, fd, &st, t.path);
    close(fd);
    if (!S_ISDIR(st.st_mode))
        return simple(&r, STATUS_FORBIDDEN);
    if (!t.slash)
        return redirect(&r, &t);
    return directory(&r, t.path);
}
