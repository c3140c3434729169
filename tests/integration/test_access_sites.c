/* SPDX-License-Identifier: MIT */
/*
 * test_access_sites.c - where requests go, against the real binary (the
 * second suite of test_e2e_access): virtual hosts (Host headers; a symlink
 * from one site into another refused under the backend in
 * BENEATH_E2E_RESOLVER), --mount (a Debian documentation tree whose links
 * out stay refused while mounts serve their targets), _redirects and
 * _headers in the conventions of a
 * real static site, error pages, SIGHUP reloads, and the bad input of the
 * issue (a 1 MiB _headers line, 10,000 redirects, a missing vhost root).
 */
#include "access.h"
#include "cases.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

/* An mtime long past: the reply cache keeps only files that settled. */
#define SITE_MTIME_OLD ((time_t)1704164645)

/*
 * SIGHUP @s with rules that are refused: the new serving process names
 * @why and exits before it serves (the keeper says so); the old one serves
 * on with the rules read before.
 */
static void sighup_refused(struct server *s, const char *why)
{
    server_reload_refused(s, why);
    EXPECT(strstr(server_stderr(s), "exited with status 2 before serving; "
                                    "keeping the old configuration"),
           "no line says the old rules stay:\n%s", server_stderr(s));
}

/* ---- virtual hosts ---- */

struct sites {
    char *base, *a, *b, *dflt, *v6;
};

static struct sites make_sites(void)
{
    struct sites t;

    t.base = tree_new();
    t.a = tree_path(t.base, "a");
    t.b = tree_path(t.base, "b");
    t.dflt = tree_path(t.base, "default");
    t.v6 = tree_path(t.base, "v6");
    tree_mkdir(t.base, "a");
    tree_mkdir(t.base, "b");
    tree_mkdir(t.base, "default");
    tree_mkdir(t.base, "v6");
    tree_write_str(t.a, "index.html", "site A\n");
    tree_write_str(t.a, "404.html", "A has no such page\n");
    tree_write_str(t.a, "only-a.txt", "a secret of site A\n");
    tree_mkdir(t.a, "private");
    tree_write_str(t.a, "private/x.txt", "A private\n");
    tree_write_str(t.b, "index.html", "site B\n");
    tree_write_str(t.b, "404.html", "B has no such page\n");
    tree_write_str(t.dflt, "index.html", "the default site\n");
    tree_write_str(t.v6, "index.html", "the IPv6 literal site\n");
    /* links from B into A: absolute, relative, and a directory */
    tree_symlink(t.b, hfmt("%s/only-a.txt", t.a), "abs-link.txt");
    tree_symlink(t.b, "../a/only-a.txt", "rel-link.txt");
    tree_symlink(t.b, "../a", "a-dir");
    return t;
}

static const char **vhost_args(const struct sites *t, bool with_root)
{
    const char **v = (const char **)hbuf(16 * sizeof(char *));
    size_t n = 0;

    v[n++] = "--vhost";
    v[n++] = hfmt("docs.example.com=%s", t->a);
    v[n++] = "--vhost";
    v[n++] = hfmt("*.b.example=%s", t->b);
    v[n++] = "--vhost";
    v[n++] = hfmt("[::1]=%s", t->v6);
    if (with_root) {
        v[n++] = "--root";
        v[n++] = t->dflt;
    }
    v[n] = NULL;
    return v;
}

static const struct {
    const char *host; /* NULL: HTTP/1.0 without Host */
    int status;
    const char *body; /* substring */
} hosts[] = {
    {"docs.example.com", 200, "site A"},
    {"DOCS.Example.COM", 200, "site A"},
    {"docs.example.com.", 200, "site A"},
    {"docs.example.com:8080", 200, "site A"},
    {"Docs.Example.Com.:80", 200, "site A"},
    {"x.b.example", 200, "site B"},
    {"deep.x.b.example", 200, "site B"},
    {"b.example", 200, "the default site"}, /* *.b.example needs a label */
    {"other.example", 200, "the default site"},
    {"[::1]", 200, "the IPv6 literal site"},
    {"[::1]:8080", 200, "the IPv6 literal site"},
    {"127.0.0.1", 200, "the default site"},
    {NULL, 200, "the default site"},
    {"docs..example.com", 400, ""},
    {"docs.example.com:http", 400, ""},
    {"docs example.com", 400, ""},
    {"[::1", 400, ""},
    {"user@docs.example.com", 400, ""},
    {"docs.example.com/x", 400, ""},
};

LOOP_TEST(vhost_hosts, hosts)
{
    struct sites t = make_sites();
    struct server *s = start(NULL, vhost_args(&t, true));
    struct http_response *r = raw_get_host(s, "/", hosts[_i].host);

    EXPECT_STATUS(r, hosts[_i].status, hfmt("Host %s", hosts[_i].host));
    EXPECT(strstr(r->body, hosts[_i].body), "Host %s: body %s", hosts[_i].host,
           r->body);
    server_stop_clean(s);
}
END_TEST

START_TEST(vhost_each_site)
{
    struct sites t = make_sites();
    struct server *s = start(NULL, vhost_args(&t, true));
    struct http_response *r;

    /* each host has its own 404 page */
    r = raw_get_host(s, "/missing", "docs.example.com");
    EXPECT(r->status == 404 && strstr(r->body, "A has no such page"),
           "A's 404: %d %s", r->status, r->body);
    r = raw_get_host(s, "/missing", "x.b.example");
    EXPECT(r->status == 404 && strstr(r->body, "B has no such page"),
           "B's 404: %d %s", r->status, r->body);
    /* absolute-form: the target's authority wins over Host (RFC 9112) */
    r = raw_request(s->port,
                    "GET http://docs.example.com/ HTTP/1.1\r\nHost: "
                    "x.b.example\r\nConnection: close\r\n\r\n",
                    10000);
    EXPECT(r->status == 200 && strstr(r->body, "site A"), "absolute-form: %s",
           r->body);
    /* a path of B can never reach A's tree, whatever the link */
    static const char *const links[] = {"/abs-link.txt", "/rel-link.txt",
                                        "/a-dir/only-a.txt", "/../a/only-a.txt",
                                        "/a-dir/private/x.txt"};
    for (size_t i = 0; i < N_ELEMS(links); i++) {
        r = raw_get_host(s, links[i], "x.b.example");
        EXPECT(r->status == 403 || r->status == 404, "%s from B under %s: %d",
               links[i], harness_backend(), r->status);
        EXPECT(strstr(r->body, "a secret of site A") == NULL &&
                   strstr(r->body, "A private") == NULL,
               "%s from B served A's file", links[i]);
    }
    r = raw_get_host(s, "/abs-link.txt", "x.b.example");
    EXPECT_STATUS(r, 403, "an absolute link into A");
    r = raw_get_host(s, "/rel-link.txt", "x.b.example");
    EXPECT_STATUS(r, 403, "a relative link into A");
    server_stop_clean(s);

    /* without --root, a Host no vhost names is 421 */
    s = start(NULL, vhost_args(&t, false));
    r = raw_get_host(s, "/", "other.example");
    EXPECT_STATUS(r, 421, "unknown Host without --root");
    r = raw_get_host(s, "/", NULL);
    EXPECT_STATUS(r, 421, "no Host without --root");
    r = raw_get_host(s, "/", "docs.example.com");
    EXPECT_STATUS(r, 200, "a vhost without --root");
    EXPECT(server_reload(s, 10000) > 0, "a reload without --root:\n%s",
           server_stderr(s));
    r = raw_get_host(s, "/", "docs.example.com");
    EXPECT_STATUS(r, 200, "a vhost without --root after SIGHUP");
    server_stop_clean(s);
}
END_TEST

/*
 * SIGHUP opens every vhost root anew, in a new serving process whose walls
 * are built for them: a deploy renames a new tree in, the sandbox on.
 */
START_TEST(vhost_reload)
{
    struct sites t = make_sites();
    struct server *s = start(NULL, vhost_args(&t, true));

    EXPECT(strstr(raw_get_host(s, "/", "x.b.example")->body, "site B"),
           "before");
    char *next = tree_path(t.base, "b-next"), *old = tree_path(t.base, "b-old");
    tree_mkdir(t.base, "b-next");
    tree_write_str(next, "index.html", "site B, version 2\n");
    ck_assert_int_eq(rename(t.b, old), 0);
    ck_assert_int_eq(rename(next, t.b), 0);
    EXPECT(strstr(raw_get_host(s, "/", "x.b.example")->body, "site B\n"),
           "the old tree serves until SIGHUP");
    EXPECT(server_reload(s, 10000) > 0, "no reload:\n%s", server_stderr(s));
    EXPECT(strstr(server_stderr(s),
                  hfmt("beneath: SIGHUP: vhost *.b.example root %s\n", t.b)),
           "the new generation does not name the vhost:\n%s", server_stderr(s));
    struct http_response *r = raw_get_host(s, "/", "x.b.example");
    EXPECT(r->status == 200 && strstr(r->body, "version 2"),
           "the new tree after SIGHUP: %d %s", r->status, r->body);
    EXPECT(strstr(raw_get_host(s, "/", "docs.example.com")->body, "site A"),
           "A unchanged");
    /* a root that went: the new process stops, the old one serves on */
    char *gone = tree_path(t.base, "gone");
    ck_assert_int_eq(rename(t.a, gone), 0);
    sighup_refused(s, hfmt("beneath: SIGHUP: vhost docs.example.com: root %s: "
                           "No such file or directory",
                           t.a));
    EXPECT(strstr(raw_get_host(s, "/", "docs.example.com")->body, "site A"),
           "A after its root went");
    EXPECT(strstr(raw_get_host(s, "/", "x.b.example")->body, "version 2"),
           "B after A's root went");
    server_stop_clean(s);
}
END_TEST

START_TEST(vhost_bad)
{
    char *d = tree_new(), *err;

    err = refused((const char *[]){"--vhost", hfmt("a.example=%s/none", d),
                                   "--root", d, "--check", "--listen",
                                   "127.0.0.1:0", NULL},
                  NULL);
    EXPECT(strstr(err, hfmt("beneath: vhost a.example: root %s/none: No such "
                            "file or directory",
                            d)),
           "missing root:\n%s", err);
    err = refused((const char *[]){"--vhost", "a.example:80=/x", "--check",
                                   "--listen", "127.0.0.1:0", NULL},
                  NULL);
    EXPECT(strstr(err, "--vhost: 'a.example:80': a virtual host has no port"),
           "port:\n%s", err);
    err = refused((const char *[]){"--vhost", "nothing", "--check", "--listen",
                                   "127.0.0.1:0", NULL},
                  NULL);
    EXPECT(strstr(err, "--vhost: expected NAME=ROOT"), "syntax:\n%s", err);
    err = refused((const char *[]){"--vhost", hfmt("a.example=%s", d),
                                   "--vhost", hfmt("A.Example.=%s", d),
                                   "--check", "--listen", "127.0.0.1:0", NULL},
                  NULL);
    EXPECT(strstr(err, "a.example is given twice"), "twice:\n%s", err);
}
END_TEST

/* ---- _redirects and _headers ---- */

/*
 * A site laid out like a Jekyll/Hugo blog moved to a new structure, with a
 * single-page app under /app: the _redirects of such a site on Netlify.
 */
static const char site_redirects[] =
    "# moved pages\n"
    "/feed.xml                       /blog/feed.xml          301\n"
    "/blog/:year/:month/:day/:slug   /blog/:slug/            301\n"
    "/docs/latest/*                  /docs/v3/:splat         302\n"
    "/go/:name                       https://example.org/:name  307\n"
    "/old-about                      /about/                 308\n"
    "# an existing file shadows a rule unless it is forced\n"
    "/about/                         /elsewhere              301\n"
    "/legacy.html                    /about/                 301!\n"
    "# rewrites: served through the resolver under the same URL\n"
    "/find                           /search/index.html      200\n"
    "/escape/*                       /escape-link/:splat     200\n"
    "/app/*                          /app/index.html         200\n";

static const char site_headers[] = "/*\n"
                                   "  X-Frame-Options: DENY\n"
                                   "  X-Robots-Tag: all\n"
                                   "/app/*\n"
                                   "  Cache-Control: no-cache\n"
                                   "/drafts/*\n"
                                   "  ! X-Robots-Tag\n"
                                   "  X-Robots-Tag: noindex\n"
                                   "  ! X-Team\n";

static char *rules_site(char **outside)
{
    char *d = tree_new(), *www = tree_path(d, "www");

    tree_mkdir(d, "www");
    *outside = tree_path(d, "outside.txt");
    tree_write_str(d, "outside.txt", "OUTSIDE THE ROOT\n");
    tree_write_str(www, "index.html", "home\n");
    tree_mkdir(www, "about");
    tree_write_str(www, "about/index.html", "about us\n");
    tree_write_str(www, "legacy.html", "the legacy page\n");
    tree_mkdir(www, "search");
    tree_write_str(www, "search/index.html", "search page\n");
    tree_mkdir(www, "app");
    tree_write_str(www, "app/index.html", "the app shell\n");
    tree_write_str(www, "app/app.js", "console.log(1)\n");
    tree_mkdir(www, "drafts");
    tree_write_str(www, "drafts/x.html", "draft\n");
    tree_mkdir(www, "errors");
    tree_write_str(www, "errors/4xx.html", "custom 4xx page\n");
    tree_write_str(www, "50x.html", "custom 5xx page\n");
    tree_symlink(www, "..", "escape-link");
    tree_write_str(www, "_redirects", site_redirects);
    tree_write_str(www, "_headers", site_headers);
    tree_symlink(www, "_redirects", "rules.txt");
    return www;
}

static const struct {
    const char *target;
    int status;
    const char *location; /* or a body substring for 200/4xx */
} rules[] = {
    {"/feed.xml", 301, "/blog/feed.xml"},
    {"/feed.xml?utm_source=rss", 301, "/blog/feed.xml?utm_source=rss"},
    {"/blog/2019/04/01/hello-world", 301, "/blog/hello-world/"},
    {"/blog/2019/04/01/caf%C3%A9", 301, "/blog/caf%C3%A9/"},
    {"/docs/latest/guide/install.html", 302, "/docs/v3/guide/install.html"},
    {"/docs/latest/", 302, "/docs/v3/"},
    {"/go/beneath?x=1", 307, "https://example.org/beneath?x=1"},
    {"/old-about", 308, "/about/"},
    {"/about/", 200, "about us"},      /* shadowed by the file */
    {"/legacy.html", 301, "/about/"},  /* forced */
    {"/find?q=x", 200, "search page"}, /* rewrite */
    {"/app/settings/profile", 200, "the app shell"},
    {"/app/app.js", 200, "console.log"}, /* the asset is not rewritten */
    {"/escape/outside.txt", 403, "custom 4xx page"}, /* resolver refuses */
    {"/_redirects", 404, "custom 4xx page"},
    {"/_headers", 404, "custom 4xx page"},
    {"/rules.txt", 404, "custom 4xx page"}, /* a link to _redirects */
    {"/missing", 404, "custom 4xx page"},
};

LOOP_TEST(rules_site_files, rules)
{
    char *outside, *www = rules_site(&outside);
    struct server *s =
        start(www, (const char *[]){"--site-files", "on", "--error-page",
                                    "403,404=/errors/4xx.html", "--error-page",
                                    "500,502,503=/50x.html", NULL});
    struct http_response *r = raw_get(s->port, rules[_i].target);

    harness_forbid("OUTSIDE THE ROOT");
    harness_forbid("/feed.xml   "); /* the rule file's text */
    EXPECT_STATUS(r, rules[_i].status, rules[_i].target);
    if (rules[_i].status >= 300 && rules[_i].status < 400)
        EXPECT(http_header(r, "Location") &&
                   strcmp(http_header(r, "Location"), rules[_i].location) == 0,
               "%s: Location %s, want %s", rules[_i].target,
               http_header(r, "Location"), rules[_i].location);
    else
        EXPECT(strstr(r->body, rules[_i].location), "%s: body %s",
               rules[_i].target, r->body);
    server_stop_clean(s);
}
END_TEST

START_TEST(rules_headers)
{
    char *outside, *www = rules_site(&outside);
    struct server *s = start(
        www, (const char *[]){"--site-files", "on", "--header", "X-Team: docs",
                              "--cache", "*.js=max-age=60", NULL});
    struct http_response *r;

    r = http_get(s, "/");
    EXPECT(http_header(r, "X-Frame-Options") &&
               strcmp(http_header(r, "X-Frame-Options"), "DENY") == 0 &&
               strcmp(http_header(r, "X-Robots-Tag"), "all") == 0 &&
               strcmp(http_header(r, "X-Team"), "docs") == 0,
           "headers of /:\n%s", r->head);
    r = http_get(s, "/drafts/x.html");
    EXPECT(strcmp(http_header(r, "X-Robots-Tag"), "noindex") == 0 &&
               http_header_count(r, "X-Robots-Tag") == 1 &&
               http_header(r, "X-Team") == NULL,
           "! removes earlier ones and --header:\n%s", r->head);
    r = http_get(s, "/app/app.js");
    EXPECT(strcmp(http_header(r, "Cache-Control"), "no-cache") == 0 &&
               http_header_count(r, "Cache-Control") == 1,
           "_headers' Cache-Control wins over --cache:\n%s", r->head);
    r = http_get(s, "/missing");
    EXPECT(r->status == 404 && http_header(r, "X-Frame-Options"),
           "headers on a 404 too:\n%s", r->head);
    server_stop_clean(s);
}
END_TEST

/*
 * Headers go by request path, the reply cache keeps responses by file: a
 * path with header rules never takes (nor leaves) a cached response.
 */
START_TEST(rules_reply_cache)
{
    char *www = tree_new();
    struct http_response *r;

    tree_write_str(www, "page.html", "a small page\n");
    tree_mtime(www, "page.html", SITE_MTIME_OLD);
    tree_write_str(www, "_headers", "/special\n  X-Special: yes\n");
    tree_write_str(www, "_redirects", "/special /page.html 200\n");
    struct server *s = start(
        www, (const char *[]){"--site-files", "on", "--threads", "1", NULL});
    /* the cache keeps a file whose ctime is REPLY_CACHE_SETTLE_S old */
    sleep(3);
    for (int i = 0; i < 3; i++) {
        r = http_get(s, "/page.html");
        EXPECT(r->status == 200 && !http_header(r, "X-Special"),
               "plain page:\n%s", r->head);
    }
    r = http_get(s, "/special");
    EXPECT(r->status == 200 && strcmp(r->body, "a small page\n") == 0 &&
               http_header(r, "X-Special"),
           "the rewrite with its header:\n%s", r->head);
    r = http_get(s, "/page.html");
    EXPECT(!http_header(r, "X-Special"), "the header leaked:\n%s", r->head);
    server_stop_clean(s);
}
END_TEST

/* --redirects and --headers-file: files read by path, re-read on SIGHUP. */
START_TEST(rules_files_reload)
{
    char *outside, *www = rules_site(&outside);
    char *d = tree_new(), *rf = tree_path(d, "redirects"),
         *hf = tree_path(d, "headers");

    tree_write_str(d, "redirects", "/a /b 302\n");
    tree_write_str(d, "headers", "/*\n  X-Version: 1\n");
    struct server *s =
        start(www, (const char *[]){"--redirects", rf, "--headers-file", hf,
                                    "--fallback", "/index.html", NULL});
    struct http_response *r = http_get(s, "/a");
    EXPECT(r->status == 302 && strcmp(http_header(r, "Location"), "/b") == 0 &&
               strcmp(http_header(r, "X-Version"), "1") == 0,
           "a rule wins over --fallback:\n%s", r->head);
    r = http_get(s, "/no-rule-no-file");
    EXPECT(r->status == 200 && strcmp(r->body, "home\n") == 0,
           "--fallback where no rule matches: %d %s", r->status, r->body);
    r = http_get(s, "/_redirects");
    EXPECT_STATUS(r, 200, "without --site-files the file is content");
    tree_write_str(d, "redirects", "/a /c 302\n");
    tree_write_str(d, "headers", "/*\n  X-Version: 2\n");
    EXPECT(server_reload(s, 10000) > 0, "no reload:\n%s", server_stderr(s));
    r = http_get(s, "/a");
    EXPECT(strcmp(http_header(r, "Location"), "/c") == 0 &&
               strcmp(http_header(r, "X-Version"), "2") == 0,
           "after SIGHUP:\n%s", r->head);
    /* a loop: refused, the old rules stay */
    tree_write_str(d, "redirects", "/a /b 302\n/b /a 302\n");
    sighup_refused(s, hfmt("beneath: SIGHUP: %s:1: redirect loop: line 1 -> "
                           "line 2 -> line 1",
                           rf));
    r = http_get(s, "/a");
    EXPECT(strcmp(http_header(r, "Location"), "/c") == 0, "old rules kept");
    server_stop_clean(s);
}
END_TEST

/*
 * --site-files on @www must be refused at start-up, its stderr naming
 * @www/@file followed by each of the @n messages (":LINE: ...").
 */
static void site_file_refused(const char *www, const char *file,
                              const char *const *msgs, size_t n)
{
    char *err = refused((const char *[]){"--site-files", "on", "--check",
                                         "--listen", "127.0.0.1:0", www, NULL},
                        NULL);

    for (size_t i = 0; i < n; i++)
        EXPECT(strstr(err, hfmt("%s/%s%s", www, file, msgs[i])),
               "missing '%s':\n%s", msgs[i], err);
}

START_TEST(rules_bad_input)
{
    char *d = tree_new(), *www = tree_path(d, "www"), *err;
    long long ms;

    tree_mkdir(d, "www");
    tree_write_str(www, "index.html", "x\n");
    /* a 1 MiB header line */
    char *big = cases_long_line("/*\n  X-Big: ", 'v', (size_t)1 << 20, "\n");
    tree_write_str(www, "_headers", big);
    free(big);
    err = refused((const char *[]){"--site-files", "on", "--check", "--listen",
                                   "127.0.0.1:0", www, NULL},
                  &ms);
    EXPECT(strstr(err, hfmt("beneath: %s/_headers:2: line longer than 8192 "
                            "bytes",
                            www)),
           "1 MiB line:\n%s", err);
    fprintf(stderr, "e2e: a 1 MiB _headers line refused in %lld ms\n", ms);
    unlink(tree_path(www, "_headers"));
    /* Netlify features beyond the subset, each named */
    tree_write_str(www, "_redirects",
                   "/store id=:id /blog/:id 301\n"
                   "/a /b 404\n"
                   "/c http://example.org/\n"
                   "/d //example.org/\n"
                   "https://old.example/* /x 301\n"
                   "/e /f/:slug\n");
    err = refused((const char *[]){"--site-files", "on", "--check", "--listen",
                                   "127.0.0.1:0", www, NULL},
                  NULL);
    /* the ones a migrated site may have are warnings, the rest errors */
    static const struct {
        const char *kind, *msg;
    } msgs[] = {
        {"warning: ", ":1: query-parameter matching ('id=:id') is not "
                      "supported: line ignored"},
        {"warning: ", ":2: status 404 (a page sent with that status) is not "
                      "supported"},
        {"", ":3: 'http://example.org/' leaves the origin over plain HTTP"},
        {"", ":4: '//example.org/' would leave the origin (protocol-relative)"},
        {"warning: ", ":5: rules for a host are not supported"},
        {"", ":6: TO uses :slug, which FROM does not define"},
    };
    for (size_t i = 0; i < N_ELEMS(msgs); i++)
        EXPECT(strstr(err, hfmt("beneath: %s%s/_redirects%s", msgs[i].kind, www,
                                msgs[i].msg)),
               "missing '%s':\n%s", msgs[i].msg, err);
    /* a _redirects that is a link out of the root is refused, not read */
    unlink(tree_path(www, "_redirects"));
    tree_write_str(d, "elsewhere", "/a /b\n");
    tree_symlink(www, "../elsewhere", "_redirects");
    err = refused((const char *[]){"--site-files", "on", "--check", "--listen",
                                   "127.0.0.1:0", www, NULL},
                  NULL);
    EXPECT(strstr(err, hfmt("%s/_redirects: Invalid cross-device link (EXDEV)",
                            www)) ||
               strstr(err, hfmt("%s/_redirects: Too many levels of symbolic "
                                "links (ELOOP)",
                                www)),
           "escaping _redirects:\n%s", err);
    unlink(tree_path(www, "_redirects"));
    /* 10,000 redirects: start-up time, and the last rule answers */
    char *rf = tree_path(d, "many");
    FILE *f = fopen(rf, "w");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < 10000; i++)
        fprintf(f, "/old/page-%d.html /new/page-%d.html 301\n", i, i);
    fclose(f);
    long long t0 = now_ms();
    struct server *s = start(www, (const char *[]){"--redirects", rf, NULL});
    fprintf(stderr, "e2e: start-up with 10,000 redirects: %lld ms\n",
            now_ms() - t0);
    struct http_response *r = http_get(s, "/old/page-9999.html");
    EXPECT(r->status == 301 &&
               strcmp(http_header(r, "Location"), "/new/page-9999.html") == 0,
           "rule 10000:\n%s", r->head);
    server_stop_clean(s);
}
END_TEST

/*
 * A _redirects written for Netlify: the lines beneath does not serve
 * (a 404 page rule, Country=, a host in FROM, a proxy) are named as
 * warnings with FILE:LINE and ignored, and the site starts with the rest;
 * a Role= rule (who may see what) still refuses the start, and a SIGHUP
 * that adds one keeps the old rules.
 */
START_TEST(rules_netlify_ignored)
{
    char *www = tree_site("home\n"), *err;
    static const char migrated[] =
        "/blog/*         /news/:splat                 301\n"
        "/*              /404.html                    404\n"
        "/               /fr/                         302  Country=fr\n"
        "https://old.example/*  https://new.example/:splat  301!\n"
        "/api/*          https://api.example/:splat   200\n"
        "/old            /new                         302\n";

    tree_write_str(www, "_redirects", migrated);
    tree_write_str(www, "404.html", "the site's 404 page\n");
    struct server *s = start(www, (const char *[]){"--site-files", "on", NULL});
    static const char *const warns[] = {
        ":2: status 404 (a page sent with that status) is not supported: line "
        "ignored",
        ":3: the condition 'Country=fr' is not supported: line ignored",
        ":4: rules for a host are not supported",
        ":5: a 200 rewrite to another origin would be a proxy (not "
        "supported): line ignored",
    };
    for (size_t i = 0; i < N_ELEMS(warns); i++)
        EXPECT(strstr(server_stderr(s),
                      hfmt("beneath: warning: %s/_redirects%s", www, warns[i])),
               "missing warning %zu:\n%s", i, server_stderr(s));
    struct http_response *r = http_get(s, "/blog/a");
    EXPECT_STATUS(r, 301, "line 1 serves");
    EXPECT_HEADER(r, "Location", "/news/a", "line 1");
    r = http_get(s, "/old");
    EXPECT_HEADER(r, "Location", "/new", "line 6 serves");
    r = http_get(s, "/");
    EXPECT_BODY(r, "home\n", "the Country= rule is ignored");
    r = http_get(s, "/api/x");
    EXPECT_STATUS(r, 404, "the proxy rule is ignored");
    EXPECT(strstr(r->body, "the site's 404 page"), "the 404 page: %s", r->body);

    /* a SIGHUP that brings a Role= rule: refused, the old rules stay */
    tree_write_str(www, "_redirects",
                   "/old /newer 302\n/admin/* /admin/:splat 200! Role=admin\n");
    sighup_refused(s, hfmt("beneath: SIGHUP: %s/_redirects:2: the condition "
                           "'Role=admin' decides who may see the target",
                           www));
    r = http_get(s, "/old");
    EXPECT_HEADER(r, "Location", "/new", "the old rules after SIGHUP");
    server_stop_clean(s);

    /* at start-up and in --check: a Role= rule refuses the start */
    err = refused((const char *[]){"--site-files", "on", "--check", "--listen",
                                   "127.0.0.1:0", www, NULL},
                  NULL);
    EXPECT(strstr(err, hfmt("beneath: %s/_redirects:2: the condition "
                            "'Role=admin' decides who may see the target: not "
                            "supported (--auth protects paths)",
                            www)),
           "Role= at start-up:\n%s", err);
}
END_TEST

/*
 * Netlify's "Basic-Auth: user:pass" in _headers is password protection
 * there; as a header it would publish the password. Refused with FILE:LINE
 * at start-up, in --check and on SIGHUP (the old rules stay), and the
 * password is never echoed, in a message or a response.
 */
START_TEST(rules_basic_auth)
{
    char *www = tree_site("home\n"), *err;
    const char *pass = "pw-Xq7-never-sent";
    const char *line =
        "Basic-Auth (Netlify's password protection) is not a header";

    harness_forbid(pass);
    tree_write_str(www, "_headers",
                   hfmt("/*\n  X-Site: 1\n  Basic-Auth: editor:%s\n", pass));
    err = refused((const char *[]){"--site-files", "on", "--listen",
                                   "127.0.0.1:0", www, NULL},
                  NULL);
    EXPECT(strstr(err, hfmt("beneath: %s/_headers:3: %s", www, line)),
           "start-up:\n%s", err);
    EXPECT(!strstr(err, pass), "the password echoed:\n%s", err);
    err = refused((const char *[]){"--site-files", "on", "--check", "--listen",
                                   "127.0.0.1:0", www, NULL},
                  NULL);
    EXPECT(strstr(err, hfmt("%s/_headers:3: %s", www, line)) &&
               !strstr(err, pass),
           "--check:\n%s", err);

    /* --headers-file: the same */
    char *hf = tree_path(www, "_headers");
    err = refused((const char *[]){"--headers-file", hf, "--check", "--listen",
                                   "127.0.0.1:0", www, NULL},
                  NULL);
    EXPECT(strstr(err, hfmt("%s:3: %s", hf, line)) && !strstr(err, pass),
           "--headers-file:\n%s", err);

    /* SIGHUP: refused, the rules read before stay */
    tree_write_str(www, "_headers", "/*\n  X-Site: 1\n");
    struct server *s = start(www, (const char *[]){"--site-files", "on", NULL});
    struct http_response *r = http_get(s, "/");
    EXPECT_HEADER(r, "X-Site", "1", "before SIGHUP");
    tree_write_str(www, "_headers",
                   hfmt("/*\n  X-Site: 2\n  Basic-Auth: editor:%s\n", pass));
    sighup_refused(s, hfmt("SIGHUP: %s/_headers:3: %s", www, line));
    EXPECT(!strstr(server_stderr(s), pass), "SIGHUP:\n%s", server_stderr(s));
    r = http_get(s, "/");
    EXPECT_HEADER(r, "X-Site", "1", "the old rules after SIGHUP");
    EXPECT_HEADER(r, "Basic-Auth", NULL, "after SIGHUP");
    server_stop_clean(s);
}
END_TEST

/* ---- --mount: what a link out of the root would reach ---- */

/*
 * A Debian documentation package as dh_sphinxdoc leaves it: the pages and
 * their own assets under html/, and _static/ links into the packages that
 * ship the shared scripts and fonts (/usr/share/javascript, the theme's
 * package), with a secret beside them that nothing may reach.
 */
struct docs_pkg {
    char *base, *html, *jquery, *fonts;
};

static struct docs_pkg docs_pkg(void)
{
    struct docs_pkg p;

    p.base = tree_new();
    tree_build(p.base, "secret.txt=MOUNT-SECRET-not-for-anyone\n",
               "usr/share/doc/pkg/html/index.html=<script "
               "src=\"_static/jquery.js\"></script>\n",
               "usr/share/doc/pkg/html/_static/basic.css=BASIC-CSS\n",
               "usr/share/doc/pkg/html/_static/jquery.js -> "
               "../../../../javascript/jquery/jquery.js",
               "usr/share/doc/pkg/html/_static/underscore.js -> "
               "../../../../javascript/underscore/underscore.js",
               "usr/share/doc/pkg/html/_static/fonts/Lato.woff2 -> "
               "../../../../../sphinx_rtd_theme/static/fonts/Lato.woff2",
               "usr/share/javascript/jquery/jquery.js=JQUERY\n",
               "usr/share/javascript/underscore/underscore.js=UNDERSCORE\n",
               "usr/share/sphinx_rtd_theme/static/fonts/Lato.woff2=LATO\n",
               "usr/share/sphinx_rtd_theme/static/fonts/evil.woff2 -> "
               "../../../../../secret.txt",
               NULL);
    p.html = tree_path(p.base, "usr/share/doc/pkg/html");
    p.jquery = tree_path(p.base, "usr/share/javascript/jquery/jquery.js");
    p.fonts = tree_path(p.base, "usr/share/sphinx_rtd_theme/static/fonts");
    return p;
}

static const struct {
    const char *target;
    int plain, mounted; /* status without, with the mounts */
    const char *body;   /* of the mounted 200, or the Location of a 301 */
} mounted[] = {
    {"/_static/jquery.js", 403, 200, "JQUERY\n"},
    {"/_static/fonts/Lato.woff2", 403, 200, "LATO\n"},
    {"/_static/basic.css", 200, 200, "BASIC-CSS\n"}, /* the root's own */
    /* a link the mounts do not cover stays refused */
    {"/_static/underscore.js", 403, 403, NULL},
    /* a link out of a mount is refused as one out of the root */
    {"/_static/fonts/evil.woff2", 404, 403, NULL},
    /* the path is normalised before a mount is picked */
    {"/_static/fonts/../jquery.js", 403, 200, "JQUERY\n"},
    {"/_static/./fonts//Lato.woff2", 403, 200, "LATO\n"},
    {"/_static/fonts/../../../../secret.txt", 403, 403, NULL},
    {"/_static/fonts/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/secret.txt", 403, 403,
     NULL},
    /* a file mount answers its one URL; a directory mount is a directory */
    {"/_static/jquery.js/", 403, 403, NULL},
    {"/_static/fonts", 301, 301, "/_static/fonts/"},
    {"/_static/fontsx", 404, 404, NULL},
};

LOOP_TEST(mount_case, mounted)
{
    struct docs_pkg p = docs_pkg();
    const char *target = mounted[_i].target;

    harness_forbid("MOUNT-SECRET");
    for (int with = 0; with < 2; with++) {
        struct server *s =
            with ? start(p.html,
                         (const char *[]){
                             "--mount", hfmt("/_static/jquery.js=%s", p.jquery),
                             "--mount", hfmt("/_static/fonts=%s", p.fonts),
                             NULL})
                 : start(p.html, (const char *[]){NULL});
        struct http_response *r = raw_get(s->port, target);
        int want = with ? mounted[_i].mounted : mounted[_i].plain;

        EXPECT_STATUS(r, want,
                      hfmt("%s %s", with ? "mounted" : "plain", target));
        if (with && want == 200)
            EXPECT_BODY(r, mounted[_i].body, target);
        if (want == 301)
            EXPECT_HEADER(r, "Location", mounted[_i].body, target);
        server_stop_clean(s);
    }
}
END_TEST

/* @s with its '@' (if any) replaced by @base. */
static char *at_base(const char *s, const char *base)
{
    const char *at = strchr(s, '@');

    return at ? hfmt("%.*s%s%s", (int)(at - s), s, base, at + 1)
              : hfmt("%s", s);
}

/* Start-up lines, the listing's path, types, SIGHUP, bad values. */
START_TEST(mount_ops)
{
    struct docs_pkg p = docs_pkg();
    char *cur = tree_path(p.base, "fonts-cur"), *err;
    struct http_response *r;

    harness_forbid("MOUNT-SECRET");
    /* the next release beside the first, as a deploy keeps them */
    tree_build(p.base,
               "usr/share/sphinx_rtd_theme/static/fonts-v2/"
               "Lato.woff2=LATO v2\n",
               NULL);
    tree_symlink(p.base, p.fonts, "fonts-cur");
    struct server *s = start(
        p.html,
        (const char *[]){"--mount", hfmt("/_static/fonts=%s", cur), "--mount",
                         hfmt("/_static/jquery.js=%s", p.jquery), "--listing",
                         "on", NULL});
    EXPECT(strstr(server_stderr(s),
                  hfmt("beneath: mount /_static/fonts %s\n", cur)) &&
               strstr(server_stderr(s),
                      hfmt("beneath: mount /_static/jquery.js %s (one file)\n",
                           p.jquery)),
           "start-up lines:\n%s", server_stderr(s));
    r = http_get(s, "/_static/jquery.js");
    EXPECT_HEADER(r, "Content-Type", "text/javascript; charset=utf-8",
                  "the file's type");
    /* a package upgrade writes a new file and renames it over the old:
     * a new inode, served at once (the sandbox reads beneath its directory) */
    tree_write_str(p.base, "usr/share/javascript/jquery/jquery.js.dpkg-new",
                   "JQUERY 2\n");
    ck_assert_int_eq(rename(hfmt("%s.dpkg-new", p.jquery), p.jquery), 0);
    EXPECT_BODY(http_get(s, "/_static/jquery.js"), "JQUERY 2\n",
                "the upgraded file");
    r = http_get(s, "/_static/fonts/");
    EXPECT(r->status == 200 && strstr(r->body, "Index of /_static/fonts/") &&
               strstr(r->body, "Lato.woff2"),
           "the mount's listing under its URL:\n%s", r->body);
    /* a deploy flips the link and sends SIGHUP: the mount follows */
    char *next = tree_path(p.base, "fonts-next");
    tree_symlink(p.base, hfmt("%s-v2", p.fonts), "fonts-next");
    ck_assert_int_eq(rename(next, cur), 0);
    EXPECT_BODY(http_get(s, "/_static/fonts/Lato.woff2"), "LATO\n",
                "the old tree until SIGHUP");
    EXPECT(server_reload(s, 10000) > 0, "no reload:\n%s", server_stderr(s));
    EXPECT(strstr(server_stderr(s),
                  hfmt("beneath: SIGHUP: mount /_static/fonts %s\n", cur)),
           "the new generation does not name the mount:\n%s", server_stderr(s));
    EXPECT_BODY(http_get(s, "/_static/fonts/Lato.woff2"), "LATO v2\n",
                "the new tree after SIGHUP");
    server_stop_clean(s);

    /* bad values, each named */
    tree_mkfifo(p.base, "fifo");
    static const struct {
        const char *a, *b, *msg;
    } bad[] = {
        {"_static=/tmp", NULL,
         "--mount: '_static': a URL prefix starts with '/'"},
        {"/_static/=/tmp", NULL,
         "--mount: '/_static/': a URL prefix has no trailing '/'"},
        {"/a/../b=/tmp", NULL,
         "--mount: '/a/../b': a URL prefix has no "
         "empty, '.' or '..' components"},
        {"/_static", NULL, "--mount: expected /URL/PREFIX=DIR"},
        {"/a=@/none", NULL,
         "beneath: mount /a: @/none: No such file or directory"},
        {"/a=@/fifo", NULL,
         "beneath: mount /a: @/fifo: not a directory or a regular file"},
        {"/a=/tmp", "/a=/", "beneath: mount /a=/: /a is given twice"},
    };
    for (size_t i = 0; i < N_ELEMS(bad); i++) {
        char *a = at_base(bad[i].a, p.base),
             *want = at_base(bad[i].msg, p.base);
        const char *args[] = {"--mount",     a,      "--check", "--listen",
                              "127.0.0.1:0", p.html, NULL,      NULL,
                              NULL};
        if (bad[i].b) {
            args[6] = "--mount";
            args[7] = bad[i].b;
        }
        err = refused(args, NULL);
        EXPECT(strstr(err, want), "row %zu: want '%s' in:\n%s", i, want, err);
    }
}
END_TEST

/*
 * The headers the server owns (RFC 9110/9530) are refused in a _headers
 * file, added or removed, with FILE:LINE; a reply never carries two
 * digests.
 */
START_TEST(rules_owned_headers)
{
    char *www = tree_site("home\n"), *err;

    tree_write_str(www, "_headers",
                   "/*\n  X-Ok: 1\n  Repr-Digest: sha-256=:AAAA:\n"
                   "  ! Vary\n  Content-Digest: sha-256=:AAAA:\n");
    static const char *const msgs[] = {
        ":3: Repr-Digest is set by the server and cannot be added",
        ":4: Vary is set by the server and cannot be removed",
        ":5: Content-Digest is set by the server and cannot be added",
    };
    site_file_refused(www, "_headers", msgs, N_ELEMS(msgs));
    err = refused((const char *[]){"--header",
                                   "Repr-Digest: sha-256=:AAAA:", "--check",
                                   "--listen", "127.0.0.1:0", www, NULL},
                  NULL);
    EXPECT(strstr(err, "Repr-Digest is set by the server and cannot be added"),
           "--header:\n%s", err);
}
END_TEST

/* Error pages: the original status, under each site's root. */
START_TEST(error_pages)
{
    char *outside, *www = rules_site(&outside), *err, *out;
    tree_write_str(www, "errors/400.json", "{\"error\": \"bad request\"}\n");
    struct server *s = start(
        www, (const char *[]){"--error-page", "403,404=/errors/4xx.html",
                              "--error-page", "400=/errors/400.json", NULL});
    struct http_response *r;

    r = http_get(s, "/missing");
    EXPECT(r->status == 404 && strcmp(r->body, "custom 4xx page\n") == 0,
           "404: %s", r->body);
    r = http_get(s, "/escape-link/outside.txt");
    EXPECT(r->status == 403 && strcmp(r->body, "custom 4xx page\n") == 0,
           "403: %s", r->body);
    r = raw_get(s->port, "/bad%zzescape");
    EXPECT(r->status == 400 && strstr(r->body, "bad request") &&
               http_header(r, "Content-Type") &&
               strncmp(http_header(r, "Content-Type"), "application/json",
                       16) == 0,
           "400 with a JSON page, typed by its name:\n%s%s", r->head, r->body);
    server_stop_clean(s);
    /* a page the root does not have: a warning, the built-in page */
    int ws = beneath_run((const char *[]){"--error-page", "404=/nope.html",
                                          "--check", "--listen", "127.0.0.1:0",
                                          www, NULL},
                         NULL, 30000, &out, &err);
    EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) == 0 &&
               strstr(err, hfmt("beneath: warning: error-page 404: /nope.html "
                                "under %s: No such file or directory",
                                www)),
           "warning:\n%s", err);
    err = refused((const char *[]){"--error-page", "404=/a.html",
                                   "--error-page", "404=/b.html", "--check",
                                   "--listen", "127.0.0.1:0", www, NULL},
                  NULL);
    EXPECT(strstr(err, "status 404 has an error page already"), "twice:\n%s",
           err);
}
END_TEST

Suite *access_sites_suite(void)
{
    static const struct check_fixture fixture = HARNESS_FIXTURE(120);
    static const struct check_tcase tcases[] = {
        {"vhosts", .loops = {LOOP(vhost_hosts)},
         .tests = {&vhost_each_site, &vhost_reload, &vhost_bad}},
        {"mounts", .loops = {LOOP(mount_case)}, .tests = {&mount_ops}},
        {"rules", .loops = {LOOP(rules_site_files)},
         .tests = {&rules_headers, &rules_reply_cache, &rules_files_reload,
                   &rules_bad_input, &rules_owned_headers,
                   &rules_netlify_ignored, &rules_basic_auth, &error_pages}},
    };

    return check_suite_make("e2e_access", &fixture, tcases, N_ELEMS(tcases));
}
