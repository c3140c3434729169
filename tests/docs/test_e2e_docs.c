/* SPDX-License-Identifier: MIT */
/*
 * test_e2e_docs.c - end-to-end tests of the docs-hosting features against
 * the real binary: precompressed sidecars (negotiation table, stale
 * and escaping variants, Range and conditionals on a variant, Vary),
 * Cache-Control rules, extra and security headers, try-html and fallback
 * (never escaping the root), the JSON listing; and the fixture site the
 * suites of test_e2e_docs serve (the others: operations,
 * test_e2e_docs_ops.c; --follow-into, test_e2e_docs_follow.c).
 */
#include "cases.h"
#include "e2e_docs.h"
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define T0 ((time_t)1704164645) /* mtime of the fixture files */

char *www;
static char *base, *secret;

static void put(const char *rel, const char *content)
{
    tree_write_str(www, rel, content);
    tree_mtime(www, rel, T0);
}

/* The fixture: every file at T0, sidecars with recognisable bodies. */
void docs_suite_setup(void)
{
    harness_suite_setup();
    base = tree_new();
    secret = hfmt("SECRET-%s", hrandom(24));
    tree_write_str(base, "secret.txt", secret);
    tree_mkdir(base, "www");
    www = tree_path(base, "www");

    put("app.css", "PLAIN-CSS body { color: red }\n");
    put("app.css.br", "BR-BODY");
    put("app.css.gz", "GZ-BODY-1");
    put("app.css.zst", "ZST-BODY-22");
    put("only.js", "PLAIN-JS\n");
    put("only.js.gz", "GZ-ONLY");
    put("stale.css", "PLAIN-STALE\n");
    put("stale.css.br", "BR-STALE");
    tree_mtime(www, "stale.css.br", T0 - 3600);
    put("esc.css", "PLAIN-ESC\n");
    tree_symlink(www, "../secret.txt", "esc.css.br");
    put("plain.css", "PLAIN-NOVARIANT\n");
    put("logo.png", "\x89PNG-NOT-REALLY");
    put("logo.png.gz", "GZ-PNG");
    put("guide.html", "GUIDE-HTML\n");
    tree_symlink(www, "../secret.txt", "evil.html");
    tree_mkdir(www, "dir");
    put("dir/index.html", "DIR-INDEX\n");
    put("dir/index.html.br", "DIR-BR");
    put("dir.html", "DIR-HTML\n");
    put("spa.html", "SPA-SHELL\n");
    tree_mkdir(www, "assets");
    put("assets/app.0123abcd.js", "HASHED\n");
    put("assets/app.0123abcd.js.br", "HASHED-BR");
    tree_mkdir(www, "list");
    put("list/a.txt", "A\n");
    tree_mkdir(www, "list/sub dir");
    put("index.html", "ROOT-INDEX\n");
}

void docs_test_setup(void)
{
    harness_test_setup();
    harness_forbid(secret);
}

struct http_response *get_ae(struct server *s, const char *path, const char *ae,
                             const char *extra)
{
    const char *h[3] = {NULL, NULL, NULL};
    size_t n = 0;

    if (ae)
        h[n++] = hfmt("Accept-Encoding: %s", ae);
    if (extra)
        h[n++] = extra;
    return http_do(NULL, s, "GET", path, h);
}

static struct server *pc_server(void)
{
    return server_start(www, "--precompressed", "br,zst,gz", NULL);
}

/* ---- negotiation table ---------------------------------------------- */

static const struct {
    const char *path;
    const char *ae; /* NULL: no Accept-Encoding */
    const char *encoding;
    const char *body;
} neg[] = {
    /* the variant the weights pick, the first configured (br) on a tie */
    {"/app.css", "br", "br", "BR-BODY"},
    {"/app.css", "*", "br", "BR-BODY"},
    {"/app.css", "gzip;q=0.5, br;q=0.9", "br", "BR-BODY"},
    {"/app.css", "gzip, deflate, br, zstd", "br", "BR-BODY"},
    {"/app.css", "gzip", "gzip", "GZ-BODY-1"},
    {"/app.css", "br;q=0, gzip", "gzip", "GZ-BODY-1"},
    {"/app.css", "gzip, br;q=0.9", "gzip", "GZ-BODY-1"},
    {"/app.css", "GZIP;Q=1", "gzip", "GZ-BODY-1"},
    {"/app.css", "zstd", "zstd", "ZST-BODY-22"},
    {"/app.css", "gzip;q=2, zstd", "zstd", "ZST-BODY-22"},
    /* no variant acceptable: the plain file */
    {"/app.css", NULL, NULL, "PLAIN-CSS body { color: red }\n"},
    {"/app.css", "br;q=0", NULL, "PLAIN-CSS body { color: red }\n"},
    {"/app.css", "*;q=0", NULL, "PLAIN-CSS body { color: red }\n"},
    {"/app.css", "identity", NULL, "PLAIN-CSS body { color: red }\n"},
    /* variant missing: the next acceptable one, else the plain file */
    {"/only.js", "br, gzip", "gzip", "GZ-ONLY"},
    {"/only.js", "br, zstd", NULL, "PLAIN-JS\n"},
    /* variant older than the file: ignored */
    {"/stale.css", "br", NULL, "PLAIN-STALE\n"},
    /* variant symlink escaping the root: refused, plain file served */
    {"/esc.css", "br", NULL, "PLAIN-ESC\n"},
    /* not a compressible type: never a variant */
    {"/logo.png", "gzip", NULL, "\x89PNG-NOT-REALLY"},
    {"/assets/app.0123abcd.js", "br", "br", "HASHED-BR"},
    /* a directory's index file gets its variants too */
    {"/dir/", "br", "br", "DIR-BR"},
    {"/dir/", "gzip", NULL, "DIR-INDEX\n"},
};

LOOP_TEST(negotiation, neg)
{
    struct server *s = pc_server();
    struct http_response *r = get_ae(s, neg[_i].path, neg[_i].ae, NULL);
    const char *what = hfmt("GET %s, Accept-Encoding: %s", neg[_i].path,
                            neg[_i].ae ? neg[_i].ae : "(none)");

    EXPECT_STATUS(r, 200, what);
    EXPECT_HEADER(r, "Content-Encoding", neg[_i].encoding, what);
    EXPECT(strcmp(r->body, neg[_i].body) == 0, "%s: body \"%s\", want \"%s\"",
           what, r->body, neg[_i].body);
    EXPECT(strtoul(http_header(r, "Content-Length"), NULL, 10) ==
               strlen(neg[_i].body),
           "%s: Content-Length %s", what, http_header(r, "Content-Length"));
    EXPECT(http_header_count(r, "Content-Type") == 1, "%s: one type", what);
    server_stop_clean(s);
}
END_TEST

START_TEST(off_by_default)
{
    struct server *s = server_start(www, NULL);
    struct http_response *r = get_ae(s, "/app.css", "br, gzip", NULL);

    EXPECT_STATUS(r, 200, "GET /app.css");
    EXPECT_HEADER(r, "Content-Encoding", NULL, "precompressed off");
    EXPECT_HEADER(r, "Vary", NULL, "precompressed off");
    server_stop_clean(s);
}
END_TEST

START_TEST(preference_order)
{
    struct server *s = server_start(www, "--precompressed", "gz,br", NULL);
    struct http_response *r = get_ae(s, "/app.css", "br, gzip, zstd", NULL);

    EXPECT_HEADER(r, "Content-Encoding", "gzip", "gz first");
    r = get_ae(s, "/app.css", "zstd", NULL);
    EXPECT_HEADER(r, "Content-Encoding", NULL, "zst not configured");
    server_stop_clean(s);
}
END_TEST

/* Vary on every response for a file with variants, none otherwise. */
static const struct {
    const char *path, *ae, *vary, *what;
} vary_rows[] = {
    {"/app.css", NULL, "Accept-Encoding", "plain with variants"},
    {"/app.css", "br", "Accept-Encoding", "br variant"},
    {"/only.js", "br", "Accept-Encoding", "only .gz, br asked"},
    {"/plain.css", "br, gzip", NULL, "no variants"},
    {"/stale.css", NULL, NULL, "only a stale variant"},
    {"/esc.css", NULL, NULL, "only an escaping variant"},
    {"/logo.png", "gzip", NULL, "not compressible"},
};

START_TEST(vary)
{
    struct server *s = pc_server();
    struct http_response *r;

    for (size_t i = 0; i < N_ELEMS(vary_rows); i++) {
        r = get_ae(s, vary_rows[i].path, vary_rows[i].ae, NULL);
        EXPECT_HEADER(r, "Vary", vary_rows[i].vary, vary_rows[i].what);
    }
    r = get_ae(s, "/only.js", "br", NULL);
    r = get_ae(s, "/only.js", "br",
               hfmt("If-None-Match: %s", http_header(r, "ETag")));
    EXPECT_STATUS(r, 304, "304 of a file with variants");
    EXPECT_HEADER(r, "Vary", "Accept-Encoding", "304");
    server_stop_clean(s);
}
END_TEST

/* The variant has its own ETag; conditionals and Range apply to it. */
START_TEST(variant_range_and_conditionals)
{
    struct server *s = pc_server();
    struct http_response *plain, *br, *r;
    const char *tag;

    plain = get_ae(s, "/app.css", NULL, NULL);
    br = get_ae(s, "/app.css", "br", NULL);
    EXPECT(strcmp(http_header(plain, "ETag"), http_header(br, "ETag")) != 0,
           "variant ETag %s equals the plain one", http_header(br, "ETag"));
    tag = http_header(br, "ETag");

    r = get_ae(s, "/app.css", "br", "Range: bytes=1-3");
    EXPECT_STATUS(r, 206, "Range on the br variant");
    EXPECT_HEADER(r, "Content-Range", "bytes 1-3/7", "Range on br");
    EXPECT_HEADER(r, "Content-Encoding", "br", "Range on br");
    EXPECT(strcmp(r->body, "R-B") == 0, "range body \"%s\"", r->body);

    r = get_ae(s, "/app.css", "br", "Range: bytes=-4");
    EXPECT_STATUS(r, 206, "suffix range on br");
    EXPECT(strcmp(r->body, "BODY") == 0, "suffix body \"%s\"", r->body);

    r = get_ae(s, "/app.css", "br", "Range: bytes=7-");
    EXPECT_STATUS(r, 416, "past the variant's end");
    EXPECT_HEADER(r, "Content-Range", "bytes */7", "416 on br");

    r = get_ae(s, "/app.css", "br", hfmt("If-None-Match: %s", tag));
    EXPECT_STATUS(r, 304, "If-None-Match with the variant's tag");
    r = get_ae(s, "/app.css", "gzip", hfmt("If-None-Match: %s", tag));
    EXPECT_STATUS(r, 200, "the br tag does not match the gzip variant");
    r = get_ae(s, "/app.css", NULL, hfmt("If-None-Match: %s", tag));
    EXPECT_STATUS(r, 200, "the br tag does not match the plain file");

    r = get_ae(s, "/app.css", "br", hfmt("If-Range: %s", tag));
    EXPECT_STATUS(r, 200, "If-Range without Range");
    {
        const char *h[] = {"Accept-Encoding: br", "Range: bytes=0-1",
                           hfmt("If-Range: %s", tag), NULL};
        r = http_do(NULL, s, "GET", "/app.css", h);
        EXPECT_STATUS(r, 206, "If-Range matching the variant");
        h[2] = hfmt("If-Range: %s", http_header(plain, "ETag"));
        r = http_do(NULL, s, "GET", "/app.css", h);
        EXPECT_STATUS(r, 200, "If-Range with the plain file's tag");
        EXPECT(strcmp(r->body, "BR-BODY") == 0, "whole variant: %s", r->body);
    }
    r = http_do(NULL, s, "HEAD", "/app.css",
                (const char *[]){"Accept-Encoding: br", NULL});
    EXPECT_STATUS(r, 200, "HEAD on br");
    EXPECT_HEADER(r, "Content-Length", "7", "HEAD length is the variant's");
    server_stop_clean(s);
}
END_TEST

/*
 * Every docs path (variants served, probed, stale, escaping; try-html;
 * fallback; JSON listing; health; metrics) over fresh and reused
 * connections: afterwards the server holds as many fds as before and said
 * nothing on stderr.
 */
START_TEST(no_fd_growth)
{
    struct server *s =
        server_start(www, "--precompressed", "br,zst,gz", "--try-html",
                     "--fallback", "spa.html", "--listing", "--health",
                     "/healthz", "--metrics", "/metrics", "--server-timing",
                     "--security-headers", "--threads", "1", NULL);
    static const struct {
        const char *path, *ae, *extra;
    } reqs[] = {
        {"/app.css", "br", NULL},
        {"/app.css", "gzip", "Range: bytes=1-2"},
        {"/app.css", NULL, NULL},
        {"/only.js", "br, zstd", NULL},
        {"/stale.css", "br", NULL},
        {"/esc.css", "br", NULL},
        {"/esc.css", NULL, NULL},
        {"/guide", NULL, NULL},
        {"/evil", NULL, NULL},
        {"/no/such/route", "br", NULL},
        {"/list/", NULL, "Accept: application/json"},
        {"/dir/", "br", "If-None-Match: \"x\""},
        {"/healthz", NULL, NULL},
        {"/metrics", NULL, NULL},
        {"/app.css", "br", "Range: bytes=99-"},
    };
    struct http_response *r;
    CURL *e;
    int before = -1, after = -1;

    /* Warm up with every path (one worker): the emulated backend's
     * directory cache then holds every directory it will. */
    for (size_t i = 0; i < N_ELEMS(reqs); i++)
        http_get(s, reqs[i].path);
    expect_get(s, "/guide.html", 200, "warm-up");
    for (int tries = 0; tries < 100; tries++) {
        before = server_fd_count(s);
        usleep(20000);
        if (server_fd_count(s) == before)
            break;
    }
    EXPECT(before > 0, "cannot count the server's fds");
    e = curl_easy_init();
    EXPECT(e != NULL, "curl_easy_init");
    for (int round = 0; round < 40; round++) {
        for (size_t i = 0; i < N_ELEMS(reqs); i++) {
            const char *h[3] = {NULL, NULL, NULL};
            size_t n = 0;

            if (reqs[i].ae)
                h[n++] = hfmt("Accept-Encoding: %s", reqs[i].ae);
            if (reqs[i].extra)
                h[n++] = reqs[i].extra;
            r = http_do(round % 2 ? e : NULL, s, round % 3 ? "GET" : "HEAD",
                        reqs[i].path, h);
            EXPECT(r->status >= 200 && r->status < 500, "%s: status %d (%s)",
                   reqs[i].path, r->status,
                   r->error ? strerror(r->error) : "no error");
        }
    }
    curl_easy_cleanup(e);
    for (int tries = 0; tries < 250; tries++) {
        after = server_fd_count(s);
        if (after == before)
            break;
        usleep(20000);
    }
    EXPECT(after == before, "fd count: %d before, %d after", before, after);
    EXPECT(*server_stderr_since_startup(s) == '\0', "stderr:\n%s",
           server_stderr_since_startup(s));
    server_stop_clean(s);
}
END_TEST

/* ---- Cache-Control -------------------------------------------------- */

/* A path and its Cache-Control. */
static const struct target_want cache_rows[] = {
    {"/app.css", "max-age=31536000, immutable"},
    {"/only.js", "max-age=31536000, immutable"},
    {"/assets/app.0123abcd.js", "public, max-age=604800"},
    {"/guide.html", "no-cache"},
    {"/dir/", "no-cache"},
    {"/logo.png", "no-cache"},
};

START_TEST(cache_rules)
{
    struct server *s =
        server_start(www, "--cache", "assets/**=public, max-age=604800",
                     "--cache", "*.css,*.js=max-age=31536000, immutable",
                     "--cache-default", "no-cache", NULL);

    for (size_t i = 0; i < N_ELEMS(cache_rows); i++) {
        struct http_response *r =
            expect_get(s, cache_rows[i].target, 200, cache_rows[i].target);
        EXPECT_HEADER(r, "Cache-Control", cache_rows[i].want,
                      cache_rows[i].target);
        r = get_ae(s, cache_rows[i].target, NULL,
                   hfmt("If-None-Match: %s", http_header(r, "ETag")));
        EXPECT_STATUS(r, 304, cache_rows[i].target);
        EXPECT_HEADER(r, "Cache-Control", cache_rows[i].want, "304");
    }
    server_stop_clean(s);
}
END_TEST

START_TEST(cache_rule_errors)
{
    static const struct bad_option bad[] = {
        {"--cache", "*.css", "--cache: '*.css': expected GLOB"},
        {"--cache", "a**b=max-age=1", "--cache: 'a**b=max-age=1': bad glob"},
        {"--header", "Bad Name: x", "--header: 'Bad Name: x': the header name"},
        {"--header", "Content-Length: 1", "Content-Length is set by"},
        {"--precompressed", "br,deflate", "'deflate' is not br, zstd or gzip"},
    };

    expect_bad_options(bad, N_ELEMS(bad), www);
}
END_TEST

/* ---- headers -------------------------------------------------------- */

START_TEST(security_and_extra_headers)
{
    struct server *s = server_start(www, "--security-headers", "--header",
                                    "X-Robots-Tag: noindex", "--header",
                                    "X-Frame-Options: SAMEORIGIN", NULL);
    const char *paths[] = {"/guide.html", "/nope", "/dir", "/evil.html"};
    const int want[] = {200, 404, 301, 403};

    for (size_t i = 0; i < N_ELEMS(paths); i++) {
        struct http_response *r = expect_get(s, paths[i], want[i], paths[i]);
        EXPECT_HEADER(r, "X-Content-Type-Options", "nosniff", paths[i]);
        EXPECT(http_header_count(r, "X-Content-Type-Options") == 1,
               "%s: nosniff twice", paths[i]);
        EXPECT_HEADER(r, "Referrer-Policy", "strict-origin-when-cross-origin",
                      paths[i]);
        EXPECT_HEADER(r, "X-Frame-Options", "SAMEORIGIN", paths[i]);
        EXPECT(http_header_count(r, "X-Frame-Options") == 1,
               "%s: operator header must replace the default", paths[i]);
        EXPECT_HEADER(r, "Content-Security-Policy", "frame-ancestors 'none'",
                      paths[i]);
        EXPECT_HEADER(r, "X-Robots-Tag", "noindex", paths[i]);
    }
    server_stop_clean(s);

    s = server_start(www, NULL);
    struct http_response *r = http_get(s, "/guide.html");
    EXPECT_HEADER(r, "Referrer-Policy", NULL, "security headers off");
    EXPECT_HEADER(r, "X-Content-Type-Options", "nosniff", "always nosniff");
    server_stop_clean(s);
}
END_TEST

START_TEST(headers_from_config_file)
{
    char *conf = tree_path(tree_new(), "beneath.conf");
    FILE *f = fopen(conf, "w");

    ck_assert_ptr_nonnull(f);
    fprintf(f, "security-headers = on\nheader = \"X-A: 1\"\nheader = X-B: 2\n"
               "cache = *.html=no-store\n");
    fclose(f);
    struct server *s = server_start(www, "--config", conf, NULL);
    struct http_response *r = http_get(s, "/guide.html");
    EXPECT_HEADER(r, "X-A", "1", "file header");
    EXPECT_HEADER(r, "X-B", "2", "file header");
    EXPECT_HEADER(r, "X-Frame-Options", "DENY", "file security-headers");
    EXPECT_HEADER(r, "Cache-Control", "no-store", "file cache");
    server_stop_clean(s);
}
END_TEST

/* ---- try-html and fallback ------------------------------------------ */

START_TEST(try_html)
{
    struct server *s = server_start(www, "--try-html", NULL);
    struct http_response *r;

    r = expect_get(s, "/guide", 200, "/guide -> guide.html");
    EXPECT(strcmp(r->body, "GUIDE-HTML\n") == 0, "body %s", r->body);
    EXPECT(http_value_eq(http_header(r, "Content-Type"),
                         "text/html; charset=utf-8"),
           "type %s", http_header(r, "Content-Type"));
    expect_get(s, "/evil", 403, "/evil -> evil.html escaping the root");
    expect_get(s, "/dir", 301, "an existing directory wins over dir.html");
    expect_get(s, "/guide/", 404, "no try-html with a trailing slash");
    expect_get(s, "/missing", 404, "neither missing nor missing.html");
    expect_get(s, "/../secret", 403, "/../secret (the resolver refuses it)");
    server_stop_clean(s);

    s = server_start(www, NULL);
    expect_get(s, "/guide", 404, "try-html off");
    server_stop_clean(s);
}
END_TEST

START_TEST(fallback)
{
    struct server *s = server_start(www, "--fallback", "/spa.html",
                                    "--precompressed", "br", NULL);
    struct http_response *r;

    r = expect_get(s, "/app/route/42", 200, "SPA route");
    EXPECT(strcmp(r->body, "SPA-SHELL\n") == 0, "body %s", r->body);
    r = http_do(NULL, s, "HEAD", "/x", NULL);
    EXPECT_STATUS(r, 200, "HEAD falls back too");
    r = http_do(NULL, s, "POST", "/x", NULL);
    EXPECT_STATUS(r, 405, "POST does not fall back");
    expect_get(s, "/evil.html", 403, "a refusal is not a 404: no fallback");
    r = http_get(s, "/guide.html");
    EXPECT(strcmp(r->body, "GUIDE-HTML\n") == 0, "existing files win");
    server_stop_clean(s);

    /* A fallback outside the root is refused by the resolver: plain 404. */
    s = server_start(www, "--fallback", "../secret.txt", NULL);
    expect_get(s, "/nope", 404, "escaping fallback");
    server_stop_clean(s);
    s = server_start(www, "--fallback", "evil.html", NULL);
    expect_get(s, "/nope", 404, "fallback symlink escaping");
    server_stop_clean(s);
}
END_TEST

/* ---- listing as JSON ------------------------------------------------ */

START_TEST(json_listing)
{
    struct server *s = server_start(www, "--listing", NULL);
    struct http_response *r;

    r = http_do(NULL, s, "GET", "/list/",
                (const char *[]){"Accept: application/json", NULL});
    EXPECT_STATUS(r, 200, "JSON listing");
    EXPECT(http_value_eq(http_header(r, "Content-Type"),
                         "application/json; charset=utf-8"),
           "type %s", http_header(r, "Content-Type"));
    EXPECT_HEADER(r, "Vary", "Accept", "listing varies on Accept");
    {
        const char *want = "{\"path\":\"/list/\",\"entries\":["
                           "{\"name\":\"sub dir\",\"href\":\"sub%20dir/\","
                           "\"type\":\"dir\",";
        /* the folder first, then the files */
        const char *file =
            "},{\"name\":\"a.txt\",\"href\":\"a.txt\",\"type\":\"file\","
            "\"size\":2,\"mtime\":\"2024-01-02T03:04:05Z\"}";
        EXPECT(strncmp(r->body, want, strlen(want)) == 0 &&
                   strstr(r->body, file) &&
                   strcmp(r->body + r->body_len - 4, "\"}]}") != 0 &&
                   strcmp(r->body + r->body_len - 5, "\"}]}\n") == 0,
               "JSON body:\n%s", r->body);
    }
    r = http_do(NULL, s, "GET", "/list/",
                (const char *[]){"Accept: text/html,application/xhtml+xml,"
                                 "application/json;q=0.9,*/*;q=0.8",
                                 NULL});
    EXPECT(http_value_eq(http_header(r, "Content-Type"),
                         "text/html; charset=utf-8"),
           "a browser gets HTML: %s", http_header(r, "Content-Type"));
    r = http_do(NULL, s, "GET", "/list/",
                (const char *[]){"Accept: application/json;q=0", NULL});
    EXPECT(http_value_eq(http_header(r, "Content-Type"),
                         "text/html; charset=utf-8"),
           "q=0 refuses JSON: %s", http_header(r, "Content-Type"));
    server_stop_clean(s);
}
END_TEST

/* ---- CORS: --cors, and per-path headers on OPTIONS -------------------- */

/* A request with Origin @origin (NULL: none) and more header lines. */
static struct http_response *from(struct server *s, const char *method,
                                  const char *path, const char *origin,
                                  const char *h1, const char *h2)
{
    const char *hdrs[4] = {NULL};
    size_t n = 0;

    if (origin)
        hdrs[n++] = hfmt("Origin: %s", origin);
    if (h1)
        hdrs[n++] = h1;
    if (h2)
        hdrs[n++] = h2;
    return http_do(NULL, s, method, path, hdrs);
}

START_TEST(cors_headers)
{
    const char *a = "https://a.example";
    struct server *s = server_start(www, "--cors", hfmt("%s,http://b.test", a),
                                    "--threads", "1", NULL);
    struct http_response *r;

    /* the reply cache keeps a file whose ctime settled: plain.css has */
    sleep(3);
    for (int i = 0; i < 3; i++) {
        r = from(s, "GET", "/plain.css", NULL, NULL, NULL);
        EXPECT_HEADER(r, "Access-Control-Allow-Origin", NULL, "no Origin");
        EXPECT_HEADER(r, "Vary", "Origin", "no Origin");
    }
    r = from(s, "GET", "/plain.css", a, NULL, NULL);
    EXPECT_BODY(r, "PLAIN-NOVARIANT\n", "an allowed origin");
    EXPECT_HEADER(r, "Access-Control-Allow-Origin", a, "an allowed origin");
    EXPECT_HEADER(r, "Vary", "Origin", "an allowed origin");
    r = from(s, "GET", "/plain.css", "https://c.example", NULL, NULL);
    EXPECT_HEADER(r, "Access-Control-Allow-Origin", NULL, "another origin");
    r = from(s, "GET", "/plain.css", a, NULL, NULL);
    EXPECT_HEADER(r, "Access-Control-Allow-Origin", a, "allowed, again");
    r = from(s, "GET", "/missing", "http://b.test", NULL, NULL);
    EXPECT_STATUS(r, 404, "a 404");
    EXPECT_HEADER(r, "Access-Control-Allow-Origin", "http://b.test", "a 404");

    /* the preflight */
    r = from(s, "OPTIONS", "/plain.css", a,
             "Access-Control-Request-Method: GET",
             "Access-Control-Request-Headers: x-test");
    EXPECT_STATUS(r, 204, "preflight");
    EXPECT_HEADER(r, "Access-Control-Allow-Origin", a, "preflight");
    EXPECT_HEADER(r, "Access-Control-Allow-Methods", "GET, HEAD", "preflight");
    EXPECT_HEADER(r, "Access-Control-Allow-Headers", "x-test", "preflight");
    EXPECT_HEADER(r, "Access-Control-Max-Age", "7200", "preflight");
    EXPECT_HEADER(r, "Vary", "Origin, Access-Control-Request-Headers",
                  "preflight");
    EXPECT_HEADER(r, "Allow", "GET, HEAD, OPTIONS", "preflight");
    r = from(s, "OPTIONS", "/plain.css", "https://c.example",
             "Access-Control-Request-Method: GET", NULL);
    EXPECT_STATUS(r, 204, "a preflight from another origin");
    EXPECT_HEADER(r, "Access-Control-Allow-Origin", NULL,
                  "a preflight from another origin");
    EXPECT_HEADER(r, "Access-Control-Allow-Methods", NULL,
                  "a preflight from another origin");
    server_stop_clean(s);

    /* a path's own Access-Control-Allow-Origin wins over --cors, and the
     * headers file's headers go on OPTIONS too */
    char *d = tree_new(), *hf = tree_path(d, "headers");
    tree_write_str(d, "headers",
                   "/list/*\n  Access-Control-Allow-Origin: https://own.test\n"
                   "  Access-Control-Allow-Headers: X-Own\n");
    s = server_start(www, "--cors", "*", "--headers-file", hf, NULL);
    r = from(s, "OPTIONS", "/list/a.txt", a,
             "Access-Control-Request-Method: GET",
             "Access-Control-Request-Headers: X-Own");
    EXPECT_HEADER(r, "Access-Control-Allow-Origin", "https://own.test",
                  "the path's own, on OPTIONS");
    EXPECT(http_header_count(r, "Access-Control-Allow-Origin") == 1 &&
               http_header_count(r, "Access-Control-Allow-Methods") == 0,
           "--cors stays out of the path's own:\n%s", r->head);
    EXPECT_HEADER(r, "Access-Control-Allow-Headers", "X-Own", "on OPTIONS");
    r = from(s, "OPTIONS", "/plain.css", a,
             "Access-Control-Request-Method: GET", NULL);
    EXPECT_HEADER(r, "Access-Control-Allow-Origin", "*", "--cors '*'");
    EXPECT_HEADER(r, "Vary", NULL, "--cors '*' varies on nothing");
    r = raw_request(s->port, "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", 5000);
    EXPECT_STATUS(r, 204, "OPTIONS *");
    server_stop_clean(s);
}
END_TEST

/* ---- media types: the built-in table, a mime.types file, --mime ------ */

/* What each name is sent as: with the built-in table alone (--mime-types
 * off), with the file cases_mime_types, and with --mime over the file and
 * --default-type text/plain (only for names no table knows). */
static const struct {
    const char *name, *builtin, *file, *mime;
} typed[] = {
    {"subs.vtt", "text/vtt; charset=utf-8", "text/vtt; charset=utf-8",
     "text/plain; charset=utf-8"},
    {"live.m3u8", "application/vnd.apple.mpegurl",
     "application/vnd.apple.mpegurl", "application/vnd.apple.mpegurl"},
    {"talk.opus", "audio/ogg", "audio/ogg", "audio/opus"},
    {"song.flac", "audio/flac", "audio/flac", "audio/flac"},
    {"photo.jxl", "image/jxl", "image/jxl", "image/jxl"},
    {"spin.apng", "image/apng", "image/apng", "image/apng"},
    {"team.ics", "text/calendar; charset=utf-8", "text/calendar; charset=utf-8",
     "text/calendar; charset=utf-8"},
    {"book.epub", "application/epub+zip", "application/epub+zip",
     "application/epub+zip"},
    {"site.yaml", "application/yaml", "application/x-yaml",
     "text/yaml; charset=utf-8"},
    {"favicon.ico", "image/x-icon", "image/vnd.microsoft.icon",
     "image/vnd.microsoft.icon"},
    {"scan.sarif.json", "application/json; charset=utf-8",
     "application/sarif+json", "application/sarif+json"},
    {"page.html", "text/html; charset=utf-8", "text/html; charset=utf-8",
     "text/html; charset=utf-8"},
    {"README", "application/octet-stream", "application/octet-stream",
     "text/plain; charset=utf-8"},
    {"copyright", "application/octet-stream", "application/octet-stream",
     "text/plain; charset=utf-8"},
    {"a.unknownext", "application/octet-stream", "application/octet-stream",
     "text/plain; charset=utf-8"},
};

START_TEST(mime_types)
{
    char *d = tree_new(), *site = tree_path(d, "www");
    char *types = tree_path(d, "mime.types"), *out, *err;

    tree_mkdir(d, "www");
    tree_write_str(d, "mime.types", cases_mime_types);
    for (size_t i = 0; i < N_ELEMS(typed); i++)
        tree_write_str(site, typed[i].name, "x\n");
    for (int k = 0; k < 3; k++) {
        const char *args[][11] = {
            {"--mime-types", "off", NULL},
            {"--mime-types", types, NULL},
            {"--mime-types", types, "--mime", "vtt=text/plain", "--mime",
             ".yaml=text/yaml", "--mime", "OPUS=audio/opus", "--default-type",
             "text/plain", NULL},
        };
        struct server *s = server_start(
            site, args[k][0], args[k][1], args[k][2], args[k][3], args[k][4],
            args[k][5], args[k][6], args[k][7], args[k][8], args[k][9], NULL);
        for (size_t i = 0; i < N_ELEMS(typed); i++) {
            const char *want = k == 0   ? typed[i].builtin
                               : k == 1 ? typed[i].file
                                        : typed[i].mime;
            struct http_response *r = http_get(s, hfmt("/%s", typed[i].name));

            EXPECT_STATUS(r, 200, typed[i].name);
            EXPECT_HEADER(r, "Content-Type", want,
                          hfmt("%s (%d)", typed[i].name, k));
            EXPECT_HEADER(r, "X-Content-Type-Options", "nosniff",
                          typed[i].name);
        }
        server_stop_clean(s);
    }

    /* mistakes, each named with its place */
    tree_write_str(d, "bad.types", "text/vtt vtt\nvtt text/vtt\n");
    /* in_dir: the value and the message name a file of d */
    static const struct {
        const char *opt, *val;
        bool in_dir;
        const char *msg;
    } bad[] = {
        {"--mime-types", "bad.types", true,
         "bad.types:2: 'vtt' is not a media type (type/subtype)"},
        {"--mime-types", "none.types", true,
         "none.types: No such file or directory"},
        {"--mime", "vtt", false,
         "beneath: --mime: expected EXT=TYPE, as in vtt=text/vtt"},
        {"--mime", "vtt=text", false,
         "beneath: --mime: 'text' is not a media type"},
        {"--default-type", "text", false,
         "beneath: --default-type: 'text' is not a media type"},
    };
    for (size_t i = 0; i < N_ELEMS(bad); i++) {
        const char *val = bad[i].in_dir ? tree_path(d, bad[i].val) : bad[i].val;
        const char *msg =
            bad[i].in_dir ? hfmt("%s/%s", d, bad[i].msg) : bad[i].msg;
        int ws =
            beneath_run((const char *[]){bad[i].opt, val, "--check", "--listen",
                                         "127.0.0.1:0", site, NULL},
                        NULL, 30000, &out, &err);
        EXPECT_EXIT(ws, 2, err);
        EXPECT(strstr(err, msg), "row %zu: want '%s' in:\n%s", i, msg, err);
    }
}
END_TEST

const struct check_main check_main = {
    .suite = "e2e_docs",
    .fixture = DOCS_FIXTURE,
    .tcases = {{"precompressed", .loops = {LOOP(negotiation)},
                .tests = {&off_by_default, &preference_order, &vary,
                          &variant_range_and_conditionals, &no_fd_growth}},
               {"rules", .tests = {&cache_rules, &cache_rule_errors,
                                   &security_and_extra_headers, &cors_headers,
                                   &headers_from_config_file}},
               {"routes", .tests = {&try_html, &fallback, &json_listing}},
               {"types", .tests = {&mime_types}}},
    .suites = {{.make = docs_ops_suite}, {.make = docs_follow_suite}}};
