/* SPDX-License-Identifier: MIT */
/*
 * access.h - who may see what, and where requests go: address rules,
 * virtual hosts, Basic authentication, redirects, headers files, error
 * pages (docs/access.md).
 *
 * The daemon asks at three points: accept (access_accept: --allow/--deny
 * on the peer), the headers (access_client: the client behind a trusted
 * proxy, checked the same way), and the answer (access_site: the Host
 * picks a site, i.e. a root with its per-thread directory caches, and the rules
 * the request will see). respond.c then asks the view for authentication,
 * redirects, hidden files and headers, and the site for the --mount under which
 * a path is looked up (each mount a root of its own, like a site's). Every file
 * of a site, including its _redirects and _headers, is opened by the confined
 * resolver from that site's root fd.
 *
 * Everything is loaded at the serving process's start (each problem
 * printed, counted); a SIGHUP starts a new serving process, which loads it
 * all again (server/process/keeper.h).
 */
#ifndef BENEATH_ACCESS_H
#define BENEATH_ACCESS_H

#include "conf.h"
#include "http/request.h"
#include "observe/metrics.h"
#include "resolver.h"
#include "runtime/root.h"
#include "syntax/error_pages.h"
#include "syntax/headers_file.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>

struct access;
struct access_rules;

/* The rules one request sees, taken when its site was picked. */
struct access_view {
    struct access *a;                  /* NULL: no rules at all */
    const struct access_rules *global; /* --redirects, --headers-file */
    const struct access_rules *site;   /* the site's /_redirects, /_headers */
};

/* The site of one request. */
struct access_site {
    int root_fd;                      /* borrowed; < 0: -errno of the root */
    struct resolver_cache *dir_cache; /* the thread's cache for root_fd */
    const char *vhost;                /* the --vhost pattern, NULL: --root */
    const char *site;                 /* --sites: the site's name, or NULL */
    struct access_view view;
    struct access *mounts; /* the --mount table, or NULL: none */
    void *held; /* what root_fd and view borrow from (a --sites site),
                   or NULL: give it to access_site_release once the reply
                   that may point into it is released */
    int err;    /* with a refusal: its errno (for the log), or 0 */
};

/* Where a path is looked up: a --mount's root, or the site's. */
struct access_route {
    int root_fd;                      /* borrowed; < 0: -errno of the root */
    struct resolver_cache *dir_cache; /* the thread's cache for root_fd */
    const char *path;   /* root-relative, as target_decode gives a path */
    const char *prefix; /* the mount's URL prefix without its '/', for the
                           names lookup reports; NULL: the site's root */
    const char *file;   /* a file mount: the file's name (= path); NULL: a
                           directory mount */
};

/* The headers the rules give one path (from both files). */
struct access_headers {
    struct headers_file_out out[2];
};

/* A redirect or rewrite that matched. */
struct access_target {
    unsigned status; /* 200: rewrite to url; 301 ... 308: redirect */
    bool force;      /* applies even over an existing file */
    char *url;       /* Location, or the raw path to serve; owned */
};

/*
 * access_open - load the access options of @c: vhost roots (opened with
 * @dir_cache directories per thread), mounts, the --follow-into
 * directories, address lists, htpasswd files, rule files, site files, error
 * pages. @root is the --root site (borrowed;
 * NULL: none, a Host no vhost names gets 421). Problems and warnings go to
 * stderr, "beneath: ..." each. @metrics (borrowed) counts refusals.
 *
 * Returns the number of problems (0: *@out is ready), or -ENOMEM.
 */
int access_open(const struct conf *c, struct root *root, unsigned dir_cache,
                struct metrics *metrics, struct access **out);

/*
 * access_check_fallback - warn on stderr ("beneath: @when warning: ...")
 * for each site root (--root, each --vhost) in which the --fallback file
 * @path (root-relative; NULL: none) is not a regular file a request could
 * be answered with: missing, refused by the resolver, or a directory.
 * access_open does so for its configuration.
 */
void access_check_fallback(const struct access *a, const char *path,
                           const char *when);

/* access_startup - the start-up lines of the vhosts and rules, into @f. */
void access_startup(const struct access *a, FILE *f);

/* access_error_pages - the --error-page table (for files_conf). */
const struct error_pages *access_error_pages(const struct access *a);

/*
 * access_follow_into - the --follow-into directories, opened at start-up
 * (for files_conf: resolver_how.into), and their number in *@n; NULL and 0
 * for none. They live as long as @a.
 */
const struct resolver_into *access_follow_into(const struct access *a,
                                               size_t *n);

/* access_free - release @a (the daemons stopped); NULL is accepted. */
void access_free(struct access *a);

/*
 * access_accept - whether a connection from @sa may be served: --deny
 * refuses, a non-empty --allow must match; a trusted proxy is let in (its
 * requests are checked one by one). AF_UNIX peers are local: always.
 * A refusal is counted.
 */
bool access_accept(struct access *a, const struct sockaddr *sa, socklen_t len);

/*
 * access_accept_direct - access_accept for a listener whose requests are
 * not checked one by one (--metrics-listen): a trusted proxy gets no pass
 * for being one, its own address must be allowed.
 */
bool access_accept_direct(struct access *a, const struct sockaddr *sa,
                          socklen_t len);

/* access_addresses - whether @a has address rules (--allow or --deny). */
bool access_addresses(const struct access *a);

/*
 * access_client - for a request from a trusted proxy: the client from
 * Forwarded / X-Forwarded-For as text into @client (@size bytes; left
 * untouched otherwise), checked against --allow/--deny.
 *
 * Returns 0, or 403 (counted).
 */
unsigned access_client(struct access *a, const struct request *rq, char *client,
                       size_t size);

/*
 * access_site - the site of @rq: its Host (or the authority of an
 * absolute-form target) picks a vhost, else with --sites the directory
 * DIR/HOST (resolved now: sites.h), else the --root site.
 * @root_only is the root to use when @a is NULL. out->held, when set, must
 * be given to access_site_release, whatever the answer.
 *
 * Returns 0 with @out filled; 400 for a garbage Host (with --sites also
 * one that is not a DNS name: no directory can be named by it); 421 when
 * no site serves that Host; with --sites 403 for a site directory that is
 * a link out of DIR, 500 for a site whose rule files are refused (out->err
 * says why).
 */
unsigned access_site(struct access *a, struct root *root_only,
                     const struct request *rq, struct access_site *out);

/* access_site_release - release access_site's out->held; NULL: no-op. */
void access_site_release(void *held);

/*
 * access_site_exists - whether @host (a Host or SNI value) names a site:
 * a --vhost name, or with --sites an existing DIR/HOST (one openat2,
 * nothing kept). For what must not act on a name no site has.
 *
 * Returns 1, 0, or -errno (a site directory refused, as access_site).
 */
int access_site_exists(struct access *a, const char *host);

/* access_sites_counts - a metrics_cache_fn of --sites' cache (NULL arg:
 * zeros). */
void access_sites_counts(void *a, uint64_t *hits, uint64_t *misses);

/*
 * access_mount - the --mount that serves the normalised @norm (a directory
 * mount at or above it, the longest prefix winning; a file mount for its
 * one URL): its root fd, the thread's directory cache for it and the rest
 * of @norm (a pointer into it) or the file's name, into @out.
 *
 * Returns true with @out filled, false when no mount serves @norm (@out
 * untouched).
 */
bool access_mount(const struct access_site *site, const char *norm,
                  struct access_route *out);

/* ---- what respond asks the view (all take the normalised path) ---- */

/*
 * The rules one request is judged by, on its own path and on every
 * candidate lookup opens (a files_judge: access_may_serve): the view, the
 * request's Authorization, where the authenticated user goes, and the auth
 * rule its credentials passed already (verified once per request).
 */
struct access_check {
    const struct access_view *v;
    const char *authorization; /* or NULL */
    char *user;                /* the authenticated user, or "" */
    size_t size;
    int passed; /* the auth rule the credentials passed, or -1 */
};

/*
 * access_check_init - the check of one request seeing @v, with the
 * Authorization field value @authorization (NULL: none); @user (@size
 * bytes) is set to "" and gets the authenticated user.
 */
void access_check_init(struct access_check *c, const struct access_view *v,
                       const char *authorization, char *user, size_t size);

/*
 * access_check_path - whether the request may ask for the normalised @path
 * at all (--auth on the request path, so that a protected path answers 401
 * whether or not its file exists).
 *
 * Returns 0 or 401 (counted).
 */
unsigned access_check_path(struct access_check *c, const char *path);

/*
 * access_may_serve - the files_may_serve_fn of the access rules, @check a
 * struct access_check: whether the candidate @path (root-relative as
 * lookup opened it, normalised here) with fstat @st (or NULL) may be sent
 * with @status. A site's own rule file (by name, or by device and inode)
 * is 404; a path an --auth rule protects is 401 without credentials that
 * pass it (counted for content, not for an error page), except for the
 * page of a 401 itself, which is shown to whoever lacks them.
 *
 * Returns 0, 401, 404, or 500 when out of memory.
 */
unsigned access_may_serve(void *check, const char *path, const struct stat *st,
                          unsigned status);

/* access_challenge - the WWW-Authenticate value of a 401. */
const char *access_challenge(const struct access_view *v);

/* access_hidden_name - whether @path names the site's own rule files. */
bool access_hidden_name(const struct access_view *v, const char *path);

/* access_hidden_file - whether @st is one of the site's rule files. */
bool access_hidden_file(const struct access_view *v, const struct stat *st);

/*
 * access_redirect - the first redirect or rewrite rule matching @path
 * (--redirects first, then the site's own), with the request's @query.
 *
 * Returns 1 with @out filled (free out->url), 0 for none, or -ENOMEM.
 */
int access_redirect(const struct access_view *v, const char *path,
                    const char *query, struct access_target *out);

/* access_headers - the headers of @path from both headers files. */
void access_headers(const struct access_view *v, const char *path,
                    struct access_headers *out);

/* access_headers_drop - whether a "! @name" line removes that header. */
bool access_headers_drop(const struct access_headers *h, const char *name);

/* access_headers_sets - whether the files set header @name. */
bool access_headers_sets(const struct access_headers *h, const char *name);

/* access_headers_any - whether the files give @h's path any header op. */
bool access_headers_any(const struct access_headers *h);

/* access_headers_each - call @add(@arg, name, value) for each of the files'
 * headers, in order. */
void access_headers_each(const struct access_headers *h,
                         void (*add)(void *arg, const char *name,
                                     const char *value),
                         void *arg);

#endif
