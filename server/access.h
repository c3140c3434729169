/* SPDX-License-Identifier: MIT */
/*
 * access.h - who may see what, and where requests go: address rules,
 * virtual hosts, Basic authentication, redirects, headers files, error
 * pages (docs/access.md).
 *
 * The daemon asks at three points: accept (access_accept: --allow/--deny
 * on the peer), the headers (access_client: the client behind a trusted
 * proxy, checked the same way), and the answer (access_site: the Host
 * picks a site, i.e. a root with its own generations and per-thread
 * directory caches, and the rules the request will see). respond.c then
 * asks the view for authentication, redirects, hidden files and headers,
 * and the site for the --mount under which a path is looked up (each
 * mount a root of its own, like a site's).
 * Every file of a site, including its _redirects and _headers, is opened
 * by the confined resolver from that site's root fd.
 *
 * Everything is loaded at start-up (each problem printed, counted) and
 * again on SIGHUP (access_reload), where a file that fails keeps what it
 * had and the reason is logged.
 */
#ifndef ACCESS_H
#define ACCESS_H

#include "conf.h"
#include "error_pages.h"
#include "headers_file.h"
#include "metrics.h"
#include "root.h"

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
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
    struct access_view view;
    struct access *mounts; /* the --mount table, or NULL: none */
};

/* Where a path is looked up: a --mount's root, or the site's. */
struct access_route {
    int root_fd;                      /* borrowed; < 0: -errno of the root */
    struct resolver_cache *dir_cache; /* the thread's cache for root_fd */
    const char *path;   /* root-relative, as target_decode gives a path */
    const char *prefix; /* the mount's URL prefix without its '/', for the
                           names lookup reports; NULL: the site's root */
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
 * @dir_cache directories per thread), address lists, htpasswd files, rule
 * files, site files, error pages. @root is the --root site (borrowed;
 * NULL: none, a Host no vhost names gets 421). Problems and warnings go to
 * stderr, "beneath: ..." each. @metrics (borrowed) counts refusals.
 *
 * Returns the number of problems (0: *@out is ready), or -ENOMEM.
 */
int access_open(const struct conf *c, struct root *root, unsigned dir_cache,
                struct metrics *metrics, struct access **out);

/* access_reload - SIGHUP: vhost roots, htpasswd, rule and site files. */
void access_reload(struct access *a);

/* access_startup - the start-up lines of the vhosts and rules, into @f. */
void access_startup(const struct access *a, FILE *f);

/* access_error_pages - the --error-page table (for files_conf). */
const struct error_pages *access_error_pages(const struct access *a);

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
 * access_client - for a request from a trusted proxy: the client from
 * Forwarded / X-Forwarded-For as text into @client (@size bytes; left
 * untouched otherwise), checked against --allow/--deny.
 *
 * Returns 0, or 403 (counted).
 */
unsigned access_client(struct access *a, struct MHD_Connection *mc,
                       char *client, size_t size);

/*
 * access_site - the site of a request: its Host (or the authority of an
 * absolute-form @raw_target) picks a vhost, else the --root site.
 * @root_only is the root to use when @a is NULL.
 *
 * Returns 0 with @out filled, 400 for a garbage Host, 421 when no site
 * serves that Host.
 */
unsigned access_site(struct access *a, struct root *root_only,
                     struct MHD_Connection *mc, const char *raw_target,
                     struct access_site *out);

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
 * access_auth - 0 when @path may be served (@user gets the authenticated
 * user, or ""), else 401 (counted).
 */
unsigned access_auth(const struct access_view *v, const char *path,
                     const char *authorization, char *user, size_t size);

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

/* access_headers_add - add the files' headers to @resp. */
void access_headers_add(const struct access_headers *h,
                        struct MHD_Response *resp);

#endif
