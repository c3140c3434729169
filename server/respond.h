/* SPDX-License-Identifier: MIT */
/*
 * respond.h - one request: decode the target, look it up, emit the plan.
 *
 * The request's way (server/README.md): the target is decoded by http/
 * (target.c), built-in paths (--health, --metrics) are answered here, every
 * other path is turned into a plan by files/ (lookup.c), and respond turns
 * the plan into a libmicrohttpd response: validators, conditionals, Range,
 * body (memory, sendfile or TLS blocks) and headers.
 */
#ifndef RESPOND_H
#define RESPOND_H

#include "access.h"
#include "cache_rules.h"
#include "compress.h"
#include "cors.h"
#include "etag_cache.h"
#include "headers_opt.h"
#include "lookup.h"
#include "method.h"
#include "metrics.h"
#include "resolver.h"

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The part of the configuration that shapes responses. */
struct respond_conf {
    struct files_conf files;
    struct etag_cache *etags; /* ETag, Repr-Digest; NULL: mtime-size ETag */
    unsigned hsts;            /* Strict-Transport-Security max-age (HTTPS) */
    const struct cache_rules *cache;   /* Cache-Control by path, or NULL */
    const struct headers_opt *headers; /* added to every response, or NULL */
    const struct cors *cors;           /* --cors, or NULL */
    const char *health;                /* root-relative URL path, or NULL */
    const char *metrics_path;          /* root-relative URL path, or NULL */
    struct metrics *metrics;           /* counters, or NULL */
    bool server_timing;                /* Server-Timing: resolve;dur= */
    /* compression on the fly: the codings in order (none: off), and the
       cache of compressed bodies */
    const enum negotiate_encoding *compress;
    size_t n_compress;
    struct compress_cache *compress_cache;
    uint64_t serial; /* this configuration generation's, never reused */
};

/* What was answered, for the access log. */
struct respond_result {
    unsigned status;
    char user[128];                /* authenticated user (Basic), or "" */
    uint64_t bytes;                /* body bytes queued (0 for HEAD, 304) */
    int err;                       /* errno of a refusal or failure, or 0 */
    enum resolver_backend backend; /* DEFAULT when the resolver was not used */
    const char *encoding; /* content coding of the body sent (a static string:
                             "br", "zstd", "gzip"), or NULL: identity */
};

/*
 * Bodies up to this size (GET 200 and 206) are read into memory and sent
 * with the headers in one write; larger ones go by sendfile.
 */
#define RESPOND_SMALL_MAX ((uint64_t)64 * 1024)

/*
 * respond_request - build and queue the response to one request.
 * @c: the connection (for request headers and MHD_queue_response).
 * @site: the request's site (access_site): its root fd, borrowed (< 0:
 *        -errno, answered as such), the thread's directory cache for it,
 *        and the rules the request sees (authentication, redirects,
 *        headers files; none when site->view.a is NULL).
 * @raw: the raw request-target; @buf of @size >= strlen(@raw) + 1 bytes is
 *       scratch space for the decoded path.
 * @res: filled with what was answered.
 *
 * Returns MHD_queue_response's result (MHD_NO when even a 500 could not be
 * built: MHD then closes the connection).
 */
enum MHD_Result respond_request(struct MHD_Connection *c,
                                const struct respond_conf *conf,
                                const struct access_site *site,
                                enum http_method method, const char *raw,
                                char *buf, size_t size,
                                struct respond_result *res);

/*
 * respond_status - queue the built-in response for @status (a 4xx or 5xx
 * decided before any path was looked at) with @conf's extra headers, and
 * fill @res.
 *
 * Returns MHD_queue_response's result.
 */
enum MHD_Result respond_status(struct MHD_Connection *c,
                               const struct respond_conf *conf, unsigned status,
                               enum http_method method,
                               struct respond_result *res);

#endif
