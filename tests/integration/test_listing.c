/* SPDX-License-Identifier: MIT */
/*
 * test_listing.c - the directory listing end to end: sorting through the
 * query, escaped names whose links reach the files, human sizes with the
 * exact bytes, the JSON form, and the bound on a large directory. Once per
 * resolver backend ($BENEATH_E2E_RESOLVER).
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MTIME_OLD ((time_t)1704164645) /* 2024-01-02 03:04:05 UTC */
#define MTIME_NEW ((time_t)1800000000)

static char *root;

static void tree_setup(void)
{
    harness_test_setup();
    root = tree_new();
    tree_mkdir(root, "d");
    tree_write_str(root, "d/b-small.txt", "0123456789");
    tree_write(root, "d/a-big.bin", hfill(300000, 'x'), 300000);
    tree_write(root, "d/c-middle.css", hfill(40000, 'y'), 40000);
    tree_write_str(root, "d/<b>&\"q'.txt", "esc");
    tree_write_str(root, "d/bad\xff.txt", "bad");
    tree_write_str(root, "d/.hidden", "h");
    tree_mkdir(root, "d/sub");
    /* one time for all but c-middle.css, so that ties sort by name */
    static const char *const same[] = {"d/b-small.txt", "d/a-big.bin",
                                       "d/<b>&\"q'.txt", "d/bad\xff.txt",
                                       "d/sub"};
    for (size_t i = 0; i < N_ELEMS(same); i++)
        tree_mtime(root, same[i], MTIME_NEW);
    tree_mtime(root, "d/c-middle.css", MTIME_OLD);
}

/* The entry names in the order of their links ("./NAME"), space-joined. */
static char *link_order(const char *body)
{
    char *out = hfmt("%s", "");

    for (const char *p = body; (p = strstr(p, "href=\"./"));) {
        p += 8;
        out = hfmt("%s%s%.*s", out, *out ? " " : "", (int)strcspn(p, "\""), p);
    }
    return out;
}

/* Folders first in every order (sub/ is the one folder). */
static const struct {
    const char *query;
    const char *order;
} orders[] = {
    {"", "sub/ %3Cb%3E%26%22q%27.txt a-big.bin b-small.txt bad%FF.txt "
         "c-middle.css"},
    {"?sort=size&order=desc", "sub/ a-big.bin c-middle.css b-small.txt "
                              "%3Cb%3E%26%22q%27.txt bad%FF.txt"},
    {"?sort=size", "sub/ %3Cb%3E%26%22q%27.txt bad%FF.txt b-small.txt "
                   "c-middle.css a-big.bin"},
    {"?order=desc&sort=name", "sub/ c-middle.css bad%FF.txt b-small.txt "
                              "a-big.bin %3Cb%3E%26%22q%27.txt"},
    /* the oldest first: c-middle.css (2024), then the rest by name */
    {"?sort=time&order=asc", "sub/ c-middle.css %3Cb%3E%26%22q%27.txt "
                             "a-big.bin b-small.txt bad%FF.txt"},
    /* unknown values are ignored */
    {"?sort=owner&order=up", "sub/ %3Cb%3E%26%22q%27.txt a-big.bin "
                             "b-small.txt bad%FF.txt c-middle.css"},
    {"?sort=size&order=x&sort=y", "sub/ %3Cb%3E%26%22q%27.txt bad%FF.txt "
                                  "b-small.txt c-middle.css a-big.bin"},
};

LOOP_TEST(order_case, orders)
{
    struct server *s = server_start(root, "--listing", "on", NULL);
    const char *path = hfmt("/d/%s", orders[_i].query);
    struct http_response *r = http_get(s, path);

    EXPECT_STATUS(r, 200, path);
    char *got = link_order(r->body);
    EXPECT(strcmp(got, orders[_i].order) == 0, "%s: order\n%s\nwant\n%s", path,
           got, orders[_i].order);
    /* JSON in the same order */
    r = http_do(NULL, s, "GET", path,
                (const char *[]){"Accept: application/json", NULL});
    EXPECT_STATUS(r, 200, path);
    char *json = hfmt("%s", "");
    for (const char *p = r->body; (p = strstr(p, "\"href\":\""));) {
        p += 8;
        json =
            hfmt("%s%s%.*s", json, *json ? " " : "", (int)strcspn(p, "\""), p);
    }
    EXPECT(strcmp(json, orders[_i].order) == 0, "%s JSON: order\n%s", path,
           json);
    server_stop_clean(s);
}
END_TEST

START_TEST(page)
{
    struct server *s = server_start(root, "--listing", "on", NULL);
    struct http_response *r = http_get(s, "/d/");
    const char *b = r->body;

    EXPECT_STATUS(r, 200, "/d/");
    EXPECT_HEADER(r, "Content-Type", "text/html; charset=utf-8", "/d/");
    EXPECT_HEADER(r, "Vary", "Accept", "/d/");
    EXPECT(strstr(b, "<meta name=\"viewport\" content=\"width=device-width, "
                     "initial-scale=1\">"),
           "no viewport meta:\n%s", b);
    EXPECT(strstr(b, "@media (prefers-color-scheme:dark)"), "no dark style");
    EXPECT(!strstr(b, "<script"), "a script in the listing");
    EXPECT(strstr(b, "<a href=\"../\">../</a>"), "no parent link");
    /* sizes in human units, exact bytes in the title */
    EXPECT(strstr(b, "title=\"300000 bytes\">293 KiB</td>") &&
               strstr(b, "title=\"40000 bytes\">40 KiB</td>") &&
               strstr(b, "title=\"10 bytes\">10 B</td>"),
           "sizes:\n%s", b);
    EXPECT(strstr(b, "<time datetime=\"2024-01-02T03:04:05Z\">2024-01-02 "
                     "03:04</time>"),
           "no time of c-middle.css:\n%s", b);
    /* escaped names; dotfiles left out */
    EXPECT(strstr(b, ">&lt;b&gt;&amp;&quot;q&#39;.txt</a>") &&
               !strstr(b, "<b>"),
           "the name <b>&\"q'.txt is not escaped:\n%s", b);
    EXPECT(strstr(b, ">bad\xef\xbf\xbd.txt</a>"), "bad\\xff not U+FFFD");
    EXPECT(!strstr(b, "hidden"), "a dotfile in the listing");
    EXPECT(strstr(b, "<p>6 entries, times in UTC.</p>"), "no entry count");
    /* the links reach the files */
    expect_get_body(s, "/d/%3Cb%3E%26%22q%27.txt", "esc", "escaped link");
    expect_get_body(s, "/d/bad%FF.txt", "bad", "a link of a bad name");
    /* the column links as a browser resolves them against /d/ */
    EXPECT(strstr(b, "href=\"?sort=size&amp;order=asc\">Size</a>"),
           "no size column link:\n%s", b);
    expect_get(s, "/d/?sort=size&order=asc", 200, "column link");
    /* the root: no parent link */
    r = http_get(s, "/");
    EXPECT_STATUS(r, 200, "/");
    EXPECT(!strstr(r->body, "href=\"../\""), "a parent link at the root");
    /* HEAD: same length, no body */
    struct http_response *h = http_do(NULL, s, "HEAD", "/d/", NULL);
    EXPECT_STATUS(h, 200, "HEAD /d/");
    EXPECT(h->body_len == 0, "HEAD with a body");
    server_stop_clean(s);
}
END_TEST

/* JSON keeps its fields and order of keys (only additions allowed). */
START_TEST(json_compatible)
{
    struct server *s = server_start(root, "--listing", "on", NULL);
    struct http_response *r =
        http_do(NULL, s, "GET", "/d/",
                (const char *[]){"Accept: application/json", NULL});

    EXPECT_STATUS(r, 200, "JSON");
    EXPECT_HEADER(r, "Content-Type", "application/json; charset=utf-8", "JSON");
    EXPECT(strncmp(r->body, "{\"path\":\"/d/\",\"entries\":[{\"name\":", 33) ==
               0,
           "JSON start: %.80s", r->body);
    EXPECT(strstr(r->body,
                  "{\"name\":\"c-middle.css\",\"href\":\"c-middle.css\","
                  "\"type\":\"file\",\"size\":40000,"
                  "\"mtime\":\"2024-01-02T03:04:05Z\"}"),
           "JSON entry:\n%s", r->body);
    EXPECT(strstr(r->body, "]}\n") && !strstr(r->body, "truncated"),
           "JSON end:\n%s", r->body);
    server_stop_clean(s);
}
END_TEST

/* A directory past the bound: LISTING_MAX (10000) shown, all counted. */
START_TEST(large_directory)
{
    char *w = tree_new();
    tree_mkdir(w, "many");
    for (int i = 0; i < 10005; i++)
        tree_write_str(w, hfmt("many/f%05d", i), "");
    struct server *s = server_start(w, "--listing", "on", NULL);
    struct http_response *r = http_get(s, "/many/");

    EXPECT_STATUS(r, 200, "a 10005-entry directory");
    size_t n = 0;
    for (const char *p = r->body; (p = strstr(p, "href=\"./")); p++)
        n++;
    EXPECT(n == 10000, "%zu entries rendered, want 10000", n);
    EXPECT(strstr(r->body, "<p>10000 of 10005 entries shown"),
           "no note of the entries left out");
    r = http_do(NULL, s, "GET", "/many/",
                (const char *[]){"Accept: application/json", NULL});
    EXPECT(strstr(r->body, "],\"truncated\":true,\"total\":10005}\n"),
           "JSON without truncated/total: ...%s",
           r->body + (r->body_len > 200 ? r->body_len - 200 : 0));
    /* the server still answers promptly */
    expect_get(s, "/many/f00001", 200, "a file of it");
    server_stop_clean(s);
}
END_TEST

const struct check_main check_main = {
    .suite = "e2e_listing",
    .fixture = HARNESS_FIXTURE(120),
    .tcases = {{"listing", .setup = tree_setup, .loops = {LOOP(order_case)},
                .tests = {&page, &json_compatible, &large_directory}}}};
