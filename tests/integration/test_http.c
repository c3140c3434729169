/* SPDX-License-Identifier: MIT */
/*
 * test_http.c - end-to-end HTTP behaviour of the real beneath binary: regular
 * files, keep-alive, directories and error pages here; request targets and
 * traversal in http_targets.c, conditional requests and Range in
 * http_cond.c, the access log and resources in http_log.c (one binary, a
 * Suite per file, all listed below; shared helpers in http_suite.c).
 *
 * The whole binary runs once per backend: $BENEATH_E2E_RESOLVER is "kernel"
 * or "emulated" and is passed as --resolver. Each test starts its own server
 * on 127.0.0.1 port 0 against the fixture site (site.c), and its teardown
 * stops it with SIGTERM and asserts a clean exit (status 0, no sanitizer
 * report). Where the README is silent, the test follows what nginx or Caddy
 * do and says so. Each check asserts the one answer the server gives.
 */
#include "http_suite.h"
#include "site.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ===== regular files ===================================================== */

static const struct {
    const char *path;
    const char *type; /* exact media type, compared without spaces/case */
    const char *alt;  /* an accepted alternative, or NULL */
} types[] = {
    {"/index.html", "text/html; charset=utf-8", NULL},
    {"/style.css", "text/css; charset=utf-8", NULL},
    /* RFC 9239 made text/javascript the one name; accept the older one */
    {"/app.js", "text/javascript; charset=utf-8",
     "application/javascript; charset=utf-8"},
    {"/logo.svg", "image/svg+xml", "image/svg+xml; charset=utf-8"},
    {"/img.png", "image/png", NULL},
    {"/blob.unknownx", "application/octet-stream", NULL},
    {"/readme.txt", "text/plain; charset=utf-8", NULL},
    {"/data.json", "application/json", "application/json; charset=utf-8"},
};

LOOP_TEST(file_get_headers, types)
{
    struct server *s = start_default();
    const char *path = types[_i].path;
    struct http_response *r = http_get(s, path);
    size_t len;
    char *want = tree_read(tree_path(site.www, path + 1), &len);

    EXPECT_STATUS(r, 200, path);
    const char *ct = http_header(r, "Content-Type");
    EXPECT(http_value_eq(ct, types[_i].type) ||
               (types[_i].alt && http_value_eq(ct, types[_i].alt)),
           "%s: Content-Type '%s', want '%s'", path, ct ? ct : "(none)",
           types[_i].type);
    const char *cl = http_header(r, "Content-Length");
    EXPECT(cl && strtoull(cl, NULL, 10) == len,
           "%s: Content-Length '%s', want %zu", path, cl ? cl : "(none)", len);
    EXPECT(r->body_len == len && memcmp(r->body, want, len) == 0,
           "%s: body differs from the file (%zu bytes, want %zu)", path,
           r->body_len, len);
    const char *lm = http_header(r, "Last-Modified");
    EXPECT(lm && strcmp(lm, SITE_MTIME_HTTP) == 0,
           "%s: Last-Modified '%s', want '%s'", path, lm ? lm : "(none)",
           SITE_MTIME_HTTP);
    const char *et = http_header(r, "ETag");
    EXPECT(et && (et[0] == '"' || strncmp(et, "W/\"", 3) == 0) &&
               et[strlen(et) - 1] == '"' && strlen(et) >= 3,
           "%s: ETag '%s' is not a quoted entity-tag", path,
           et ? et : "(none)");
    EXPECT(http_value_eq(http_header(r, "Accept-Ranges"), "bytes"),
           "%s: Accept-Ranges '%s'", path,
           http_header(r, "Accept-Ranges") ?: "(none)");
    EXPECT(http_value_eq(http_header(r, "X-Content-Type-Options"), "nosniff"),
           "%s: X-Content-Type-Options missing", path);
    /* RFC 9110 6.6.1: an origin server with a clock MUST send Date */
    EXPECT(http_header(r, "Date") != NULL, "%s: no Date header", path);
    EXPECT(http_header_count(r, "Content-Type") == 1 &&
               http_header_count(r, "Content-Length") == 1,
           "%s: duplicated Content-Type or Content-Length", path);
    server_stop_clean(s);
}
END_TEST

START_TEST(file_head)
{
    struct server *s = start_default();
    struct http_response *g = http_get(s, "/index.html");
    struct http_response *h = http_do(NULL, s, "HEAD", "/index.html", NULL);

    EXPECT_STATUS(h, 200, "HEAD /index.html");
    EXPECT(h->body_len == 0, "HEAD has a body");
    EXPECT(http_header(h, "Content-Length") &&
               strcmp(http_header(h, "Content-Length"),
                      http_header(g, "Content-Length")) == 0,
           "HEAD Content-Length differs from GET");
    EXPECT(http_value_eq(http_header(h, "Content-Type"),
                         http_header(g, "Content-Type")),
           "HEAD Content-Type differs from GET");
    EXPECT(http_header(h, "ETag") &&
               strcmp(http_header(h, "ETag"), http_header(g, "ETag")) == 0,
           "HEAD ETag differs from GET");
    EXPECT(http_header(h, "Last-Modified") != NULL, "HEAD: no Last-Modified");

    /* raw: a HEAD then a GET on one connection; any stray body bytes of
     * the HEAD would corrupt the second response */
    struct raw_conn *c = raw_open(s->port);
    raw_send_str(c, "HEAD /range.txt HTTP/1.1\r\nHost: x\r\n\r\n");
    struct http_response *r1 = raw_read(c, true, 5000);
    EXPECT_STATUS(r1, 200, "raw HEAD");
    raw_send_str(c, "GET /readme.txt HTTP/1.1\r\nHost: x\r\n\r\n");
    struct http_response *r2 = raw_read(c, false, 5000);
    EXPECT_STATUS(r2, 200, "GET after HEAD on the same connection");
    EXPECT(strcmp(r2->body, "plain text\n") == 0,
           "GET after HEAD: wrong body '%s' (HEAD sent a body?)", r2->body);
    server_stop_clean(s);
}
END_TEST

START_TEST(file_etag_changes)
{
    /* Not in the README; every server's validators change with the file. */
    char *w = tree_new();
    tree_write_str(w, "f.txt", "one\n");
    tree_mtime(w, "f.txt", SITE_MTIME);
    struct server *s = server_start(w, NULL);
    struct http_response *a = http_get(s, "/f.txt");
    tree_write_str(w, "f.txt", "two, longer\n");
    tree_mtime(w, "f.txt", SITE_MTIME + 3600);
    struct http_response *b = http_get(s, "/f.txt");
    EXPECT_STATUS(a, 200, "first");
    EXPECT_STATUS(b, 200, "second");
    EXPECT(strcmp(b->body, "two, longer\n") == 0, "new content not served");
    EXPECT(http_header(a, "ETag") && http_header(b, "ETag") &&
               strcmp(http_header(a, "ETag"), http_header(b, "ETag")) != 0,
           "ETag did not change when the file changed");
    server_stop_clean(s);
}
END_TEST

/* ===== keep-alive ======================================================== */

/* Requests on one connection, each answered with the connection kept open;
 * not in the README beyond "keep-alive works": nginx keeps the connection
 * open after 301, 403, 404, 405 and 416 too. The targets as request_text()
 * reads them. */
static const struct target_status keepalive[] = {
    {"/index.html", 200},
    {"/range.txt", 200},
    {"HEAD /range.txt", 200},
    {"GET /range.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=0-9\r\n\r\n", 206},
    {"GET /range.txt HTTP/1.1\r\nHost: x\r\nIf-Modified-Since: " SITE_MTIME_HTTP
     "\r\n\r\n",
     304},
    {"/sub/", 200},
    {"OPTIONS /index.html", 204},
    {"/big.bin", 200},
    {"/index.html", 200},
    {"/sub", 301},
    {"/missing", 404},
    {"/noindex/", 403},
    {"/link-abs", 403},
    {"DELETE /index.html", 405},
    {"GET /range.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=500-\r\n\r\n", 416},
    {"/index.html", 200},
};

START_TEST(keepalive_raw)
{
    /* MHD 0.9.75 closes after every response queued on the first handler
     * call: every one of these must keep the connection open. */
    struct server *s = start_default();
    struct raw_conn *c = raw_open(s->port);
    for (size_t i = 0; i < N_ELEMS(keepalive); i++) {
        const char *req = request_text(keepalive[i].target);
        EXPECT(raw_send_str(c, req) == 0,
               "request %zu: send failed (connection closed?)", i);
        struct http_response *r =
            raw_read(c, strncmp(req, "HEAD ", 5) == 0, 10000);
        EXPECT_STATUS(r, keepalive[i].status, keepalive[i].target);
        EXPECT(!r->closed, "request %zu (%d) closed the connection:\n%s", i,
               r->status, r->head);
    }
    server_stop_clean(s);
}
END_TEST

START_TEST(keepalive_curl_reuse)
{
    struct server *s = start_default();
    CURL *e = http_easy();
    struct http_response *a = http_do(e, s, "GET", "/index.html", NULL);
    struct http_response *b = http_do(e, s, "GET", "/range.txt", NULL);
    struct http_response *c = http_do(e, s, "HEAD", "/style.css", NULL);
    struct http_response *d = http_do(e, s, "GET", "/big.bin", NULL);
    EXPECT_STATUS(a, 200, "first");
    EXPECT_STATUS(b, 200, "second");
    EXPECT_STATUS(c, 200, "third");
    EXPECT_STATUS(d, 200, "fourth");
    EXPECT(a->num_connects == 1, "first request: %ld connects",
           a->num_connects);
    EXPECT(b->num_connects == 0 && c->num_connects == 0 && d->num_connects == 0,
           "libcurl opened new connections (%ld, %ld, %ld): no keep-alive",
           b->num_connects, c->num_connects, d->num_connects);
    EXPECT(http_header(a, "Connection") == NULL ||
               strcasestr(http_header(a, "Connection"), "close") == NULL,
           "Connection: close on a plain GET");
    EXPECT(d->body_len == SITE_BIG_LEN &&
               memcmp(d->body, site.big, SITE_BIG_LEN) == 0,
           "big.bin body differs");
    server_stop_clean(s);
}
END_TEST

START_TEST(keepalive_pipelined)
{
    /* Two requests in one write: both answered, in order. */
    struct server *s = start_default();
    struct raw_conn *c = raw_connect(s->port);
    raw_send_str(c, "GET /readme.txt HTTP/1.1\r\nHost: x\r\n\r\n"
                    "GET /style.css HTTP/1.1\r\nHost: x\r\n\r\n");
    struct http_response *a = raw_read(c, false, 5000);
    struct http_response *b = raw_read(c, false, 5000);
    EXPECT_STATUS(a, 200, "first pipelined");
    EXPECT_STATUS(b, 200, "second pipelined");
    EXPECT(strcmp(a->body, "plain text\n") == 0 &&
               strcmp(b->body, "body { color: #333; }\n") == 0,
           "pipelined bodies out of order or wrong");
    server_stop_clean(s);
}
END_TEST

/* ===== directories ======================================================= */

/* The path part of a Location (absolute URL or absolute path). */
static const char *location_path(const struct http_response *r)
{
    const char *l = http_header(r, "Location");
    if (l == NULL)
        return NULL;
    if (strncmp(l, "http://", 7) == 0) {
        const char *p = strchr(l + 7, '/');
        return p ? p : "";
    }
    return l;
}

START_TEST(dir_redirect)
{
    static const struct target_want cases[] = {
        {"/sub", "/sub/"},
        {"/sub?a=1&b=two", "/sub/?a=1&b=two"},
        {"/sub/deeper", "/sub/deeper/"},
        {"/link-ok-dir", "/link-ok-dir/"},
        /* a Location is a URI reference: the space stays encoded */
        {"/sp%20ace", "/sp%20ace/"},
        /* the query is kept as sent: still encoded, no header injection */
        {"/sub?x=%0d%0aSet-Cookie:%20a=b", "/sub/?x=%0d%0aSet-Cookie:%20a=b"},
    };
    struct server *s = start_default();
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        struct http_response *r =
            expect_get(s, cases[i].target, 301, cases[i].target);
        const char *lp = location_path(r);
        EXPECT(http_header(r, "Set-Cookie") == NULL,
               "%s: a header was injected through the query", cases[i].target);
        EXPECT(lp && strcmp(lp, cases[i].want) == 0,
               "%s: Location '%s', want path '%s'", cases[i].target,
               http_header(r, "Location") ?: "(none)", cases[i].want);
    }
    server_stop_clean(s);
}
END_TEST

START_TEST(dir_listing)
{
    struct server *s = server_start(site.www, "--listing", "on", NULL);
    struct http_response *r = http_get(s, "/list/");
    EXPECT_STATUS(r, 200, "/list/ with listing on");
    const char *ct = http_header(r, "Content-Type");
    EXPECT(ct && strncasecmp(ct, "text/html", 9) == 0,
           "listing Content-Type '%s'", ct ?: "(none)");
    const char *b = r->body;
    EXPECT(strstr(b, "<b>&") == NULL && strstr(b, "<b>") == NULL,
           "listing contains the raw name <b>&\"x'.txt (not escaped):\n%s", b);
    EXPECT(strstr(b, "&lt;b&gt;&amp;") != NULL,
           "listing lacks the escaped name &lt;b&gt;&amp;...:\n%s", b);
    const char *pa = strstr(b, "a.txt"), *pb = strstr(b, "b-dir");
    const char *pc = strstr(b, "c.txt"), *pe = strstr(b, "&lt;b&gt;");
    EXPECT(pa && pb && pc && pe, "listing misses entries:\n%s", b);
    /* the folder first, then byte order: "<b>..." < "a.txt" < "c.txt" */
    EXPECT(pb < pe && pe < pa && pa < pc, "listing not sorted:\n%s", b);
    /* sizes: a.txt has 12345 bytes; accept exact or a 1-decimal KiB form */
    EXPECT(strstr(b, "12345") || strstr(b, "12.1"),
           "listing does not show a.txt's size (12345):\n%s", b);
    EXPECT(strstr(b, "2024") != NULL,
           "listing does not show dates (mtime 2024-01-02):\n%s", b);
    /* not in the README: with dotfiles denied, nginx's autoindex and Caddy's
     * browse hide dotfiles; a listing must not advertise what is refused */
    EXPECT(strstr(b, ".dotfile-in-list") == NULL,
           "listing shows a dotfile although dotfiles are denied");
    /* the link to the escaped name must lead to the file: undo the HTML
     * escaping of each href and request it */
    bool followed = false;
    for (const char *p = b; (p = strstr(p, "href=")) && !followed; p++) {
        char q = p[5];
        if (q != '"' && q != '\'')
            continue;
        const char *v = p + 6, *e = strchr(v, q);
        if (e == NULL)
            break;
        char *href = hmem(v, (size_t)(e - v));
        char *u = hfmt("%s", "");
        for (const char *c = href; *c;) {
            static const struct {
                const char *ent;
                char ch;
            } ents[] = {{"&amp;", '&'},   {"&lt;", '<'},   {"&gt;", '>'},
                        {"&quot;", '"'},  {"&#34;", '"'},  {"&#39;", '\''},
                        {"&#x27;", '\''}, {"&#x22;", '"'}, {"&apos;", '\''}};
            bool hit = false;
            for (size_t k = 0; k < N_ELEMS(ents) && !hit; k++) {
                size_t el = strlen(ents[k].ent);
                if (strncmp(c, ents[k].ent, el) == 0) {
                    u = hfmt("%s%c", u, ents[k].ch);
                    c += el;
                    hit = true;
                }
            }
            if (!hit)
                u = hfmt("%s%c", u, *c++);
        }
        if (strstr(u, "x") == NULL || strstr(u, ".txt") == NULL ||
            strstr(u, "a.txt") || strstr(u, "c.txt"))
            continue;
        char *target = u[0] == '/' ? u : hfmt("/list/%s", u);
        /* a raw space, quote or '<' in a target is not HTTP: encode
         * what the browser would */
        char *enc = hfmt("%s", "");
        for (const char *c = target; *c; c++)
            enc = strchr(" \"<>", *c) ? hfmt("%s%%%02X", enc, (unsigned char)*c)
                                      : hfmt("%s%c", enc, *c);
        struct http_response *f = raw_get(s->port, enc);
        EXPECT(f->status == 200 && strcmp(f->body, "escaped\n") == 0,
               "the listing's link '%s' (request %s) does not lead to the "
               "file: %d",
               href, enc, f->status);
        followed = true;
    }
    EXPECT(followed, "no link to <b>&\"x'.txt in the listing:\n%s", b);
    /* a directory with an index still serves the index */
    r = http_get(s, "/sub/");
    EXPECT_BODY(r, "SUB-INDEX\n", "/sub/ with listing on");
    r = http_get(s, "/noindex/");
    EXPECT_STATUS(r, 200, "/noindex/ with listing on");
    EXPECT(strstr(r->body, "only-file-here.txt"), "/noindex/: no entry");
    server_stop_clean(s);
}
END_TEST

START_TEST(dir_listing_long_names)
{
    /* Names at NAME_MAX that expand 5-6x when escaped, and many entries: the
     * listing's buffers must grow, not overflow (ASan). */
    char *w = tree_new();
    tree_mkdir(w, "d");
    for (const char *f = "&<\"'>x"; *f; f++)
        tree_write_str(w, hfmt("d/%s", hfill(255, *f)), "x");
    for (int i = 0; i < 300; i++)
        tree_write_str(w, hfmt("d/file-%04d-%0200d", i, i), "y");
    struct server *s = server_start(w, "--listing", "on", NULL);
    struct http_response *r = http_get(s, "/d/");
    EXPECT_STATUS(r, 200, "a listing of long names");
    EXPECT(strstr(r->body, "file-0299-") != NULL, "listing truncated");
    char *amp = hfmt("%s", "");
    for (int i = 0; i < 255; i++)
        amp = hfmt("%s&amp;", amp);
    EXPECT(strstr(r->body, amp) != NULL,
           "the 255 x '&' name is not in the listing, escaped");
    server_stop_clean(s);
}
END_TEST

/* ===== error pages ======================================================= */

START_TEST(error_plain_404)
{
    struct server *s = server_start(site.plain, NULL);
    struct http_response *r =
        expect_get(s, "/missing.html", 404, "404 without 404.html");
    EXPECT(strstr(r->body, "CUSTOM-404-PAGE") == NULL, "custom page leaked");
    const char *cl = http_header(r, "Content-Length");
    EXPECT(cl == NULL || strtoul(cl, NULL, 10) == r->body_len,
           "plain 404 Content-Length %s but %zu body bytes", cl, r->body_len);
    server_stop_clean(s);
}
END_TEST

static const struct http_tcase tcases[] = {
    {"files", LOOP(file_get_headers), {&file_head, &file_etag_changes}},
    {"keepalive",
     .tests = {&keepalive_raw, &keepalive_curl_reuse, &keepalive_pipelined}},
    {"dirs", .tests = {&dir_redirect, &dir_listing, &dir_listing_long_names}},
    {"errors", .tests = {&error_plain_404}},
};

Suite *http_files_suite(void)
{
    return http_suite_make("files", tcases, N_ELEMS(tcases));
}

const struct check_main check_main = {
    .suites = {{http_files_suite, HTTP_NEEDS_ROOT},
               {http_targets_suite, HTTP_NEEDS_ROOT},
               {http_cond_suite, HTTP_NEEDS_ROOT},
               {http_log_suite, HTTP_NEEDS_ROOT}},
};
