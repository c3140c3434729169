// SPDX-License-Identifier: MIT
/*
 * access.c - the questions asked per connection (address rules, the client
 * behind a trusted proxy, the site a Host picks) and per request (auth,
 * redirects, headers, hidden files); access_load.c opens what they read.
 *
 * Security decisions:
 * - A site is a root fd with its own generations and per-thread directory
 *   caches (root.c); a Host picks the site, and nothing of one site is
 *   ever opened from another's fd, so a path (or a symlink) can never
 *   reach another host's tree beyond what the resolver allows inside the
 *   root it was given.
 * - _redirects and _headers of a site are opened through the resolver from
 *   the site's root fd, with the configured confinement, and are never
 *   served: their name is answered 404, and so is any path that turns out
 *   to be the same file (a link to it), compared by device and inode.
 * - Address rules: --deny wins over --allow. The client behind a trusted
 *   proxy is the rightmost untrusted hop (forwarded.c), never a value the
 *   client could have placed further left, read only from the header that
 *   proxy is configured to write (X-Forwarded-For unless said otherwise).
 * - A Host that is not a host name is 400; one that no site serves is 421
 *   (RFC 9110 15.5.20), not another site's answer.
 * - --sites: a Host that is a host name but not a DNS name ('_', a label
 *   over 63) is 400 too: no directory can be named by it, under any
 *   configuration, so the client erred, and 421 would invite it to retry
 *   elsewhere. An address (127.0.0.1, [::1]) or no Host names no site: the
 *   --root site, or 421. The site's directory and its paths are sites.c's.
 * - A --mount is a root of its own, opened by the operator's path: a path
 *   under its prefix is resolved beneath its fd with the same flags, so a
 *   mount serves what its directory holds and nothing a link in it leads
 *   out to; the site's root never follows a link into it either.
 */
#include "access/access_internal.h"
#include "http/forwarded.h"
#include "http/status.h"
#include "http/target.h"
#include "runtime/root.h"
#include "syntax/host.h"
#include "syntax/urlpath.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- connections and clients ---- */

static bool allowed(const struct access *a, const struct cidr_addr *c)
{
    if (cidr_list_match(&a->deny, c))
        return false;
    return a->allow.n == 0 || cidr_list_match(&a->allow, c);
}

static int peer_of(const struct sockaddr *sa, struct cidr_addr *out)
{
    socklen_t len = !sa                         ? 0
                    : sa->sa_family == AF_INET  ? sizeof(struct sockaddr_in)
                    : sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                                : 0;

    return cidr_addr_from_sockaddr(sa, len, out);
}

/* access_accept; @proxies: a trusted proxy is let in (its requests are
 * checked one by one). */
static bool accept_peer(struct access *a, const struct sockaddr *sa,
                        socklen_t len, bool proxies)
{
    struct cidr_addr c;

    if (!access_addresses(a))
        return true;
    if (cidr_addr_from_sockaddr(sa, len, &c) < 0)
        return true; /* AF_UNIX: local, the socket's permissions decide */
    if ((proxies && cidr_list_match(&a->trusted, &c)) || allowed(a, &c))
        return true;
    if (a->metrics)
        metrics_count(&a->metrics->refused_address);
    return false;
}

bool access_addresses(const struct access *a)
{
    return a && (a->allow.n || a->deny.n);
}

bool access_accept(struct access *a, const struct sockaddr *sa, socklen_t len)
{
    return accept_peer(a, sa, len, true);
}

bool access_accept_direct(struct access *a, const struct sockaddr *sa,
                          socklen_t len)
{
    return accept_peer(a, sa, len, false);
}

unsigned access_client(struct access *a, const struct request *rq, char *client,
                       size_t size)
{
    const char *values[TRUSTED_PROXY_N_HEADERS];
    struct cidr_addr c;
    unsigned hops, status = 0;

    if (!a || a->trusted.n == 0)
        return 0;
    if (!rq->peer || peer_of(rq->peer, &c) < 0 ||
        !cidr_list_match(&a->trusted, &c))
        return 0;
    /* every line of each, joined by the transport (http/request.h) */
    values[TRUSTED_PROXY_XFF] = rq->field[RF_X_FORWARDED_FOR];
    values[TRUSTED_PROXY_FORWARDED] = rq->field[RF_FORWARDED];
    hops = forwarded_client(&a->trusted, values, &c);
    if (hops)
        cidr_addr_format(&c, client, size);
    if ((a->allow.n || a->deny.n) && !allowed(a, &c)) {
        if (a->metrics)
            metrics_count(&a->metrics->refused_forwarded);
        status = 403;
    }
    return status;
}

/* The site for the normalised @host: exact name, else longest wildcard. */
static struct site *pick(struct access *a, const char *host)
{
    struct site *best = NULL;
    size_t best_len = 0;

    if (!host[0])
        return NULL;
    for (size_t i = 0; i < a->n_vhosts; i++) {
        size_t m = host_pattern_match(a->vhosts[i].name, host);

        if (m == SIZE_MAX)
            return &a->vhosts[i];
        if (m > best_len) {
            best = &a->vhosts[i];
            best_len = m;
        }
    }
    return best;
}

/* The normalised Host of @rq into @host: 0, or -EINVAL for garbage. */
static int host_of(const struct request *rq, char *host)
{
    int r = target_host(rq->target, host);

    if (r == -ENOENT) {
        const char *h = rq->field[RF_HOST];

        host[0] = '\0';
        r = h ? host_normalize(h, host) : 0;
    }
    return r;
}

/* The view of rules a request on a site with rule files @files sees. */
static void view_of(struct access *a, const struct access_rules *files,
                    struct access_site *out)
{
    out->mounts = a->n_mounts ? a : NULL;
    if (a->rules) {
        out->view.a = a;
        out->view.global = a->global;
        out->view.site = files;
    }
}

/*
 * --sites: the directory @host (a DNS name) names. Returns 0 with @out
 * filled, 1 when there is no such directory (the --root site answers),
 * or the status of a refusal (its errno in out->err).
 */
static unsigned site_dir(struct access *a, const char *host,
                         struct access_site *out)
{
    struct sites_entry *e;
    int err = sites_get(a->sites, host, &e);

    if (err == -ENOENT || err == -ENOTDIR)
        return 1;
    if (err < 0) {
        out->err = -err;
        /* its rule files refused: the site is broken, not missing */
        return err == -EINVAL ? 500 : (unsigned)status_from_errno(err);
    }
    out->held = e;
    out->root_fd = sites_entry_fd(e);
    out->dir_cache = sites_thread_cache(a->sites, e);
    out->site = sites_entry_name(e);
    view_of(a, sites_entry_rules(e), out);
    return 0;
}

unsigned access_site(struct access *a, struct root *root_only,
                     const struct request *rq, struct access_site *out)
{
    struct site *s;

    memset(out, 0, sizeof *out);
    if (!a) {
        if (!root_only)
            return 421;
        out->root_fd = root_fd(root_only);
        out->dir_cache = root_dir_cache(root_only);
        return 0;
    }
    s = &a->dflt;
    if (a->n_vhosts || a->sites) {
        char host[HOST_MAX];
        struct site *v = NULL;

        if (host_of(rq, host) < 0)
            return 400;
        if (a->n_vhosts)
            v = pick(a, host);
        if (v) {
            s = v;
        } else if (a->sites) {
            int k = host_site_name(host);

            if (k < 0)
                return 400;
            /* an address or no Host at all names no site: --root's */
            unsigned st = k > 0 ? site_dir(a, host, out) : 1;
            if (st != 1)
                return st;
        }
    }
    if (!s->root)
        return 421;
    out->root_fd = root_fd(s->root);
    out->dir_cache = root_dir_cache(s->root);
    out->vhost = s->name;
    view_of(a, s->files, out);
    return 0;
}

void access_site_release(void *held)
{
    sites_put(held);
}

int access_site_exists(struct access *a, const char *host)
{
    char h[HOST_MAX];

    if (!a || host_normalize(host, h) < 0)
        return 0;
    for (size_t i = 0; i < a->n_vhosts; i++)
        if (host_pattern_match(a->vhosts[i].name, h))
            return 1;
    if (!a->sites || host_site_name(h) <= 0)
        return 0;
    return sites_exists(a->sites, h);
}

void access_sites_counts(void *arg, uint64_t *hits, uint64_t *misses)
{
    const struct access *a = arg;

    *hits = *misses = 0;
    if (a && a->sites)
        sites_counts(a->sites, hits, misses);
}

bool access_mount(const struct access_site *site, const char *norm,
                  struct access_route *out)
{
    const struct access *a = site->mounts;
    const struct mount *best = NULL;

    for (size_t i = 0; a && i < a->n_mounts; i++) {
        const struct mount *m = &a->mounts[i];

        if ((best && m->len <= best->len) ||
            !urlpath_beneath(m->prefix, m->len, norm) ||
            (m->file && norm[m->len] != '\0'))
            continue;
        best = m;
    }
    if (!best)
        return false;
    out->root_fd = best->root ? root_fd(best->root) : -ENOENT;
    out->dir_cache = best->root ? root_dir_cache(best->root) : NULL;
    out->path =
        best->file ? best->file : norm + best->len + (norm[best->len] == '/');
    out->prefix = best->prefix + 1;
    out->file = best->file;
    return true;
}

/* ---- what respond asks ---- */

void access_check_init(struct access_check *c, const struct access_view *v,
                       const char *authorization, char *user, size_t size)
{
    *c = (struct access_check){.v = v,
                               .authorization = authorization,
                               .user = user,
                               .size = size,
                               .passed = -1};
    if (size)
        user[0] = '\0';
}

/* --auth for the normalised @path; a 401 counted when @counted. */
static unsigned auth_path(struct access_check *c, const char *path,
                          bool counted)
{
    struct access *a = c->v->a;
    int rule = a ? auth_rule(a->auth, path) : -1;

    if (rule < 0 || rule == c->passed)
        return 0;
    if (auth_verify(a->auth, rule, c->authorization, c->user, c->size)) {
        if (counted && a->metrics)
            metrics_count(&a->metrics->auth_failures);
        return 401;
    }
    c->passed = rule;
    return 0;
}

unsigned access_check_path(struct access_check *c, const char *path)
{
    return auth_path(c, path, true);
}

unsigned access_may_serve(void *check, const char *path, const struct stat *st,
                          unsigned status)
{
    struct access_check *c = check;
    size_t len = strlen(path), need = len + 3;
    char small[512], *big = NULL;
    char *norm = need <= sizeof small ? small : (big = malloc(need));
    unsigned refused = 0;

    if (!norm)
        return 500;
    /* rules match the lexically normalised path, as for the request's */
    if (urlpath_normalize(path, len == 0 || path[len - 1] == '/', norm, need) !=
            0 ||
        access_hidden_name(c->v, norm) || (st && access_hidden_file(c->v, st)))
        refused = 404;
    else if (status != 401)
        refused = auth_path(c, norm, status < 400);
    free(big);
    return refused;
}

const char *access_challenge(const struct access_view *v)
{
    return v->a && v->a->auth ? auth_challenge(v->a->auth) : NULL;
}

bool access_hidden_name(const struct access_view *v, const char *path)
{
    return v->a && v->a->site_files &&
           (strcmp(path, "/_redirects") == 0 || strcmp(path, "/_headers") == 0);
}

bool access_hidden_file(const struct access_view *v, const struct stat *st)
{
    for (size_t i = 0; v->site && i < v->site->n_ids; i++)
        if (v->site->dev[i] == st->st_dev && v->site->ino[i] == st->st_ino)
            return true;
    return false;
}

int access_redirect(const struct access_view *v, const char *path,
                    const char *query, struct access_target *out)
{
    memset(out, 0, sizeof *out);
    for (int k = 0; k < 2; k++) {
        const struct access_rules *r = k == 0 ? v->global : v->site;
        const struct redirect_rule *rule;
        struct pathpat_caps caps;
        size_t n;

        if (!r || !r->has_redirects)
            continue;
        rule = redirects_match(&r->redirects, path, &caps);
        if (!rule)
            continue;
        n = redirects_target(rule, &caps, query, NULL, 0);
        out->url = malloc(n + 1);
        if (!out->url)
            return -ENOMEM;
        redirects_target(rule, &caps, query, out->url, n + 1);
        out->status = rule->status;
        out->force = rule->force;
        return 1;
    }
    return 0;
}

void access_headers(const struct access_view *v, const char *path,
                    struct access_headers *out)
{
    headers_file_collect(
        v->global && v->global->has_headers ? &v->global->headers : NULL, path,
        &out->out[0]);
    headers_file_collect(v->site && v->site->has_headers ? &v->site->headers
                                                         : NULL,
                         path, &out->out[1]);
}

bool access_headers_drop(const struct access_headers *h, const char *name)
{
    return headers_file_removed(&h->out[0], name) ||
           headers_file_removed(&h->out[1], name);
}

bool access_headers_sets(const struct access_headers *h, const char *name)
{
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < h->out[k].n_add; i++)
            if (strcasecmp(h->out[k].add[i]->name, name) == 0 &&
                !(k == 0 && headers_file_removed(&h->out[1], name)))
                return true;
    return false;
}

bool access_headers_any(const struct access_headers *h)
{
    return h->out[0].n_add || h->out[0].n_removed || h->out[1].n_add ||
           h->out[1].n_removed;
}

void access_headers_each(const struct access_headers *h,
                         void (*add)(void *arg, const char *name,
                                     const char *value),
                         void *arg)
{
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < h->out[k].n_add; i++) {
            const struct headers_opt_header *x = h->out[k].add[i];

            /* the site's "! Name" also drops the --headers-file one */
            if (k == 0 && headers_file_removed(&h->out[1], x->name))
                continue;
            add(arg, x->name, x->value);
        }
}
