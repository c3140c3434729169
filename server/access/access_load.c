// SPDX-License-Identifier: MIT
/*
 * access_load.c - sites (virtual hosts), address lists, htpasswd and rule
 * files: opened at start-up with every error collected, re-read on SIGHUP
 * keeping the old set where a new one fails (access.c has the security
 * decisions they serve).
 */
#include "access/access_internal.h"
#include "access/slurp.h"
#include "resolver.h"
#include "runtime/live.h"
#include "syntax/host.h"
#include "syntax/lines.h"
#include "syntax/trusted_proxy.h"
#include "syntax/urlpath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
        char *text = NULL;
        size_t len = 0;
        int err;

        if (!path)
            continue;
        err = slurp_path(path, ACCESS_RULES_FILE_MAX, &text, &len);
        err = access_rules_take(r, k == 0, err, text, len, path, when);
        if (err == -ENOMEM)
            return access_rules_keep(r, -ENOMEM, out);
        problems += err != 0;
    }
    return access_rules_keep(r, problems, out);
}

/* /_redirects and /_headers of site @s, through the resolver. */
static int site_load(const struct access *a, const struct site *s,
                     const char *when, struct access_rules **out)
{
    int root = root_dup(s->root), r;

    if (root < 0) {
        fprintf(stderr, "beneath: %s%s: %s\n", when, s->path, strerror(-root));
        return 1;
    }
    r = access_rules_load(a->confine, root, s->path, when, out);
    close(root);
    return r;
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
            int r =
                k == 2
                    ? trusted_proxy_add(dst[k], src[k]->v[i], err, sizeof err)
                    : cidr_list_add(dst[k], src[k]->v[i], err, sizeof err);

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

/*
 * The array for the @n items of the option @what (@unit: what an item is),
 * each @size bytes, at most @max; NULL with *@why: 1 after saying there
 * are too many, or -ENOMEM.
 */
static void *items_new(const char *what, const char *unit, size_t n, size_t max,
                       size_t size, int *why)
{
    void *v;

    if (n > max) {
        fprintf(stderr, "beneath: %s: %zu %s, at most %zu\n", what, n, unit,
                max);
        *why = 1;
        return NULL;
    }
    v = calloc(n ? n : 1, size);
    if (!v)
        *why = -ENOMEM;
    return v;
}

static int vhosts_load(struct access *a, const struct conf *c,
                       unsigned dir_cache)
{
    int problems = 0;

    /* no maximum: a root takes no pthread key (live.c) */
    a->vhosts = items_new("vhost", "virtual hosts", c->vhost.n, SIZE_MAX,
                          sizeof *a->vhosts, &problems);
    if (!a->vhosts)
        return problems;
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

/*
 * The root of mount @m: DIR itself, or for a file the directory that holds
 * it (the operator's path is trusted, as a root's is: its links are
 * followed once, here) with the file's name. 0, -ENOMEM, -EINVAL for what
 * is neither a directory nor a regular file, or another -errno.
 */
static int mount_open(struct mount *m, unsigned dir_cache)
{
    char real[PATH_MAX], *slash;
    struct stat st;

    if (stat(m->path, &st) != 0)
        return -errno;
    if (S_ISDIR(st.st_mode))
        return root_open(m->path, dir_cache, &m->root);
    if (!S_ISREG(st.st_mode))
        return -EINVAL;
    if (!realpath(m->path, real))
        return -errno;
    slash = strrchr(real, '/'); /* realpath's answer is absolute */
    m->file = strdup(slash + 1);
    if (!m->file)
        return -ENOMEM;
    *slash = '\0';
    return root_open(real[0] ? real : "/", dir_cache, &m->root);
}

static int mounts_load(struct access *a, const struct conf *c,
                       unsigned dir_cache)
{
    int problems = 0;

    a->mounts = items_new("mount", "mounts", c->mount.n, SIZE_MAX,
                          sizeof *a->mounts, &problems);
    if (!a->mounts)
        return problems;
    for (size_t i = 0; i < c->mount.n; i++) {
        const char *item = c->mount.v[i], *eq = strchr(item, '=');
        struct mount *m = &a->mounts[a->n_mounts];
        char err[256];

        if (!eq || urlpath_prefix_check(item, (size_t)(eq - item), err,
                                        sizeof err) < 0) {
            fprintf(stderr, "beneath: mount %s: %s\n", item,
                    eq ? err : "expected /URL/PREFIX=DIR");
            problems++;
            continue;
        }
        bool twice = false;
        for (size_t k = 0; k < a->n_mounts; k++)
            twice = twice ||
                    (a->mounts[k].prefix &&
                     a->mounts[k].len == (size_t)(eq - item) &&
                     strncmp(a->mounts[k].prefix, item, a->mounts[k].len) == 0);
        if (twice) {
            fprintf(stderr, "beneath: mount %s: %.*s is given twice\n", item,
                    (int)(eq - item), item);
            problems++;
            continue;
        }
        m->prefix = strndup(item, (size_t)(eq - item));
        m->len = (size_t)(eq - item);
        m->path = strdup(eq + 1);
        if (!m->prefix || !m->path) {
            free(m->prefix);
            free(m->path);
            return -ENOMEM;
        }
        a->n_mounts++;
        int r = mount_open(m, dir_cache);
        if (r == -ENOMEM)
            return -ENOMEM;
        if (r < 0) {
            fprintf(stderr, "beneath: mount %s: %s: %s\n", m->prefix, m->path,
                    r == -EINVAL ? "not a directory or a regular file"
                                 : strerror(-r));
            problems++;
        }
    }
    return problems;
}

/*
 * --sites DIR: opened now (its listing is not read); with the emulated
 * backend each thread keeps one directory cache of @dir_cache for the
 * site it served last.
 */
static int sites_load(struct access *a, const struct conf *c,
                      unsigned dir_cache)
{
    enum resolver_backend b = resolver_get_backend();
    bool emulated = b == RESOLVER_BACKEND_EMULATED ||
                    (b == RESOLVER_BACKEND_AUTO &&
                     resolver_auto_backend(NULL) == RESOLVER_BACKEND_EMULATED);
    struct sites_conf sc = {
        .dir = c->sites,
        .confine = c->confine,
        .cache = c->sites_cache,
        .dir_cache = emulated ? dir_cache : 0,
        .site_files = c->site_files,
    };
    int r;

    if (!c->sites)
        return 0;
    r = sites_open(&sc, &a->sites);
    if (r == -ENOMEM)
        return -ENOMEM;
    if (r < 0) {
        fprintf(stderr, "beneath: sites %s: %s\n", c->sites, strerror(-r));
        return 1;
    }
    return 0;
}

/*
 * --follow-into: each directory opened once, for every generation (the
 * set is fixed at start-up, as the sandbox that reads beneath them is).
 */
static int into_load(struct access *a, const struct conf *c)
{
    int problems = 0;

    a->into = items_new("follow-into", "directories", c->follow_into.n,
                        ACCESS_FOLLOW_INTO_MAX, sizeof *a->into, &problems);
    if (!a->into)
        return problems;
    for (size_t i = 0; i < c->follow_into.n; i++) {
        const char *dir = c->follow_into.v[i];
        int r = resolver_into_open(dir, &a->into[a->n_into]);

        if (r == -ENOMEM)
            return -ENOMEM;
        if (r < 0) {
            fprintf(stderr, "beneath: follow-into %s: %s\n", dir, strerror(-r));
            problems++;
            continue;
        }
        a->n_into++;
    }
    return problems;
}

static int error_pages_load(struct access *a, const struct conf *c)
{
    int problems = 0;

    for (size_t i = 0; i < c->error_page.n; i++) {
        char err[256];
        int r = error_pages_add(&a->error_pages, c->error_page.v[i], err,
                                sizeof err);

        if (r == -ENOMEM)
            return -ENOMEM;
        if (r < 0) {
            fprintf(stderr, "beneath: error-page %s: %s\n", c->error_page.v[i],
                    err);
            problems++;
        }
    }
    return problems;
}

/* The rules a load gave (@r: its problems, or -ENOMEM; @rules: NULL
 * unless @r is 0) into *@out. Returns @r. */
static int rules_keep(int r, struct access_rules *rules,
                      struct access_rules **out)
{
    *out = r == 0 ? rules : NULL;
    return r;
}

/*
 * Whether the site root @root (a descriptor) holds @path as a file to serve,
 * opened as a request would open it (the resolver, --confine): 0, -EISDIR
 * or -EINVAL when it is no regular file, or the resolver's -errno.
 */
static int site_file(const struct access *a, int root, const char *path)
{
    struct resolver_how how = {.open_flags = O_RDONLY | O_NONBLOCK,
                               .resolve = a->confine,
                               .backend = RESOLVER_BACKEND_DEFAULT};
    int fd = resolver_open_how(root, path, &how, NULL);
    struct stat st;
    int err = 0;

    if (fd < 0)
        return fd;
    if (fstat(fd, &st) != 0)
        err = -errno;
    else if (!S_ISREG(st.st_mode))
        err = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
    close(fd);
    return err;
}

/* Warn about an --error-page file a site root does not have. */
static void check_pages(const struct access *a, const struct site *s)
{
    int root = s->root ? root_dup(s->root) : -1;

    for (size_t i = 0; root >= 0 && i < a->error_pages.n; i++) {
        const struct error_page *e = &a->error_pages.v[i];
        int err = site_file(a, root, e->path);

        if (err)
            fprintf(stderr,
                    "beneath: warning: error-page %u: /%s under %s: %s (the "
                    "built-in page is sent)\n",
                    e->status, e->path, s->path, strerror(-err));
    }
    if (root >= 0)
        close(root);
}

void access_check_fallback(const struct access *a, const char *path,
                           const char *when)
{
    for (size_t i = 0; a && path && i <= a->n_vhosts; i++) {
        const struct site *s = i < a->n_vhosts ? &a->vhosts[i] : &a->dflt;
        int root = s->root ? root_dup(s->root) : -1;
        int err = root >= 0 ? site_file(a, root, path) : 0;

        if (err)
            fprintf(stderr,
                    "beneath: %swarning: fallback /%s under %s: %s (a path "
                    "not found is answered 404)\n",
                    when, path, s->path, strerror(-err));
        if (root >= 0)
            close(root);
    }
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
    ADD(mounts_load(a, c, dir_cache));
    ADD(into_load(a, c));
    ADD(sites_load(a, c, dir_cache));
    ADD(error_pages_load(a, c));
    ADD(auth_new(c, &a->auth));
    if (c->redirects && !(a->redirects_path = strdup(c->redirects)))
        goto out_nomem;
    if (c->headers_file && !(a->headers_path = strdup(c->headers_file)))
        goto out_nomem;
    if (a->redirects_path || a->headers_path) {
        struct access_rules *g = NULL;

        r = global_load(a, "", &g);
        ADD(rules_keep(r, g, &a->global));
    }
    for (size_t i = 0; a->site_files && i <= a->n_vhosts; i++) {
        struct site *s = i < a->n_vhosts ? &a->vhosts[i] : &a->dflt;
        struct access_rules *sr = NULL;

        if (!s->root)
            continue;
        r = site_load(a, s, "", &sr);
        ADD(rules_keep(r, sr, &s->files));
    }
    for (size_t i = 0; i <= a->n_vhosts; i++)
        check_pages(a, i < a->n_vhosts ? &a->vhosts[i] : &a->dflt);
    access_check_fallback(a, c->fallback, "");
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

void access_startup(const struct access *a, FILE *f)
{
    for (size_t i = 0; a && i < a->n_vhosts; i++)
        fprintf(f, "beneath: vhost %s root %s\n", a->vhosts[i].name,
                a->vhosts[i].path);
    for (size_t i = 0; a && i < a->n_mounts; i++)
        fprintf(f, "beneath: mount %s %s%s\n", a->mounts[i].prefix,
                a->mounts[i].path, a->mounts[i].file ? " (one file)" : "");
    for (size_t i = 0; a && i < a->n_into; i++)
        fprintf(f, "beneath: follow-into %s%s%s%s\n",
                a->into[i].alias ? a->into[i].alias : a->into[i].path,
                a->into[i].alias ? " (" : "",
                a->into[i].alias ? a->into[i].path : "",
                a->into[i].alias ? ")" : "");
    if (a && a->sites)
        fprintf(f,
                "beneath: sites %s: each Host is the directory of its name "
                "there, looked up on every request; any other Host gets %s\n",
                sites_dir(a->sites), a->dflt.root ? "the root" : "421");
    else if (a && a->n_vhosts && !a->dflt.root)
        fprintf(f, "beneath: no --root: a Host no vhost names gets 421\n");
}

const struct error_pages *access_error_pages(const struct access *a)
{
    return a ? &a->error_pages : NULL;
}

const struct resolver_into *access_follow_into(const struct access *a,
                                               size_t *n)
{
    *n = a ? a->n_into : 0;
    return *n ? a->into : NULL;
}

void access_free(struct access *a)
{
    if (!a)
        return;
    cidr_list_free(&a->allow);
    cidr_list_free(&a->deny);
    cidr_list_free(&a->trusted);
    auth_free(a->auth);
    access_rules_free(a->global);
    for (size_t i = 0; i < a->n_vhosts; i++) {
        access_rules_free(a->vhosts[i].files);
        root_close(a->vhosts[i].root);
        free(a->vhosts[i].name);
        free(a->vhosts[i].path);
    }
    free(a->vhosts);
    for (size_t i = 0; i < a->n_mounts; i++) {
        root_close(a->mounts[i].root);
        free(a->mounts[i].prefix);
        free(a->mounts[i].path);
        free(a->mounts[i].file);
    }
    free(a->mounts);
    for (size_t i = 0; i < a->n_into; i++)
        resolver_into_close(&a->into[i]);
    free(a->into);
    sites_free(a->sites);
    access_rules_free(a->dflt.files);
    free(a->dflt.path);
    free(a->redirects_path);
    free(a->headers_path);
    error_pages_free(&a->error_pages);
    free(a);
}
