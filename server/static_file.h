/* SPDX-License-Identifier: MIT */
/*
 * static_file.h - answer one request from the document root.
 *
 * The request's way (DESIGN.md): decode the target -> resolver_open from the
 * root fd -> errno -> status -> fstat the fd -> regular file (validators,
 * conditionals, Range, body by sendfile), directory (redirect, index,
 * listing) or anything else (403).
 */
#ifndef STATIC_FILE_H
#define STATIC_FILE_H

#include "cache_rules.h"
#include "etag_cache.h"
#include "headers_opt.h"
#include "metrics.h"
#include "negotiate.h"
#include "resolver.h"

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* The part of the configuration that shapes responses. */
struct static_file_conf {
    uint64_t confine; /* RESOLVER_* flags */
    char *const *index;
    size_t n_index;
    bool listing;
    bool dotfiles; /* allow hidden files */

    /* HTTPS and validators (issue 4) */
    struct etag_cache *etags; /* ETag, Repr-Digest; NULL: static_file_etag */
    unsigned hsts;            /* Strict-Transport-Security max-age (HTTPS) */

    /* docs hosting (issue 5); all optional (zero: off) */
    const enum negotiate_encoding *precompressed; /* sidecar preference */
    size_t n_precompressed;
    const struct cache_rules *cache;   /* Cache-Control by path, or NULL */
    const struct headers_opt *headers; /* added to every response, or NULL */
    bool try_html;                     /* /guide -> guide.html */
    const char *fallback;              /* root-relative file for 404 GETs */
    const char *health;                /* root-relative URL path, or NULL */
    const char *metrics_path;          /* root-relative URL path, or NULL */
    struct metrics *metrics;           /* counters, or NULL */
    bool server_timing;                /* Server-Timing: resolve;dur= */
};

enum static_file_method {
    STATIC_FILE_GET,
    STATIC_FILE_HEAD,
    STATIC_FILE_OPTIONS,
    STATIC_FILE_OTHER,
};

/* What was answered, for the access log. */
struct static_file_result {
    unsigned status;
    uint64_t bytes;                /* body bytes queued (0 for HEAD, 304) */
    int err;                       /* errno of a refusal or failure, or 0 */
    enum resolver_backend backend; /* DEFAULT when the resolver was not used */
};

/*
 * Bodies up to this size (GET 200 and 206) are read into memory and sent
 * with the headers in one write; larger ones go by sendfile.
 */
#define STATIC_FILE_SMALL_MAX ((uint64_t)64 * 1024)

/* ETag of a file: "MTIMENS-SIZE" in hex, quoted; fits 40 bytes. */
#define STATIC_FILE_ETAG_LEN 40

/*
 * static_file_etag - the entity-tag of @st into @buf. The one place that
 * decides what an ETag is.
 */
void static_file_etag(const struct stat *st, char buf[STATIC_FILE_ETAG_LEN]);

/*
 * static_file_method - classify the method token @method.
 */
enum static_file_method static_file_method(const char *method);

/*
 * static_file_respond - build and queue the response to one request.
 * @c: the connection (for request headers and MHD_queue_response).
 * @root_fd: the document root, borrowed.
 * @dir_cache: the calling thread's resolver directory cache for @root_fd, or
 *             NULL.
 * @raw: the raw request-target; @buf of @size >= strlen(@raw) + 1 bytes is
 *       scratch space for the decoded path.
 * @res: filled with what was answered.
 *
 * Returns MHD_queue_response's result (MHD_NO when even a 500 could not be
 * built: MHD then closes the connection).
 */
enum MHD_Result static_file_respond(
    struct MHD_Connection *c, const struct static_file_conf *conf, int root_fd,
    struct resolver_cache *dir_cache, enum static_file_method method,
    const char *raw, char *buf, size_t size, struct static_file_result *res);

/*
 * static_file_error - queue the built-in response for @status (a 4xx or 5xx
 * decided before any path was looked at) with @conf's extra headers, and
 * fill @res.
 *
 * Returns MHD_queue_response's result.
 */
enum MHD_Result static_file_error(struct MHD_Connection *c,
                                  const struct static_file_conf *conf,
                                  unsigned status,
                                  enum static_file_method method,
                                  struct static_file_result *res);

#endif
