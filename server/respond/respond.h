/* SPDX-License-Identifier: MIT */
/*
 * respond.h - one request in, one reply out.
 *
 * respond() decides everything about the answer to a struct request (the
 * transport's, http/request.h) and writes it into a struct reply
 * (reply.h): the site a Host picks, the client behind a trusted proxy,
 * the method, the target's decoding, the built-in paths (--health,
 * --metrics), access rules and rewrites, the lookup (files/lookup.c, whose
 * candidates are each judged by access/), then the representation:
 * validators, conditionals, Range, variants, the reply cache, error
 * pages. Nothing here knows a wire library; a transport writes the reply.
 */
#ifndef BENEATH_RESPOND_H
#define BENEATH_RESPOND_H

#include "conf.h"
#include "files/compress.h"
#include "files/etag_cache.h"
#include "files/lookup.h"
#include "http/cors.h"
#include "http/request.h"
#include "observe/metrics.h"
#include "respond/reply.h"
#include "syntax/cache_rules.h"
#include "syntax/headers_opt.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct access;
struct acme_challenges;
struct root;

/* The part of the configuration that shapes replies (one generation's). */
struct respond_conf {
    struct files_conf files;
    struct etag_cache *etags; /* ETag, Repr-Digest; NULL: mtime-size ETag */
    unsigned hsts;            /* Strict-Transport-Security max-age (HTTPS) */
    const struct cache_rules *cache;   /* Cache-Control by path, or NULL */
    const struct headers_opt *headers; /* added to every response, or NULL */
    const struct origins *cors;        /* --cors, or NULL */
    const char *health;                /* root-relative URL path, or NULL */
    const char *metrics_path;          /* root-relative URL path, or NULL */
    struct metrics *metrics;           /* counters, or NULL */
    bool server_timing;                /* Server-Timing: resolve;dur= */
    /* compression on the fly: the codings in order (none: off), and the
       cache of compressed bodies */
    const enum coding *compress;
    size_t n_compress;
    struct compress_cache *compress_cache;
    uint64_t serial; /* this configuration generation's, never reused */
    /* the sites and their rules (NULL: the --root site alone), and the
       --root site's root (NULL: none); both live as long as the server */
    struct access *access;
    struct root *root;
    /* ACME HTTP-01 tokens answered ahead of everything (NULL: none) */
    struct acme_challenges *acme;
    /* --https-redirect: plain HTTP answered 308 to https://, to this
       port (0: 443, not written) */
    bool https_redirect;
    unsigned https_port;
};

/* What every generation's policy shares with the server: made once at
 * start-up, borrowed by each respond_conf. */
struct respond_base {
    struct etag_cache *etags;
    struct compress_cache *compress_cache; /* bodies compressed on the fly */
    struct metrics *metrics;
    files_resolved_fn *resolved; /* after every resolver call, or NULL */
    void *resolved_arg;
    const struct error_pages *error_pages; /* --error-page (access.c) */
    const struct mime_map *mime;           /* --mime-types, --mime */
    struct access *access;                 /* the sites and rules, or NULL */
    struct root *root;                     /* the --root site's root, or NULL */
    struct acme_challenges *acme;          /* --acme's challenges, or NULL */
    unsigned https_port; /* the first https:// listener's port, or 0 */
};

/*
 * respond_policy - the reply policy of the configuration @c (borrowed: it
 * must outlive @out) with what @b shares, into @out; a new serial.
 */
void respond_policy(const struct conf *c, const struct respond_base *b,
                    struct respond_conf *out);

/*
 * respond - the answer to @rq under @conf, into @out (initialised here;
 * the caller writes it, then calls reply_release). Always answers: every
 * failure is a status with its page; out of memory is a bare 500.
 */
void respond(const struct request *rq, const struct respond_conf *conf,
             struct reply *out);

/*
 * respond_error - the answer for @status, a 4xx or 5xx the transport
 * decided from the request's framing before anything else was read (a bad
 * request line, two Host fields, a body on a GET ...): the built-in page,
 * with the headers every reply carries.
 */
void respond_error(const struct request *rq, const struct respond_conf *conf,
                   unsigned status, struct reply *out);

#endif
