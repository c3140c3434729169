// SPDX-License-Identifier: MIT
/*
 * access.c - sites (virtual hosts), address rules, rule files and the
 * request-time questions respond asks (see access.h).
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
 *   client could have placed further left.
 * - A Host that is not a host name is 400; one that no site serves is 421
 *   (RFC 9110 15.5.20), not another site's answer.
 */
#include "access.h"

#include "auth.h"
#include "cidr.h"
#include "forwarded.h"
#include "host.h"
#include "lines.h"
#include "live.h"
#include "redirects.h"
#include "resolver.h"
#include "slurp.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/*
 * Virtual hosts at most: each root takes a pthread key (root.c), and with
 * --site-files its rules another (live.c); PTHREAD_KEYS_MAX is 1024.
 */
#define ACCESS_VHOST_MAX 256
/* A _redirects or _headers file larger than this is refused. */
#define ACCESS_RULES_FILE_MAX ((size_t)16 << 20)

struct access_rules {
    struct redirects redirects;
    struct headers_file headers;
    bool has_redirects, has_headers;
    dev_t dev[2]; /* the site's own files: never served */
    ino_t ino[2];
    size_t n_ids;
};

struct site {
    char *name; /* normalised vhost pattern; NULL: the --root site */
    char *path;
    struct root *root; /* NULL: none (421) */
    bool owned;
    struct live *files; /* struct access_rules * with --site-files */
};

struct access {
    struct cidr_list allow, deny, trusted;
    struct auth *auth;
    char *redirects_path, *headers_path;
    struct live *global; /* struct access_rules *, or NULL */
    struct site *vhosts;
    size_t n_vhosts;
    struct site dflt;
    bool site_files;
    bool rules; /* respond has questions to ask (auth or rule files) */
    uint64_t confine;
    struct error_pages error_pages;
    struct metrics *metrics;
};

static void rules_free(void *p)
{
    struct access_rules *r = p;

    if (!r)
        return;
    redirects_free(&r->redirects);
    headers_file_free(&r->headers);
    free(r);
}

/*
 * Parse @text as a _redirects (@redirects) or _headers file named @name
 * into @r; messages to stderr after "beneath: @when". Returns 0, -EINVAL
 * or -ENOMEM.
 */
static int parse_into(struct access_rules *r, bool redirects, const char *text,
                      size_t len, const char *name, const char *when)
{
    struct lines_diag d = {0};
    int err = redirects ? redirects_parse(&r->redirects, text, len, name, &d)
                        : headers_file_parse(&r->headers, text, len, name, &d);

    for (size_t i = 0; i < d.n; i++)
        fprintf(stderr, "beneath: %s%s\n", when, d.msgs[i]);
    if (d.dropped)
        fprintf(stderr, "beneath: %s%s: %zu more problems\n", when, name,
                d.dropped);
    lines_diag_free(&d);
    if (err == 0) {
        if (redirects)
            r->has_redirects = true;
        else
            r->has_headers = true;
    }
    return err;
}

/* --redirects and --headers-file, read by path. */
static int global_load(const struct access *a, const char *when,
                       struct access_rules **out)
{
    struct access_rules *r = calloc(1, sizeof *r);
    int problems = 0;

    if (!r)
        return -ENOMEM;
    for (int k = 0; k < 2; k++) {
        const char *path = k == 0 ? a->redirects_path : a->headers_path;
        char *text = NULL, why[64];
        size_t len = 0;
        int err;

        if (!path)
            continue;
        err = slurp_path(path, ACCESS_RULES_FILE_MAX, &text, &len);
        if (err == 0)
            err = parse_into(r, k == 0, text, len, path, when);
        else
            fprintf(stderr, "beneath: %s%s: %s\n", when, path,
                    slurp_error(err, ACCESS_RULES_FILE_MAX, why, sizeof why));
        free(text);
        if (err == -ENOMEM) {
            rules_free(r);
            return -ENOMEM;
        }
        problems += err != 0;
    }
    if (problems) {
        rules_free(r);
        return problems;
    }
    *out = r;
    return 0;
}

/* /_redirects and /_headers of site @s, through the resolver. */
static int site_load(const struct access *a, const struct site *s,
                     const char *when, struct access_rules **out)
{
    static const char *const names[2] = {"_redirects", "_headers"};
    struct access_rules *r = calloc(1, sizeof *r);
    int root, problems = 0;

    if (!r)
        return -ENOMEM;
    root = root_dup(s->root);
    if (root < 0) {
        fprintf(stderr, "beneath: %s%s: %s\n", when, s->path, strerror(-root));
        rules_free(r);
        return 1;
    }
    for (int k = 0; k < 2; k++) {
        struct resolver_how how = {
            .open_flags = O_RDONLY | O_NONBLOCK,
            .resolve = a->confine,
            .backend = RESOLVER_BACKEND_DEFAULT,
        };
        char name[4200], *text = NULL, why[64];
        size_t len = 0;
        struct stat st;
        int fd = resolver_open_how(root, names[k], &how, NULL), err;

        snprintf(name, sizeof name, "%s%s%s", s->path,
                 s->path[strlen(s->path) - 1] == '/' ? "" : "/", names[k]);
        if (fd == -ENOENT)
            continue;
        if (fd < 0) {
            const char *e = resolver_errno_name(-fd);
            fprintf(stderr, "beneath: %s%s: %s (%s)\n", when, name,
                    strerror(-fd), e ? e : "?");
            problems++;
            continue;
        }
        err = fstat(fd, &st) != 0 ? -errno : 0;
        if (err == 0)
            err = slurp_fd(fd, ACCESS_RULES_FILE_MAX, &text, &len);
        close(fd);
        if (err == 0) {
            r->dev[r->n_ids] = st.st_dev;
            r->ino[r->n_ids++] = st.st_ino;
            err = parse_into(r, k == 0, text, len, name, when);
        } else {
            fprintf(stderr, "beneath: %s%s: %s\n", when, name,
                    slurp_error(err, ACCESS_RULES_FILE_MAX, why, sizeof why));
        }
        free(text);
        if (err == -ENOMEM) {
            close(root);
            rules_free(r);
            return -ENOMEM;
        }
        problems += err != 0;
    }
    close(root);
    if (problems) {
        rules_free(r);
        return problems;
    }
    *out = r;
    return 0;
}

/* Whether the listener @l is plain HTTP on a non-loopback address. */
static bool exposed(const struct conf_listen *l)
{
    if (l->kind != CONF_LISTEN_TCP || l->tls)
        return false;
    return !(strncmp(l->host, "127.", 4) == 0 || strcmp(l->host, "::1") == 0 ||
             strcmp(l->host, "localhost") == 0);
}

static int lists_load(struct access *a, const struct conf *c)
{
    const struct conf_strv *src[3] = {&c->allow, &c->deny, &c->trusted_proxy};
    struct cidr_list *dst[3] = {&a->allow, &a->deny, &a->trusted};
    static const char *const names[3] = {"allow", "deny", "trusted-proxy"};
    int problems = 0;

    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < src[k]->n; i++) {
            char err[256];
            int r = cidr_list_add(dst[k], src[k]->v[i], err, sizeof err);

            if (r == -ENOMEM)
                return -ENOMEM;
            if (r < 0) {
                fprintf(stderr, "beneath: %s %s: %s\n", names[k], src[k]->v[i],
                        err);
                problems++;
            }
        }
    return problems;
}

static int vhosts_load(struct access *a, const struct conf *c,
                       unsigned dir_cache)
{
    int problems = 0;

    if (c->vhost.n > ACCESS_VHOST_MAX) {
        fprintf(stderr, "beneath: vhost: %zu virtual hosts, at most %d\n",
                c->vhost.n, ACCESS_VHOST_MAX);
        return 1;
    }
    a->vhosts = calloc(c->vhost.n ? c->vhost.n : 1, sizeof *a->vhosts);
    if (!a->vhosts)
        return -ENOMEM;
    for (size_t i = 0; i < c->vhost.n; i++) {
        const char *item = c->vhost.v[i], *eq = strchr(item, '=');
        struct site *s = &a->vhosts[a->n_vhosts];
        char name[HOST_MAX], err[256];

        if (!eq || (size_t)(eq - item) >= sizeof name) {
            fprintf(stderr, "beneath: vhost %s: expected NAME=ROOT\n", item);
            problems++;
            continue;
        }
        memcpy(name, item, (size_t)(eq - item));
        name[eq - item] = '\0';
        if (host_pattern_check(name, name, err, sizeof err) < 0) {
            fprintf(stderr, "beneath: vhost %s: %s\n", item, err);
            problems++;
            continue;
        }
        bool twice = false;
        for (size_t k = 0; k < a->n_vhosts; k++)
            twice = twice || strcmp(a->vhosts[k].name, name) == 0;
        if (twice) {
            fprintf(stderr, "beneath: vhost %s: %s is given twice\n", item,
                    name);
            problems++;
            continue;
        }
        s->name = strdup(name);
        s->path = strdup(eq + 1);
        if (!s->name || !s->path) {
            free(s->name);
            free(s->path);
            return -ENOMEM;
        }
        s->owned = true;
        a->n_vhosts++;
        int r = root_open(s->path, dir_cache, &s->root);
        if (r == -ENOMEM)
            return -ENOMEM;
        if (r < 0) {
            fprintf(stderr, "beneath: vhost %s: root %s: %s\n", s->name,
                    s->path, strerror(-r));
            problems++;
        }
    }
    return problems;
}

/* Warn about an --error-page file a site root does not have. */
static void check_pages(const struct access *a, const struct site *s)
{
    int root = s->root ? root_dup(s->root) : -1;

    for (size_t i = 0; root >= 0 && i < a->error_pages.n; i++) {
        const struct error_page *e = &a->error_pages.v[i];
        struct resolver_how how = {.open_flags = O_RDONLY | O_NONBLOCK,
                                   .resolve = a->confine,
                                   .backend = RESOLVER_BACKEND_DEFAULT};
        int fd = resolver_open_how(root, e->path, &how, NULL);

        if (fd >= 0) {
            close(fd);
            continue;
        }
        fprintf(stderr,
                "beneath: warning: error-page %u: /%s under %s: %s (the "
                "built-in page is sent)\n",
                e->status, e->path, s->path, strerror(-fd));
    }
    if (root >= 0)
        close(root);
}

int access_open(const struct conf *c, struct root *root, unsigned dir_cache,
                struct metrics *metrics, struct access **out)
{
    struct access *a = calloc(1, sizeof *a);
    int problems = 0, r;

    *out = NULL;
    if (!a)
        return -ENOMEM;
    a->metrics = metrics;
    a->confine = c->confine;
    a->site_files = c->site_files;
    a->dflt.root = root;
    a->dflt.path = c->root ? strdup(c->root) : NULL;
    if (c->root && !a->dflt.path)
        goto out_nomem;
#define ADD(x)                                                                 \
    do {                                                                       \
        r = (x);                                                               \
        if (r < 0)                                                             \
            goto out_nomem;                                                    \
        problems += r;                                                         \
    } while (0)
    ADD(lists_load(a, c));
    ADD(vhosts_load(a, c, dir_cache));
    for (size_t i = 0; i < c->error_page.n; i++) {
        char err[256];

        r = error_pages_add(&a->error_pages, c->error_page.v[i], err,
                            sizeof err);
        if (r == -ENOMEM)
            goto out_nomem;
        if (r < 0) {
            fprintf(stderr, "beneath: error-page %s: %s\n", c->error_page.v[i],
                    err);
            problems++;
        }
    }
    ADD(auth_new(c, &a->auth));
    if (c->redirects && !(a->redirects_path = strdup(c->redirects)))
        goto out_nomem;
    if (c->headers_file && !(a->headers_path = strdup(c->headers_file)))
        goto out_nomem;
    if (a->redirects_path || a->headers_path) {
        struct access_rules *g = NULL;

        r = global_load(a, "", &g);
        if (r < 0)
            goto out_nomem;
        problems += r;
        if (r == 0 && live_new(g, rules_free, &a->global) < 0) {
            rules_free(g);
            goto out_nomem;
        }
    }
    for (size_t i = 0; a->site_files && i <= a->n_vhosts; i++) {
        struct site *s = i < a->n_vhosts ? &a->vhosts[i] : &a->dflt;
        struct access_rules *sr = NULL;

        if (!s->root)
            continue;
        r = site_load(a, s, "", &sr);
        if (r < 0)
            goto out_nomem;
        problems += r;
        if (r == 0 && live_new(sr, rules_free, &s->files) < 0) {
            rules_free(sr);
            goto out_nomem;
        }
    }
    for (size_t i = 0; i <= a->n_vhosts; i++)
        check_pages(a, i < a->n_vhosts ? &a->vhosts[i] : &a->dflt);
#undef ADD
    a->rules = a->auth || a->global || a->site_files;
    for (size_t i = 0; c->auth.n && i < c->n_listen; i++)
        if (exposed(&c->listen[i]))
            fprintf(stderr,
                    "beneath: warning: --auth on plain HTTP at %s:%u: "
                    "passwords cross the network readable; use an https:// "
                    "listener\n",
                    c->listen[i].host, c->listen[i].port);
    if (c->trusted_proxy.n && !c->allow.n && !c->deny.n)
        fprintf(stderr, "beneath: trusted-proxy: the forwarded client is "
                        "logged (no --allow/--deny to check it against)\n");
    *out = a;
    return problems;
out_nomem:
    access_free(a);
    return -ENOMEM;
}

void access_reload(struct access *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->n_vhosts; i++) {
        struct site *s = &a->vhosts[i];
        int err = s->root ? root_reload(s->root) : -ENOENT;

        if (err)
            fprintf(stderr,
                    "beneath: SIGHUP: vhost %s: cannot reopen the root %s: "
                    "%s; keeping the old root\n",
                    s->name, s->path, strerror(-err));
        else
            fprintf(stderr, "beneath: SIGHUP: vhost %s: root %s reopened\n",
                    s->name, s->path);
    }
    auth_reload(a->auth);
    if (a->global) {
        struct access_rules *g = NULL;

        if (global_load(a, "SIGHUP: ", &g) == 0 &&
            live_publish(a->global, g) < 0)
            rules_free(g); /* out of memory: the old rules stay */
        else if (!g)
            fprintf(stderr, "beneath: SIGHUP: keeping the --redirects and "
                            "--headers-file rules read before\n");
    }
    for (size_t i = 0; i <= a->n_vhosts; i++) {
        struct site *s = i < a->n_vhosts ? &a->vhosts[i] : &a->dflt;
        struct access_rules *sr = NULL;

        if (!s->files)
            continue;
        if (site_load(a, s, "SIGHUP: ", &sr) == 0 &&
            live_publish(s->files, sr) < 0)
            rules_free(sr); /* out of memory: the old rules stay */
        else if (!sr)
            fprintf(stderr,
                    "beneath: SIGHUP: %s: keeping the _redirects and "
                    "_headers read before\n",
                    s->path);
    }
}

void access_startup(const struct access *a, FILE *f)
{
    for (size_t i = 0; a && i < a->n_vhosts; i++)
        fprintf(f, "beneath: vhost %s root %s\n", a->vhosts[i].name,
                a->vhosts[i].path);
    if (a && a->n_vhosts && !a->dflt.root)
        fprintf(f, "beneath: no --root: a Host no vhost names gets 421\n");
}

const struct error_pages *access_error_pages(const struct access *a)
{
    return a ? &a->error_pages : NULL;
}

void access_free(struct access *a)
{
    if (!a)
        return;
    cidr_list_free(&a->allow);
    cidr_list_free(&a->deny);
    cidr_list_free(&a->trusted);
    auth_free(a->auth);
    live_free(a->global);
    for (size_t i = 0; i < a->n_vhosts; i++) {
        live_free(a->vhosts[i].files);
        root_close(a->vhosts[i].root);
        free(a->vhosts[i].name);
        free(a->vhosts[i].path);
    }
    free(a->vhosts);
    live_free(a->dflt.files);
    free(a->dflt.path);
    free(a->redirects_path);
    free(a->headers_path);
    error_pages_free(&a->error_pages);
    free(a);
}

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

bool access_accept(struct access *a, const struct sockaddr *sa, socklen_t len)
{
    struct cidr_addr c;

    if (!a || (a->allow.n == 0 && a->deny.n == 0))
        return true;
    if (cidr_addr_from_sockaddr(sa, len, &c) < 0)
        return true; /* AF_UNIX: local, the socket's permissions decide */
    if (cidr_list_match(&a->trusted, &c) || allowed(a, &c))
        return true;
    if (a->metrics)
        metrics_count(&a->metrics->refused_address);
    return false;
}

/* Every value of one request header, joined with ", ". */
struct joined {
    const char *name;
    char *buf;
    size_t len;
    bool oom;
};

static enum MHD_Result join_value(void *cls, enum MHD_ValueKind kind,
                                  const char *key, const char *value)
{
    struct joined *j = cls;
    size_t n = value ? strlen(value) : 0;
    char *b;

    (void)kind;
    if (!value || strcasecmp(key, j->name) != 0)
        return MHD_YES;
    b = realloc(j->buf, j->len + n + 3);
    if (!b) {
        j->oom = true;
        return MHD_NO;
    }
    j->buf = b;
    if (j->len) {
        memcpy(j->buf + j->len, ", ", 2);
        j->len += 2;
    }
    memcpy(j->buf + j->len, value, n + 1);
    j->len += n;
    return MHD_YES;
}

unsigned access_client(struct access *a, struct MHD_Connection *mc,
                       char *client, size_t size)
{
    const union MHD_ConnectionInfo *ci;
    struct joined fwd = {.name = "Forwarded"},
                  xff = {.name = "X-Forwarded-For"};
    struct cidr_addr c;
    unsigned hops, status = 0;

    if (!a || a->trusted.n == 0)
        return 0;
    ci = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!ci || peer_of(ci->client_addr, &c) < 0 ||
        !cidr_list_match(&a->trusted, &c))
        return 0;
    MHD_get_connection_values(mc, MHD_HEADER_KIND, join_value, &fwd);
    MHD_get_connection_values(mc, MHD_HEADER_KIND, join_value, &xff);
    /* out of memory for the list: the proxy stays the client, refused
     * below unless the rules let the proxy itself in */
    hops = fwd.oom || xff.oom
               ? 0
               : forwarded_client(&a->trusted, fwd.buf, xff.buf, &c);
    free(fwd.buf);
    free(xff.buf);
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

unsigned access_site(struct access *a, struct root *root_only,
                     struct MHD_Connection *mc, const char *raw_target,
                     struct access_site *out)
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
    if (a->n_vhosts) {
        char host[HOST_MAX];
        int r = host_from_target(raw_target, host);

        if (r == -ENOENT) {
            const char *h =
                MHD_lookup_connection_value(mc, MHD_HEADER_KIND, "Host");

            host[0] = '\0';
            r = h ? host_normalize(h, host) : 0;
        }
        if (r < 0)
            return 400;
        struct site *v = pick(a, host);
        if (v)
            s = v;
    }
    if (!s->root)
        return 421;
    out->root_fd = root_fd(s->root);
    out->dir_cache = root_dir_cache(s->root);
    out->vhost = s->name;
    if (a->rules) {
        out->view.a = a;
        out->view.global = a->global ? live_get(a->global) : NULL;
        out->view.site = s->files ? live_get(s->files) : NULL;
    }
    return 0;
}

/* ---- what respond asks ---- */

unsigned access_auth(const struct access_view *v, const char *path,
                     const char *authorization, char *user, size_t size)
{
    unsigned st;

    if (size)
        user[0] = '\0';
    if (!v->a || !v->a->auth)
        return 0;
    st = auth_check(v->a->auth, path, authorization, user, size);
    if (st && v->a->metrics)
        metrics_count(&v->a->metrics->auth_failures);
    return st;
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

void access_headers_add(const struct access_headers *h,
                        struct MHD_Response *resp)
{
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < h->out[k].n_add; i++) {
            const struct headers_opt_header *x = h->out[k].add[i];

            /* the site's "! Name" also drops the --headers-file one */
            if (k == 0 && headers_file_removed(&h->out[1], x->name))
                continue;
            MHD_add_response_header(resp, x->name, x->value);
        }
}
