/* SPDX-License-Identifier: MIT */
/*
 * test_sites.c - --sites DIR against the real binary, under the backend in
 * BENEATH_E2E_RESOLVER: 20,000 site directories made before the server
 * starts, each request answered from its own site's directory (200 random
 * sites over HTTP/1.1, and over h2 with TLS and h2c by libcurl); sites
 * created, removed, renamed over and flipped while it runs, seen by the
 * next request; links from one site into another, out of DIR, and site
 * directories that are links; Host forms (port, case, trailing dot, an
 * address, empty, none, '..'); fds bounded by --sites-cache; the access log
 * and the metrics; per-site _headers, _redirects and 404.html; and
 * --https-redirect.
 */
#include "harness.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define N_SITES 20000

/* The big DIR (the suite's, made once per tcase), and this run's token. */
static char *big;
static char *token;
/* Secrets a response must never carry: another site's, and one outside. */
static char *secret_b, *secret_out;

/* What site @i's index.html holds. */
static char *content_of(unsigned i)
{
    return hfmt("site %u %s\n", i, token);
}

static void write_at(int dir, const char *name, const char *text)
{
    int fd = openat(dir, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    size_t len = strlen(text);

    ck_assert_msg(fd >= 0, "create %s: %s", name, strerror(errno));
    ck_assert_msg(write(fd, text, len) == (ssize_t)len, "write %s", name);
    close(fd);
}

/*
 * The suite's DIR: s0.example ... s19999.example, each with its own
 * index.html; s1.example links into s2.example and out of DIR; a site
 * that is a link within DIR (alias.example) and one out of it.
 */
static void big_setup(void)
{
    harness_suite_setup();
    token = hrandom(16);
    big = tree_new();
    secret_b = hfmt("secret of s2 %s", hrandom(16));
    secret_out = hfmt("secret outside %s", hrandom(16));
    int d = open(big, O_PATH | O_DIRECTORY | O_CLOEXEC);
    ck_assert_int_ge(d, 0);
    for (unsigned i = 0; i < N_SITES; i++) {
        char name[32];

        snprintf(name, sizeof name, "s%u.example", i);
        ck_assert_msg(mkdirat(d, name, 0755) == 0, "mkdir %s: %s", name,
                      strerror(errno));
        int sd = openat(d, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_ge(sd, 0);
        write_at(sd, "index.html", content_of(i));
        close(sd);
    }
    close(d);
    char *outside = tree_new();
    tree_write_str(outside, "secret.txt", secret_out);
    tree_write_str(outside, "index.html", secret_out);
    tree_write_str(big, "s2.example/secret.txt", secret_b);
    tree_symlink(big, "../s2.example/secret.txt", "s1.example/steal.txt");
    tree_symlink(big, hfmt("%s/secret.txt", outside), "s1.example/abs.txt");
    tree_symlink(big, "../s2.example", "s1.example/s2-dir");
    tree_symlink(big, "index.html", "s1.example/same.html");
    /* a site directory that is a link: within DIR, and out of it */
    tree_build(big, ".releases/alias-v1/index.html=alias v1\n", NULL);
    tree_symlink(big, ".releases/alias-v1", "alias.example");
    tree_symlink(big, outside, "escape.example");
    tree_symlink(big, "../", "up.example");
    tree_write_str(big, "file.example", "a file, not a site directory\n");
}

/* The small tcase's suite setup: what big_setup made was freed with its
 * suite (the harness's teardown), so nothing points into it. */
static void small_setup(void)
{
    harness_suite_setup();
    big = token = secret_b = secret_out = NULL;
}

/* The next of a xorshift sequence: random sites, repeatable by the seed a
 * failure names. */
static unsigned next_rand(unsigned *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

static struct server *start_sites(const char *dir, const char **more)
{
    const char *args[24];
    size_t n = 0;

    args[n++] = "--sites";
    args[n++] = dir;
    for (const char **p = more; p && *p; p++)
        args[n++] = *p;
    args[n] = NULL;
    struct server_opts o = {.args = args};
    return server_start_opts(&o);
}

/* 200 random sites over one keep-alive connection, each its own content. */
START_TEST(random_sites)
{
    long long t0 = now_ms();
    struct server *s = start_sites(big, NULL);
    long long started = now_ms() - t0;
    unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    struct raw_conn *c = raw_open(s->port);

    fprintf(stderr, "sites: %d site directories, listening after %lld ms\n",
            N_SITES, started);
    unsigned x = seed | 1;

    for (int k = 0; k < 200; k++) {
        unsigned i = next_rand(&x) % N_SITES;
        char *req = hfmt("GET / HTTP/1.1\r\nHost: s%u.example\r\n\r\n", i);

        EXPECT(raw_send_str(c, req) == 0, "send");
        struct http_response *r = raw_read(c, false, 10000);
        EXPECT(r->status == 200 && strcmp(r->body, content_of(i)) == 0,
               "s%u.example (seed %u): %d '%s'", i, seed, r->status, r->body);
    }
}
END_TEST

/* Sites made, removed, renamed over and flipped while serving: the next
 * request sees each, with no reload. */
START_TEST(created_removed)
{
    struct server *s = start_sites(big, NULL);
    char *name = hfmt("new-%s.example", hrandom(8));
    char *path = tree_path(big, name);
    struct http_response *r;

    r = raw_get_host(s, "/", name);
    EXPECT_STATUS(r, 421, "a site not there yet");
    tree_mkdir(big, name);
    tree_write_str(path, "index.html", "made after start\n");
    EXPECT_BODY(raw_get_host(s, "/", name), "made after start\n", "new site");

    /* a new tree renamed over it: the new one, at once */
    char *next = tree_path(big, hfmt(".next-%s", name));
    tree_mkdir(big, hfmt(".next-%s", name));
    tree_write_str(next, "index.html", "deployed by rename\n");
    char *old = tree_path(big, hfmt(".old-%s", name));
    EXPECT(rename(path, old) == 0 && rename(next, path) == 0, "swap: %s",
           strerror(errno));
    EXPECT_BODY(raw_get_host(s, "/", name), "deployed by rename\n", "swapped");

    /* removed (renamed away): 421 at once, and back */
    char *gone = tree_path(big, hfmt(".gone-%s", name));
    EXPECT(rename(path, gone) == 0, "rename away");
    EXPECT_STATUS(raw_get_host(s, "/", name), 421, "a site renamed away");
    EXPECT(rename(gone, path) == 0, "rename back");
    EXPECT_BODY(raw_get_host(s, "/", name), "deployed by rename\n", "back");
    tree_remove(path);
    EXPECT_STATUS(raw_get_host(s, "/", name), 421, "a site removed");

    /* a symlink flip of a site that is a link within DIR */
    tree_build(big, ".releases/alias-v2/index.html=alias v2\n", NULL);
    EXPECT_BODY(raw_get_host(s, "/", "alias.example"), "alias v1\n",
                "alias v1");
    tree_symlink(big, ".releases/alias-v2", ".alias.tmp");
    EXPECT(rename(tree_path(big, ".alias.tmp"),
                  tree_path(big, "alias.example")) == 0,
           "flip: %s", strerror(errno));
    EXPECT_BODY(raw_get_host(s, "/", "alias.example"), "alias v2\n", "flipped");
    /* and back, for the other tests */
    tree_symlink(big, ".releases/alias-v1", ".alias.tmp");
    EXPECT(rename(tree_path(big, ".alias.tmp"),
                  tree_path(big, "alias.example")) == 0,
           "flip back");
}
END_TEST

/* A Host and what it gets (body: a substring; NULL Host: HTTP/1.0 with
 * none). */
static const struct host_case {
    const char *host, *target;
    int status, status_root; /* without --root, and with one */
    const char *body;
} hosts[] = {
    {"s17.example", "/", 200, 200, "site 17 "},
    {"S17.EXAMPLE", "/", 200, 200, "site 17 "},
    {"s17.example:8080", "/", 200, 200, "site 17 "},
    {"s17.example.", "/", 200, 200, "site 17 "},
    {"S17.Example.:80", "/", 200, 200, "site 17 "},
    {"alias.example", "/", 200, 200, "alias v1"},
    {"nosuch.example", "/", 421, 200, NULL},
    {"file.example", "/", 421, 200, NULL},
    {"127.0.0.1", "/", 421, 200, NULL},
    {"127.0.0.1:80", "/", 421, 200, NULL},
    {"[::1]", "/", 421, 200, NULL},
    {"[::1]:8080", "/", 421, 200, NULL},
    {"", "/", 421, 200, NULL},
    {NULL, "/", 421, 200, NULL},
    {"escape.example", "/", 403, 403, NULL},
    {"up.example", "/", 403, 403, NULL},
    {"..", "/", 400, 400, NULL},
    {".", "/", 400, 400, NULL},
    {"s17.example..", "/", 400, 400, NULL},
    {"..s17.example", "/", 400, 400, NULL},
    {"s17..example", "/", 400, 400, NULL},
    {"under_score.example", "/", 400, 400, NULL},
    {"s17.example/..", "/", 400, 400, NULL},
    {"%2e%2e", "/", 400, 400, NULL},
    {"s17.example:x", "/", 400, 400, NULL},
    {"a@s17.example", "/", 400, 400, NULL},
    /* absolute-form: its authority is the Host (RFC 9112 3.2.2) */
    {"s1.example", "http://s17.example/", 200, 200, "site 17 "},
    {"s1.example", "http://../", 400, 400, NULL},
};

static void check_hosts(bool with_root)
{
    char *root = NULL;
    const char *more[3] = {NULL};

    if (with_root) {
        root = tree_site("the root site\n");
        more[0] = "--root";
        more[1] = root;
    }
    struct server *s = start_sites(big, more);
    for (size_t i = 0; i < N_ELEMS(hosts); i++) {
        const struct host_case *h = &hosts[i];
        int want = with_root ? h->status_root : h->status;
        struct http_response *r = raw_get_host(s, h->target, h->host);

        EXPECT(r->status == want, "Host '%s' %s: %d, want %d\n%s",
               h->host ? h->host : "(none)", h->target, r->status, want,
               r->head);
        if (want == 200)
            EXPECT(strstr(r->body, h->body ? h->body : "the root site"),
                   "Host '%s': body '%s'", h->host ? h->host : "(none)",
                   r->body);
    }
}

START_TEST(hosts_no_root)
{
    check_hosts(false);
}
END_TEST

START_TEST(hosts_with_root)
{
    check_hosts(true);
}
END_TEST

/*
 * Links from one site into another and out of DIR are refused like any
 * link out of a root, and so is a site directory that is a link out of
 * DIR; a link within the site, or within DIR for a site directory, is
 * followed. The errno in the log is the resolver's (EXDEV), not the
 * sandbox's (EACCES, which would refuse them too).
 */
START_TEST(links)
{
    const char *more[] = {"--log-format", "$host $target $status $errno", NULL};
    struct server *s = start_sites(big, more);
    static const struct {
        const char *host, *target;
        int status;
        const char *err; /* in the log */
    } rows[] = {
        {"s1.example", "/steal.txt", 403, "EXDEV"},
        {"s1.example", "/abs.txt", 403, "EXDEV"},
        {"s1.example", "/s2-dir/secret.txt", 403, "EXDEV"},
        {"s1.example", "/s2-dir/", 403, "EXDEV"},
        {"s1.example", "/../s2.example/secret.txt", 403, "EXDEV"},
        {"s1.example", "/%2e%2e/s2.example/secret.txt", 403, "EXDEV"},
        {"s1.example", "/same.html", 200, "-"},
        {"escape.example", "/", 403, "EXDEV"},
        {"escape.example", "/secret.txt", 403, "EXDEV"},
        {"up.example", "/", 403, "EXDEV"},
        {"alias.example", "/", 200, "-"},
    };

    harness_forbid(secret_b);
    harness_forbid(secret_out);
    for (size_t i = 0; i < N_ELEMS(rows); i++) {
        struct http_response *r = raw_get_host(s, rows[i].target, rows[i].host);
        char *line = hfmt("%s %s %d %s\n", rows[i].host, rows[i].target,
                          rows[i].status, rows[i].err);

        EXPECT(r->status == rows[i].status, "%s%s: %d, want %d", rows[i].host,
               rows[i].target, r->status, rows[i].status);
        EXPECT(file_wait_for(s->out_path, line, 5000),
               "no '%s' in the log:\n%s", line, server_stdout(s));
    }
    /* the same file, asked of its own site */
    struct http_response *r = raw_get_host(s, "/index.html", "s2.example");
    EXPECT_BODY(r, content_of(2), "s2.example itself");
}
END_TEST

/* ---- HTTP/2 over TLS and h2c, by libcurl ---- */

/* GET @path with Host (HTTP/2: :authority) @host over h2 on TLS (@tls) or
 * h2c by prior knowledge; the answer must be HTTP/2. */
static struct http_response *get_h2(CURL *e, unsigned port, bool tls,
                                    const char *host, const char *path)
{
    struct http_response *r = (struct http_response *)hbuf(sizeof *r);
    struct http_buf body = {0};
    struct curl_slist *hl = curl_slist_append(NULL, hfmt("Host: %s", host));
    long status = 0, version = 0;
    CURLcode rc;

    curl_easy_setopt(
        e, CURLOPT_URL,
        hfmt("%s://127.0.0.1:%u%s", tls ? "https" : "http", port, path));
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION,
                     tls ? (long)CURL_HTTP_VERSION_2TLS
                         : (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    curl_easy_setopt(e, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, http_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 10000L);
    /* curl 7.88 sends nothing on an h2c connection it reuses (nginx's
     * too): one connection per request there */
    curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, tls ? 0L : 1L);
    curl_easy_setopt(e, CURLOPT_FORBID_REUSE, tls ? 0L : 1L);
    rc = curl_easy_perform(e);
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(e, CURLINFO_HTTP_VERSION, &version);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, NULL);
    curl_slist_free_all(hl);
    r->status = (int)status;
    r->body = hmem(body.p ? body.p : "", body.n);
    r->body_len = body.n;
    free(body.p);
    EXPECT(rc == CURLE_OK, "%s %s: %s", host, path, curl_easy_strerror(rc));
    EXPECT(version == CURL_HTTP_VERSION_2_0, "%s %s: HTTP version %ld", host,
           path, version);
    EXPECT(!(secret_b && strstr(r->body, secret_b)) &&
               !(secret_out && strstr(r->body, secret_out)),
           "%s %s: a secret in the body", host, path);
    return r;
}

/* The same answers over h2 (TLS, ALPN) and h2c as over HTTP/1.1. */
START_TEST(over_h2)
{
    const char *more[] = {"--listen", "https://127.0.0.1:0",
                          "--tls-self-signed", NULL};
    struct server *s = start_sites(big, more);
    unsigned tport = server_https_port(s);
    unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();

    unsigned x = seed | 1;

    for (int tls = 0; tls < 2; tls++) {
        CURL *e = http_easy();
        unsigned port = tls ? tport : s->port;

        for (int k = 0; k < 50; k++) {
            unsigned i = next_rand(&x) % N_SITES;
            struct http_response *r =
                get_h2(e, port, tls, hfmt("s%u.example", i), "/");

            EXPECT(r->status == 200 && strcmp(r->body, content_of(i)) == 0,
                   "%s s%u.example (seed %u): %d '%s'", tls ? "h2" : "h2c", i,
                   seed, r->status, r->body);
        }
        static const struct {
            const char *host, *path;
            int status;
        } rows[] = {
            {"S9.Example.:443", "/", 200},
            {"s1.example", "/steal.txt", 403},
            {"s1.example", "/abs.txt", 403},
            {"s1.example", "/s2-dir/secret.txt", 403},
            {"nosuch.example", "/", 421},
            {"127.0.0.1", "/", 421},
            {"escape.example", "/", 403},
            {"under_score.example", "/", 400},
        };
        for (size_t i = 0; i < N_ELEMS(rows); i++) {
            struct http_response *r =
                get_h2(e, port, tls, rows[i].host, rows[i].path);
            EXPECT(r->status == rows[i].status, "%s %s%s: %d, want %d",
                   tls ? "h2" : "h2c", rows[i].host, rows[i].path, r->status,
                   rows[i].status);
        }
    }
}
END_TEST

/*
 * The fds of the serving process grow with the sites in use up to
 * --sites-cache, not with the sites asked for: 600 distinct sites through
 * a cache of 50.
 */
START_TEST(fds_bounded)
{
    const char *more[] = {"--sites-cache", "50", NULL};
    struct server *s = start_sites(big, more);
    struct raw_conn *c = raw_open(s->port);
    int before = server_fd_count_settled(s);

    for (unsigned i = 0; i < 600; i++) {
        EXPECT(raw_send_str(c, hfmt("GET / HTTP/1.1\r\nHost: s%u.example"
                                    "\r\n\r\n",
                                    i * 31 % N_SITES)) == 0,
               "send");
        struct http_response *r = raw_read(c, false, 10000);
        EXPECT_STATUS(r, 200, "a site");
    }
    raw_close(c);
    int after = server_fd_count_settled(s);
    fprintf(stderr, "sites: fds %d before, %d after 600 sites (cache 50)\n",
            before, after);
    EXPECT(after <= before + 50 + 8, "fds %d -> %d past the cache of 50",
           before, after);
}
END_TEST

/* The access log names the site; the metrics count the cache, with no
 * label per site. */
START_TEST(log_and_metrics)
{
    const char *more[] = {
        "--log-format", "$vhost $host $status", "--metrics", "/metrics",
        "--root",       tree_site("root\n"),    NULL};
    struct server *s = start_sites(big, more);

    EXPECT_STATUS(raw_get_host(s, "/", "S5.Example.:80"), 200, "s5");
    EXPECT_STATUS(raw_get_host(s, "/", "s6.example"), 200, "s6");
    EXPECT_STATUS(raw_get_host(s, "/", "s6.example"), 200, "s6 again");
    EXPECT_STATUS(raw_get_host(s, "/", "nosuch.example"), 200, "the root");
    EXPECT(file_wait_for(s->out_path, "- nosuch.example 200", 5000), "log:\n%s",
           server_stdout(s));
    const char *log = server_stdout(s);
    EXPECT(strstr(log, "s5.example S5.Example.:80 200\n") &&
               strstr(log, "s6.example s6.example 200\n"),
           "log:\n%s", log);
    struct http_response *m = raw_get_host(s, "/metrics", "s5.example");
    EXPECT_STATUS(m, 200, "metrics");
    EXPECT(strstr(m->body, "cache=\"sites\""), "no sites cache:\n%s", m->body);
    EXPECT(!strstr(m->body, "s5.example") && !strstr(m->body, "s6.example"),
           "a site's name in the metrics:\n%s", m->body);
}
END_TEST

/* ---- a few sites with their own files ---- */

static char *small_sites(void)
{
    char *d = tree_new();

    tree_build(d, "a.example/index.html=site a\n",
               "a.example/page.html=a page\n",
               "a.example/404.html=a's own 404\n",
               "a.example/_headers=/*\n  X-Site: a\n",
               "a.example/_redirects=/old /page.html 301\n",
               "b.example/index.html=site b\n", "c.example/index.html=site c\n",
               "c.example/_redirects=/x /y 999\n", NULL);
    return d;
}

/* Each site's _headers, _redirects and 404.html are its own; a site whose
 * rule files are refused answers 500, the others serve on; edits in place
 * are seen within a second, a deploy by rename at once. */
START_TEST(site_files)
{
    char *d = small_sites();
    const char *more[] = {"--site-files", "on", NULL};
    struct server *s = start_sites(d, more);
    struct http_response *r;

    r = raw_get_host(s, "/", "a.example");
    EXPECT_BODY(r, "site a\n", "a");
    EXPECT_HEADER(r, "X-Site", "a", "a's _headers");
    r = raw_get_host(s, "/", "b.example");
    EXPECT_BODY(r, "site b\n", "b");
    EXPECT_HEADER(r, "X-Site", NULL, "b has no _headers");
    r = raw_get_host(s, "/old", "a.example");
    EXPECT_STATUS(r, 301, "a's _redirects");
    EXPECT_HEADER(r, "Location", "/page.html", "a's redirect");
    EXPECT_STATUS(raw_get_host(s, "/old", "b.example"), 404, "not b's");
    r = raw_get_host(s, "/nothing", "a.example");
    EXPECT(r->status == 404 && strcmp(r->body, "a's own 404\n") == 0,
           "a's 404: %d '%s'", r->status, r->body);
    r = raw_get_host(s, "/nothing", "b.example");
    EXPECT(r->status == 404 && !strstr(r->body, "a's own"), "b's 404");
    EXPECT_STATUS(raw_get_host(s, "/_headers", "a.example"), 404, "_headers");
    EXPECT_STATUS(raw_get_host(s, "/_redirects", "a.example"), 404,
                  "_redirects");
    /* c's _redirects is refused: c answers 500, named on stderr */
    r = raw_get_host(s, "/", "c.example");
    EXPECT_STATUS(r, 500, "c with a bad _redirects");
    EXPECT(file_wait_for(s->err_path, "c.example/_redirects:1", 5000),
           "c's file and line not named:\n%s", server_stderr(s));
    EXPECT_BODY(raw_get_host(s, "/", "b.example"), "site b\n", "b serves on");

    /* an edit in place: seen within a second (bounded wait: 3 s) */
    tree_write_str(d, "a.example/_headers", "/*\n  X-Site: a, edited\n");
    long long until = now_ms() + 3000;
    for (;;) {
        r = raw_get_host(s, "/", "a.example");
        const char *v = http_header(r, "X-Site");
        if (v && strcmp(v, "a, edited") == 0)
            break;
        EXPECT(now_ms() < until, "the edited _headers not seen: %s",
               v ? v : "(none)");
        sleep_ms(100);
    }
    /* c mended: served */
    tree_write_str(d, "c.example/_redirects", "/x /index.html 302\n");
    until = now_ms() + 3000;
    while (raw_get_host(s, "/", "c.example")->status != 200)
        EXPECT(now_ms() < until, "c mended but still refused");

    /* a deploy by rename: its files at once */
    tree_build(d, ".next/index.html=site a, v2\n",
               ".next/_headers=/*\n  X-Site: a2\n", NULL);
    EXPECT(rename(tree_path(d, "a.example"), tree_path(d, ".old")) == 0 &&
               rename(tree_path(d, ".next"), tree_path(d, "a.example")) == 0,
           "deploy");
    r = raw_get_host(s, "/", "a.example");
    EXPECT_BODY(r, "site a, v2\n", "a v2");
    EXPECT_HEADER(r, "X-Site", "a2", "a v2's _headers");
}
END_TEST

/* --https-redirect: plain HTTP (and h2c) gets 308 to the https:// URL;
 * the ACME challenge path and --health answer over HTTP; HTTPS serves. */
START_TEST(https_redirect)
{
    char *d = small_sites();
    const char *more[] = {"--listen",
                          "https://127.0.0.1:0",
                          "--tls-self-signed",
                          "--https-redirect",
                          "--health",
                          "/healthz",
                          NULL};

    tree_build(d, "a.example/.well-known/acme-challenge/tok=the token\n", NULL);
    struct server *s = start_sites(d, more);
    unsigned tport = server_https_port(s);
    struct http_response *r;

    r = raw_get_host(s, "/x?y", "a.example");
    EXPECT_STATUS(r, 308, "plain HTTP");
    EXPECT_HEADER(r, "Location", hfmt("https://a.example:%u/x?y", tport),
                  "the same URL on https://");
    r = raw_get_host(s, "/a%20b/?q=1&r=%2F", "A.Example.:8080");
    EXPECT_HEADER(r, "Location",
                  hfmt("https://a.example:%u/a%%20b/?q=1&r=%%2F", tport),
                  "path and query as sent, the Host's name");
    r = raw_get_host(s, "http://a.example?z", "b.example");
    EXPECT_HEADER(r, "Location", hfmt("https://a.example:%u/?z", tport),
                  "absolute-form");
    /* a site that does not exist is redirected too: HTTPS says 421 */
    EXPECT_STATUS(raw_get_host(s, "/", "nosuch.example"), 308, "no such site");
    EXPECT_STATUS(raw_get_host(s, "/", NULL), 400, "no Host to redirect to");
    r = raw_get_host(s, "/.well-known/acme-challenge/tok", "a.example");
    EXPECT_BODY(r, "the token\n", "the challenge path over HTTP");
    EXPECT_STATUS(raw_get_host(s, "/healthz", "a.example"), 200, "--health");
    CURL *e = http_easy();
    r = get_h2(e, s->port, false, "a.example", "/x?y");
    EXPECT_STATUS(r, 308, "h2c is plain HTTP");
    r = get_h2(e, tport, true, "a.example", "/");
    EXPECT_BODY(r, "site a\n", "HTTPS serves");

    /* on without an https:// listener: refused at start-up */
    char *out, *err;
    const char *args[] = {"--https-redirect", "--sites", d,   "--listen",
                          "127.0.0.1:0",      "--check", NULL};
    int ws = beneath_run(args, NULL, 20000, &out, &err);
    EXPECT_EXIT(ws, 2, err);
    EXPECT(strstr(err, "--https-redirect: there is no https:// listener"),
           "stderr:\n%s", err);
}
END_TEST

/* --https-redirect-port: the port clients reach https:// on from outside
 * (a Service's 443 before a pod's 8443) goes into the Location; 443 is
 * left out. */
START_TEST(https_redirect_port)
{
    char *d = small_sites();
    static const struct {
        const char *port, *location;
    } rows[] = {
        {"443", "https://a.example/x?y"},
        {"8443", "https://a.example:8443/x?y"},
    };

    for (size_t i = 0; i < N_ELEMS(rows); i++) {
        const char *more[] = {"--listen",
                              "https://127.0.0.1:0",
                              "--tls-self-signed",
                              "--https-redirect",
                              "--https-redirect-port",
                              rows[i].port,
                              NULL};
        struct server *s = start_sites(d, more);
        struct http_response *r = raw_get_host(s, "/x?y", "a.example:8080");

        EXPECT_STATUS(r, 308, rows[i].port);
        EXPECT_HEADER(r, "Location", rows[i].location, rows[i].port);
        EXPECT_BODY(
            get_h2(http_easy(), server_https_port(s), true, "a.example", "/"),
            "site a\n", "HTTPS serves on the listener's own port");
        server_stop_clean(s);
    }
}
END_TEST

/* A small RLIMIT_NOFILE lowers the sites kept, not the connections. */
START_TEST(cache_fits_nofile)
{
    char *d = small_sites();
    /* 100 connections need 2 * 100 + 64 fds: they fit beside 100 sites */
    const char *args[] = {"--sites", d, "--max-connections", "100", NULL};
    struct server_opts o = {.args = args, .nofile = 400};
    struct server *s = server_start_opts(&o);

    EXPECT(strstr(server_stderr(s),
                  "--sites-cache lowered from 1024 to 100: RLIMIT_NOFILE is "
                  "400"),
           "no warning:\n%s", server_stderr(s));
    EXPECT(!strstr(server_stderr(s), "--max-connections lowered"),
           "connections lowered:\n%s", server_stderr(s));
    EXPECT_BODY(raw_get_host(s, "/", "a.example"), "site a\n", "a");
}
END_TEST

/* --sites DIR that is missing, or a file: refused at start-up, named. */
START_TEST(bad_dir)
{
    char *out, *err;
    char *d = tree_new();
    const char *args[] = {"--sites",  tree_path(d, "missing"),
                          "--listen", "127.0.0.1:0",
                          "--check",  NULL};
    int ws = beneath_run(args, NULL, 20000, &out, &err);

    EXPECT_EXIT(ws, 2, err);
    EXPECT(strstr(err, "beneath: sites ") && strstr(err, "No such file"),
           "stderr:\n%s", err);
    tree_write_str(d, "file", "x");
    args[1] = tree_path(d, "file");
    ws = beneath_run(args, NULL, 20000, &out, &err);
    EXPECT_EXIT(ws, 2, err);
    EXPECT(strstr(err, "Not a directory"), "stderr:\n%s", err);
}
END_TEST

static Suite *sites_suite(void)
{
    Suite *su = suite_create("e2e_sites");
    TCase *tc = harness_tcase(su, "many", big_setup, NULL, 240);

    tcase_add_test(tc, random_sites);
    tcase_add_test(tc, created_removed);
    tcase_add_test(tc, hosts_no_root);
    tcase_add_test(tc, hosts_with_root);
    tcase_add_test(tc, links);
    tcase_add_test(tc, over_h2);
    tcase_add_test(tc, fds_bounded);
    tcase_add_test(tc, log_and_metrics);
    tc = harness_tcase(su, "files", small_setup, NULL, 120);
    tcase_add_test(tc, site_files);
    tcase_add_test(tc, https_redirect);
    tcase_add_test(tc, https_redirect_port);
    tcase_add_test(tc, bad_dir);
    tcase_add_test(tc, cache_fits_nofile);
    return su;
}

const struct check_main check_main = {.suites = {{.make = sites_suite}}};
