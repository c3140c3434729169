/* SPDX-License-Identifier: MIT */
/*
 * http_targets.c - the end-to-end HTTP suite (test_http.c): request targets
 * (escapes, methods, Host, lengths), traversal out of the root through dots,
 * escapes, symlinks and special files, and the dotfile policy.
 */
#include "http_suite.h"
#include "site.h"

#include <string.h>
#include <strings.h>

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

LOOP_TEST(target_case, targets)
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

LOOP_TEST(traversal_case, traversal)
{
    forbid_secrets();
    struct server *s = start_default();
    const char *t = traversal[_i].target;
    /* raw: curl would normalise the dots */
    int want = traversal[_i].status;
    struct http_response *r;

    expect_get(s, t, want, hfmt("GET %s", t));
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
    /* "//abs/path": every leading slash is an empty component, as an inner
     * one is, so the resolver is handed a path beneath the root: the
     * root's own etc/passwd, never the system's; the secret's absolute
     * path names nothing beneath the root. */
    forbid_secrets();
    char *w = tree_new();
    tree_build(w, "etc/", "etc/passwd=INSIDE\n", NULL);
    struct server *s = server_start(w, NULL);
    expect_get_body(s, "//etc/passwd", "INSIDE\n", NULL);
    expect_get_body(s, "///etc/passwd", "INSIDE\n", NULL);
    expect_get(s, hfmt("/%s", site.secret_path), 404, NULL);
    expect_get(s, "//../etc/passwd", 403, NULL);
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

static const struct http_tcase tcases[] = {
    {"targets", LOOP(target_case), {&target_long, &target_lengths}},
    {"traversal",
     LOOP(traversal_case),
     {&traversal_absolute_double_slash, &traversal_fifo_does_not_block,
      &traversal_special_files, &traversal_no_xdev}},
    {.name = "dotfiles"}, /* serves[] rows only */
};

Suite *http_targets_suite(void)
{
    return http_suite_make("targets", tcases, N_ELEMS(tcases));
}
