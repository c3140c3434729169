/* SPDX-License-Identifier: MIT */
/*
 * test_http.c - end-to-end HTTP behaviour of the real beneath binary.
 *
 * The whole suite runs once per backend: $BENEATH_E2E_RESOLVER is "kernel" or
 * "emulated" and is passed as --resolver. Each test starts its own server on
 * 127.0.0.1 port 0 against the fixture site (site.c), and its teardown stops
 * it with SIGTERM and asserts a clean exit (status 0, no sanitizer report).
 * Where the README is silent, the test follows what nginx or Caddy do and
 * says so. Each check asserts the one answer the server gives.
 */
#include "harness.h"
#include "site.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static struct server *start_default(void)
{
    return server_start(site.www, NULL);
}

static bool has_token(const char *list, const char *tok)
{
    if (list == NULL)
        return false;
    size_t tl = strlen(tok);
    for (const char *p = list; *p;) {
        while (*p == ' ' || *p == ',')
            p++;
        size_t n = strcspn(p, ",");
        size_t m = n;
        while (m > 0 && p[m - 1] == ' ')
            m--;
        if (m == tl && strncasecmp(p, tok, tl) == 0)
            return true;
        p += n;
    }
    return false;
}

static void expect_allow(const struct http_response *r)
{
    const char *allow = http_header(r, "Allow");
    EXPECT(allow && has_token(allow, "GET") && has_token(allow, "HEAD") &&
               has_token(allow, "OPTIONS"),
           "Allow should list GET, HEAD, OPTIONS, got '%s'",
           allow ? allow : "(none)");
}

/*
 * request_text - the bytes of the request written as @t: a GET target
 * ("/x"), "METHOD target" (HTTP/1.1 with Host: x), or, when it holds a CRLF,
 * the whole request as is.
 */
static const char *request_text(const char *t)
{
    if (strstr(t, "\r\n") != NULL)
        return t;
    return hfmt("%s%s HTTP/1.1\r\nHost: x\r\n\r\n", t[0] == '/' ? "GET " : "",
                t);
}

/* Whatever the requests before did, the server still serves. */
static void expect_still_serves(const struct server *s)
{
    expect_get(s, "/readme.txt", 200, "a request after the case");
}

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

START_TEST(file_get_headers)
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
    /* byte order: "<b>..." < "a.txt" < "b-dir" < "c.txt" */
    EXPECT(pe < pa && pa < pb && pb < pc, "listing not sorted:\n%s", b);
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

/* ===== request targets =================================================== */

enum { CHECK_NONE, CHECK_ALLOW, CHECK_RANGE_BODY };

static const struct {
    const char *req; /* as request_text() reads it */
    int status;
    int check;
} targets[] = {
    {"/range.txt", 200, CHECK_RANGE_BODY},
    {"GET http://127.0.0.1/range.txt", 200, CHECK_RANGE_BODY},
    {"/r%61nge.txt", 200, CHECK_RANGE_BODY},
    {"/range.txt?q=%zz&x", 200, CHECK_RANGE_BODY},
    {"/sub/../range.txt", 200, CHECK_RANGE_BODY},
    {"/./range.txt", 200, CHECK_RANGE_BODY},
    {"/link-ok", 200, CHECK_RANGE_BODY},
    {"OPTIONS *", 204, CHECK_ALLOW},
    {"OPTIONS /range.txt", 204, CHECK_ALLOW},
    {"GET *", 400, CHECK_NONE},
    {"HEAD *", 400, CHECK_NONE},
    {"/%zz", 400, CHECK_NONE},
    {"/range.txt%4", 400, CHECK_NONE},
    {"/range.txt%", 400, CHECK_NONE},
    {"/%4g.txt", 400, CHECK_NONE},
    {"/index.html%00.txt", 400, CHECK_NONE},
    {"/index.html%00", 400, CHECK_NONE},
    {"/a%01b", 400, CHECK_NONE},
    {"/a%1fb", 400, CHECK_NONE},
    {"/a%0ab", 400, CHECK_NONE},
    {"/a%7fb", 400, CHECK_NONE},
    {"/a\x01"
     "b",
     400, CHECK_NONE},
    {"/a\x7f"
     "b",
     400, CHECK_NONE},
    {"POST /range.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc", 405,
     CHECK_ALLOW},
    {"PUT /range.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", 405,
     CHECK_ALLOW},
    {"DELETE /range.txt", 405, CHECK_ALLOW},
    {"BREW /range.txt", 405, CHECK_ALLOW},
    {"PATCH /", 405, CHECK_ALLOW},
    /* methods are case-sensitive (RFC 9110 9.1): "get" is not GET */
    {"get /range.txt", 405, CHECK_ALLOW},
    {"POST /missing", 405, CHECK_ALLOW},
    /* RFC 9112 3.2: a server MUST answer 400 to an HTTP/1.1 request without
     * Host or with more than one (MHD accepts both unless strict) */
    {"GET /range.txt HTTP/1.1\r\n\r\n", 400, CHECK_NONE},
    {"GET /range.txt HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, CHECK_NONE},
    /* RFC 9112 3: no whitespace inside the request-target; MHD splits the
     * version off from the end and would accept "/range.txt x" */
    {"/range.txt x", 400, CHECK_NONE},
    {"GET /range.txt HTTP/2.0\r\nHost: x\r\n\r\n", 505, CHECK_NONE},
    {"GET /range.txt HTTP/1.0\r\n\r\n", 200, CHECK_RANGE_BODY},
    {"/missing.txt", 404, CHECK_NONE},
    {"/sub/missing/x", 404, CHECK_NONE},
    {"/range.txt/x", 404, CHECK_NONE},
    /* README: "a space or # in the target" -> 400 */
    {"/range.txt#frag", 400, CHECK_NONE},
    /* a file with a trailing slash is not a directory (ENOTDIR) */
    {"/range.txt/", 404, CHECK_NONE},
    {"/caf%C3%A9.txt", 200, CHECK_NONE},
};

START_TEST(target_case)
{
    struct server *s = start_default();
    struct http_response *r =
        raw_request(s->port, request_text(targets[_i].req), 10000);
    EXPECT_STATUS(r, targets[_i].status, targets[_i].req);
    switch (targets[_i].check) {
    case CHECK_ALLOW:
        expect_allow(r);
        if (r->status == 405)
            EXPECT(http_value_eq(http_header(r, "Allow"), "GET,HEAD,OPTIONS"),
                   "405 Allow '%s', want 'GET, HEAD, OPTIONS'",
                   http_header(r, "Allow"));
        if (r->status == 204)
            EXPECT(http_header(r, "Content-Length") == NULL ||
                       strcmp(http_header(r, "Content-Length"), "0") == 0,
                   "204 with Content-Length %s",
                   http_header(r, "Content-Length"));
        break;
    case CHECK_RANGE_BODY:
        EXPECT(strcmp(r->body, site.range) == 0, "%s: wrong body '%s'",
               targets[_i].req, r->body);
        break;
    default:
        break;
    }
    expect_still_serves(s);
    server_stop_clean(s);
}
END_TEST

START_TEST(target_long)
{
    /* Over-long request line and header block: 414 / 431 (MHD's automatic
     * replies), never a crash or a hang. RFC 9112 names 414 for the line;
     * nginx answers 414 too. */
    char *longpath = hfill(20000, 'a');
    longpath[0] = '/';
    char *longhdr = hfill(20000, 'b');
    char *many = hfmt("%s", "");
    for (int i = 0; i < 400; i++)
        many = hfmt("%sX-H%d: %040d\r\n", many, i, i);
    const struct {
        const char *what, *target, *headers;
        int status;
    } cases[] = {
        {"20000-byte target", longpath, "", 414},
        {"20000-byte header", "/index.html", hfmt("X-Long: %s\r\n", longhdr),
         431},
        /* many headers adding up past the limit */
        {"400 headers of 50 bytes", "/index.html", many, 431},
        /* below the limit still fine */
        {"2000-byte header under an 8192 limit", "/index.html",
         hfmt("X-Ok: %.2000s\r\n", longhdr), 200},
    };
    struct server *s =
        server_start(site.www, "--max-header-size", "8192", NULL);
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        struct http_response *r =
            raw_request(s->port,
                        hfmt("GET %s HTTP/1.1\r\nHost: x\r\n%s\r\n",
                             cases[i].target, cases[i].headers),
                        10000);
        EXPECT_STATUS(r, cases[i].status, cases[i].what);
    }
    server_stop_clean(s);
}
END_TEST

START_TEST(target_lengths)
{
    /* Ordinary long paths (a missing file, and an existing file reached
     * through a long "./" prefix): a plain 404 / 200, never a crash. Under
     * ASan any memory error in target handling ends the server here. */
    static const size_t lens[] = {60,  100, 130,  200,  255,  256,
                                  300, 500, 1000, 2000, 3000, 4000};
    struct server *s = start_default();
    for (size_t i = 0; i < N_ELEMS(lens); i++) {
        char *name = hfill(lens[i], 'n');
        name[0] = '/';
        expect_get(s, name, 404, hfmt("a %zu-byte missing path", lens[i]));
        char *dots = hfmt("%s", "");
        while (strlen(dots) + 12 < lens[i])
            dots = hfmt("%s./", dots);
        expect_get_body(
            s, hfmt("/%srange.txt", dots), site.range,
            hfmt("a %zu-byte path to /range.txt", strlen(dots) + 10));
    }
    server_stop_clean(s);
}
END_TEST

/* ===== traversal ========================================================= */

static const struct target_status traversal[] = {
    {"/../secret.txt", 403},
    {"/..", 403},
    {"/../", 403},
    {"/%2e%2e/secret.txt", 403},
    {"/%2E%2E/secret.txt", 403},
    {"/.%2e/secret.txt", 403},
    {"/%2e./secret.txt", 403},
    {"/sub/../../secret.txt", 403},
    {"/sub/%2e%2e/%2e%2e/secret.txt", 403},
    {"/sub/deeper/../../../secret.txt", 403},
    {"/../outside/inner.txt", 403},
    /* %2F is decoded and the resolver refuses the path */
    {"/..%2fsecret.txt", 403},
    {"/%2e%2e%2fsecret.txt", 403},
    {"/sub%2f..%2f..%2fsecret.txt", 403},
    /* backslash is an ordinary byte on Linux */
    {"/..%5csecret.txt", 404},
    {"/secret.txt%00", 400},
    {"/../secret.txt%00.html", 400},
    {"/link-abs", 403},
    {"/link-rel", 403},
    {"/link-rel-deep", 403},
    {"/link-dir/inner.txt", 403},
    {"/link-dir-rel/inner.txt", 403},
    {"/link-dir", 403},
    {"/link-dir/", 403},
    {"/loop-a", 403},
    {"/procroot/etc/passwd", 403},
    {"/passwd", 403},
    {"/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd", 403},
    {"/fifo", 403},
    {"/null", 403},
    {"/sock", 403},
    {"/nothing-here", 404},
    {"/link-ok", 200},
};

static void forbid_secrets(void)
{
    harness_forbid(site.secret);
    harness_forbid("root:x:0:0"); /* /etc/passwd */
}

START_TEST(traversal_case)
{
    forbid_secrets();
    struct server *s = start_default();
    const char *t = traversal[_i].target;
    /* raw: curl would normalise the dots */
    int want = traversal[_i].status;
    struct http_response *r = expect_get(s, t, want, hfmt("GET %s", t));
    r = raw_request(s->port, hfmt("HEAD %s HTTP/1.1\r\nHost: x\r\n\r\n", t),
                    10000);
    EXPECT_STATUS(r, want, hfmt("HEAD %s", t));
    r = http_do(NULL, s, "GET", t, (const char *[]){"Range: bytes=0-", NULL});
    EXPECT_STATUS(r, want == 200 ? 206 : want, hfmt("GET %s with Range", t));
    expect_still_serves(s);
    server_stop_clean(s);
}
END_TEST

START_TEST(traversal_absolute_double_slash)
{
    /* "//abs/path": only one slash is stripped, so the resolver is handed
     * an absolute path, which BENEATH refuses (a server that merges slashes
     * would look for it inside the root instead). */
    const char *abs[] = {hfmt("/%s", site.secret_path), "//etc/passwd"};
    forbid_secrets();
    struct server *s = start_default();
    for (size_t i = 0; i < N_ELEMS(abs); i++)
        expect_get(s, abs[i], 403, NULL);
    server_stop_clean(s);
}
END_TEST

START_TEST(traversal_fifo_does_not_block)
{
    /* More FIFO requests at once than the server has workers: if opening a
     * FIFO blocked, every worker would hang and the last GET time out. */
    forbid_secrets();
    struct server *s = server_start(site.www, "--threads", "2", NULL);
    struct raw_conn *c[6];
    for (size_t i = 0; i < N_ELEMS(c); i++) {
        c[i] = raw_open(s->port);
        raw_send_str(c[i], "GET /fifo HTTP/1.1\r\nHost: x\r\n\r\n");
    }
    expect_get(s, "/readme.txt", 200, "GET while FIFO requests are pending");
    for (size_t i = 0; i < N_ELEMS(c); i++) {
        struct http_response *r = raw_read(c[i], false, 5000);
        EXPECT_STATUS(r, 403, "GET /fifo");
    }
    server_stop_clean(s);
}
END_TEST

START_TEST(traversal_special_files)
{
    /* The files the server opens on its own initiative go through the
     * resolver too: a 404.html and an index file that are symlinks out of
     * the root, and --index names with "..", never bring the secret in. */
    forbid_secrets();
    char *w = tree_new();
    tree_symlink(w, site.secret_path, "404.html");
    tree_mkdir(w, "d");
    tree_symlink(w, "../../secret.txt", "d/index.html");
    tree_mkdir(w, "e");
    tree_symlink(w, site.secret_path, "e/index.html");
    tree_write_str(w, "index.html", "SAFE-INDEX\n");
    struct server *s = server_start(w, "--listing", "on", NULL);
    expect_get(s, "/missing", 404,
               "404 with 404.html a symlink out of the root");
    expect_get(s, "/d/", 403, "/d/ (index.html escapes)");
    expect_get(s, "/e/", 403, "/e/ (index.html absolute link out)");
    server_stop_clean(s);

    /* --index names with ".." or an absolute path are refused up front
     * (exit 2), as every configuration error is */
    const struct bad_option idx[] = {
        {"--index", "../secret.txt,index.html", "--index"},
        {"--index", hfmt("%s,index.html", site.secret_path), "--index"},
    };
    expect_bad_options(idx, N_ELEMS(idx), w);
}
END_TEST

START_TEST(traversal_no_xdev)
{
    /* A bind mount inside the root (in the server's own mount namespace):
     * served by default (BENEATH allows mount crossings), refused with
     * no-xdev (EXDEV -> 403), by both backends. */
    char *b = tree_new();
    tree_mkdir(b, "other");
    tree_write_str(b, "other/f.txt", "ON-THE-MOUNT\n");
    tree_mkdir(b, "www");
    char *w = tree_path(b, "www");
    tree_mkdir(w, "mnt");
    tree_write_str(w, "plain.txt", "PLAIN\n");
    struct server_opts o = {.root = w,
                            .bind_src = tree_path(b, "other"),
                            .bind_dst = tree_path(w, "mnt")};
    struct server *s = server_start_opts(&o);
    expect_get_body(s, "/mnt/f.txt", "ON-THE-MOUNT\n",
                    "default confine: a file on a bind mount inside the root");
    server_stop_clean(s);

    o.args = (const char *[]){"--confine", "beneath,no-xdev", NULL};
    s = server_start_opts(&o);
    expect_get(s, "/mnt/f.txt", 403, "no-xdev: a file on a bind mount");
    expect_get(s, "/mnt/", 403, "no-xdev: the mount point's directory");
    expect_get(s, "/plain.txt", 200, "no-xdev: a file on the root's own mount");
    server_stop_clean(s);
}
END_TEST

/* ===== servers and the answers they give ================================ */

/*
 * One request and its answer. @target: a GET target (raw bytes), or
 * "METHOD target". @file: the site file whose content the body must be.
 * @has: a string the body must contain. @type: the exact Content-Type.
 */
struct exchange {
    const char *target;
    int status;
    const char *file;
    const char *has;
    const char *type;
};

/*
 * A server over the fixture site with the options @args, and the requests it
 * answers, in order. No response may contain @lacks, nor (@secrets) the
 * secret or /etc/passwd. The rows of one tcase stand together.
 */
static const struct serve {
    const char *tcase;
    const char *what;
    const char *args[3];
    bool secrets;
    const char *lacks;
    struct exchange ex[8];
} serves[] = {
    {"dirs", "index files",
     .ex = {{"/sub/", 200, .file = "sub/index.html",
             .type = "text/html; charset=utf-8"},
            {"/", 200, .file = "index.html"},
            {"/sub/deeper/", 200, .file = "sub/deeper/index.html"},
            /* a symlink to sub, inside the root */
            {"/link-ok-dir/", 200, .file = "sub/index.html"}}},
    {"dirs", "no index and listing off", .lacks = "only-file-here",
     .ex = {{"/noindex/", .status = 403}, {"/list/", .status = 403}}},
    {"dirs", "--index home.html,index.html",
     .args = {"--index", "home.html,index.html"},
     .ex = {{"/multi/", 200, .file = "multi/home.html"},
            /* the second name is tried */
            {"/sub/", 200, .file = "sub/index.html"}}},
    /* --confine in-root clamps ".." and absolute links at the root, like
     * chroot: the outside names then resolve inside, where they do not
     * exist; nothing from outside is ever served. */
    {"traversal", "--confine in-root", .args = {"--confine", "in-root"},
     .secrets = true,
     .ex = {{"/../secret.txt", .status = 404},
            {"/%2e%2e/secret.txt", .status = 404},
            {"/link-abs", .status = 404},
            {"/link-rel", .status = 404},
            {"/link-dir/inner.txt", .status = 404},
            {"/sub/../../secret.txt", .status = 404},
            {"/passwd", .status = 404},
            {"/../range.txt", 200, .file = "range.txt"}}},
    {"traversal", "--confine beneath,no-symlinks",
     .args = {"--confine", "beneath,no-symlinks"}, .secrets = true,
     .ex = {{"/link-ok", .status = 403},
            {"/link-ok-dir/index.html", .status = 403},
            {"/range.txt", 200, .file = "range.txt"}}},
    {"dotfiles", "dotfiles denied (the default)", .lacks = "HIDDEN-CONTENT",
     .ex = {{"/.hidden", .status = 404},
            {"/sub/.hidden", .status = 404},
            {"/%2ehidden", .status = 404},
            /* the policy holds for the name the resolver ends on: ".." after
             * the allowed /.well-known/ must not reach a dotfile */
            {"/.well-known/../.hidden", .status = 404},
            {"/.well-known/%2e%2e/.hidden", .status = 404},
            {"/.well-known/x", 200, .file = ".well-known/x"}}},
    {"dotfiles", "--dotfiles allow", .args = {"--dotfiles", "allow"},
     .secrets = true,
     .ex = {{"/.hidden", 200, .file = ".hidden"},
            {"/sub/.hidden", 200, .file = "sub/.hidden"},
            /* ".." is not a dotfile: still the resolver's refusal */
            {"/../secret.txt", .status = 403}}},
    {"errors", "the root's 404.html",
     .ex = {{"/missing.html", 404, .has = "CUSTOM-404-PAGE",
             .type = "text/html; charset=utf-8"},
            {"/sub/missing/deeper", 404, .has = "CUSTOM-404-PAGE"},
            {"HEAD /missing.html", .status = 404}}},
};

START_TEST(serve_case)
{
    const struct serve *c = &serves[_i];
    struct server_opts o = {.root = site.www, .args = c->args};

    if (c->secrets)
        forbid_secrets();
    if (c->lacks)
        harness_forbid(c->lacks);
    struct server *s = server_start_opts(&o);
    for (size_t i = 0; i < N_ELEMS(c->ex) && c->ex[i].target; i++) {
        const struct exchange *x = &c->ex[i];
        char *what = hfmt("%s: %s", c->what, x->target);
        struct http_response *r =
            x->target[0] == '/'
                ? raw_get(s->port, x->target)
                : raw_request(s->port,
                              hfmt("%s HTTP/1.1\r\nHost: x\r\n\r\n", x->target),
                              10000);
        EXPECT_STATUS(r, x->status, what);
        if (x->file) {
            size_t len;
            char *want = tree_read(tree_path(site.www, x->file), &len);
            EXPECT(want && r->body_len == len &&
                       memcmp(r->body, want, len) == 0,
                   "%s: body '%s', want the content of %s", what, r->body,
                   x->file);
        }
        if (x->has)
            EXPECT(strstr(r->body, x->has), "%s: no '%s' in the body:\n%s",
                   what, x->has, r->body);
        if (x->type)
            EXPECT(http_value_eq(http_header(r, "Content-Type"), x->type),
                   "%s: Content-Type '%s', want '%s'", what,
                   http_header(r, "Content-Type") ?: "(none)", x->type);
    }
    server_stop_clean(s);
}
END_TEST

/* The rows of serves[] that belong to the tcase @name, if any. */
static void add_serves(TCase *tc, const char *name)
{
    int first = -1, end = 0;

    for (int i = 0; i < (int)N_ELEMS(serves); i++) {
        if (strcmp(serves[i].tcase, name) != 0)
            continue;
        if (first < 0)
            first = i;
        end = i + 1;
    }
    if (first >= 0)
        tcase_add_loop_test(tc, serve_case, first, end);
}

/* ===== conditional requests ============================================== */

struct validators {
    char *etag; /* as sent: a strong entity-tag */
    char *weak; /* W/ + etag */
    char *lm;
};

static struct validators get_validators(const struct server *s,
                                        const char *path)
{
    struct validators v = {0};
    struct http_response *r = http_get(s, path);
    EXPECT_STATUS(r, 200, path);
    const char *et = http_header(r, "ETag");
    /* the ETag is a content hash (or size and mtime): a strong one */
    EXPECT(et != NULL && et[0] == '"', "%s: ETag '%s', want a strong one", path,
           et ? et : "(none)");
    v.etag = hfmt("%s", et);
    v.weak = hfmt("W/%s", et);
    const char *lm = http_header(r, "Last-Modified");
    EXPECT(lm != NULL, "%s: no Last-Modified", path);
    v.lm = hfmt("%s", lm);
    return v;
}

/* Replace {ETAG} {WEAK} {LM} in @t. */
static char *fill_validators(const char *t, const struct validators *v)
{
    static const char *const keys[] = {"{ETAG}", "{WEAK}", "{LM}"};
    const char *vals[] = {v->etag, v->weak, v->lm};
    char *out = hfmt("%s", "");
    while (*t) {
        bool hit = false;
        for (size_t k = 0; k < N_ELEMS(keys); k++) {
            size_t kl = strlen(keys[k]);
            if (strncmp(t, keys[k], kl) == 0) {
                out = hfmt("%s%s", out, vals[k]);
                t += kl;
                hit = true;
                break;
            }
        }
        if (!hit) {
            out = hfmt("%s%c", out, *t);
            t++;
        }
    }
    return out;
}

/* One conditional request for /range.txt; @h are templates for
 * fill_validators(), the second one optional. */
static const struct {
    const char *method;
    const char *h[2];
    int status;
} conds[] = {
    {"GET", {"If-None-Match: {ETAG}"}, 304},
    {"GET", {"If-None-Match: {WEAK}"}, 304},
    {"GET", {"If-None-Match: \"nope\", {ETAG}"}, 304},
    {"GET", {"If-None-Match: \"nope\",{WEAK} , \"other\""}, 304},
    {"GET", {"If-None-Match: *"}, 304},
    {"GET", {"If-None-Match: \"nope\""}, 200},
    {"GET", {"If-None-Match: W/\"nope\""}, 200},
    {"HEAD", {"If-None-Match: {ETAG}"}, 304},
    {"GET", {"If-Modified-Since: {LM}"}, 304},
    {"HEAD", {"If-Modified-Since: {LM}"}, 304},
    {"GET", {"If-Modified-Since: Mon, 01 Jan 1990 00:00:00 GMT"}, 200},
    /* README: IMF-fixdate, RFC 850 and asctime are accepted (RFC 9110
     * 5.6.7 asks recipients to accept all three) */
    {"GET", {"If-Modified-Since: Tuesday, 02-Jan-24 03:04:05 GMT"}, 304},
    {"GET", {"If-Modified-Since: Tue Jan  2 03:04:05 2024"}, 304},
    {"GET", {"If-Modified-Since: Tue, 02 Jan 2024 03:04:05 GMT junk"}, 200},
    {"GET", {"If-Modified-Since: Tue, 32 Jan 2024 03:04:05 GMT"}, 200},
    {"GET", {"If-Modified-Since: not a date"}, 200},
    {"GET", {"If-Match: \"nope\""}, 412},
    {"HEAD", {"If-Match: \"nope\""}, 412},
    {"GET", {"If-Match: *"}, 200},
    /* If-Match compares strongly: a weak tag never matches */
    {"GET", {"If-Match: {ETAG}"}, 200},
    {"GET", {"If-Match: \"nope\", {ETAG}"}, 200},
    {"GET", {"If-Match: {WEAK}"}, 412},
    {"GET", {"If-Unmodified-Since: Mon, 01 Jan 1990 00:00:00 GMT"}, 412},
    {"GET", {"If-Unmodified-Since: {LM}"}, 200},
    {"GET", {"If-Unmodified-Since: Fri, 01 Jan 2100 00:00:00 GMT"}, 200},
    {"GET", {"If-Unmodified-Since: not a date"}, 200},
    /* two headers: which one counts */
    /* RFC 9110 13.1.3: If-Modified-Since is ignored with If-None-Match */
    {"GET", {"If-None-Match: \"nope\"", "If-Modified-Since: {LM}"}, 200},
    {"GET",
     {"If-None-Match: {ETAG}",
      "If-Modified-Since: Mon, 01 Jan 1990 00:00:00 GMT"},
     304},
    /* RFC 9110 13.1.4: If-Unmodified-Since is ignored with If-Match */
    {"GET",
     {"If-Match: *", "If-Unmodified-Since: Mon, 01 Jan 1990 00:00:00 GMT"},
     200},
    /* a 304 wins over Range (RFC 9110 13.2.2 order) */
    {"GET", {"If-None-Match: {ETAG}", "Range: bytes=0-9"}, 304},
    {"GET", {"If-Match: \"nope\"", "Range: bytes=0-9"}, 412},
};

START_TEST(conditional_case)
{
    struct server *s = start_default();
    struct validators v = get_validators(s, "/range.txt");
    const char *h[3] = {0};
    for (size_t i = 0; i < N_ELEMS(conds[_i].h) && conds[_i].h[i]; i++)
        h[i] = fill_validators(conds[_i].h[i], &v);
    int want = conds[_i].status;
    struct http_response *r =
        http_do(NULL, s, conds[_i].method, "/range.txt", h);
    EXPECT(r->status == want, "%s with '%s' '%s' (ETag %s): status %d, want %d",
           conds[_i].method, h[0], h[1] ? h[1] : "", v.etag, r->status, want);
    if (r->status == 304) {
        EXPECT(r->body_len == 0, "304 with a body");
        const char *cl = http_header(r, "Content-Length");
        EXPECT(cl == NULL || strtoul(cl, NULL, 10) == SITE_RANGE_LEN,
               "304 with Content-Length %s (the file has %d bytes; RFC 9110 "
               "8.6)",
               cl, SITE_RANGE_LEN);
        EXPECT(http_header(r, "ETag") &&
                   strcmp(http_header(r, "ETag"), v.etag) == 0,
               "304 without the ETag (RFC 9110 15.4.5)");
    }
    if (r->status == 200 && strcmp(conds[_i].method, "GET") == 0)
        EXPECT(strcmp(r->body, site.range) == 0, "200 with a wrong body");
    server_stop_clean(s);
}
END_TEST

START_TEST(conditional_304_keepalive_raw)
{
    /* The MHD trap: a 304 with Content-Length 0 or the body length would
     * desynchronise a keep-alive connection; check the exact bytes. */
    struct server *s = start_default();
    struct validators v = get_validators(s, "/range.txt");
    struct raw_conn *c = raw_connect(s->port);
    raw_send_str(c, hfmt("GET /range.txt HTTP/1.1\r\nHost: x\r\n"
                         "If-None-Match: %s\r\n\r\n",
                         v.etag));
    struct http_response *r = raw_read(c, false, 5000);
    EXPECT_STATUS(r, 304, "raw If-None-Match");
    const char *cl = http_header(r, "Content-Length");
    EXPECT(cl == NULL || strtoul(cl, NULL, 10) == SITE_RANGE_LEN,
           "304 Content-Length: %s", cl);
    raw_send_str(c, "GET /readme.txt HTTP/1.1\r\nHost: x\r\n\r\n");
    r = raw_read(c, false, 5000);
    EXPECT_STATUS(r, 200, "request after a 304 on the same connection");
    EXPECT(strcmp(r->body, "plain text\n") == 0,
           "after a 304: body '%s' (stray bytes?)", r->body);
    server_stop_clean(s);
}
END_TEST

/* ===== Range ============================================================= */

static const struct {
    const char *range;
    const char *if_range; /* template, or NULL */
    int status;
    long first, last; /* 206: inclusive */
} ranges[] = {
    {"bytes=0-9", NULL, 206, 0, 9},
    {"bytes=-10", NULL, 206, 90, 99},
    {"bytes=10-", NULL, 206, 10, 99},
    {"bytes=0-0", NULL, 206, 0, 0},
    {"bytes=99-99", NULL, 206, 99, 99},
    {"bytes=90-1000", NULL, 206, 90, 99},
    {"bytes=-1000", NULL, 206, 0, 99},
    {"bytes=0-", NULL, 206, 0, 99},
    /* outside RFC 9110's grammar (no OWS around "="), read leniently */
    {"bytes = 5-7", NULL, 206, 5, 7},
    {"bytes=100-200", NULL, 416, 0, 0},
    {"bytes=100-", NULL, 416, 0, 0},
    {"bytes=1000-2000", NULL, 416, 0, 0},
    {"bytes=-0", NULL, 416, 0, 0},
    {"bytes=abc", NULL, 200, 0, 0},
    {"bytes=5-2", NULL, 200, 0, 0},
    {"items=0-5", NULL, 200, 0, 0},
    {"bytes=", NULL, 200, 0, 0},
    {"bytes=--5", NULL, 200, 0, 0},
    {"bytes=1-2-3", NULL, 200, 0, 0},
    {"bytes=0-9", "{ETAG}", 206, 0, 9},
    {"bytes=0-9", "\"other\"", 200, 0, 0},
    {"bytes=0-9", "{LM}", 206, 0, 9},
    {"bytes=0-9", "Mon, 01 Jan 1990 00:00:00 GMT", 200, 0, 0},
    /* If-Range compares strongly (RFC 9110 13.1.5): a weak tag -> 200 */
    {"bytes=0-9", "{WEAK}", 200, 0, 0},
    /* numbers past 64 bits and at the edges: never a crash (ASan) or a
     * bogus length */
    {"bytes=0-99999999999999999999999999", NULL, 206, 0, 99},
    {"bytes=99999999999999999999999999-", NULL, 416, 0, 0},
    {"bytes=-99999999999999999999999999", NULL, 206, 0, 99},
    {"bytes=18446744073709551615-", NULL, 416, 0, 0},
    {"bytes=9223372036854775807-9223372036854775807", NULL, 416, 0, 0},
    {"bytes=0-18446744073709551615", NULL, 206, 0, 99},
    {"bytes=-9223372036854775808", NULL, 206, 0, 99},
    {"bytes=00000000000000000000000000000005-9", NULL, 206, 5, 9},
    /* several ranges that coalesce into one (docs/http.md): one part */
    {"bytes=0-1,5-6", NULL, 206, 0, 6},
    {"bytes=5-6, 0-1", NULL, 206, 0, 6},
    /* more bytes than the file: the whole file (multipart: test_ranges.c) */
    {"bytes=0-,0-", NULL, 200, 0, 0},
    {"bytes=-60,0-40", NULL, 200, 0, 0},
};

START_TEST(range_case)
{
    struct server *s = start_default();
    struct validators v = get_validators(s, "/range.txt");
    const char *h[3] = {hfmt("Range: %s", ranges[_i].range), NULL, NULL};
    int want = ranges[_i].status;
    if (ranges[_i].if_range)
        h[1] = hfmt("If-Range: %s", fill_validators(ranges[_i].if_range, &v));
    struct http_response *r = http_do(NULL, s, "GET", "/range.txt", h);
    EXPECT(r->status == want, "Range '%s' If-Range '%s': status %d, want %d",
           h[0], h[1] ? h[1] : "", r->status, want);
    const char *cr = http_header(r, "Content-Range");
    if (want == 206) {
        long f = ranges[_i].first, l = ranges[_i].last;
        char *wcr = hfmt("bytes %ld-%ld/%d", f, l, SITE_RANGE_LEN);
        EXPECT(cr && strcmp(cr, wcr) == 0, "%s: Content-Range '%s', want '%s'",
               h[0], cr ?: "(none)", wcr);
        EXPECT(r->body_len == (size_t)(l - f + 1) &&
                   memcmp(r->body, site.range + f, r->body_len) == 0,
               "%s: body '%s'", h[0], r->body);
        const char *cl = http_header(r, "Content-Length");
        EXPECT(cl && strtol(cl, NULL, 10) == l - f + 1, "%s: Content-Length %s",
               h[0], cl);
        EXPECT(http_value_eq(http_header(r, "Content-Type"),
                             "text/plain; charset=utf-8"),
               "206 Content-Type '%s'", http_header(r, "Content-Type") ?: "");
    } else if (want == 416) {
        char *wcr = hfmt("bytes */%d", SITE_RANGE_LEN);
        EXPECT(cr && strcmp(cr, wcr) == 0, "416 Content-Range '%s', want '%s'",
               cr ?: "(none)", wcr);
    } else {
        EXPECT(strcmp(r->body, site.range) == 0, "200: body not the file");
        EXPECT(cr == NULL, "200 with Content-Range %s", cr);
    }
    server_stop_clean(s);
}
END_TEST

START_TEST(range_head_and_big)
{
    struct server *s = start_default();
    struct http_response *r =
        http_do(NULL, s, "HEAD", "/range.txt",
                (const char *[]){"Range: bytes=0-9", NULL});
    EXPECT_STATUS(r, 206, "HEAD with Range");
    EXPECT(r->body_len == 0, "HEAD 206 with a body");
    EXPECT(http_header(r, "Content-Length") &&
               strcmp(http_header(r, "Content-Length"), "10") == 0,
           "HEAD 206 Content-Length %s", http_header(r, "Content-Length"));
    /* a range deep into a 1 MiB file: the sendfile offset must be right */
    r = http_do(NULL, s, "GET", "/big.bin",
                (const char *[]){"Range: bytes=700000-700099", NULL});
    EXPECT_STATUS(r, 206, "big.bin range");
    EXPECT(r->body_len == 100 && memcmp(r->body, site.big + 700000, 100) == 0,
           "big.bin range body differs");
    r = http_do(NULL, s, "GET", "/big.bin",
                (const char *[]){"Range: bytes=-5", NULL});
    EXPECT(r->status == 206 && r->body_len == 5 &&
               memcmp(r->body, site.big + SITE_BIG_LEN - 5, 5) == 0,
           "big.bin suffix range");
    server_stop_clean(s);
}
END_TEST

START_TEST(range_large_file)
{
    /* A sparse 5 GB file: lengths and offsets past 4 GiB must survive (the
     * MHD off_t/size_t traps: _from_fd_at_offset vs _at_offset64). */
    char *w = tree_new();
    char *p = tree_path(w, "huge.bin");
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    EXPECT(fd >= 0, "create %s", p);
    const long long size = 5000000000LL, off = 4800000000LL;
    EXPECT(ftruncate(fd, size) == 0, "ftruncate: %s", strerror(errno));
    EXPECT(pwrite(fd, "DEEP-MARK!", 10, off) == 10, "pwrite");
    close(fd);
    struct server *s = server_start(w, NULL);
    struct http_response *r = http_do(NULL, s, "HEAD", "/huge.bin", NULL);
    EXPECT_STATUS(r, 200, "HEAD /huge.bin");
    const char *cl = http_header(r, "Content-Length");
    EXPECT(cl && strcmp(cl, "5000000000") == 0, "5 GB file: Content-Length %s",
           cl ?: "(none)");
    const char *h[] = {hfmt("Range: bytes=%lld-%lld", off, off + 9), NULL};
    r = http_do(NULL, s, "GET", "/huge.bin", h);
    EXPECT_STATUS(r, 206, "range past 4 GiB");
    EXPECT(r->body_len == 10 && memcmp(r->body, "DEEP-MARK!", 10) == 0,
           "range past 4 GiB: body '%s'", r->body);
    char *wcr = hfmt("bytes %lld-%lld/%lld", off, off + 9, size);
    EXPECT(http_header(r, "Content-Range") &&
               strcmp(http_header(r, "Content-Range"), wcr) == 0,
           "Content-Range %s, want %s", http_header(r, "Content-Range"), wcr);
    const char *h2[] = {"Range: bytes=-3", NULL};
    r = http_do(NULL, s, "GET", "/huge.bin", h2);
    EXPECT(r->status == 206 && r->body_len == 3,
           "suffix range of a 5 GB file: %d, %zu bytes", r->status,
           r->body_len);
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

/* ===== access log ======================================================== */

/* The lines of @log containing @needle, joined; "" if none. */
static char *log_lines_with(const char *log, const char *needle)
{
    char *out = hfmt("%s", "");
    for (char *line; (line = hline(&log)) != NULL;)
        if (strstr(line, needle))
            out = hfmt("%s%s\n", out, line);
    return out;
}

START_TEST(log_combined)
{
    struct server *s = start_default();
    const char *h[] = {"User-Agent: e2e-agent/1.0",
                       "Referer: http://ref.example/", NULL};
    http_do(NULL, s, "GET", "/range.txt?marker=ok1", h);
    raw_get(s->port, "/link-abs?marker=exdev1");
    raw_get(s->port, "/loop-a?marker=eloop1");
    raw_get(s->port, "/nothing?marker=enoent1");
    /* one line per request, also for the ones refused before any file */
    raw_get(s->port, "/%zz?marker=bad400");
    raw_request(s->port,
                "DELETE /range.txt?marker=del405 HTTP/1.1\r\nHost: x\r\n\r\n",
                5000);
    /* injection: an encoded newline in the target, quotes in the agent */
    raw_get(s->port, "/a%0aFAKE-LINE?marker=inject1");
    http_do(NULL, s, "GET", "/range.txt?marker=quote1",
            (const char *[]){"User-Agent: evil\" 200 \"x", NULL});
    /* lines are written when each request completes, possibly by another
     * worker after the response: wait for each one */
    static const char *const marks[] = {"marker=ok1", "marker=exdev1",
                                        "marker=eloop1", "marker=enoent1"};
    for (size_t i = 0; i < N_ELEMS(marks); i++)
        EXPECT(file_wait_for(s->out_path, marks[i], 5000),
               "access log on stdout lacks %s (not flushed?):\n%s", marks[i],
               server_stdout(s));
    char *log = server_stdout(s);
    char *ok = log_lines_with(log, "marker=ok1");
    /* 127.0.0.1 - - [02/Jan/2024:03:04:05 +0000] "GET /x HTTP/1.1" 200 100
     *   "referer" "agent"  (+ beneath's fields) */
    EXPECT(strncmp(ok, "127.0.0.1 - - [", 15) == 0,
           "combined line does not start with '127.0.0.1 - - [':\n%s", ok);
    char *req = hfmt("] \"GET /range.txt?marker=ok1 HTTP/1.1\" 200 %d "
                     "\"http://ref.example/\" \"e2e-agent/1.0\"",
                     SITE_RANGE_LEN);
    EXPECT(strstr(ok, req) != NULL, "combined line lacks '%s':\n%s", req, ok);
    const char *ts = strchr(ok, '[');
    int d, y, hh, mm, ss;
    char mon[4], zone[6];
    EXPECT(ts && sscanf(ts, "[%2d/%3s/%4d:%2d:%2d:%2d %5s]", &d, mon, &y, &hh,
                        &mm, &ss, zone) == 7,
           "combined timestamp not [dd/Mon/yyyy:HH:MM:SS +zzzz]:\n%s", ok);
    EXPECT(strstr(ok, harness_backend()) != NULL,
           "combined line does not name the backend '%s':\n%s",
           harness_backend(), ok);
    char *ex = log_lines_with(log, "marker=exdev1");
    EXPECT(strstr(ex, "\" 403 ") && strstr(ex, "EXDEV"),
           "refusal through an absolute symlink not logged as 403 EXDEV:\n%s",
           ex);
    char *lo = log_lines_with(log, "marker=eloop1");
    EXPECT(strstr(lo, "\" 403 ") && strstr(lo, "ELOOP"),
           "symlink loop not logged as 403 ELOOP:\n%s", lo);
    char *en = log_lines_with(log, "marker=enoent1");
    EXPECT(strstr(en, "\" 404 "), "missing file not logged as 404:\n%s", en);
    static const char *const more[] = {"marker=bad400", "marker=del405",
                                       "marker=inject1", "marker=quote1"};
    for (size_t i = 0; i < N_ELEMS(more); i++)
        EXPECT(file_wait_for(s->out_path, more[i], 5000),
               "no access log line for %s:\n%s", more[i], server_stdout(s));
    log = server_stdout(s);
    EXPECT(strstr(log_lines_with(log, "marker=bad400"), "\" 400 "),
           "bad escape not logged as 400:\n%s", log_lines_with(log, "bad400"));
    EXPECT(strstr(log_lines_with(log, "marker=del405"), "\" 405 "),
           "DELETE not logged as 405");
    for (const char *p = log, *line; (line = hline(&p)) != NULL;)
        EXPECT(strncmp(line, "FAKE-LINE", 9) != 0,
               "an encoded newline in the target split the access log:\n%s",
               log);
    /* a quote in a field is escaped (nginx: \x22), or the fields can be
     * forged: the agent must not read as ... "evil" 200 "x" */
    char *q = log_lines_with(log, "marker=quote1");
    EXPECT(strstr(q, "\"evil\" 200 \"x\"") == NULL,
           "a quote in the User-Agent is not escaped in the combined log:\n%s",
           q);
    server_stop_clean(s);
}
END_TEST

/* --- a minimal JSON validator: one object of scalars/arrays/objects --- */

struct jp {
    const char *p;
    int depth;
};

static void jws(struct jp *j)
{
    while (*j->p == ' ' || *j->p == '\t')
        j->p++;
}

static bool jvalue(struct jp *j);

static bool jstring(struct jp *j, char **out)
{
    if (*j->p != '"')
        return false;
    const char *start = ++j->p;
    while (*j->p && *j->p != '"') {
        if ((unsigned char)*j->p < 0x20)
            return false;
        if (*j->p == '\\') {
            j->p++;
            if (*j->p == 'u') {
                for (int k = 1; k <= 4; k++)
                    if (!strchr("0123456789abcdefABCDEF", j->p[k]) || !j->p[k])
                        return false;
                j->p += 4;
            } else if (!*j->p || !strchr("\"\\/bfnrt", *j->p)) {
                return false;
            }
        }
        j->p++;
    }
    if (*j->p != '"')
        return false;
    if (out)
        *out = hmem(start, (size_t)(j->p - start));
    j->p++;
    return true;
}

static bool jvalue(struct jp *j)
{
    jws(j);
    if (++j->depth > 16)
        return false;
    bool ok = false;
    if (*j->p == '"') {
        ok = jstring(j, NULL);
    } else if (*j->p == '{' || *j->p == '[') {
        char close = *j->p == '{' ? '}' : ']';
        bool obj = *j->p == '{';
        j->p++;
        jws(j);
        if (*j->p == close) {
            j->p++;
            ok = true;
        } else {
            for (;;) {
                if (obj) {
                    jws(j);
                    if (!jstring(j, NULL))
                        break;
                    jws(j);
                    if (*j->p++ != ':')
                        break;
                }
                if (!jvalue(j))
                    break;
                jws(j);
                if (*j->p == ',') {
                    j->p++;
                    continue;
                }
                if (*j->p == close) {
                    j->p++;
                    ok = true;
                }
                break;
            }
        }
    } else if (strncmp(j->p, "true", 4) == 0 || strncmp(j->p, "null", 4) == 0) {
        j->p += 4;
        ok = true;
    } else if (strncmp(j->p, "false", 5) == 0) {
        j->p += 5;
        ok = true;
    } else if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9')) {
        char *end;
        strtod(j->p, &end);
        ok = end != j->p;
        j->p = end;
    }
    j->depth--;
    return ok;
}

static bool json_line_valid(const char *line)
{
    struct jp j = {.p = line};
    jws(&j);
    if (*j.p != '{')
        return false;
    if (!jvalue(&j))
        return false;
    jws(&j);
    return *j.p == '\0';
}

/* @line has a top-level-ish "KEY": VALUE pair whose value is @val. Key
 * names are not in the README, so look for the value only. */
static bool json_has_value(const char *line, const char *val)
{
    return strstr(line, hfmt(":\"%s\"", val)) ||
           strstr(line, hfmt(": \"%s\"", val)) ||
           strstr(line, hfmt(":%s,", val)) ||
           strstr(line, hfmt(": %s,", val)) ||
           strstr(line, hfmt(":%s}", val)) || strstr(line, hfmt(": %s}", val));
}

START_TEST(log_json)
{
    struct server *s = server_start(site.www, "--log-format", "json", NULL);
    const char *h[] = {"User-Agent: evil\"agent\\with\x01 quotes", NULL};
    http_do(NULL, s, "GET", "/range.txt?marker=ok2", h);
    raw_get(s->port, "/link-abs?marker=exdev2");
    raw_get(s->port, "/nothing?marker=enoent2");
    static const char *const marks[] = {"marker=ok2", "marker=exdev2",
                                        "marker=enoent2"};
    for (size_t i = 0; i < N_ELEMS(marks); i++)
        EXPECT(file_wait_for(s->out_path, marks[i], 5000),
               "JSON access log lacks %s:\n%s", marks[i], server_stdout(s));
    char *log = server_stdout(s);
    for (const char *p = log, *line; (line = hline(&p)) != NULL;)
        EXPECT(json_line_valid(line), "not a JSON object: %s", line);
    char *ok = log_lines_with(log, "marker=ok2");
    EXPECT(*ok, "no line for the first request");
    ok[strlen(ok) - 1] = '\0';
    EXPECT(json_has_value(ok, "200"), "no status 200 in %s", ok);
    EXPECT(json_has_value(ok, "GET"), "no method GET in %s", ok);
    EXPECT(json_has_value(ok, harness_backend()), "no backend '%s' in %s",
           harness_backend(), ok);
    EXPECT(strstr(ok, "/range.txt") != NULL, "no path in %s", ok);
    EXPECT(strstr(ok, "127.0.0.1") != NULL, "no client address in %s", ok);
    char *ex = log_lines_with(log, "marker=exdev2");
    EXPECT(json_has_value(ex, "403") && strstr(ex, "\"EXDEV\""),
           "refusal not logged with status 403 and \"EXDEV\": %s", ex);
    server_stop_clean(s);
}
END_TEST

START_TEST(log_off_and_file)
{
    struct server *s = server_start(site.www, "--access-log", "off", NULL);
    raw_get(s->port, "/range.txt");
    server_stop_clean(s);
    EXPECT(*server_stdout(s) == '\0', "--access-log off wrote: %s",
           server_stdout(s));

    char *d = tree_new();
    char *logp = tree_path(d, "access.log");
    s = server_start(site.www, "--access-log", logp, NULL);
    raw_get(s->port, "/range.txt?marker=file1");
    EXPECT(file_wait_for(logp, "marker=file1", 5000),
           "--access-log FILE: no line in %s", logp);
    server_stop_clean(s);
}
END_TEST

/*
 * A directory served, then moved out of the root (and a secret put in it),
 * then replaced by a symlink to it: each request is resolved afresh, so
 * nothing from the moved directory is served. With --resolver emulated this
 * is the directory cache noticing the moves (one worker, so the same cache).
 */
START_TEST(dir_moved_out_between_requests)
{
    char *outside = tree_new();
    char *w = tree_new();
    tree_mkdir(w, "docs");
    tree_mkdir(w, "docs/v1");
    tree_write_str(w, "docs/v1/page.html", "v1 page\n");
    char *secret = hfmt("moved-out-%s", hrandom(16));
    harness_forbid(secret);
    struct server *s = server_start(w, "--threads", "1", NULL);
    for (int i = 0; i < 3; i++)
        expect_get_body(s, "/docs/v1/page.html", "v1 page\n",
                        "before the move");
    EXPECT(rename(tree_path(w, "docs/v1"), tree_path(outside, "v1")) == 0,
           "rename: %s", strerror(errno));
    tree_write_str(outside, "v1/secret.html", secret);
    expect_get(s, "/docs/v1/secret.html", 404,
               "a file in the moved-out directory");
    expect_get(s, "/docs/v1/page.html", 404,
               "the old page in the moved-out directory");
    /* A symlink in its place, to the outside: refused under beneath. */
    tree_symlink(w, tree_path(outside, "v1"), "docs/v1");
    expect_get(s, "/docs/v1/secret.html", 403,
               "through an absolute symlink to the moved directory");
    /* And a new directory of the same name is served. */
    EXPECT(unlink(tree_path(w, "docs/v1")) == 0, "unlink");
    tree_mkdir(w, "docs/v1");
    tree_write_str(w, "docs/v1/page.html", "v1 again\n");
    expect_get_body(s, "/docs/v1/page.html", "v1 again\n", "the new directory");
    server_stop_clean(s);
}
END_TEST

/* ===== resources ========================================================= */

START_TEST(no_fd_growth)
{
    /* ~2000 mixed requests over fresh and reused connections; afterwards,
     * with every client connection closed, the server holds as many fds as
     * before, and said nothing on stderr. One worker, warmed up with every
     * path first: the emulated backend's directory cache then holds all
     * the directories it will hold. */
    harness_forbid(site.secret);
    struct server *s =
        server_start(site.www, "--listing", "on", "--threads", "1", NULL);
    static const char *const paths[] = {
        "/index.html",
        "/range.txt",
        "/missing",
        "/link-abs",
        "/list/",
        "/sub",
        "/sub/",
        "/noindex/x",
        "/fifo",
        "/loop-a",
        "/big.bin",
        "/.hidden",
        "/link-dir/inner.txt",
    };
    struct http_response *r;
    for (size_t i = 0; i < N_ELEMS(paths); i++)
        r = raw_get(s->port, paths[i]); /* warm up */
    expect_get(s, "/index.html", 200, "warm-up");
    int before = server_fd_count_settled(s);
    EXPECT(before > 0, "cannot count the server's fds");
    struct validators v = get_validators(s, "/range.txt");
    CURL *e = curl_easy_init(); /* closed below, before counting */
    EXPECT(e != NULL, "curl_easy_init");
    int n = 0;
    for (int round = 0; n < 2000; round++) {
        for (size_t i = 0; i < N_ELEMS(paths); i++, n++) {
            const char *path = paths[i];
            if (i % 3 == 0) {
                r = raw_get(s->port, path);
            } else if (i % 3 == 1) {
                const char *h[] = {hfmt("If-None-Match: %s", v.etag), NULL};
                r = http_do(e, s, "GET", path, h);
            } else {
                const char *h[] = {"Range: bytes=1-5", NULL};
                r = http_do(e, s, round % 2 ? "HEAD" : "GET", path, h);
            }
            EXPECT(r->status >= 200 && r->status < 500,
                   "%s: status %d (error %s)", path, r->status,
                   r->error ? strerror(r->error) : "none");
        }
        r = raw_request(s->port, "DELETE / HTTP/1.1\r\nHost: x\r\n\r\n", 5000);
        EXPECT_STATUS(r, 405, "DELETE");
        n++;
    }
    curl_easy_cleanup(e); /* closes the reused connection */
    int after = server_fd_count_settled(s);
    EXPECT(after <= before,
           "fd count grew: %d before, %d after ~2000 "
           "requests",
           before, after);
    char *extra = server_stderr_since_startup(s);
    EXPECT(*extra == '\0', "stderr during requests:\n%s", extra);
    server_stop_clean(s);
}
END_TEST

START_TEST(stderr_quiet_on_bad_requests)
{
    /* Not in the README. A client's malformed request is the client's problem:
     * nginx logs it at "info" (off by default), the access log already has
     * a line for it. Echoing each one to stderr lets any client flood the
     * operator's journal; stderr should stay for the operator. */
    struct server *s =
        server_start(site.www, "--max-header-size", "8192", NULL);
    const char *reqs[] = {
        "GET /range.txt HTTP/1.1\r\n\r\n",
        "GET /range.txt HTTP/2.0\r\nHost: x\r\n\r\n",
        hfmt("GET / HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n",
             hfill(9000, 'a')),
        "GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n",
        "BREW / HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /missing HTTP/1.1\r\nHost: x\r\n\r\n",
    };
    for (size_t i = 0; i < N_ELEMS(reqs); i++)
        raw_request(s->port, reqs[i], 5000);
    struct raw_conn *c = raw_connect(s->port);
    raw_send_str(c, "GET / HTTP/1.1\r\nHost: x\r\n"); /* then hang up */
    raw_close(c);
    expect_still_serves(s);
    usleep(200000);
    char *said = server_stderr_since_startup(s);
    EXPECT(*said == '\0', "bad client requests were echoed on stderr:\n%s",
           said);
    server_stop_clean(s);
}
END_TEST

START_TEST(concurrent_clients)
{
    /* 48 transfers at once (libcurl multi), mixed sizes and statuses, on
     * two workers: every one gets its own right answer. */
    harness_forbid(site.secret);
    struct server *s = server_start(site.www, "--threads", "2", NULL);
    static const struct target_status kinds[] = {
        {"/big.bin", 200}, {"/range.txt", 200}, {"/link-abs", 403},
        {"/missing", 404}, {"/sub", 301},       {"/index.html", 200}};
    enum { N = 48 };
    CURLM *m = curl_multi_init();
    CURL *e[N];
    struct http_buf x[N];
    memset(x, 0, sizeof(x));
    for (int i = 0; i < N; i++) {
        e[i] = curl_easy_init();
        curl_easy_setopt(e[i], CURLOPT_URL,
                         server_url(s, 0, kinds[i % N_ELEMS(kinds)].target));
        curl_easy_setopt(e[i], CURLOPT_WRITEFUNCTION, http_write);
        curl_easy_setopt(e[i], CURLOPT_WRITEDATA, &x[i]);
        curl_easy_setopt(e[i], CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(e[i], CURLOPT_TIMEOUT_MS, 30000L);
        curl_easy_setopt(e[i], CURLOPT_FORBID_REUSE, 1L);
        curl_multi_add_handle(m, e[i]);
    }
    int running = 1;
    while (running) {
        curl_multi_perform(m, &running);
        if (running)
            curl_multi_poll(m, NULL, 0, 1000, NULL);
    }
    int bad = -1;
    long bad_status = 0;
    for (int i = 0; i < N; i++) {
        long st = 0;
        curl_easy_getinfo(e[i], CURLINFO_RESPONSE_CODE, &st);
        const char *path = kinds[i % N_ELEMS(kinds)].target;
        bool ok = st == kinds[i % N_ELEMS(kinds)].status;
        if (ok && strcmp(path, "/big.bin") == 0)
            ok = x[i].n == SITE_BIG_LEN &&
                 memcmp(x[i].p, site.big, SITE_BIG_LEN) == 0;
        if (ok && strcmp(path, "/range.txt") == 0)
            ok = x[i].n == SITE_RANGE_LEN &&
                 memcmp(x[i].p, site.range, SITE_RANGE_LEN) == 0;
        if (x[i].p && site.secret &&
            memmem(x[i].p, x[i].n, site.secret, strlen(site.secret)))
            ok = false;
        if (!ok && bad < 0) {
            bad = i;
            bad_status = st;
        }
        curl_multi_remove_handle(m, e[i]);
        curl_easy_cleanup(e[i]);
        free(x[i].p);
    }
    curl_multi_cleanup(m);
    EXPECT(bad < 0, "concurrent transfer %d (%s) wrong: status %ld", bad,
           bad >= 0 ? kinds[bad % N_ELEMS(kinds)].target : "", bad_status);
    server_stop_clean(s);
}
END_TEST

/* The tcases: a loop over a table (or none), the rows of serves[] of the
 * same name, then the other tests. */
static const struct {
    const char *name;
    struct check_loop loop;
    const TTest *const *tests[8];
} tcases[] = {
    {"files",
     {&file_get_headers, N_ELEMS(types)},
     {&file_head, &file_etag_changes}},
    {"keepalive",
     .tests = {&keepalive_raw, &keepalive_curl_reuse, &keepalive_pipelined}},
    {"dirs", .tests = {&dir_redirect, &dir_listing, &dir_listing_long_names}},
    {"targets",
     {&target_case, N_ELEMS(targets)},
     {&target_long, &target_lengths}},
    {"traversal",
     {&traversal_case, N_ELEMS(traversal)},
     {&traversal_absolute_double_slash, &traversal_fifo_does_not_block,
      &traversal_special_files, &traversal_no_xdev}},
    {.name = "dotfiles"}, /* serves[] rows only */
    {"conditional",
     {&conditional_case, N_ELEMS(conds)},
     {&conditional_304_keepalive_raw}},
    {"range",
     {&range_case, N_ELEMS(ranges)},
     {&range_head_and_big, &range_large_file}},
    {"errors", .tests = {&error_plain_404}},
    {"log", .tests = {&log_combined, &log_json, &log_off_and_file,
                      &no_fd_growth, &dir_moved_out_between_requests,
                      &concurrent_clients, &stderr_quiet_on_bad_requests}},
};

static Suite *http_suite(void)
{
    static char name[64];
    snprintf(name, sizeof(name), "e2e_http_%s", harness_backend());
    Suite *su = suite_create(name);

    for (size_t i = 0; i < N_ELEMS(tcases); i++) {
        TCase *tc =
            harness_tcase(su, tcases[i].name, site_suite_setup, NULL, 60);
        const struct check_loop *l = &tcases[i].loop;
        if (l->test)
            tcase_add_loop_test(tc, *l->test, 0, l->rows);
        add_serves(tc, tcases[i].name);
        for (size_t k = 0; k < N_ELEMS(tcases[i].tests) && tcases[i].tests[k];
             k++)
            tcase_add_test(tc, *tcases[i].tests[k]);
    }
    return su;
}

/* The fixture site holds a character device (mknod), and the no-xdev case
 * bind-mounts a directory in the server's own mount namespace. */
const struct check_main check_main = {
    .suites = {{http_suite, "mknod of a device file and a bind mount"}},
};
