// SPDX-License-Identifier: MIT
/*
 * test_lookup.c - files_lookup against a real fixture tree, without
 * libmicrohttpd: which candidate answers (path, path.html, index, variant,
 * fallback, 404 page), which status and plan kind, that refusals carry their
 * errno, and that the plan owns exactly the one fd it says (none leak).
 * Every row runs once per resolver backend (kernel, emulated).
 */
#include "check_main.h"
#include "files/lookup.h"
#include "fixture.h"
#include "http/status.h"
#include "http/target.h"
#include "resolver.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const tree[] = {
    "index.html=<h1>home</h1>",
    "404.html=<h1>not here</h1>",
    "guide.html=guide",
    "docs/index.html=docs",
    "nolist/a.txt=a",
    "nolist/secret.txt=s",
    "nolist/hidden/x=x",
    "style.css=body{}",
    "style.css.br=BR",
    "style.css.gz=GZ",
    "app.png=PNG",
    "app.png.gz=GZ",
    "fifo|",
    "escape -> /etc/passwd",
    "up -> ..",
    "sub/page -> ../guide.html",
    "loop -> loop",
    "priv/index.html=private index",
    "priv/page.html=private page",
    "data.json={}",
    "data.json.gz=GZ",
};

static char root_path[PATH_MAX];
static int root_fd = -1;

static void setup(void)
{
    const char *bad = NULL;

    ck_assert_msg(fixture_make(tree, N_ELEMS(tree), root_path, sizeof root_path,
                               &bad) == 0,
                  "fixture entry %s", bad ? bad : "(mkdtemp)");
    root_fd = open(root_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    ck_assert_int_ge(root_fd, 0);
}

static void teardown(void)
{
    close(root_fd);
    fixture_remove(root_path);
}

static const enum coding prefs[] = {CODING_BR, CODING_GZIP};
static char *const index_names[] = {"index.html"};

enum conf_kind {
    PLAIN,   /* index, try-html, sidecars; no listing, no fallback */
    LISTING, /* also directory listings and a fallback file */
};

static void make_conf(enum conf_kind k, struct files_conf *c)
{
    *c = (struct files_conf){
        .confine = RESOLVER_NO_JUMPS,
        .index = index_names,
        .n_index = N_ELEMS(index_names),
        .precompressed = prefs,
        .n_precompressed = N_ELEMS(prefs),
        .try_html = true,
        .listing = k == LISTING,
        .fallback = k == LISTING ? "index.html" : NULL,
    };
}

static const struct row {
    enum conf_kind conf;
    enum http_method method;
    const char *target;
    const char *accept_encoding, *accept;
    enum plan_kind kind;
    unsigned status;
    const char *name;     /* plan name, or location for a redirect */
    const char *encoding; /* or NULL */
    bool vary;
    int err;
} rows[] = {
    {PLAIN, HTTP_GET, "/", NULL, NULL, PLAN_FILE, 200, "index.html", NULL,
     false, 0},
    {PLAIN, HTTP_GET, "/guide", NULL, NULL, PLAN_FILE, 200, "guide.html", NULL,
     false, 0},
    {PLAIN, HTTP_GET, "/docs", NULL, NULL, PLAN_REDIRECT, 301, "/docs/", NULL,
     false, 0},
    {PLAIN, HTTP_GET, "/docs?q=1", NULL, NULL, PLAN_REDIRECT, 301, "/docs/?q=1",
     NULL, false, 0},
    {PLAIN, HTTP_HEAD, "/docs/", NULL, NULL, PLAN_FILE, 200, "docs/index.html",
     NULL, false, 0},
    {PLAIN, HTTP_GET, "/missing", NULL, NULL, PLAN_PAGE, 404, "404.html", NULL,
     false, ENOENT},
    {PLAIN, HTTP_GET, "/nolist/", NULL, NULL, PLAN_STATUS, 403, "", NULL, false,
     0},
    {PLAIN, HTTP_GET, "/fifo", NULL, NULL, PLAN_STATUS, 403, "", NULL, false,
     0},
    {PLAIN, HTTP_GET, "/escape", NULL, NULL, PLAN_STATUS, 403, "", NULL, false,
     EXDEV},
    {PLAIN, HTTP_GET, "/up/etc/passwd", NULL, NULL, PLAN_STATUS, 403, "", NULL,
     false, EXDEV},
    {PLAIN, HTTP_GET, "/loop", NULL, NULL, PLAN_STATUS, 403, "", NULL, false,
     ELOOP},
    {PLAIN, HTTP_GET, "/sub/page", NULL, NULL, PLAN_FILE, 200, "sub/page", NULL,
     false, 0},
    {PLAIN, HTTP_GET, "/style.css", "gzip, br", NULL, PLAN_FILE, 200,
     "style.css", "br", true, 0},
    {PLAIN, HTTP_GET, "/style.css", "gzip", NULL, PLAN_FILE, 200, "style.css",
     "gzip", true, 0},
    {PLAIN, HTTP_GET, "/style.css", "br;q=0, gzip;q=0", NULL, PLAN_FILE, 200,
     "style.css", NULL, true, 0},
    {PLAIN, HTTP_GET, "/style.css", NULL, NULL, PLAN_FILE, 200, "style.css",
     NULL, true, 0},
    /* an image is never served from a sidecar */
    {PLAIN, HTTP_GET, "/app.png", "gzip", NULL, PLAN_FILE, 200, "app.png", NULL,
     false, 0},
    {LISTING, HTTP_GET, "/nolist/", NULL, NULL, PLAN_LISTING, 200, "nolist/",
     NULL, false, 0},
    {LISTING, HTTP_GET, "/nolist/", NULL, "application/json", PLAN_LISTING, 200,
     "nolist/", NULL, false, 0},
    {LISTING, HTTP_GET, "/missing", NULL, NULL, PLAN_FILE, 200, "index.html",
     NULL, false, 0},
    /* the fallback is for GET and HEAD only */
    {LISTING, HTTP_OPTIONS, "/missing", NULL, NULL, PLAN_PAGE, 404, "404.html",
     NULL, false, ENOENT},
    /* ENOTDIR is a path not found too */
    {LISTING, HTTP_GET, "/guide.html/x", NULL, NULL, PLAN_FILE, 200,
     "index.html", NULL, false, 0},
    /* a refusal is not turned into the fallback */
    {LISTING, HTTP_GET, "/escape", NULL, NULL, PLAN_STATUS, 403, "", NULL,
     false, EXDEV},
};

static const enum resolver_backend backends[] = {RESOLVER_BACKEND_KERNEL,
                                                 RESOLVER_BACKEND_EMULATED};

START_TEST(lookup_row)
{
    const struct row *w = &rows[_i / N_ELEMS(backends)];
    struct files_conf conf;
    struct target t;
    struct plan p;
    char buf[256];
    int fds = fixture_count_fds();

    ck_assert_int_eq(resolver_set_backend(backends[_i % N_ELEMS(backends)]), 0);
    make_conf(w->conf, &conf);
    ck_assert_int_eq(
        target_decode(w->target, TARGET_DENY_DOTFILES, buf, sizeof buf, &t), 0);
    struct files_request rq = {.root_fd = root_fd,
                               .method = w->method,
                               .target = &t,
                               .accept = w->accept,
                               .accept_encoding = w->accept_encoding};
    files_lookup(&conf, &rq, &p);
    ck_assert_int_eq(p.kind, w->kind);
    ck_assert_uint_eq(p.status, w->status);
    ck_assert_str_eq(w->kind == PLAN_REDIRECT ? p.location : p.name, w->name);
    if (w->encoding)
        ck_assert_str_eq(p.encoding, w->encoding);
    else
        ck_assert_ptr_null(p.encoding);
    ck_assert_int_eq(p.vary_encoding, w->vary);
    ck_assert_int_eq(p.err, w->err);
    ck_assert_int_eq(p.json,
                     w->accept && strcmp(w->accept, "application/json") == 0);
    /* The plan holds exactly one fd when its kind has one, else none. */
    bool has_fd =
        w->kind == PLAN_FILE || w->kind == PLAN_PAGE || w->kind == PLAN_LISTING;
    ck_assert_int_eq(p.fd >= 0, has_fd);
    ck_assert_int_eq(fixture_count_fds(), fds + has_fd);
    if (w->kind != PLAN_STATUS && w->kind != PLAN_REDIRECT)
        ck_assert_int_eq(p.backend, backends[_i % N_ELEMS(backends)]);
    plan_close(&p);
    plan_close(&p); /* twice is harmless */
    ck_assert_int_eq(fixture_count_fds(), fds);
}
END_TEST

/*
 * The judge is asked of every candidate lookup opens, and a refusal of any
 * of them is the answer: each row protects one file (@refuse, as lookup
 * opens it) and asks for it in one way.
 */
static const struct judged_row {
    enum conf_kind conf;
    const char *target, *accept_encoding;
    const char *refuse; /* the protected file */
    enum plan_kind kind;
    unsigned status;
    const char *name;
} judged_rows[] = {
    /* the request's own path */
    {PLAIN, "/guide.html", NULL, "guide.html", PLAN_STATUS, 401, ""},
    /* path.html of --try-html */
    {PLAIN, "/guide", NULL, "guide.html", PLAN_STATUS, 401, ""},
    {PLAIN, "/priv/page", NULL, "priv/page.html", PLAN_STATUS, 401, ""},
    /* the index file */
    {PLAIN, "/priv/", NULL, "priv/index.html", PLAN_STATUS, 401, ""},
    {PLAIN, "/", NULL, "index.html", PLAN_STATUS, 401, ""},
    /* the directory to list */
    {LISTING, "/nolist/", NULL, "nolist/", PLAN_STATUS, 401, ""},
    /* the sidecar chosen, and a sidecar asked for by its own name */
    {PLAIN, "/style.css", "gzip", "style.css.gz", PLAN_STATUS, 401, ""},
    {PLAIN, "/style.css", "br", "style.css", PLAN_STATUS, 401, ""},
    {PLAIN, "/data.json.gz", NULL, "data.json", PLAN_STATUS, 401, ""},
    {PLAIN, "/style.css.br", NULL, "style.css", PLAN_STATUS, 401, ""},
    /* the fallback */
    {LISTING, "/missing", NULL, "index.html", PLAN_STATUS, 401, ""},
    /* an error page refused: the built-in body, the status unchanged */
    {PLAIN, "/missing", NULL, "404.html", PLAN_STATUS, 404, ""},
    /* what the rule does not name is served */
    {PLAIN, "/style.css", "gzip", "style.css.br", PLAN_FILE, 200, "style.css"},
    {PLAIN, "/priv/page.html", NULL, "priv/index.html", PLAN_FILE, 200,
     "priv/page.html"},
    {LISTING, "/missing", NULL, "404.html", PLAN_FILE, 200, "index.html"},
};

static unsigned refuse_one(void *arg, const char *path, const struct stat *st,
                           unsigned status)
{
    const char *protected = arg;

    ck_assert_ptr_nonnull(st);
    (void)status;
    return strcmp(path, protected) == 0 ? STATUS_UNAUTHORIZED : 0;
}

LOOP_TEST(judged_row, judged_rows)
{
    const struct judged_row *w = &judged_rows[_i];
    struct files_conf conf;
    struct target t;
    struct plan p;
    char buf[256];
    int fds = fixture_count_fds();

    make_conf(w->conf, &conf);
    ck_assert_int_eq(
        target_decode(w->target, TARGET_DENY_DOTFILES, buf, sizeof buf, &t), 0);
    struct files_request rq = {
        .root_fd = root_fd,
        .method = HTTP_GET,
        .target = &t,
        .accept_encoding = w->accept_encoding,
        .judge = {refuse_one, (void *)(uintptr_t)w->refuse},
    };
    files_lookup(&conf, &rq, &p);
    ck_assert_msg(p.kind == w->kind && p.status == w->status,
                  "%s protecting %s: kind %d status %u, want %d %u", w->target,
                  w->refuse, p.kind, p.status, w->kind, w->status);
    ck_assert_str_eq(p.name, w->name);
    ck_assert_int_eq(fixture_count_fds(), fds + (p.fd >= 0));
    plan_close(&p);
    ck_assert_int_eq(fixture_count_fds(), fds);
}
END_TEST

/* Refuses nolist/secret.txt and the directory nolist/hidden/. */
static unsigned refuse_two(void *arg, const char *path, const struct stat *st,
                           unsigned status)
{
    (void)arg;
    (void)st;
    (void)status;
    return strcmp(path, "nolist/secret.txt") == 0 ||
                   strcmp(path, "nolist/hidden/") == 0
               ? STATUS_UNAUTHORIZED
               : 0;
}

/* A listing shows only the entries the request's judge lets through. */
START_TEST(listing_judged)
{
    struct files_conf conf;
    struct listing l;
    struct target t;
    struct plan p;
    char buf[32];

    make_conf(LISTING, &conf);
    ck_assert_int_eq(target_decode("/nolist/", 0, buf, sizeof buf, &t), 0);
    struct files_request rq = {.root_fd = root_fd,
                               .method = HTTP_GET,
                               .target = &t,
                               .judge = {refuse_two, NULL}};
    files_lookup(&conf, &rq, &p);
    ck_assert_int_eq(p.kind, PLAN_LISTING);
    ck_assert_int_eq(files_listing(&p, false, &l), 0);
    ck_assert_uint_eq(l.n, 1);
    ck_assert_uint_eq(l.total, 1);
    ck_assert_str_eq(l.v[0].name, "a.txt");
    listing_free(&l);
    /* without a judge: all three */
    rq.judge = (struct files_judge){0};
    plan_close(&p);
    files_lookup(&conf, &rq, &p);
    ck_assert_int_eq(files_listing(&p, false, &l), 0);
    ck_assert_uint_eq(l.n, 3);
    listing_free(&l);
    plan_close(&p);
}
END_TEST

/*
 * A status decided before lookup (a bad target, a dotfile, a hidden name)
 * is a refusal: it keeps its status and may get its error page (404 finds
 * the 404 page), never the fallback (the LISTING conf has one).
 */
static const enum conf_kind status_confs[] = {PLAIN, LISTING};

LOOP_TEST(status_page_only, status_confs)
{
    struct files_conf conf;
    struct files_request rq = {.root_fd = root_fd, .method = HTTP_GET};
    struct plan p;

    make_conf(status_confs[_i], &conf);
    files_lookup_status(&conf, &rq, STATUS_NOT_FOUND, &p);
    ck_assert_int_eq(p.kind, PLAN_PAGE);
    ck_assert_uint_eq(p.status, STATUS_NOT_FOUND);
    ck_assert_str_eq(p.name, "404.html");
    plan_close(&p);
    files_lookup_status(&conf, &rq, STATUS_BAD_REQUEST, &p);
    ck_assert_int_eq(p.kind, PLAN_STATUS);
    ck_assert_uint_eq(p.status, STATUS_BAD_REQUEST);
    ck_assert_int_eq(p.fd, -1);
    plan_close(&p);
}
END_TEST

/* A root that could not be opened answers by its errno, with no lookup. */
START_TEST(root_missing)
{
    struct files_conf conf;
    struct target t;
    char buf[8];
    struct plan p;

    make_conf(LISTING, &conf);
    ck_assert_int_eq(target_decode("/", 0, buf, sizeof buf, &t), 0);
    struct files_request rq = {
        .root_fd = -ENOENT, .method = HTTP_GET, .target = &t};
    files_lookup(&conf, &rq, &p);
    ck_assert_int_eq(p.kind, PLAN_STATUS);
    ck_assert_uint_eq(p.status, STATUS_NOT_FOUND);
    ck_assert_int_eq(p.err, ENOENT);
    ck_assert_int_eq(p.fd, -1);
    plan_close(&p);
}
END_TEST

/* Every resolver call is reported with its backend and result. */
static void count(void *arg, enum resolver_backend b, uint64_t ns, int ret)
{
    int *n = arg;

    (void)ns;
    ck_assert_int_ne(b, RESOLVER_BACKEND_DEFAULT);
    n[ret < 0]++;
}

START_TEST(resolved_hook)
{
    struct files_conf conf;
    struct target t;
    char buf[32];
    struct plan p;
    int n[2] = {0, 0};

    make_conf(PLAIN, &conf);
    conf.resolved = count;
    conf.resolved_arg = n;
    ck_assert_int_eq(target_decode("/style.css", 0, buf, sizeof buf, &t), 0);
    struct files_request rq = {.root_fd = root_fd,
                               .method = HTTP_GET,
                               .target = &t,
                               .accept_encoding = "gzip"};
    files_lookup(&conf, &rq, &p);
    plan_close(&p);
    /* style.css, style.css.gz (served); style.css.br only when asked */
    ck_assert_int_eq(n[0], 2);
    ck_assert_int_eq(n[1], 0);
}
END_TEST

/*
 * --follow-into: a link out of the root (lib -> OUTSIDE/lib) answers from
 * the directory it leads into when that is listed, its sidecar too; a
 * refusal keeps the link it was about in the plan, for the log line.
 */
START_TEST(follow_into)
{
    static const char *const outside_tree[] = {"lib/x.js=X", "lib/x.js.gz=GZ",
                                               "secret=S"};
    char outside[PATH_MAX], link[PATH_MAX + 8], want[PATH_MAX + 8], buf[64];
    const char *bad = NULL;
    struct resolver_into into;
    struct files_conf conf;
    struct target t;
    struct plan p;
    int fds = fixture_count_fds();

    ck_assert_int_eq(fixture_make(outside_tree, N_ELEMS(outside_tree), outside,
                                  sizeof outside, &bad),
                     0);
    snprintf(link, sizeof link, "%s/lib", outside);
    ck_assert_int_eq(symlinkat(link, root_fd, "lib"), 0);
    make_conf(PLAIN, &conf);
    ck_assert_int_eq(target_decode("/lib/x.js", 0, buf, sizeof buf, &t), 0);
    struct files_request rq = {.root_fd = root_fd,
                               .method = HTTP_GET,
                               .target = &t,
                               .accept_encoding = "gzip"};
    for (size_t b = 0; b < N_ELEMS(backends); b++) {
        ck_assert_int_eq(resolver_set_backend(backends[b]), 0);
        /* not listed: 403, and which link it was */
        conf.n_into = 0;
        conf.into = NULL;
        files_lookup(&conf, &rq, &p);
        ck_assert_uint_eq(p.status, 403);
        ck_assert_int_eq(p.err, EXDEV);
        ck_assert_str_eq(p.escape.link, "lib");
        ck_assert_ptr_nonnull(realpath(link, want));
        ck_assert_str_eq(p.escape.target, want);
        ck_assert_int_eq(p.escape.into, -1);
        plan_close(&p);
        /* listed: the file, and its sidecar beside it */
        ck_assert_int_eq(resolver_into_open(link, &into), 0);
        conf.into = &into;
        conf.n_into = 1;
        files_lookup(&conf, &rq, &p);
        ck_assert_int_eq(p.kind, PLAN_FILE);
        ck_assert_str_eq(p.name, "lib/x.js");
        ck_assert_str_eq(p.encoding, "gzip");
        ck_assert_int_eq(p.st.st_size, 2);
        plan_close(&p);
        /* the path's ".." after it: refused, the link it left by named */
        ck_assert_int_eq(
            target_decode("/lib/../secret", 0, buf, sizeof buf, &t), 0);
        files_lookup(&conf, &rq, &p);
        ck_assert_uint_eq(p.status, 403);
        ck_assert_str_eq(p.escape.link, "lib");
        ck_assert_int_eq(p.escape.into, 0);
        plan_close(&p);
        ck_assert_int_eq(target_decode("/lib/x.js", 0, buf, sizeof buf, &t), 0);
        resolver_into_close(&into);
    }
    ck_assert_int_eq(resolver_set_backend(RESOLVER_BACKEND_AUTO), 0);
    ck_assert_int_eq(unlinkat(root_fd, "lib", 0), 0);
    fixture_remove(outside);
    ck_assert_int_eq(fixture_count_fds(), fds);
}
END_TEST

const struct check_main check_main = {
    .suite = "lookup",
    .tcases = {
        {"core", setup, teardown,
         .loops = {{&lookup_row, (int)(N_ELEMS(rows) * N_ELEMS(backends))},
                   LOOP(judged_row),
                   LOOP(status_page_only)},
         .tests = {&listing_judged, &root_missing, &resolved_hook,
                   &follow_into}}}};
