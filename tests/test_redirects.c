/* SPDX-License-Identifier: MIT */
/*
 * test_redirects.c - _redirects: path patterns and their index, good and
 * bad lines with exact FILE:LINE messages, targets, loops, and a file of
 * 10,000 rules (how matching scales).
 */
#include "cases.h"
#include "check_main.h"
#include "syntax/redirects.h"
#include "syntax/urlpath.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- patterns ---- */

static const struct {
    const char *pat;
    const char *path;
    int want;
    const char *caps; /* "name=value;..." */
} pats[] = {
    {"/", "/", 1, ""},
    {"/", "/a", 0, ""},
    {"/a/b", "/a/b", 1, ""},
    {"/a/b", "/a/b/", 1, ""},
    {"/a/b/", "/a/b", 1, ""},
    {"/a/b", "/a/B", 0, ""},
    {"/a/b", "/a/b/c", 0, ""},
    {"/a/:x", "/a/b", 1, "x=b;"},
    {"/a/:x", "/a", 0, ""},
    {"/a/:x", "/a/b/c", 0, ""},
    {"/:lang/docs/:page", "/en/docs/intro", 1, "lang=en;page=intro;"},
    {"/news/*", "/news", 1, "splat=;"},
    {"/news/*", "/news/", 1, "splat=;"},
    {"/news/*", "/news/2024/x", 1, "splat=2024/x;"},
    {"/news/*", "/news/2024/x/", 1, "splat=2024/x;"},
    {"/news/*", "/newsroom", 0, ""},
    {"/*", "/", 1, "splat=;"},
    {"/*", "/any/thing", 1, "splat=any/thing;"},
    {"/a/:x/*", "/a/1/2/3", 1, "x=1;splat=2/3;"},
};

LOOP_TEST(pattern_case, pats)
{
    struct pathpat p;
    struct pathpat_caps caps;
    char err[128], got[256] = "";
    size_t o = 0;

    ck_assert_int_eq(
        pathpat_parse(&p, pats[_i].pat, strlen(pats[_i].pat), err, sizeof err),
        0);
    ck_assert_msg(pathpat_match(&p, pats[_i].path, &caps) == pats[_i].want,
                  "%s on %s", pats[_i].pat, pats[_i].path);
    if (pats[_i].want) {
        for (size_t i = 0; i < caps.n; i++)
            o += (size_t)snprintf(got + o, sizeof got - o, "%.*s=%.*s;",
                                  (int)caps.c[i].name_len, caps.c[i].name,
                                  (int)caps.c[i].len, caps.c[i].v);
        ck_assert_str_eq(got, pats[_i].caps);
    }
    pathpat_free(&p);
}
END_TEST

/* ---- lines ---- */

static const struct {
    const char *line;
    const char *from;
    unsigned status;
    int force;
} lines_tab[] = {
    {"/old /new", "/old", 301, 0},
    {"/old   /new\t302", "/old", 302, 0},
    {"/old /new 303", "/old", 303, 0},
    {"/old /new 307", "/old", 307, 0},
    {"/old /new 308!", "/old", 308, 1},
    {"/app/* /index.html 200", "/app", 200, 0},
    {"/news/* /blog/:splat", "/news", 301, 0},
    {"/u/:id /users/:id?tab=1 302", "/u/:id", 302, 0},
    {"/ext https://example.org/ 301", "/ext", 301, 0},
    {"/blog/* https://blog.example.org/:splat 301!", "/blog", 301, 1},
    {"   /indented /x", "/indented", 301, 0},
};

/* Bad lines: line 2 of a file whose line 1 is good, or a loop through both. */
static const struct spec_case bad_lines[] = {
    {"/a", "r:2: expected FROM TO [STATUS]"},
    {"/a /b 30x", "r:2: '30x' is not a status"},
    {"/a /b 3011", "r:2: '3011' is not a status"},
    {"/a http://example.org/",
     "r:2: 'http://example.org/' leaves the origin over plain HTTP; only an "
     "https:// URL may leave it"},
    {"/a //example.org/",
     "r:2: '//example.org/' would leave the origin (protocol-relative); write "
     "https://HOST/... to mean it"},
    {"/a /\\example.org/",
     "r:2: '/\\example.org/' would leave the origin (protocol-relative); "
     "write https://HOST/... to mean it"},
    {"/a b.html",
     "r:2: 'b.html': TO is a path starting with '/' or an https:// URL"},
    {"/a https://:sub.example.org/",
     "r:2: 'https://:sub.example.org/': bad host in the URL (no "
     "placeholders, no user)"},
    {"/a https://u@example.org/",
     "r:2: 'https://u@example.org/': bad host in the URL (no placeholders, "
     "no user)"},
    {"/a /b/:slug", "r:2: TO uses :slug, which FROM does not define"},
    {"/a /b/:splat",
     "r:2: TO uses :splat, which FROM does not define (FROM needs a trailing "
     "*)"},
    {"/a /b 302 id=:id",
     "r:2: conditions after the status ('id=:id') are not supported"},
    {"/a /b 418", "r:2: status 418: only 200 (rewrite), 301, 302, 303, 307 "
                  "and 308"},
    {"/a /b 301 extra",
     "r:2: conditions after the status ('extra') are not supported"},
    /* who may see what: an error, never ignored */
    {"/admin/* /admin/:splat 200! Role=admin",
     "r:2: the condition 'Role=admin' decides who may see the target: not "
     "supported (--auth protects paths)"},
    {"/admin/* /x 302 Country=us role=editor",
     "r:2: the condition 'role=editor' decides who may see the target: not "
     "supported (--auth protects paths)"},
    {"/api/* https://api.example/:splat 200 Signed=API_TOKEN",
     "r:2: the condition 'Signed=API_TOKEN' decides who may see the target: "
     "not supported (--auth protects paths)"},
    {"/news*  /blog",
     "r:2: '/news*': '*' must be a whole last segment, as in /news/*"},
    {"/a/*/b /x", "r:2: '/a/*/b': '*' must be the last segment, as in /news/*"},
    {"/a/: /x",
     "r:2: ':': a placeholder is ':' and letters, digits or '_' (and not "
     ":splat, which '*' captures)"},
    {"/a/:splat /x",
     "r:2: ':splat': a placeholder is ':' and letters, digits or '_' (and not "
     ":splat, which '*' captures)"},
    {"/a/:x/:x /y", "r:2: ':x' appears twice"},
    {"/a?x=1 /y", "r:2: '/a?x=1': query strings and fragments are not matched"},
    {"a /y", "r:2: 'a': a path starts with '/'"},
    {"/a /b\"c",
     "r:2: '/b\"c': TO has a character a URL cannot hold (percent-encode "
     "it)"},
    {"/a /a", "r:2: redirect loop: line 2 -> line 2"},
    {"/a/ /a 302", "r:2: redirect loop: line 2 -> line 2"},
    {"/d/:x /d/:x/ 301", "r:2: redirect loop: line 2 -> line 2"},
    {"/first /other", "r:1: redirect loop: line 1 -> line 2 -> line 1"},
};

/*
 * Netlify features beyond the subset that only some would see: the line is
 * ignored with a warning, the rest of the file is used.
 */
static const struct text_case ignored_lines[] = {
    {"/a /b 404", "r:2: status 404 (a page sent with that status) is not "
                  "supported: line ignored (--error-page sets error pages)"},
    {"/* /404.html 404!", "r:2: status 404 (a page sent with that status) is "
                          "not supported: line ignored (--error-page sets "
                          "error pages)"},
    {"/gone /gone.html 410", "r:2: status 410 (a page sent with that status) "
                             "is not supported: line ignored (--error-page "
                             "sets error pages)"},
    {"https://old.example.org/* /x",
     "r:2: rules for a host are not supported (FROM is a path; use --vhost "
     "for hosts): line ignored"},
    {"http://old.example.org/* https://new.example.org/:splat 301!",
     "r:2: rules for a host are not supported (FROM is a path; use --vhost "
     "for hosts): line ignored"},
    {"/store id=:id /blog/:id 301",
     "r:2: query-parameter matching ('id=:id') is not supported: line "
     "ignored"},
    {"/store /x 302 Country=us",
     "r:2: the condition 'Country=us' is not supported: line ignored"},
    {"/ /anz 302 Country=au,nz Language=en",
     "r:2: the condition 'Country=au,nz' is not supported: line ignored"},
    {"/ /en Language=en",
     "r:2: the condition 'Language=en' is not supported: line ignored"},
    {"/beta/* /beta.html 200 Cookie=beta",
     "r:2: the condition 'Cookie=beta' is not supported: line ignored"},
    {"/a https://example.org/ 200", "r:2: a 200 rewrite to another origin "
                                    "would be a proxy (not supported): line "
                                    "ignored"},
    {"/api/* http://10.0.0.1:8080/:splat 200!",
     "r:2: a 200 rewrite to another origin would be a proxy (not supported): "
     "line ignored"},
};

/*
 * Parses @line as line 2 of a file whose line 1 is a good rule, one that the
 * loop rows lead back through.
 */
static int parse_line2(const char *line, struct redirects *r,
                       struct lines_diag *d)
{
    char text[512];

    snprintf(text, sizeof text, "/other /first 302\n%s\n", line);
    return redirects_parse(r, text, strlen(text), "r", d);
}

LOOP_TEST(line_case, lines_tab)
{
    struct redirects r;
    struct lines_diag d = {0};
    int ret = parse_line2(lines_tab[_i].line, &r, &d);

    ck_assert_msg(ret == 0, "'%s': %s", lines_tab[_i].line,
                  d.n ? d.msgs[0] : "?");
    ck_assert_uint_eq(r.n, 2);
    ck_assert_str_eq(r.v[1].from.joined, lines_tab[_i].from);
    ck_assert_uint_eq(r.v[1].status, lines_tab[_i].status);
    ck_assert_int_eq(r.v[1].force, lines_tab[_i].force);
    ck_assert_uint_eq(r.v[1].line, 2);
    redirects_free(&r);
}
END_TEST

LOOP_TEST(bad_line_case, bad_lines)
{
    struct redirects r;
    struct lines_diag d = {0};
    int ret = parse_line2(bad_lines[_i].spec, &r, &d);

    cases_check_spec(&bad_lines[_i], ret, d.n ? d.msgs[0] : "");
    ck_assert_uint_eq(d.n, 1);
    ck_assert_uint_eq(r.n, 0);
    lines_diag_free(&d);
}
END_TEST

LOOP_TEST(ignored_line_case, ignored_lines)
{
    struct redirects r;
    struct lines_diag d = {0};
    int ret = parse_line2(ignored_lines[_i].in, &r, &d);

    ck_assert_msg(ret == 0, "'%s': %s", ignored_lines[_i].in,
                  d.n ? d.msgs[0] : "?");
    ck_assert_uint_eq(d.n, 0);
    ck_assert_uint_eq(d.n_warnings, 1);
    ck_assert_str_eq(d.warnings[0], ignored_lines[_i].want);
    /* line 1 stays, line 2 is gone */
    ck_assert_uint_eq(r.n, 1);
    ck_assert_uint_eq(r.v[0].line, 1);
    redirects_free(&r);
    lines_diag_free(&d);
}
END_TEST

/* ---- a file in the conventions of a real static site ---- */

static const char site_file[] =
    "# Redirects from what used to be a Jekyll blog\n"
    "/feed.xml            /blog/feed.xml              301\n"
    "/blog/:year/:month/:day/:slug  /blog/:slug       301\n"
    "/docs/latest/*       /docs/v3/:splat             302\n"
    "/docs/v3/*           /docs/v3/:splat             200\n"
    "/go/:name            https://example.org/:name   302\n"
    "/search              /search.html?from=redirect  200\n"
    "/legacy              /new                        308!\n"
    "\n"
    "# the single-page app\n"
    "/app/*               /app/index.html             200\n";

static const struct {
    const char *path, *query;
    unsigned status; /* 0: no rule */
    const char *target;
} site_cases[] = {
    {"/feed.xml", NULL, 301, "/blog/feed.xml"},
    {"/feed.xml/", NULL, 301, "/blog/feed.xml"},
    {"/blog/2019/04/01/hello-world", "utm=x", 301, "/blog/hello-world?utm=x"},
    {"/blog/2019/04/hello", NULL, 0, NULL},
    {"/docs/latest/guide/intro.html", NULL, 302, "/docs/v3/guide/intro.html"},
    {"/docs/latest", "a=1&b=2", 302, "/docs/v3/?a=1&b=2"},
    {"/docs/v3/x", NULL, 200, "/docs/v3/x"},
    {"/go/caf\xc3\xa9 au lait", NULL, 302,
     "https://example.org/caf%C3%A9%20au%20lait"},
    {"/search", "q=x", 200, "/search.html?from=redirect&q=x"},
    {"/legacy", NULL, 308, "/new"},
    {"/app/settings/profile", NULL, 200, "/app/index.html"},
    {"/other", NULL, 0, NULL},
};

LOOP_TEST(site_case, site_cases)
{
    struct redirects r;
    struct lines_diag d = {0};
    struct pathpat_caps caps;
    char out[256];

    ck_assert_int_eq(
        redirects_parse(&r, site_file, strlen(site_file), "_redirects", &d), 0);
    const struct redirect_rule *rule =
        redirects_match(&r, site_cases[_i].path, &caps);
    if (!site_cases[_i].status) {
        ck_assert_ptr_null(rule);
    } else {
        ck_assert_ptr_nonnull(rule);
        ck_assert_uint_eq(rule->status, site_cases[_i].status);
        ck_assert_uint_eq(redirects_target(rule, &caps, site_cases[_i].query,
                                           out, sizeof out),
                          strlen(site_cases[_i].target));
        ck_assert_str_eq(out, site_cases[_i].target);
    }
    redirects_free(&r);
}
END_TEST

START_TEST(first_match_wins)
{
    /* file order decides across exact rules, buckets and wildcards */
    static const char t[] = "/:lang/x /one 302\n"
                            "/en/* /two 302\n"
                            "/en/x /three 302\n"
                            "/* /four 200\n";
    struct redirects r;
    struct lines_diag d = {0};
    struct pathpat_caps caps;

    ck_assert_int_eq(redirects_parse(&r, t, strlen(t), "r", &d), 0);
    ck_assert_str_eq(redirects_match(&r, "/en/x", &caps)->to, "/one");
    ck_assert_str_eq(redirects_match(&r, "/en/y", &caps)->to, "/two");
    ck_assert_str_eq(redirects_match(&r, "/fr/y", &caps)->to, "/four");
    ck_assert_str_eq(redirects_match(&r, "/", &caps)->to, "/four");
    redirects_free(&r);
}
END_TEST

START_TEST(long_line)
{
    char *t = cases_long_line("/", 'a', (1 << 20) - 1, " /b\n");
    struct redirects r;
    struct lines_diag d = {0};

    ck_assert_int_eq(redirects_parse(&r, t, strlen(t), "r", &d), -EINVAL);
    ck_assert_str_eq(d.msgs[0], "r:1: line longer than 8192 bytes");
    lines_diag_free(&d);
    free(t);
}
END_TEST

static double ms_since(const struct timespec *t0)
{
    struct timespec t1;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) * 1e3 +
           (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/*
 * 10,000 rules of three shapes: exact, a literal first segment, a literal
 * second segment after a placeholder. Each is found through the index, so
 * matching costs about the same per request whatever the number of rules
 * (CPU time, printed; the load includes the loop check of every rule).
 */
START_TEST(ten_thousand)
{
    static const char *const shapes[] = {"exact", "/first/*", "/:lang/second"};
    static const size_t sizes[] = {100, 10000};
    const size_t lookups = 20000;
    size_t cap = (size_t)10000 * 64;
    char *t = malloc(cap), path[64];

    for (size_t z = 0; z < 2 * N_ELEMS(shapes); z++) {
        size_t s = z % N_ELEMS(shapes), n = sizes[z / N_ELEMS(shapes)];
        struct redirects r;
        struct lines_diag d = {0};
        struct pathpat_caps caps;
        struct timespec t0;
        size_t len = 0, bad = 0;
        double load, per;

        for (size_t i = 0; i < n; i++) {
            if (s == 0)
                len += (size_t)snprintf(t + len, cap - len,
                                        "/old/page-%zu.html /new/page-%zu.html"
                                        " 301\n",
                                        i, i);
            else if (s == 1)
                len += (size_t)snprintf(t + len, cap - len,
                                        "/s%zu/* /t%zu/:splat 302\n", i, i);
            else
                len += (size_t)snprintf(t + len, cap - len,
                                        "/:lang/p%zu /q%zu 302\n", i, i);
        }
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
        ck_assert_int_eq(redirects_parse(&r, t, len, "r", &d), 0);
        load = ms_since(&t0);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
        for (size_t k = 0; k < lookups; k++) {
            size_t i = (k * 7919) % n;

            if (s == 0)
                snprintf(path, sizeof path, "/old/page-%zu.html", i);
            else if (s == 1)
                snprintf(path, sizeof path, "/s%zu/a/b", i);
            else
                snprintf(path, sizeof path, "/en/p%zu", i);
            const struct redirect_rule *rule = redirects_match(&r, path, &caps);
            /* no ck_assert in the timed loop: each one is a write(2) */
            bad += !rule || rule->line != i + 1;
        }
        per = ms_since(&t0) * 1e3 / (double)lookups;
        ck_assert_uint_eq(bad, 0);
        fprintf(stderr,
                "redirects: %zu %s rules: load %.1f ms, %.2f us per match\n", n,
                shapes[s], load, per);
        redirects_free(&r);
    }
    free(t);
}
END_TEST

const struct check_main check_main = {
    .suite = "redirects",
    .tcases = {
        {"redirects",
         .loops = {LOOP(pattern_case), LOOP(line_case), LOOP(bad_line_case),
                   LOOP(ignored_line_case), LOOP(site_case)},
         .tests = {&first_match_wins, &long_line, &ten_thousand}}}};
