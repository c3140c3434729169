// SPDX-License-Identifier: MIT
/* test_target.c - strict request-target decoding. */
#include "check_main.h"
#include "target.h"

#include <stdlib.h>
#include <string.h>

#define DENY TARGET_DENY_DOTFILES
#define OPT TARGET_OPTIONS

static const struct {
    const char *raw;
    unsigned flags;
    const char *path;  /* decoded */
    const char *query; /* NULL: no '?' */
    int slash;
    const char *raw_path; /* the redirect base */
} cases[] = {
    /* origin-form */
    {"/", DENY, "", NULL, 1, "/"},
    {"/index.html", DENY, "index.html", NULL, 0, "/index.html"},
    {"/a/b/", DENY, "a/b/", NULL, 1, "/a/b/"},
    {"/a/b?x=1&y", DENY, "a/b", "x=1&y", 0, "/a/b"},
    {"/a?", DENY, "a", "", 0, "/a"},
    {"/caf%C3%A9", DENY, "caf\xc3\xa9", NULL, 0, "/caf%C3%A9"},
    {"/a%20b", DENY, "a b", NULL, 0, "/a%20b"},
    {"/a%2fb", DENY, "a/b", NULL, 0, "/a%2fb"},
    {"/a%2500", DENY, "a%00", NULL, 0, "/a%2500"},
    {"/a?q=%zz", DENY, "a", "q=%zz", 0, "/a"},
    /* no ".." or symlink handling: the resolver decides */
    {"/../etc/passwd", DENY, "../etc/passwd", NULL, 0, "/../etc/passwd"},
    {"/%2e%2e/x", DENY, "../x", NULL, 0, "/%2e%2e/x"},
    {"//etc/passwd", DENY, "/etc/passwd", NULL, 0, "/etc/passwd"},
    {"///evil.com/", DENY, "//evil.com/", NULL, 1, "/evil.com/"},
    {"/a/./b/../c", DENY, "a/./b/../c", NULL, 0, "/a/./b/../c"},
    /* absolute-form: the path is taken */
    {"http://example.com/a/b?q", DENY, "a/b", "q", 0, "/a/b"},
    {"HTTPS://example.com:8443/", DENY, "", NULL, 1, "/"},
    {"http://example.com", DENY, "", NULL, 1, "/"},
    {"http://example.com?x", DENY, "", "x", 1, "/"},
    /* asterisk-form only for OPTIONS */
    {"*", DENY | OPT, "", NULL, 0, "*"},
    {"/*", DENY, "*", NULL, 0, "/*"},
    /* not dotfiles; and a dotfile when they are not denied */
    {"/a/.", DENY, "a/.", NULL, 0, "/a/."},
    {"/a/..", DENY, "a/..", NULL, 0, "/a/.."},
    {"/.well-known/acme", DENY, ".well-known/acme", NULL, 0,
     "/.well-known/acme"},
    {"/.git/config", 0, ".git/config", NULL, 0, "/.git/config"},
    {"/a.b/c", DENY, "a.b/c", NULL, 0, "/a.b/c"},
};

/* Refused with 400: bad escapes, NUL and control bytes, a fragment. */
static const char *const bad_bytes[] = {
    "/a%00b.html", "/a%0ab", "/a%7Fb", "/a%1", "/a%",     "/a%zz",
    "/a%g0",       "/a\tb",  "/a\x7f", "/a b", "/a#frag", "/a?b\x01",
};

/* Refused with 400: not origin- or absolute-form ('*' is for OPTIONS). */
static const char *const bad_forms[] = {
    "http:///a", "ftp://example.com/a", "example.com:443", "a/b", "", "*",
};

/* Refused with 404 under TARGET_DENY_DOTFILES: a dotfile on the way. */
static const char *const dotfiles[] = {
    "/.git/config",    "/a/.env",          "/%2egit",       "/a/...",
    "/.well-known/.x", "/a/.well-known/x", "/.well-knownx",
};

START_TEST(decode_case)
{
    char buf[256];
    struct target t;
    int r = target_decode(cases[_i].raw, cases[_i].flags, buf, sizeof buf, &t);

    ck_assert_msg(r == 0, "%s: status %d", cases[_i].raw, r);
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

/* target_decode of @raw (with dotfiles denied) gives @status. */
static void refused(const char *raw, int status)
{
    char buf[256];
    struct target t;
    int r = target_decode(raw, DENY, buf, sizeof buf, &t);

    ck_assert_msg(r == status, "%s: status %d, want %d", raw, r, status);
}

START_TEST(bad_bytes_case)
{
    refused(bad_bytes[_i], 400);
}
END_TEST

START_TEST(bad_form_case)
{
    refused(bad_forms[_i], 400);
}
END_TEST

START_TEST(dotfile_case)
{
    refused(dotfiles[_i], 404);
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

const struct check_main check_main = {
    .suite = "target",
    .tcases = {{"decode", .loops = {{&decode_case, N_ELEMS(cases)}},
                .tests = {&buffer_too_small}},
               {"refused", .loops = {{&bad_bytes_case, N_ELEMS(bad_bytes)},
                                     {&bad_form_case, N_ELEMS(bad_forms)},
                                     {&dotfile_case, N_ELEMS(dotfiles)}}}}};
