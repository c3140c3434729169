// SPDX-License-Identifier: MIT
/*
 * respond.c - a request becomes a plan, and a plan a reply.
 *
 * This file takes the request's way to its plan (the site, the client
 * behind a trusted proxy, methods, CORS, OPTIONS, the built-in paths, access
 * rules and rewrites, the --mount a path falls under, the lookup in
 * files/) and turns each kind of plan
 * into a reply; a regular file's reply (validators, conditionals, Range,
 * the body) is respond_file.c's. files/ decides what answers a request
 * (lookup.c); the plan is released here, once, after its fd has been
 * handed to the reply or closed.
 *
 * Every refusal leaves through req_fail, the one error exit: an error page
 * (looked up like any file, its own failure giving the built-in page) or
 * the built-in page, never a way back into the success path.
 */
#include "challenge/acme_challenges.h"
#include "files/listing.h"
#include "files/listing_json.h"
#include "http/status.h"
#include "http/target.h"
#include "respond/respond_internal.h"
#include "syntax/host.h"
#include "syntax/mime.h"
#include "syntax/urlpath.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void free_text(void *text)
{
    free(text);
}

static void listing(struct req *r)
{
    struct plan *p = r->plan;
    struct listing l = {0};
    char *text = NULL, sort[8], order[8];
    size_t len = 0;
    int err = files_listing(p, r->conf->files.dotfiles, &l);
    struct listing_order o;

    plan_close(p);
    /* ?sort=name|size|time&order=asc|desc; anything else: by name */
    listing_order_from(
        request_query_param(r->rq->target, "sort", sort, sizeof sort),
        request_query_param(r->rq->target, "order", order, sizeof order), &o);
    listing_sort(&l, &o);
    if (!err)
        err = p->json ? listing_json(&l, p->name, &text, &len)
                      : listing_html(&l, p->name, &o, &text, &len);
    listing_free(&l);
    if (err) {
        r->out->res.err = -err;
        req_simple(r, STATUS_INTERNAL_SERVER_ERROR);
        return;
    }
    reply_set_bytes(r->out, text, len, free_text, text);
    reply_add(r->out, "Content-Type",
              p->json ? "application/json; charset=utf-8"
                      : "text/html; charset=utf-8");
    r->vary_accept = true;
    req_finish(r, STATUS_OK);
}

/* A redirect with @status to @location, and a small body naming it. */
static void redirect_to(struct req *r, unsigned status, const char *location)
{
    req_builtin_page(r, status);
    reply_add(r->out, "Location", location);
    req_finish(r, status);
}

/*
 * The log's words for a refusal of the link that left (@p's escape): where
 * it leads, and what --follow-into did about it.
 */
static void symlink_note(const struct files_conf *fc, const struct plan *p,
                         struct respond_result *res)
{
    const struct resolver_escape *e = &p->escape;
    const struct resolver_into *d = e->into >= 0 && (size_t)e->into < fc->n_into
                                        ? &fc->into[e->into]
                                        : NULL;

    if (p->err != EXDEV || !e->link[0])
        return;
    snprintf(res->symlink, sizeof res->symlink, "%s -> %s (%s%s)", e->link,
             e->target,
             d            ? "followed, then left --follow-into "
             : fc->n_into ? "in no --follow-into directory"
                          : "outside the root; --follow-into DIR follows "
                            "links into DIR",
             d ? (d->alias ? d->alias : d->path) : "");
}

/* Turn @p (the caller's) into the reply, then release it. */
static void emit(struct req *r, struct plan *p)
{
    struct respond_result *res = &r->out->res;

    r->plan = p;
    res->err = p->err;
    res->backend = p->backend;
    symlink_note(&r->conf->files, p, res);
    /* the coding of a file's body (a sidecar's); error pages have none */
    res->encoding = p->kind == PLAN_FILE ? p->encoding : NULL;
    switch (p->kind) {
    case PLAN_STATUS:
        req_simple(r, p->status);
        break;
    case PLAN_FILE:
        respond_file(r);
        break;
    case PLAN_PAGE:
        req_page(r);
        break;
    case PLAN_LISTING:
        listing(r);
        break;
    case PLAN_REDIRECT:
        /* the location is the plan's: the reply takes it over */
        redirect_to(r, STATUS_MOVED_PERMANENTLY,
                    reply_own(r->out, p->location));
        p->location = NULL;
        break;
    }
    plan_close(p);
    r->plan = NULL;
}

/* --health and --metrics: built-in answers, not files. */
static void builtin(struct req *r, bool metrics)
{
    struct reply *out = r->out;

    if (metrics) {
        size_t len;
        char *text = metrics_render_alloc(r->conf->metrics, &len);

        if (!text) {
            req_simple(r, STATUS_INTERNAL_SERVER_ERROR);
            return;
        }
        reply_set_bytes(out, text, len, free_text, text);
    } else {
        reply_set_bytes(out, "ok\n", 3, NULL, NULL);
    }
    reply_add(out, "Content-Type",
              metrics ? "text/plain; version=0.0.4; charset=utf-8"
                      : "text/plain; charset=utf-8");
    reply_add(out, "Cache-Control", "no-store");
    req_finish(r, STATUS_OK);
}

static void options(struct req *r)
{
    reply_add(r->out, "Allow", HTTP_ALLOW);
    req_finish(r, STATUS_NO_CONTENT);
}

/*
 * --mount: a path at or below a mount's URL prefix (@norm, normalised) is
 * looked up beneath the mount's own root, and @t's path becomes the rest
 * of it; any other beneath the site's (@norm NULL: the site's). The judge
 * sees every candidate by its URL (lookup.h: name_prefix).
 */
static void pick_root(struct req *r, struct target *t, const char *norm)
{
    struct files_request *lq = r->lookup;
    struct access_route m;

    lq->root_fd = r->site->root_fd;
    lq->cache = r->site->dir_cache;
    lq->name_prefix = NULL;
    lq->name_file = NULL;
    if (!norm || !access_mount(r->site, norm, &m))
        return;
    lq->root_fd = m.root_fd;
    lq->cache = m.dir_cache;
    lq->name_prefix = m.prefix;
    lq->name_file = m.file;
    t->path = m.path;
}

/* Look the request up (its judge decides every candidate) and turn the
 * plan into the reply. */
static void lookup_emit(struct req *r)
{
    struct plan p;

    files_lookup(&r->conf->files, r->lookup, &p);
    emit(r, &p);
}

/*
 * A 200 rewrite: @url (a raw path with placeholders already substituted)
 * is decoded like a request-target and served under the requested URL,
 * after the same authentication and hidden-file checks as a request.
 */
static void rewrite(struct req *r, unsigned flags, const char *url)
{
    size_t len = strlen(url) + 1;
    char *buf = malloc(len), *norm = malloc(len + 2);
    struct target t;
    int status = buf && norm ? target_decode(url, flags, buf, len, &t)
                             : STATUS_INTERNAL_SERVER_ERROR;

    if (!status && urlpath_normalize(t.path, t.slash, norm, len + 2) != 0)
        status = STATUS_NOT_FOUND;
    if (!status)
        status = (int)access_check_path(r->lookup->judge.arg, norm);
    if (!status && access_hidden_name(r->av, norm))
        status = STATUS_NOT_FOUND;
    pick_root(r, &t, status ? NULL : norm);
    if (status) {
        req_fail(r, (unsigned)status);
    } else {
        r->lookup->target = &t;
        lookup_emit(r);
    }
    free(norm);
    free(buf);
}

/*
 * The request with rules (access.h): the site's own rule files are 404,
 * then the first redirect or rewrite rule applies, unless the path has
 * something to serve and the rule is not forced (Netlify's shadowing).
 */
static void with_rules(struct req *r, unsigned flags, const struct target *t)
{
    struct access_target at;
    int k;

    if (access_hidden_name(r->av, r->norm)) {
        req_fail(r, STATUS_NOT_FOUND);
        return;
    }
    k = access_redirect(r->av, r->norm, t->query, &at);
    if (k < 0) {
        req_fail(r, STATUS_INTERNAL_SERVER_ERROR);
        return;
    }
    if (k == 0) {
        lookup_emit(r);
        return;
    }
    if (!at.force) {
        struct plan p;

        r->lookup->bare = true;
        files_lookup(&r->conf->files, r->lookup, &p);
        r->lookup->bare = false;
        if (!p.not_found) {
            free(at.url);
            emit(r, &p);
            return;
        }
        plan_close(&p);
    }
    if (at.status == STATUS_OK) {
        rewrite(r, flags, at.url);
        free(at.url);
    } else {
        redirect_to(r, at.status, reply_own(r->out, at.url));
    }
}

/* The request on its site: decode, built-in paths, rules, lookup. */
static void route(struct req *r, const struct access_site *site)
{
    const struct request *rq = r->rq;
    const struct respond_conf *conf = r->conf;
    size_t size = strlen(rq->target) + 1;
    char small[1024], *buf = size <= sizeof small ? small : malloc(size);
    char *norm = NULL, nsmall[512];
    struct target t;
    struct files_request lq = {
        .root_fd = site->root_fd,
        .cache = site->dir_cache,
        .method = rq->method,
        .target = &t,
    };
    struct access_headers ah;
    struct access_check check;
    unsigned flags = (rq->method == HTTP_OPTIONS ? TARGET_OPTIONS : 0) |
                     (conf->files.dotfiles ? 0 : TARGET_DENY_DOTFILES);
    int status;

    r->lookup = &lq;
    r->site = site;
    r->av = site->view.a ? &site->view : NULL;
    if (r->av) {
        /* the rules judge the request's path and every candidate */
        access_check_init(&check, r->av, req_field(r, RF_AUTHORIZATION),
                          r->out->res.user, sizeof r->out->res.user);
        lq.judge = (struct files_judge){access_may_serve, &check};
        r->challenge = access_challenge(r->av);
    }
    if (!buf) {
        req_fail(r, STATUS_INTERNAL_SERVER_ERROR);
        return;
    }
    status = target_decode(rq->target, flags, buf, size, &t);
    if (status) {
        req_fail(r, (unsigned)status);
        goto out;
    }
    cors_decide(conf->cors, req_field(r, RF_ORIGIN), rq->method == HTTP_OPTIONS,
                req_field(r, RF_ACCESS_CONTROL_REQUEST_METHOD),
                req_field(r, RF_ACCESS_CONTROL_REQUEST_HEADERS), &r->cors);
    if (rq->method == HTTP_OPTIONS && (!r->av || t.asterisk)) {
        options(r);
        goto out;
    }
    if (rq->method != HTTP_OPTIONS && conf->health &&
        strcmp(t.path, conf->health) == 0) {
        builtin(r, false);
        goto out;
    }
    if (r->av || site->mounts) {
        /* rules and mounts match the lexically normalised path: /a/../b
         * is /b */
        size_t need = strlen(t.path) + 3;
        char *np = need <= sizeof nsmall ? nsmall : (norm = malloc(need));

        if (!np || urlpath_normalize(t.path, t.slash, np, need)) {
            req_fail(r, STATUS_INTERNAL_SERVER_ERROR);
            goto out;
        }
        r->norm = np;
    }
    if (r->av) {
        access_headers(r->av, r->norm, &ah);
        r->ah = &ah;
        /* with the path's headers; a preflight carries no credentials */
        if (rq->method == HTTP_OPTIONS) {
            options(r);
            goto out;
        }
        status = (int)access_check_path(&check, r->norm);
        if (status) {
            req_fail(r, (unsigned)status);
            goto out;
        }
    }
    if (conf->metrics_path && conf->metrics &&
        strcmp(t.path, conf->metrics_path) == 0) {
        builtin(r, true);
        goto out;
    }
    lq.accept = req_field(r, RF_ACCEPT);
    lq.accept_encoding = req_field(r, RF_ACCEPT_ENCODING);
    pick_root(r, &t, r->norm);
    if (r->av)
        with_rules(r, flags, &t);
    else
        lookup_emit(r);
out:
    free(norm);
    if (buf != small)
        free(buf);
}

/*
 * ACME HTTP-01 (RFC 8555 8.3): with --acme, GET or HEAD
 * /.well-known/acme-challenge/TOKEN is the key authorization from memory,
 * ahead of the site, every access rule, redirect and root; an unknown
 * token is 404. Returns whether @rq was one.
 */
static bool acme_http01(struct req *r)
{
    const char *t = r->rq->target;
    const size_t plen = sizeof ACME_HTTP01_PREFIX - 1;
    char keyauth[ACME_KEYAUTH_MAX];
    int n;

    if (!r->conf->acme ||
        (r->rq->method != HTTP_GET && r->rq->method != HTTP_HEAD) ||
        strncmp(t, ACME_HTTP01_PREFIX, plen) != 0)
        return false;
    t += plen;
    /* a token is base64url (RFC 8555 8.1): nothing to decode */
    n = t[0] && strspn(t, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                          "0123456789-_") == strlen(t)
            ? acme_http01_lookup(r->conf->acme, t, keyauth, sizeof keyauth)
            : -ENOENT;
    if (n < 0) {
        req_simple(r, STATUS_NOT_FOUND);
        return true;
    }
    char *body = reply_own(r->out, strdup(keyauth));
    if (!body) {
        req_simple(r, STATUS_INTERNAL_SERVER_ERROR);
        return true;
    }
    reply_set_bytes(r->out, body, (uint64_t)n, NULL, NULL);
    reply_add(r->out, "Content-Type", "text/plain");
    reply_add(r->out, "Cache-Control", "no-store");
    req_finish(r, STATUS_OK);
    return true;
}

/* Whether the raw origin-form @path names the root-relative @p (its
 * query aside): --health, which a probe asks over plain HTTP. */
static bool is_path(const char *path, const char *p)
{
    size_t n = strlen(p);

    return path[0] == '/' && strncmp(path + 1, p, n) == 0 &&
           (path[n + 1] == '\0' || path[n + 1] == '?');
}

/*
 * --https-redirect: a request over plain HTTP (h2c included) is answered
 * 308 (RFC 9110 15.4.9: the method and body stay) with the same path and
 * query on https://, the Host's name and the https:// listener's port,
 * before any site or file is looked at. The ACME HTTP-01 path (answered
 * above with --acme; from the site's files for another ACME client) and
 * --health answer over HTTP: a CA and a probe ask there. An asterisk-form
 * target (OPTIONS *) is answered as it is. Returns whether @r was one.
 */
static bool https_redirect(struct req *r)
{
    const struct request *rq = r->rq;
    const char *t = rq->target, *path = t;
    char host[HOST_MAX], port[16] = "", *loc;
    int err;

    if (!r->conf->https_redirect || rq->tls)
        return false;
    err = target_host(t, host);
    if (err == -ENOENT) {
        const char *h = rq->field[RF_HOST];

        err = h ? host_normalize(h, host) : -EINVAL;
    } else {
        /* absolute-form: the path (and query) after the authority */
        path = t + strcspn(t, ":") + 3;
        path += strcspn(path, "/?#");
    }
    if (path[0] != '/' && path[0] != '?' && path[0] != '\0')
        return false;
    if (strncmp(path, ACME_HTTP01_PREFIX, sizeof ACME_HTTP01_PREFIX - 1) == 0 ||
        (r->conf->health && is_path(path, r->conf->health)))
        return false;
    if (err < 0 || !host[0]) {
        /* no name to send the client to */
        req_simple(r, STATUS_BAD_REQUEST);
        return true;
    }
    if (r->conf->https_port)
        snprintf(port, sizeof port, ":%u", r->conf->https_port);
    size_t size =
        strlen("https://") + strlen(host) + strlen(port) + 1 + strlen(path) + 1;
    loc = malloc(size);
    if (!loc) {
        req_simple(r, STATUS_INTERNAL_SERVER_ERROR);
        return true;
    }
    snprintf(loc, size, "https://%s%s%s%s", host, port,
             path[0] == '/' ? "" : "/", path);
    redirect_to(r, STATUS_PERMANENT_REDIRECT, reply_own(r->out, loc));
    return true;
}

void respond(const struct request *rq, const struct respond_conf *conf,
             struct reply *out)
{
    struct req r = {.rq = rq, .conf = conf, .out = out};
    struct access_site site;
    struct files_request none = {.root_fd = -1, .method = rq->method};
    unsigned status;

    reply_init(out);
    r.lookup = &none;
    if (acme_http01(&r))
        return;
    /* behind a trusted proxy: the forwarded client, and its rules */
    status = access_client(conf->access, rq, out->res.client,
                           sizeof out->res.client);
    if (!status && https_redirect(&r))
        return;
    /* the Host picks the site: its root fd, cache and rules */
    memset(&site, 0, sizeof site);
    if (!status)
        status = access_site(conf->access, conf->root, rq, &site);
    /* the reply's fields may point into the site's rules */
    if (site.held)
        reply_hold(out, access_site_release, site.held);
    if (status) {
        out->res.err = site.err;
        req_simple(&r, status);
        return;
    }
    out->res.vhost = site.vhost;
    if (site.site)
        snprintf(out->res.site, sizeof out->res.site, "%s", site.site);
    if (rq->method == HTTP_OTHER) {
        req_simple(&r, STATUS_METHOD_NOT_ALLOWED);
        return;
    }
    /* the directory cache's hits and misses of this request, when shown */
    struct resolver_cache_stats before = {0}, after;
    if (conf->metrics && site.dir_cache)
        resolver_cache_get_stats(site.dir_cache, &before);
    route(&r, &site);
    if (conf->metrics && site.dir_cache) {
        resolver_cache_get_stats(site.dir_cache, &after);
        metrics_count_dir_cache(conf->metrics, after.hits - before.hits,
                                after.misses - before.misses);
    }
}

void respond_error(const struct request *rq, const struct respond_conf *conf,
                   unsigned status, struct reply *out)
{
    struct req r = {.rq = rq, .conf = conf, .out = out};

    reply_init(out);
    req_simple(&r, status);
}
