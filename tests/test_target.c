// SPDX-License-Identifier: MIT
/* test_target.c - strict request-target decoding. */
#include "check_main.h"
#include "http/target.h"
#include "syntax/host.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DENY TARGET_DENY_DOTFILES
#define OPT TARGET_OPTIONS

static const struct {
    const char *raw;
    unsigned flags;
    int status;
    const char *path;  /* decoded, when status 0 */
    const char *query; /* NULL: no '?' */
    int slash;
    const char *raw_path; /* the redirect base */
} cases[] = {
    /* origin-form */
    {"/", DENY, 0, "", NULL, 1, "/"},
    {"/index.html", DENY, 0, "index.html", NULL, 0, "/index.html"},
    {"/a/b/", DENY, 0, "a/b/", NULL, 1, "/a/b/"},
    {"/a/b?x=1&y", DENY, 0, "a/b", "x=1&y", 0, "/a/b"},
    {"/a?", DENY, 0, "a", "", 0, "/a"},
    {"/caf%C3%A9", DENY, 0, "caf\xc3\xa9", NULL, 0, "/caf%C3%A9"},
    {"/a%20b", DENY, 0, "a b", NULL, 0, "/a%20b"},
    {"/a%2fb", DENY, 0, "a/b", NULL, 0, "/a%2fb"},
    {"/a%2500", DENY, 0, "a%00", NULL, 0, "/a%2500"},
    {"/a?q=%zz", DENY, 0, "a", "q=%zz", 0, "/a"},
    /* no ".." or symlink handling: the resolver decides */
    {"/../etc/passwd", DENY, 0, "../etc/passwd", NULL, 0, "/../etc/passwd"},
    {"/%2e%2e/x", DENY, 0, "../x", NULL, 0, "/%2e%2e/x"},
    /* leading slashes are empty components, as inner ones: the resolver is
     * handed a path relative to the root */
    {"//etc/passwd", DENY, 0, "etc/passwd", NULL, 0, "/etc/passwd"},
    {"///evil.com/", DENY, 0, "evil.com/", NULL, 1, "/evil.com/"},
    {"//", DENY, 0, "", NULL, 1, "/"},
    {"//index.html", DENY, 0, "index.html", NULL, 0, "/index.html"},
    {"/%2F%2fa", DENY, 0, "a", NULL, 0, "/%2F%2fa"},
    {"//../x", DENY, 0, "../x", NULL, 0, "/../x"},
    {"//.git/config", DENY, 404, NULL, NULL, 0, NULL},
    {"//.well-known/acme", DENY, 0, ".well-known/acme", NULL, 0,
     "/.well-known/acme"},
    {"http://example.com//a", DENY, 0, "a", NULL, 0, "/a"},
    {"/a/./b/../c", DENY, 0, "a/./b/../c", NULL, 0, "/a/./b/../c"},
    /* bad escapes, NUL, control bytes */
    {"/a%00b.html", DENY, 400, NULL, NULL, 0, NULL},
    {"/a%0ab", DENY, 400, NULL, NULL, 0, NULL},
    {"/a%7Fb", DENY, 400, NULL, NULL, 0, NULL},
    {"/a%1", DENY, 400, NULL, NULL, 0, NULL},
    {"/a%", DENY, 400, NULL, NULL, 0, NULL},
    {"/a%zz", DENY, 400, NULL, NULL, 0, NULL},
    {"/a%g0", DENY, 400, NULL, NULL, 0, NULL},
    {"/a\tb", DENY, 400, NULL, NULL, 0, NULL},
    {"/a\x7f", DENY, 400, NULL, NULL, 0, NULL},
    {"/a b", DENY, 400, NULL, NULL, 0, NULL},
    {"/a#frag", DENY, 400, NULL, NULL, 0, NULL},
    {"/a?b\x01", DENY, 400, NULL, NULL, 0, NULL},
    /* absolute-form: the path is taken */
    {"http://example.com/a/b?q", DENY, 0, "a/b", "q", 0, "/a/b"},
    {"HTTPS://example.com:8443/", DENY, 0, "", NULL, 1, "/"},
    {"http://example.com", DENY, 0, "", NULL, 1, "/"},
    {"http://example.com?x", DENY, 0, "", "x", 1, "/"},
    {"http:///a", DENY, 400, NULL, NULL, 0, NULL},
    {"ftp://example.com/a", DENY, 400, NULL, NULL, 0, NULL},
    /* authority-form and others */
    {"example.com:443", DENY, 400, NULL, NULL, 0, NULL},
    {"a/b", DENY, 400, NULL, NULL, 0, NULL},
    {"", DENY, 400, NULL, NULL, 0, NULL},
    /* asterisk-form only for OPTIONS */
    {"*", DENY, 400, NULL, NULL, 0, NULL},
    {"*", DENY | OPT, 0, "", NULL, 0, "*"},
    {"/*", DENY, 0, "*", NULL, 0, "/*"},
    /* dotfiles */
    {"/.git/config", DENY, 404, NULL, NULL, 0, NULL},
    {"/a/.env", DENY, 404, NULL, NULL, 0, NULL},
    {"/%2egit", DENY, 404, NULL, NULL, 0, NULL},
    {"/a/.", DENY, 0, "a/.", NULL, 0, "/a/."},
    {"/a/..", DENY, 0, "a/..", NULL, 0, "/a/.."},
    {"/a/...", DENY, 404, NULL, NULL, 0, NULL},
    {"/.well-known/acme", DENY, 0, ".well-known/acme", NULL, 0,
     "/.well-known/acme"},
    {"/.well-known/.x", DENY, 404, NULL, NULL, 0, NULL},
    {"/a/.well-known/x", DENY, 404, NULL, NULL, 0, NULL},
    {"/.well-knownx", DENY, 404, NULL, NULL, 0, NULL},
    {"/.git/config", 0, 0, ".git/config", NULL, 0, "/.git/config"},
    {"/a.b/c", DENY, 0, "a.b/c", NULL, 0, "/a.b/c"},
};

LOOP_TEST(decode_case, cases)
{
    char buf[256];
    struct target t;
    int r = target_decode(cases[_i].raw, cases[_i].flags, buf, sizeof buf, &t);

    ck_assert_msg(r == cases[_i].status, "%s: status %d, want %d",
                  cases[_i].raw, r, cases[_i].status);
    if (r != 0)
        return;
    ck_assert_str_eq(t.path, cases[_i].path);
    if (cases[_i].query)
        ck_assert_str_eq(t.query, cases[_i].query);
    else
        ck_assert_ptr_null(t.query);
    ck_assert_int_eq(t.slash, cases[_i].slash);
    ck_assert_uint_eq(t.raw_path_len, strlen(cases[_i].raw_path));
    ck_assert_int_eq(memcmp(t.raw_path, cases[_i].raw_path, t.raw_path_len), 0);
}
END_TEST

START_TEST(buffer_too_small)
{
    char buf[4];
    struct target t;

    ck_assert_int_eq(target_decode("/abcd", 0, buf, sizeof buf, &t), 400);
    ck_assert_int_eq(target_decode("/abc", 0, buf, sizeof buf, &t), 400);
    ck_assert_int_eq(target_decode("/ab", 0, buf, sizeof buf, &t), 0);
    ck_assert_str_eq(t.path, "ab");
}
END_TEST

/* The authority of an absolute-form target, which overrides Host (RFC
 * 9112 3.2.2). */
static const struct {
    const char *target;
    int ret;
    const char *want;
} targets[] = {
    {"/a/b", -ENOENT, NULL},
    {"*", -ENOENT, NULL},
    {"http://Docs.Example.com/a", 0, "docs.example.com"},
    {"HTTPS://docs.example.com:8443?x", 0, "docs.example.com"},
    {"http://[::1]:8080/", 0, "[::1]"},
    {"http:///a", -EINVAL, NULL},
    {"http://u@docs.example.com/", -EINVAL, NULL},
    {"http://docs..example.com/", -EINVAL, NULL},
};

LOOP_TEST(host_case, targets)
{
    char out[HOST_MAX];

    ck_assert_int_eq(target_host(targets[_i].target, out), targets[_i].ret);
    if (targets[_i].want)
        ck_assert_str_eq(out, targets[_i].want);
}
END_TEST

const struct check_main check_main = {
    .suite = "target",
    .tcases = {
        {"decode", .loops = {LOOP(decode_case)}, .tests = {&buffer_too_small}},
        {"host", .loops = {LOOP(host_case)}}}};
