/* SPDX-License-Identifier: MIT */
/*
 * test_headers_file.c - _headers: good and bad lines with exact FILE:LINE
 * messages, what one path collects (order, "! Name"), a 1 MiB line.
 */
#include "cases.h"
#include "check_main.h"
#include "syntax/headers_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct spec_case files[] = {
    {"/*\n  X-Frame-Options: DENY\n", NULL},
    {"# comment\n/a\n\tX-A: 1\n\n  # indented comment\n  X-B: 2\n", NULL},
    {"/a/:x/*\n  ! X-Powered-By\n", NULL},
    {"/a\n", NULL},
    {"  X-A: 1\n", "h:1: a header line needs a path line (one starting with "
                   "'/') before it"},
    {"/a\n  X-A 1\n", "h:2: expected \"Name: value\""},
    {"/a\n  X A: 1\n", "h:2: the header name must be a token (letters, digits, "
                       "!#$%&'*+-.^_`|~; no spaces)"},
    {"/a\n  !\n", "h:2: '! NAME' needs a header name (a token)"},
    {"/a\n  ! X Y\n", "h:2: '! NAME' needs a header name (a token)"},
    {"/a\n  Repr-Digest: sha-256=:AAAA:\n",
     "h:2: Repr-Digest is set by the server and cannot be added"},
    {"/a\n  ! Vary\n", "h:2: Vary is set by the server and cannot be removed"},
    {"/a\n  ! content-type\n",
     "h:2: Content-Type is set by the server and cannot be removed"},
    {"/a\n  Content-Type: text/plain\n",
     "h:2: Content-Type is set by the server and cannot be added"},
    {"/a\n  X-A: a\x01"
     "b\n",
     "h:2: the header value has a control byte (CR, LF, ...)"},
    {"a\n  X-A: 1\n", "h:1: 'a': a path starts with '/'"},
    {"https://x.example/*\n  X-A: 1\n",
     "h:1: rules for a host are not supported (use a path; --vhost for "
     "hosts)"},
    {"/a*\n  X-A: 1\n", "h:1: '/a*': '*' must be a whole last segment, as in "
                        "/news/*"},
    /* Netlify's password protection: refused, the password never echoed */
    {"/*\n  Basic-Auth: someuser:s3cret-pass\n",
     "h:2: Basic-Auth (Netlify's password protection) is not a header: it "
     "would be sent to every visitor; use --auth with an htpasswd file"},
    {"/a\n  basic-auth: u:p u2:p2\n",
     "h:2: Basic-Auth (Netlify's password protection) is not a header: it "
     "would be sent to every visitor; use --auth with an htpasswd file"},
    {"/a\n  X-A: 1\0\n", "h:2: NUL byte in line"},
};

LOOP_TEST(file_case, files)
{
    struct headers_file h;
    struct lines_diag d = {0};
    const char *t = files[_i].spec;
    size_t len = strlen(t);

    if (_i == N_ELEMS(files) - 1)
        len = strlen(t) + 2; /* the NUL and the newline after it */
    int r = headers_file_parse(&h, t, len, "h", &d);
    cases_check_spec(&files[_i], r, d.n ? d.msgs[0] : "");
    if (r == 0)
        headers_file_free(&h);
    lines_diag_free(&d);
}
END_TEST

static const char site[] = "/*\n"
                           "  X-Frame-Options: DENY\n"
                           "  X-Robots-Tag: all\n"
                           "/docs/*\n"
                           "  Cache-Control: max-age=600\n"
                           "  Link: </a.css>; rel=preload\n"
                           "/docs/drafts/*\n"
                           "  ! X-Robots-Tag\n"
                           "  X-Robots-Tag: noindex\n"
                           "/docs/:page\n"
                           "  X-Page: yes\n"
                           "/embed/*\n"
                           "  ! X-Frame-Options\n";

static const struct {
    const char *path;
    const char *want;    /* "Name: value|..." in order */
    const char *removed; /* "A|B|" */
} collects[] = {
    {"/", "X-Frame-Options: DENY|X-Robots-Tag: all|", ""},
    {"/docs/a/b",
     "X-Frame-Options: DENY|X-Robots-Tag: all|Cache-Control: "
     "max-age=600|Link: </a.css>; rel=preload|",
     ""},
    {"/docs/drafts/x",
     "X-Frame-Options: DENY|Cache-Control: max-age=600|Link: </a.css>; "
     "rel=preload|X-Robots-Tag: noindex|",
     "X-Robots-Tag|"},
    {"/docs/intro.html",
     "X-Frame-Options: DENY|X-Robots-Tag: all|Cache-Control: "
     "max-age=600|Link: </a.css>; rel=preload|X-Page: yes|",
     ""},
    {"/embed/widget", "X-Robots-Tag: all|", "X-Frame-Options|"},
};

LOOP_TEST(collect_case, collects)
{
    struct headers_file h;
    struct lines_diag d = {0};
    struct headers_file_out out;
    char got[512] = "", rem[128] = "";
    size_t o = 0, ro = 0;

    ck_assert_int_eq(headers_file_parse(&h, site, strlen(site), "h", &d), 0);
    headers_file_collect(&h, collects[_i].path, &out);
    for (size_t i = 0; i < out.n_add; i++)
        o += (size_t)snprintf(got + o, sizeof got - o, "%s: %s|",
                              out.add[i]->name, out.add[i]->value);
    for (size_t i = 0; i < out.n_removed; i++)
        ro +=
            (size_t)snprintf(rem + ro, sizeof rem - ro, "%s|", out.removed[i]);
    ck_assert_str_eq(got, collects[_i].want);
    ck_assert_str_eq(rem, collects[_i].removed);
    ck_assert(headers_file_removed(&out, "x-robots-tag") ==
              (strstr(collects[_i].removed, "X-Robots-Tag") != NULL));
    headers_file_free(&h);
}
END_TEST

START_TEST(megabyte_line)
{
    char *t =
        cases_long_line("/a\n  X-Big: ", 'v', 1 << 20, "\n  X-Small: 1\n");
    struct headers_file h;
    struct lines_diag d = {0};
    int r = headers_file_parse(&h, t, strlen(t), "_headers", &d);

    ck_assert_int_eq(r, -EINVAL);
    ck_assert_uint_eq(d.n, 1);
    ck_assert_str_eq(d.msgs[0], "_headers:2: line longer than 8192 bytes");
    lines_diag_free(&d);
    free(t);
}
END_TEST

const struct check_main check_main = {
    .suite = "headers_file",
    .tcases = {{"headers_file", .loops = {LOOP(file_case), LOOP(collect_case)},
                .tests = {&megabyte_line}}}};
