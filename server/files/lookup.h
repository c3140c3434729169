/* SPDX-License-Identifier: MIT */
/*
 * lookup.h - from a root fd and a decoded request to a plan.
 *
 * Lookup decides, respond emits. files_lookup tries the candidates of one
 * request in one ordered list (the path, path.html, the index files, the
 * precompressed variants, the fallback, the 404 page), each opened by the
 * confined resolver from the root fd, and fills a struct plan that owns at
 * most one fd. The daemon's respond turns the plan into a response
 * (validators, conditionals, Range, body, headers) and plan_close releases
 * it. Nothing here knows libmicrohttpd.
 */
#ifndef BENEATH_FILES_LOOKUP_H
#define BENEATH_FILES_LOOKUP_H

#include "files/listing.h"
#include "http/method.h"
#include "http/target.h"
#include "resolver.h"
#include "syntax/coding.h"
#include "syntax/error_pages.h"
#include "syntax/mime.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/*
 * Called after every resolver call with the backend that answered, the time
 * it took and its result (an fd or -errno), for metrics.
 */
typedef void files_resolved_fn(void *arg, enum resolver_backend backend,
                               uint64_t ns, int ret);

/*
 * files_may_serve_fn - the question asked of every candidate lookup opens
 * before it may become the plan: may this request be answered with the
 * file @path (its name in the site: root-relative as lookup opened it,
 * "private/index.html", or beneath a --mount the URL path it answers,
 * "doc/README"; a directory to list ends with '/'), whose fstat is @st
 * (NULL when only the name is known: a listing entry past the listing's
 * bound)? @status is what it would be sent with: 200 for content, the
 * error status for an error page.
 *
 * Returns 0 (it may), or the status that refuses it: 401, 403 or 404.
 */
typedef unsigned files_may_serve_fn(void *arg, const char *path,
                                    const struct stat *st, unsigned status);

/* The judge of one request's candidates (the access rules), or none. */
struct files_judge {
    files_may_serve_fn *may_serve; /* NULL: every candidate may be served */
    void *arg;
};

/* The lookup policy: which candidates exist and how paths are confined. */
struct files_conf {
    uint64_t confine; /* RESOLVER_* flags */
    /* directories a link leaving the root may lead into (--follow-into) */
    const struct resolver_into *into;
    size_t n_into;
    char *const *index;
    size_t n_index;
    bool listing;
    bool dotfiles;                    /* allow hidden files */
    const enum coding *precompressed; /* sidecar preference */
    size_t n_precompressed;
    bool try_html;        /* /guide -> guide.html */
    const char *fallback; /* root-relative file for 404 GETs, or NULL */
    const struct error_pages *error_pages; /* --error-page, or NULL */
    const struct mime_map *mime; /* types over the built-in table, or NULL */
    files_resolved_fn *resolved; /* or NULL: resolutions are not timed */
    void *resolved_arg;
};

/* One request as lookup sees it. */
struct files_request {
    int root_fd;                  /* borrowed; < 0: -errno of the root */
    struct resolver_cache *cache; /* the thread's cache for root_fd, or NULL */
    enum http_method method;
    const struct target *target;
    const char *accept;          /* Accept header, or NULL */
    const char *accept_encoding; /* Accept-Encoding header, or NULL */
    bool bare; /* a path not found stays a bare 404 (no fallback, no error
                  page): the caller decides (a _redirects rule) */
    /* beneath a --mount, the site's names of the paths beneath root_fd
       (the plan's name, what the judge is asked about): */
    const char *name_prefix;  /* the mount's URL prefix without its first
                                 '/' ("doc", "_static/jquery.js"), or NULL */
    const char *name_file;    /* a file mount: the file's name beneath
                                 root_fd, which name_prefix names; or NULL */
    struct files_judge judge; /* asked of every candidate */
};

enum plan_kind {
    PLAN_STATUS,   /* a built-in body for status */
    PLAN_FILE,     /* fd: a regular file, 200 with validators and Range */
    PLAN_PAGE,     /* fd: a regular file sent as the body of status (an
                      error page: --error-page, /404.html) */
    PLAN_LISTING,  /* fd: a directory to list */
    PLAN_REDIRECT, /* 301 to location */
};

struct plan {
    enum plan_kind kind;
    unsigned status;
    int fd; /* owned; -1 when the kind has none */
    struct stat st;
    const char *encoding;     /* Content-Encoding of the variant, or NULL */
    bool vary_encoding;       /* the file has variants: Vary: Accept-Encoding */
    bool json;                /* PLAN_LISTING: JSON rather than HTML */
    char *location;           /* PLAN_REDIRECT; owned */
    struct files_judge judge; /* PLAN_LISTING: the request's, which hides
                                 the entries it may not fetch */
    int err;                  /* errno of a refusal or failure, or 0 */
    bool not_found;           /* 404 because the path is not there (ENOENT,
                                 ENOTDIR), not because it was refused */
    enum resolver_backend backend; /* DEFAULT when the resolver was not used */
    uint64_t resolve_ns;           /* time spent in the resolver; counted
                                      only when files_conf.resolved is set */
    struct resolver_escape escape; /* err EXDEV: the link of the request's
                                      own path that left, if one did */
    char name[PATH_MAX]; /* root-relative path (under a --mount, from the
                            site's root): MIME type, cache rules, the
                            listing's title; last, so that a new plan
                            clears only what is before */
};

/*
 * files_lookup - decide the answer to @rq under @conf into @p (overwritten;
 * release it with plan_close). Always succeeds: every failure becomes a
 * plan with an error status.
 */
void files_lookup(const struct files_conf *conf, const struct files_request *rq,
                  struct plan *p);

/*
 * files_lookup_status - the plan for @status decided before any path was
 * looked at (a bad target, a hidden name, 401 ...): the status's
 * --error-page (for 404 by default /404.html) when the root has it, else a
 * built-in body. Never the fallback: a status decided here is a refusal,
 * and a refusal never turns into a success.
 */
void files_lookup_status(const struct files_conf *conf,
                         const struct files_request *rq, unsigned status,
                         struct plan *p);

/*
 * files_listing - the entries of the PLAN_LISTING @p's directory (as
 * listing_collect, names starting with '.' only with @dotfiles) that the
 * request could fetch: each is judged by the plan's judge as "DIR/NAME"
 * (a directory as "DIR/NAME/"), and what it refuses is neither shown nor
 * counted. Release @out with listing_free whatever the result.
 *
 * Returns what listing_collect returns.
 */
int files_listing(const struct plan *p, bool dotfiles, struct listing *out);

/* plan_close - release what @p owns; safe to call twice. */
void plan_close(struct plan *p);

#endif
