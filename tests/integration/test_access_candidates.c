/* SPDX-License-Identifier: MIT */
/*
 * test_access_candidates.c - the rules are judged on each file lookup
 * opens, not on the path that was asked (the third suite of
 * test_e2e_access): a refusal never turns into the fallback.
 */
#include "access.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * --fallback is the last candidate of a path not found, never the answer to
 * a path refused: a dotfile, a link out of the root, a site's rule file.
 */
START_TEST(fallback_not_for_refusals)
{
    char *d = tree_new(), *www = tree_path(d, "www");

    tree_build(d, "www/index.html=the app\n", "www/.git/config=[core]\n",
               "www/.env=SECRET=1\n", "outside.txt=outside\n",
               "www/out -> ../outside.txt", "www/_redirects=/old /new 301\n",
               NULL);
    struct server *s = start(www, (const char *[]){"--fallback", "index.html",
                                                   "--site-files", "on", NULL});
    static const struct target_status refused[] = {
        {"/.git/config", 404}, {"/.env", 404},       {"/.git/", 404},
        {"/out", 403},         {"/_redirects", 404},
    };

    for (size_t i = 0; i < N_ELEMS(refused); i++) {
        expect_get(s, refused[i].target, refused[i].status, NULL);
        struct http_response *r = raw_request(
            s->port,
            hfmt("GET %s HTTP/1.1\r\nHost: x\r\nRange: bytes=0-3\r\n"
                 "Connection: close\r\n\r\n",
                 refused[i].target),
            10000);
        EXPECT(r->status == refused[i].status,
               "GET %s with Range: %d, want %d\n%s", refused[i].target,
               r->status, refused[i].status, r->head);
    }
    expect_get_body(s, "/no/such/page", "the app\n", "the fallback");
    expect_get_body(s, "/index.html/x", "the app\n", "ENOTDIR: the fallback");
    server_stop_clean(s);
}
END_TEST

/* A public page, a private folder with its index and a secret page. */
static char *private_site(char **users)
{
    char *d = tree_new(), *www = tree_path(d, "www");

    tree_build(d, "www/index.html=public\n",
               "www/private/index.html=private index\n",
               "www/private/secret.html=the secret\n", NULL);
    *users = tree_path(d, "users");
    htpasswd_add(*users, "alice", "pw", true);
    return www;
}

/*
 * Each request of @rows without credentials, by raw client: its status,
 * and none of the site's private words in a refusal.
 */
static void expect_statuses(const struct server *s,
                            const struct target_status *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct http_response *r =
            expect_get(s, rows[i].target, rows[i].status, NULL);

        EXPECT(r->status == 200 ||
                   (!strstr(r->body, "secret") && !strstr(r->body, "private")),
               "GET %s: %d leaks:\n%s", rows[i].target, r->status, r->body);
    }
}

/* alice (password "pw") gets @path with 200 and the body @want. */
static void expect_alice(const struct server *s, const char *path,
                         const char *want)
{
    char *body = NULL;

    EXPECT(curl_u(s, path, "alice:pw", &body) == 200 && strcmp(body, want) == 0,
           "alice, %s: %s", path, body);
}

/*
 * A file-name glob protects the file whichever candidate opens it: the
 * index of /private/, path.html of /private/secret (issue: both were 200).
 */
START_TEST(auth_index_and_try_html)
{
    char *users, *www = private_site(&users);
    struct server *s =
        start(www, (const char *[]){"--auth", hfmt("*.html=%s", users),
                                    "--try-html", "on", NULL});
    static const struct target_status globbed[] = {
        {"/private/secret.html", 401},
        {"/private/secret", 401},
        {"/private/", 401},
        {"/", 401},
    };

    expect_statuses(s, globbed, N_ELEMS(globbed));
    expect_alice(s, "/private/secret", "the secret\n");
    expect_alice(s, "/private/", "private index\n");
    server_stop_clean(s);

    /* a rule naming the index file, without --try-html */
    s = start(www, (const char *[]){
                       "--auth", hfmt("/private/index.html=%s", users), NULL});
    static const struct target_status named[] = {
        {"/private/", 401},
        {"/private/index.html", 401},
        {"/private/./", 401},
    };
    expect_statuses(s, named, N_ELEMS(named));
    expect_get_body(s, "/", "public\n", "GET /");
    expect_get(s, "/private/secret.html", 200, NULL);
    expect_alice(s, "/private/", "private index\n");
    server_stop_clean(s);
}
END_TEST

/*
 * A sidecar is the file it compresses: asked for by its own name, it is
 * judged as that file too (issue: /docs/data.json.gz was 200).
 */
START_TEST(auth_sidecar_by_name)
{
    char *users, *www = private_site(&users);

    tree_build(www, "docs/data.json={\"secret\": 1}\n", "docs/data.json.gz=GZ",
               "docs/data.json.br=BR", "docs/public.txt=public\n",
               "docs/public.txt.gz=GZ", NULL);
    struct server *s =
        start(www, (const char *[]){"--auth", hfmt("*.json=%s", users),
                                    "--precompressed", "gz", NULL});
    static const struct target_status rows[] = {
        {"/docs/data.json", 401},
        {"/docs/data.json.gz", 401},
        {"/docs/data.json.br", 401},
        {"/docs/public.txt.gz", 200},
    };

    expect_statuses(s, rows, N_ELEMS(rows));
    struct http_response *r =
        http_do(NULL, s, "GET", "/docs/data.json",
                (const char *[]){"Accept-Encoding: gzip", NULL});
    EXPECT_STATUS(r, 401, "data.json, gzip accepted");
    expect_alice(s, "/docs/data.json.gz", "GZ");
    server_stop_clean(s);
}
END_TEST

/*
 * A listing shows only what the requester could fetch: no names or sizes
 * of protected files, no protected folder, no rule file of the site.
 */
START_TEST(listing_hides_protected)
{
    char *users, *d = tree_new(), *www = tree_path(d, "www"), *body = NULL;

    tree_build(d, "www/public.txt=public\n", "www/private/report.txt=figures\n",
               "www/data.json={}\n", "www/data.json.gz=GZ",
               "www/open/a.txt=a\n", "www/open/b.json=b\n",
               "www/_headers=/*\n  X-Team: docs\n", NULL);
    users = tree_path(d, "users");
    htpasswd_add(users, "alice", "pw", true);
    struct server *s = start(
        www, (const char *[]){"--listing", "on", "--site-files", "on", "--auth",
                              hfmt("/private/**, *.json=%s", users), NULL});
    static const struct target_want shown[] = {
        {"/", "public.txt"},
        {"/", "open/"},
        {"/open/", "a.txt"},
    };
    static const struct target_want hidden[] = {
        {"/", "private"},
        {"/", "data.json"},
        {"/", "_headers"},
        {"/open/", "b.json"},
    };
    struct http_response *r;

    for (size_t i = 0; i < N_ELEMS(shown); i++) {
        r = expect_get(s, shown[i].target, 200, NULL);
        EXPECT(strstr(r->body, shown[i].want), "%s lists no %s:\n%s",
               shown[i].target, shown[i].want, r->body);
    }
    for (size_t i = 0; i < N_ELEMS(hidden); i++) {
        r = expect_get(s, hidden[i].target, 200, NULL);
        EXPECT(!strstr(r->body, hidden[i].want), "%s lists %s:\n%s",
               hidden[i].target, hidden[i].want, r->body);
    }
    r = http_do(NULL, s, "GET", "/",
                (const char *[]){"Accept: application/json", NULL});
    EXPECT(r->status == 200 && !strstr(r->body, "private") &&
               !strstr(r->body, "data.json") && strstr(r->body, "public.txt"),
           "the JSON listing:\n%s", r->body);
    /* credentials that pass the rule show what they open */
    EXPECT(curl_u(s, "/", "alice:pw", &body) == 200 &&
               strstr(body, "data.json") && strstr(body, "private"),
           "alice's listing:\n%s", body);
    server_stop_clean(s);
}
END_TEST

/* ---- the invariant as a table ---- */

/*
 * The two servers of the table: the candidates of a site with protected
 * files (MAIN), and a site whose fallback and error page are protected
 * files (PAGES).
 */
enum table_server { MAIN, PAGES };

/*
 * Every kind of candidate lookup opens x every way to address a protected
 * file: the answer is 401 (an --auth rule) or 403 (a refusal whose error
 * page is protected), and no protected byte ("SECRET") is ever sent.
 */
static const struct invariant_row {
    const char *method, *target, *header; /* header: "" or "Name: v\r\n" */
    enum table_server server;
    int want;
} invariant_rows[] = {
    /* the request's own path */
    {"GET", "/private/page.html", "", MAIN, 401},
    {"HEAD", "/private/page.html", "", MAIN, 401},
    {"GET", "/private/page.html", "Range: bytes=0-3\r\n", MAIN, 401},
    {"GET", "/public/../private/page.html", "", MAIN, 401},
    {"GET", "//private//./page.html", "", MAIN, 401},
    {"GET", "/%70rivate/page%2ehtml", "", MAIN, 401},
    {"GET", "http://x/private/page.html", "", MAIN, 401},
    {"GET", "/page.secret.html", "", MAIN, 401},
    /* the index file */
    {"GET", "/private/", "", MAIN, 401},
    {"GET", "/public/../private/", "", MAIN, 401},
    {"GET", "/vault/", "", MAIN, 401},
    {"GET", "/vault/./", "", MAIN, 401},
    {"HEAD", "/vault/", "", MAIN, 401},
    /* path.html of --try-html */
    {"GET", "/private/page", "", MAIN, 401},
    {"GET", "/page.secret", "", MAIN, 401},
    {"GET", "/public/../page.secret", "", MAIN, 401},
    {"GET", "/%70age.secret", "Range: bytes=0-3\r\n", MAIN, 401},
    /* a sidecar: chosen by Accept-Encoding, or asked for by its name */
    {"GET", "/docs/data.json", "Accept-Encoding: gzip\r\n", MAIN, 401},
    {"GET", "/docs/data.json.gz", "", MAIN, 401},
    {"GET", "/docs//data.json.gz", "Accept-Encoding: gzip\r\n", MAIN, 401},
    {"GET", "/docs/data.json.br", "", MAIN, 401},
    {"GET", "/docs/style.css", "Accept-Encoding: gzip\r\n", MAIN, 401},
    /* a _redirects rewrite target */
    {"GET", "/go/anything", "", MAIN, 401},
    {"GET", "/find", "", MAIN, 401},
    {"HEAD", "/find", "", MAIN, 401},
    /* the fallback */
    {"GET", "/no/such/page", "", PAGES, 401},
    {"GET", "/no/such/page", "Range: bytes=0-3\r\n", PAGES, 401},
    {"HEAD", "/index.html/x", "", PAGES, 401},
    /* an error page: the status stays, the body is the built-in one */
    {"GET", "/escape", "", PAGES, 403},
    {"GET", "/.git/config", "", PAGES, 404},
};

START_TEST(invariant_table)
{
    char *users, *d = tree_new(), *www = tree_path(d, "www");
    char *pages = tree_path(d, "pages");

    tree_build(
        d, "www/index.html=home\n", "www/public/index.html=public\n",
        "www/private/index.html=SECRET-1\n", "www/private/page.html=SECRET-2\n",
        "www/page.secret.html=SECRET-3\n",
        "www/vault/index.secret.html=SECRET-4\n",
        "www/docs/data.json=SECRET-5\n", "www/docs/data.json.gz=SECRET-6",
        "www/docs/data.json.br=SECRET-7", "www/docs/style.css=body{}\n",
        "www/docs/style.css.gz=SECRET-8",
        "www/_redirects=/go/* /private/page.html 200\n"
        "/find /docs/data.json 200\n",
        "pages/index.html=public\n", "pages/app.html=SECRET-9\n",
        "pages/oops.html=SECRET-10\n", "pages/404.html=SECRET-11\n",
        "pages/.git/config=SECRET-12\n", "outside=x\n",
        "pages/escape -> ../outside", NULL);
    users = tree_path(d, "users");
    htpasswd_add(users, "alice", "pw", true);
    harness_forbid("SECRET");
    struct server *srv[2];
    srv[MAIN] = start(
        www, (const char *[]){
                 "--auth",
                 hfmt("/private/**, *.secret.html, *.json, *.css.gz=%s", users),
                 "--try-html", "on", "--precompressed", "gz", "--index",
                 "index.html,index.secret.html", "--site-files", "on", NULL});
    srv[PAGES] = start(
        pages,
        (const char *[]){
            "--auth", hfmt("/app.html, /oops.html, /404.html=%s", users),
            "--fallback", "app.html", "--error-page", "403=/oops.html", NULL});

    for (size_t i = 0; i < N_ELEMS(invariant_rows); i++) {
        const struct invariant_row *w = &invariant_rows[i];
        struct http_response *r = raw_request(
            srv[w->server]->port,
            hfmt("%s %s HTTP/1.1\r\nHost: x\r\n%sConnection: close\r\n\r\n",
                 w->method, w->target, w->header),
            10000);

        EXPECT(r->status == w->want, "row %zu: %s %s (%s): %d, want %d\n%s", i,
               w->method, w->target, w->header, r->status, w->want, r->head);
    }
    server_stop_clean(srv[MAIN]);
    server_stop_clean(srv[PAGES]);
}
END_TEST

Suite *access_candidates_suite(void)
{
    static const struct check_fixture fixture = HARNESS_FIXTURE(120);
    static const struct check_tcase tcases[] = {
        {"candidates",
         .tests = {&fallback_not_for_refusals, &auth_index_and_try_html,
                   &auth_sidecar_by_name, &listing_hides_protected,
                   &invariant_table}},
    };

    return check_suite_make("e2e_access", &fixture, tcases, N_ELEMS(tcases));
}
