// SPDX-License-Identifier: MIT
/*
 * lookup.c - the candidates of one request, in order, through the resolver.
 *
 * The invariant (DESIGN.md: every decision of who may see what is made on
 * each file lookup actually opens, not on the path that was asked): every
 * candidate that can become the plan - the request's path, path.html,
 * each index file, the directory to list, the sidecar chosen, the
 * fallback, an error page, a _redirects rewrite target (looked up as a
 * request) - is opened and fstat()ed, then judged by judge(), the request's
 * files_judge (the access rules: auth globs, the site's own rule files),
 * by its name in the site (beneath a --mount: the URL it answers, never
 * the path beneath the mount's root), and only then taken into the plan; a
 * listing shows only the entries the judge lets through. A rule that matches
 * any candidate protects it: the refusal (401, 403, 404) is the answer, never a
 * later candidate. Not judged, as they serve nothing: a variant opened only to
 * learn that it exists (Vary), a directory answered with a 301.
 *
 * Security decisions, all here:
 * - Every path, including the index file, the sidecars, path.html, the
 *   fallback and the error pages, is opened by the confined resolver from the
 * root fd; nothing is joined into a string path and opened, and nothing is
 *   stat()ed by name. An index file is opened from the root again, not from
 *   the directory's fd: one rule for every path.
 * - O_NONBLOCK: a FIFO in the tree must never block a worker. It has no
 *   effect on regular files, so the fd goes to sendfile as it is.
 * - Only regular files are served; FIFOs, sockets and devices get 403.
 * - A sidecar or path.html that the resolver refuses (a link out of the
 *   root) is not a candidate; the plain file is served, or the refusal of
 *   path.html is reported instead of the 404 of the plain path.
 * - The fallback is the last candidate of a path *not found* (ENOENT,
 *   ENOTDIR), never the answer to one refused. Every refusal leaves
 *   through fail(), which may pick an error page (a file looked up like
 *   any other, whose own failure gives the built-in body) but never makes
 *   a success.
 *
 * The plan owns at most one fd at a time: a candidate replaces the one
 * before it only once it is known to be served.
 */
#include "files/lookup.h"

#include "common/mono.h"
#include "http/negotiate.h"
#include "http/status.h"
#include "syntax/mime.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct lookup {
    const struct files_conf *conf;
    const struct files_request *rq;
    struct plan *p;
    enum resolver_backend last; /* the backend of the last resolver call */
};

/*
 * Open @path beneath the root. @primary: the backend that answers goes to
 * the plan (the access log names the backend of the request's own path, not
 * of a sidecar or 404.html).
 */
static int open_beneath(struct lookup *l, const char *path, int flags,
                        bool primary)
{
    struct resolver_how how = {
        .open_flags = flags,
        .resolve = l->conf->confine,
        .backend = RESOLVER_BACKEND_DEFAULT,
        .cache = l->rq->cache,
        .into = l->conf->into,
        .n_into = l->conf->n_into,
        /* which link left, for the log line of a refusal */
        .escape = primary ? &l->p->escape : NULL,
    };
    enum resolver_backend served = RESOLVER_BACKEND_DEFAULT;
    bool timed = l->conf->resolved != NULL;
    uint64_t t0 = timed ? mono_ns() : 0, ns;
    int fd =
        resolver_open_how(l->rq->root_fd, path[0] ? path : ".", &how, &served);

    l->last = served;
    if (primary)
        l->p->backend = served;
    if (timed) {
        ns = mono_ns() - t0;
        l->p->resolve_ns += ns;
        l->conf->resolved(l->conf->resolved_arg, served, ns, fd);
    }
    return fd;
}

/*
 * Open @path as a regular file: an fd and its stat in @st, or -errno from
 * the resolver, or -EISDIR / -EINVAL when it is a directory / anything else.
 */
static int open_regular(struct lookup *l, const char *path, struct stat *st,
                        bool primary)
{
    int fd = open_beneath(l, path, O_RDONLY | O_NONBLOCK, primary);

    if (fd < 0)
        return fd;
    if (fstat(fd, st) != 0) {
        int err = -errno;
        close(fd);
        return err;
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        return S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
    }
    return fd;
}

/*
 * The site's name of @path, a path beneath the request's root: @path
 * itself, or under a --mount its URL ("doc/" + path; for a file mount the
 * file's name is the URL's last segment and any other candidate, a sidecar
 * or an error page, sits beside it). Into @buf of @size bytes; false when
 * it does not fit.
 */
static bool site_name(const struct files_request *rq, const char *path,
                      char *buf, size_t size)
{
    const char *pre = rq->name_prefix, *file = rq->name_file;
    size_t flen = file ? strlen(file) : 0;
    int n;

    if (!pre)
        n = snprintf(buf, size, "%s", path);
    else if (!file)
        n = snprintf(buf, size, "%s/%s", pre, path);
    else if (strncmp(path, file, flen) == 0)
        n = snprintf(buf, size, "%s%s", pre, path + flen);
    else {
        const char *slash = strrchr(pre, '/');

        n = snprintf(buf, size, "%.*s%s", slash ? (int)(slash - pre + 1) : 0,
                     pre, path);
    }
    return n >= 0 && (size_t)n < size;
}

/* The plan's name: the site's name of @path (cut short if it must be). */
static void set_name(struct lookup *l, const char *path)
{
    site_name(l->rq, path, l->p->name, sizeof l->p->name);
}

static void take_fd(struct plan *p, enum plan_kind kind, unsigned status,
                    int fd, const struct stat *st)
{
    if (p->fd >= 0)
        close(p->fd);
    p->kind = kind;
    p->status = status;
    p->fd = fd;
    p->st = *st;
}

static void fail(struct lookup *l, unsigned status);

static void refuse(struct lookup *l, int err)
{
    l->p->err = err < 0 ? -err : err;
    fail(l, (unsigned)status_from_errno(err));
}

/*
 * The one place a candidate is decided: whether the request may be answered
 * with the file @path (@st), sent with @status, by the request's judge (the
 * access rules). A compressed copy is judged as the file it compresses too:
 * "data.json.gz" (".br", ".zst"; every suffix, whatever --precompressed
 * says, and repeated: "a.json.gz.br") is also "data.json", so a rule for
 * *.json protects its sidecars asked for by their own names.
 *
 * Returns 0, or the status that refuses it.
 */
static unsigned judge(const struct files_judge *j, const char *path,
                      const struct stat *st, unsigned status)
{
    char base[PATH_MAX];
    size_t n = strnlen(path, sizeof base);
    unsigned refused;
    bool stripped = true;

    if (!j->may_serve)
        return 0;
    refused = j->may_serve(j->arg, path, st, status);
    if (refused || n >= sizeof base)
        return refused;
    memcpy(base, path, n + 1);
    while (!refused && stripped) {
        stripped = false;
        for (int e = 0; e < CODING_N && !stripped; e++) {
            const char *sfx = coding_suffix((enum coding)e);
            size_t k = strlen(sfx);

            if (n > k && base[n - k - 1] != '/' &&
                memcmp(base + n - k, sfx, k) == 0) {
                n -= k;
                base[n] = '\0';
                stripped = true;
            }
        }
        if (stripped)
            refused = j->may_serve(j->arg, base, st, status);
    }
    return refused;
}

/*
 * judge() for @path beneath the request's root, by its site's name (under a
 * --mount its URL, so the rules see the path a client asks for); a name
 * too long to be asked for is 404.
 */
static unsigned candidate(struct lookup *l, const char *path,
                          const struct stat *st, unsigned status)
{
    char name[PATH_MAX];

    if (!l->rq->judge.may_serve)
        return 0;
    if (!site_name(l->rq, path, name, sizeof name))
        return STATUS_NOT_FOUND;
    return judge(&l->rq->judge, name, st, status);
}

/* A candidate the judge refused with @status: the answer is that refusal. */
static void deny(struct lookup *l, unsigned status)
{
    l->p->err = 0; /* a rule, not an errno */
    fail(l, status);
}

/*
 * Open @path + the suffix of @enc as a variant of the file @st: a regular
 * file not older than it. Returns an fd (owned by the caller) and its stat,
 * or -1. With @refused, the variant is a candidate to serve and is judged:
 * a refusal is -1 with its status in *@refused.
 */
static int open_variant(struct lookup *l, const char *path, enum coding enc,
                        const struct stat *st, struct stat *vst,
                        unsigned *refused)
{
    char vpath[PATH_MAX];
    int fd;

    if ((size_t)snprintf(vpath, sizeof vpath, "%s%s", path,
                         coding_suffix(enc)) >= sizeof vpath)
        return -1;
    fd = open_regular(l, vpath, vst, false);
    if (fd < 0)
        return -1;
    /*
     * Older by whole seconds only: brotli and zstd copy the source's mtime
     * with second precision, so a fresh sidecar may look older by < 1 s.
     */
    if (vst->st_mtim.tv_sec < st->st_mtim.tv_sec) {
        close(fd); /* stale: ignored */
        return -1;
    }
    if (refused && (*refused = candidate(l, vpath, vst, STATUS_OK))) {
        close(fd);
        return -1;
    }
    return fd;
}

/*
 * Serve the regular file @fd (owned) at @path, if the judge lets it: the
 * best variant the client accepts, else the file. Vary: Accept-Encoding is
 * sent when any variant exists, also to a client that accepts none of them
 * (so a shared cache never hands a compressed body to it, nor the plain
 * one to everybody). A variant only opened to learn that it exists is not
 * served and not judged.
 */
static void file(struct lookup *l, int fd, const struct stat *st,
                 const char *path)
{
    const struct files_conf *conf = l->conf;
    enum coding order[CODING_N];
    struct negotiate_accept a;
    struct stat vst;
    unsigned tried = 0, refused = candidate(l, path, st, STATUS_OK);
    size_t n;

    if (refused) {
        close(fd);
        deny(l, refused);
        return;
    }
    set_name(l, path);
    take_fd(l->p, PLAN_FILE, STATUS_OK, fd, st);
    if (conf->n_precompressed == 0 ||
        !negotiate_compressible(mime_map_type(conf->mime, path)))
        return;
    negotiate_parse(l->rq->accept_encoding, &a);
    n = negotiate_order(&a, conf->precompressed, conf->n_precompressed, order);
    for (size_t i = 0; i < n; i++) {
        int vfd = open_variant(l, path, order[i], st, &vst, &refused);

        tried |= 1u << order[i];
        if (refused) {
            deny(l, refused);
            return;
        }
        if (vfd < 0)
            continue;
        take_fd(l->p, PLAN_FILE, STATUS_OK, vfd, &vst);
        l->p->vary_encoding = true;
        l->p->encoding = coding_token(order[i]);
        return;
    }
    for (size_t i = 0; i < conf->n_precompressed && !l->p->vary_encoding; i++) {
        enum coding e = conf->precompressed[i];
        int vfd;

        if (tried & (1u << e))
            continue;
        vfd = open_variant(l, path, e, st, &vst, NULL);
        if (vfd >= 0) {
            close(vfd);
            l->p->vary_encoding = true;
        }
    }
}

/*
 * The error page of @status: its --error-page file, or for 404 /404.html
 * (non-empty), when the root has it; sent with @status.
 */
static void error_page(struct lookup *l, unsigned status)
{
    const char *path = error_pages_find(l->conf->error_pages, status);
    struct stat st;
    int fd;

    if (!path && status != STATUS_NOT_FOUND)
        return;
    fd = open_regular(l, path ? path : "404.html", &st, false);
    if (fd < 0)
        return;
    if ((!path && st.st_size == 0) ||
        candidate(l, path ? path : "404.html", &st, status)) {
        close(fd);
        return;
    }
    set_name(l, path ? path : "404.html");
    take_fd(l->p, PLAN_PAGE, status, fd, &st);
}

/*
 * The error exit: @status with its error page (a file looked up like any
 * other candidate, whose own failure gives the built-in body). It never
 * makes a success: a refusal stays a refusal.
 */
static void fail(struct lookup *l, unsigned status)
{
    struct plan *p = l->p;

    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
    p->kind = PLAN_STATUS;
    p->status = status;
    p->name[0] = '\0';
    if (l->rq->root_fd >= 0)
        error_page(l, status);
}

/*
 * --fallback, the last candidate: a GET or HEAD whose path was not found
 * gets this file with 200 (a single-page app routes on the client). Only
 * for a path not found, never for one refused. Returns false when there is
 * no fallback to serve (none configured, another method, the file missing):
 * the 404 stands.
 */
static bool fallback(struct lookup *l)
{
    struct stat st;
    int fd;

    if (!l->conf->fallback ||
        (l->rq->method != HTTP_GET && l->rq->method != HTTP_HEAD))
        return false;
    fd = open_regular(l, l->conf->fallback, &st, false);
    if (fd < 0)
        return false;
    l->p->err = 0;
    l->p->not_found = false;
    l->p->backend = l->last;
    file(l, fd, &st, l->conf->fallback);
    return true;
}

/*
 * The path was not found (@err: ENOENT or ENOTDIR): the fallback, else 404.
 * A bare request keeps a bare 404 (no fallback, no page): its caller tries
 * a rewrite first.
 */
static void missing(struct lookup *l, int err)
{
    struct plan *p = l->p;

    p->err = err;
    p->not_found = true;
    if (l->rq->bare) {
        p->kind = PLAN_STATUS;
        p->status = STATUS_NOT_FOUND;
        return;
    }
    if (!fallback(l))
        fail(l, STATUS_NOT_FOUND);
}

/* Directory without a trailing slash: 301 to the slash form, query kept. */
static void redirect(struct lookup *l)
{
    const struct target *t = l->rq->target;
    size_t qlen = t->query ? strlen(t->query) : 0;
    size_t n = t->raw_path_len + 1 + (t->query ? 1 + qlen : 0) + 1;
    char *loc = malloc(n);

    if (!loc) {
        l->p->err = ENOMEM;
        fail(l, STATUS_INTERNAL_SERVER_ERROR);
        return;
    }
    memcpy(loc, t->raw_path, t->raw_path_len);
    loc[t->raw_path_len] = '/';
    if (t->query) {
        loc[t->raw_path_len + 1] = '?';
        memcpy(loc + t->raw_path_len + 2, t->query, qlen);
    }
    loc[n - 1] = '\0';
    l->p->kind = PLAN_REDIRECT;
    l->p->status = STATUS_MOVED_PERMANENTLY;
    l->p->location = loc;
}

/* Directory with a trailing slash: index file, else listing, else 403. */
static void directory(struct lookup *l, const char *path)
{
    char ipath[PATH_MAX];
    struct stat st;
    unsigned refused;
    int fd;

    for (size_t i = 0; i < l->conf->n_index; i++) {
        if ((size_t)snprintf(ipath, sizeof ipath, "%s%s", path,
                             l->conf->index[i]) >= sizeof ipath)
            continue;
        fd = open_regular(l, ipath, &st, true);
        if (fd == -ENOENT || fd == -ENOTDIR || fd == -EISDIR || fd == -EINVAL)
            continue;
        if (fd < 0) {
            refuse(l, fd);
            return;
        }
        file(l, fd, &st, ipath);
        return;
    }
    if (!l->conf->listing) {
        fail(l, STATUS_FORBIDDEN);
        return;
    }
    fd = open_beneath(l, path, O_RDONLY | O_DIRECTORY | O_NONBLOCK, true);
    if (fd < 0) {
        refuse(l, fd);
        return;
    }
    if (fstat(fd, &st) != 0) {
        int err = -errno;
        close(fd);
        refuse(l, err);
        return;
    }
    refused = candidate(l, path, &st, STATUS_OK);
    if (refused) {
        close(fd);
        deny(l, refused);
        return;
    }
    set_name(l, path);
    take_fd(l->p, PLAN_LISTING, STATUS_OK, fd, &st);
    l->p->json = negotiate_wants_json(l->rq->accept);
    l->p->judge = l->rq->judge;
}

/*
 * --try-html: /guide, which does not exist, is served from guide.html when
 * that is a regular file. Returns false to let the 404 stand; a refusal of
 * guide.html (an escaping link ...) replaces *@err.
 */
static bool try_html(struct lookup *l, int *err)
{
    const struct target *t = l->rq->target;
    char hpath[PATH_MAX];
    struct stat st;
    int fd;

    if (!l->conf->try_html || t->slash || !t->path[0] ||
        (size_t)snprintf(hpath, sizeof hpath, "%s.html", t->path) >=
            sizeof hpath)
        return false;
    fd = open_regular(l, hpath, &st, true);
    if (fd == -EISDIR || fd == -EINVAL || fd == -ENOENT || fd == -ENOTDIR)
        return false;
    if (fd < 0) {
        *err = fd;
        return false;
    }
    file(l, fd, &st, hpath);
    return true;
}

static void init(struct plan *p)
{
    /* Not the PATH_MAX name at the end: an empty string is enough. */
    memset(p, 0, offsetof(struct plan, name));
    p->name[0] = '\0';
    p->fd = -1;
    p->backend = RESOLVER_BACKEND_DEFAULT;
}

void files_lookup_status(const struct files_conf *conf,
                         const struct files_request *rq, unsigned status,
                         struct plan *p)
{
    struct lookup l = {.conf = conf, .rq = rq, .p = p};

    init(p);
    fail(&l, status);
}

void files_lookup(const struct files_conf *conf, const struct files_request *rq,
                  struct plan *p)
{
    struct lookup l = {.conf = conf, .rq = rq, .p = p};
    const struct target *t = rq->target;
    struct stat st;
    int fd;

    init(p);
    if (rq->root_fd < 0) {
        refuse(&l, rq->root_fd);
        return;
    }
    fd = open_beneath(&l, t->path, O_RDONLY | O_NONBLOCK, true);
    if (fd == -ENOENT && try_html(&l, &fd))
        return;
    if (fd == -ENOENT || fd == -ENOTDIR) {
        missing(&l, -fd);
        return;
    }
    if (fd < 0) {
        refuse(&l, fd);
        return;
    }
    if (fstat(fd, &st) != 0) {
        int err = -errno;
        close(fd);
        refuse(&l, err);
        return;
    }
    if (S_ISREG(st.st_mode)) {
        file(&l, fd, &st, t->path);
        return;
    }
    close(fd);
    if (!S_ISDIR(st.st_mode))
        fail(&l, STATUS_FORBIDDEN);
    else if (!t->slash)
        redirect(&l);
    else
        directory(&l, t->path);
}

/* listing_keep_fn of files_listing: @arg is the plan. */
static bool visible(void *arg, const char *name, bool dir,
                    const struct stat *st)
{
    const struct plan *p = arg;
    char path[PATH_MAX];

    /* a name too long to be asked for cannot be fetched: not shown */
    return (size_t)snprintf(path, sizeof path, "%s%s%s", p->name, name,
                            dir ? "/" : "") < sizeof path &&
           judge(&p->judge, path, st, STATUS_OK) == 0;
}

int files_listing(const struct plan *p, bool dotfiles, struct listing *out)
{
    return listing_collect_keep(p->fd, dotfiles, LISTING_MAX,
                                p->judge.may_serve ? visible : NULL,
                                (void *)(uintptr_t)p, out);
}

void plan_close(struct plan *p)
{
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
    free(p->location);
    p->location = NULL;
}
