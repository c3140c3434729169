/* SPDX-License-Identifier: MIT */
/*
 * test_e2e_docs_follow.c - --follow-into against the real binary (a suite
 * of test_e2e_docs, once per resolver backend, sandbox on): Debian's own
 * python3-doc, whose _static/jquery.js and underscore.js are links into
 * /usr/share/javascript, served with one option; beside it, in a tree of
 * the same shape, a link to /etc/passwd, a link into the allowed tree
 * followed by "../..", the path's own "..": all still 403, each named in
 * the access log line with the option.
 */
#include "e2e_docs.h"
#include "harness.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define JS "/usr/share/javascript"
#define PYDOC "/usr/share/doc/python3-doc/html"
/* The first line of /etc/passwd: no reply may carry it. */
#define PASSWD_SECRET "root:x:0:0:"

/* The bytes of the file @path resolves to (python3-doc's links' targets). */
static char *file_bytes(const char *path, size_t *len)
{
    char real[PATH_MAX];

    EXPECT(realpath(path, real),
           "%s: not there (scripts/deps.sh test "
           "installs python3-doc)",
           path);
    return tree_read(real, len);
}

/* An access log line of @s (stdout) holding @needle, waited for. */
static void expect_log(const struct server *s, const char *needle)
{
    EXPECT(file_wait_for(s->out_path, needle, 5000),
           "no log line with '%s':\n%s", needle, server_stdout(s));
}

/*
 * python3-doc as installed: without the option its links out are 403 and
 * the line says which link and which option; with --follow-into
 * /usr/share/javascript they serve the files the links name.
 */
START_TEST(python3_doc)
{
    static const char *const links[] = {"_static/jquery.js",
                                        "_static/underscore.js"};
    struct server *s;
    struct http_response *r;
    size_t len;

    harness_forbid(PASSWD_SECRET);
    s = server_start(PYDOC, NULL);
    for (size_t i = 0; i < N_ELEMS(links); i++) {
        r = http_get(s, hfmt("/%s", links[i]));
        EXPECT_STATUS(r, 403, links[i]);
    }
    expect_log(s, "\"GET /_static/jquery.js HTTP/1.1\" 403 ");
    expect_log(s, "symlink=\"_static/jquery.js -> " JS "/jquery/jquery.js "
                  "(outside the root; --follow-into DIR follows links into "
                  "DIR)\"");
    server_stop_clean(s);

    s = server_start(PYDOC, "--follow-into", JS, NULL);
    EXPECT(strstr(server_stderr(s), "beneath: follow-into " JS "\n"),
           "start-up lines:\n%s", server_stderr(s));
    for (size_t i = 0; i < N_ELEMS(links); i++) {
        char *want = file_bytes(hfmt("%s/%s", PYDOC, links[i]), &len);

        r = http_get(s, hfmt("/%s", links[i]));
        EXPECT_STATUS(r, 200, links[i]);
        EXPECT(r->body_len == len && memcmp(r->body, want, len) == 0,
               "%s: %zu bytes, not the %zu of the file its link names",
               links[i], r->body_len, len);
        EXPECT_HEADER(r, "Content-Type", "text/javascript; charset=utf-8",
                      links[i]);
    }
    r = http_get(s, "/index.html");
    EXPECT(r->status == 200 && strstr(r->body, "_static/jquery.js"),
           "the page that loads it: %d", r->status);
    /* the path's own ".." still leaves nothing but 403 */
    r = raw_get(s->port, "/_static/../../../../javascript/jquery/jquery.js");
    EXPECT_STATUS(r, 403, "the path's own ..");
    server_stop_clean(s);
}
END_TEST

/*
 * A tree of python3-doc's shape with more links beside the one that is
 * followed: "T" is the tree's way up to / (its relative links climb out of
 * the temporary directory).
 */
static const struct {
    const char *name, *link;
} beside[] = {
    {"_static/jquery.js", JS "/jquery/jquery.js"},
    {"_static/jquery-rel.js", "T" JS "/jquery/jquery.js"},
    {"_static/js", JS},
    {"_static/passwd", "/etc/passwd"},
    {"_static/passwd-rel", "T/etc/passwd"},
    {"_static/js-up", JS "/jquery/../../../../etc/passwd"},
    {"_static/js-up-rel", "T" JS "/jquery/../../../../etc/passwd"},
};

static const struct {
    const char *target;
    int status;          /* with --follow-into /usr/share/javascript */
    const char *file;    /* a 200's body is this file's */
    const char *symlink; /* a 403's log line says this ("@": the root) */
} follow_rows[] = {
    {"/_static/jquery.js", 200, JS "/jquery/jquery.js", NULL},
    {"/_static/jquery-rel.js", 200, JS "/jquery/jquery.js", NULL},
    {"/_static/js/jquery/jquery.js", 200, JS "/jquery/jquery.js", NULL},
    {"/_static/js/underscore/underscore.js", 200,
     JS "/underscore/underscore.js", NULL},
    /* a link to /etc/passwd beside it */
    {"/_static/passwd", 403, NULL,
     "_static/passwd -> /etc/passwd (in no --follow-into directory)"},
    {"/_static/passwd-rel", 403, NULL,
     "_static/passwd-rel -> /etc/passwd (in no --follow-into directory)"},
    /* into the allowed tree, then "../.." out of it */
    {"/_static/js/../../../etc/passwd", 403, NULL,
     "_static/js -> " JS " (followed, then left --follow-into " JS ")"},
    {"/_static/js/jquery/../../../../etc/passwd", 403, NULL,
     "_static/js -> " JS " (followed, then left --follow-into " JS ")"},
    {"/_static/js-up", 403, NULL,
     "_static/js-up -> " JS "/jquery/../../../../etc/passwd (followed, then "
     "left --follow-into " JS ")"},
    {"/_static/js-up-rel", 403, NULL,
     "_static/js-up-rel -> " JS "/jquery/../../../../etc/passwd (followed, "
     "then left --follow-into " JS ")"},
    /* the path's own "..": no link, no hop */
    {"/_static/../../../../../../../../etc/passwd", 403, NULL, NULL},
    {"/_static/js/", 403, NULL, NULL}, /* a directory, no listing */
};

/* The tree of @beside in a new directory; its html/ is returned. */
static char *beside_tree(void)
{
    char *base = tree_new(), *html, *up = hfmt("%s", "../");

    tree_mkdir(base, "html");
    tree_mkdir(base, "html/_static");
    tree_write_str(base, "html/index.html",
                   "<script "
                   "src=\"_static/jquery.js\">"
                   "</script>\n");
    html = tree_path(base, "html");
    /* from html/_static up to /: one ".." per component of its path */
    for (const char *p = html; *p; p++)
        if (*p == '/')
            up = hfmt("%s../", up);
    for (size_t i = 0; i < N_ELEMS(beside); i++) {
        const char *l = beside[i].link;

        tree_symlink(html, l[0] == 'T' ? hfmt("%s%s", up, l + 2) : l,
                     beside[i].name);
    }
    return html;
}

LOOP_TEST(beside_case, follow_rows)
{
    const char *target = follow_rows[_i].target;
    char *html = beside_tree();
    struct server *s;
    struct http_response *r;

    harness_forbid(PASSWD_SECRET);
    s = server_start(html, "--follow-into", JS, NULL);
    r = raw_get(s->port, target);
    EXPECT_STATUS(r, follow_rows[_i].status, target);
    if (follow_rows[_i].file) {
        size_t len;
        char *want = file_bytes(follow_rows[_i].file, &len);

        EXPECT(r->body_len == len && memcmp(r->body, want, len) == 0,
               "%s: %zu bytes, not the %zu of %s", target, r->body_len, len,
               follow_rows[_i].file);
    }
    expect_log(s, hfmt("\"GET %s HTTP/1.1\" %d ", target, r->status));
    if (follow_rows[_i].symlink)
        expect_log(s, hfmt("symlink=\"%s\"", follow_rows[_i].symlink));
    else
        EXPECT(!strstr(server_stdout(s), "symlink="),
               "%s: a symlink named:\n%s", target, server_stdout(s));
    server_stop_clean(s);
}
END_TEST

/* Bad values stop the start (exit 2), each named. */
START_TEST(bad_values)
{
    static const struct bad_option rows[] = {
        {"--follow-into", "usr/share/javascript",
         "--follow-into: 'usr/share/javascript' is not an absolute path"},
        {"--follow-into", "/nonexistent-beneath-dir",
         "beneath: follow-into /nonexistent-beneath-dir: No such file or "
         "directory"},
        {"--follow-into", "/etc/passwd",
         "beneath: follow-into /etc/passwd: Not a directory"},
    };
    char *out, *err;
    int ws;

    expect_bad_options(rows, N_ELEMS(rows), www);
    ws = beneath_run((const char *[]){"--follow-into", JS, "--confine",
                                      "in-root", "--check", "--listen",
                                      "127.0.0.1:0", www, NULL},
                     NULL, 30000, &out, &err);
    EXPECT_EXIT(ws, 2, err);
    EXPECT(strstr(err, "--follow-into: needs beneath in --confine (it is "
                       "in-root: in-root keeps every link inside the root)"),
           "in-root:\n%s", err);
}
END_TEST

Suite *docs_follow_suite(void)
{
    static const struct check_fixture fixture = DOCS_FIXTURE;
    static const struct check_tcase tcases[] = {
        {"follow-into", .loops = {LOOP(beside_case)},
         .tests = {&python3_doc, &bad_values}},
    };

    return check_suite_make("e2e_docs", &fixture, tcases, N_ELEMS(tcases));
}
