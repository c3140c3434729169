/* SPDX-License-Identifier: MIT */
/* test_urlpath.c - lexical normalisation, percent-encoding, glob sets. */
#include "cases.h"
#include "check_main.h"
#include "syntax/glob.h"
#include "syntax/urlpath.h"

#include <errno.h>
#include <string.h>

static const struct {
    const char *path;
    bool slash;
    const char *want;
} norm[] = {
    {"", true, "/"},
    {"a", false, "/a"},
    {"a/b", false, "/a/b"},
    {"a/b/", true, "/a/b/"},
    {"a//b", false, "/a/b"},
    {"./a/./b", false, "/a/b"},
    {"a/../b", false, "/b"},
    {"a/b/../../c", false, "/c"},
    {"../../private/x", false, "/private/x"},
    {"public/../private/x", false, "/private/x"},
    {"a/..", true, "/"},
    {"a/../", true, "/"},
    {"..", false, "/"},
    {"...", false, "/..."},
    {"a/.b/..c", false, "/a/.b/..c"},
    {"private/", true, "/private/"},
};

LOOP_TEST(normalize_case, norm)
{
    char out[64];

    ck_assert_int_eq(
        urlpath_normalize(norm[_i].path, norm[_i].slash, out, sizeof out), 0);
    ck_assert_str_eq(out, norm[_i].want);
}
END_TEST

START_TEST(normalize_small)
{
    char out[4];

    ck_assert_int_eq(urlpath_normalize("abc", false, out, sizeof out),
                     -ENAMETOOLONG);
}
END_TEST

START_TEST(encode)
{
    char out[64];

    ck_assert_uint_eq(urlpath_encode("a b/c", 5, true, out, sizeof out), 7);
    ck_assert_str_eq(out, "a%20b/c");
    urlpath_encode("a b/c", 5, false, out, sizeof out);
    ck_assert_str_eq(out, "a%20b%2Fc");
    urlpath_encode("caf\xc3\xa9?#%", 8, true, out, sizeof out);
    ck_assert_str_eq(out, "caf%C3%A9%3F%23%25");
    urlpath_encode("-._~!$&'()*+,;=:@", 17, true, out, sizeof out);
    ck_assert_str_eq(out, "-._~!$&'()*+,;=:@");
    /* cut only between whole escapes */
    ck_assert_uint_eq(urlpath_encode("ab cd", 5, true, out, 4), 7);
    ck_assert_str_eq(out, "ab");
}
END_TEST

/* A glob list and a path it matches or not. */
static const struct match_case globs[] = {
    {"/**", "", 1},
    {"/**", "a/b/c.html", 1},
    {"private/**", "private", 1},
    {"private/**", "private/a/b", 1},
    {"private/**", "public/a", 0},
    {"/private/**", "privatex/a", 0},
    {"*.pdf, drafts/*", "a/b/c.pdf", 1},
    {"*.pdf, drafts/*", "drafts/x.html", 1},
    {"*.pdf, drafts/*", "drafts/a/x.html", 0},
};

LOOP_TEST(glob_case, globs)
{
    struct glob_set s;
    char err[128];

    ck_assert_int_eq(glob_set_parse(&s, globs[_i].rules,
                                    strlen(globs[_i].rules), err, sizeof err),
                     0);
    ck_assert_msg(glob_set_match(&s, globs[_i].subject) == globs[_i].want,
                  "%s on %s", globs[_i].rules, globs[_i].subject);
    glob_set_free(&s);
}
END_TEST

START_TEST(glob_errors)
{
    struct glob_set s;
    char err[128];

    ck_assert_int_eq(glob_set_parse(&s, "a,,b", 4, err, sizeof err), -EINVAL);
    ck_assert_str_eq(err, "empty glob");
    ck_assert_int_eq(glob_set_parse(&s, "a/b**", 5, err, sizeof err), -EINVAL);
    ck_assert_str_eq(err, "bad glob component \"b**\" (\"**\" must be a whole "
                          "component; '[' needs a ']')");
    ck_assert_int_eq(glob_set_parse(&s, "", 0, err, sizeof err), -EINVAL);
}
END_TEST

/* --mount's URL prefixes: what is one, and what is beneath it. */
static const struct spec_case prefixes[] = {
    {"/_static", NULL},
    {"/_static/js", NULL},
    {"/a b/..c/x.y", NULL},
    {"/", "'/': a URL prefix starts with '/' and names a path below the root"},
    {"", "'': a URL prefix starts with '/'"},
    {"_static", "'_static': a URL prefix starts with '/'"},
    {"/_static/", "'/_static/': a URL prefix has no trailing '/'"},
    {"//a", "'//a': a URL prefix has no empty, '.' or '..' components"},
    {"/a//b", "a URL prefix has no empty, '.' or '..' components"},
    {"/a/./b", "a URL prefix has no empty, '.' or '..' components"},
    {"/a/..", "a URL prefix has no empty, '.' or '..' components"},
    {"/a/../b", "a URL prefix has no empty, '.' or '..' components"},
    {"/a\tb", "a URL prefix has no control bytes"},
};

LOOP_TEST(prefix_case, prefixes)
{
    char err[256] = "";
    const char *p = prefixes[_i].spec;
    int r = urlpath_prefix_check(p, strlen(p), err, sizeof err);

    if (prefixes[_i].err)
        ck_assert_msg(r == -EINVAL && strstr(err, prefixes[_i].err),
                      "'%s': %d %s", p, r, err);
    else
        ck_assert_msg(r == 0, "'%s': %s", p, err);
}
END_TEST

static const struct match_case beneath[] = {
    {"/_static", "/_static", 1},         {"/_static", "/_static/", 1},
    {"/_static", "/_static/js/a.js", 1}, {"/_static", "/_staticx", 0},
    {"/_static", "/_stati", 0},          {"/_static", "/", 0},
    {"/_static/js", "/_static/js/x", 1}, {"/_static/js", "/_static", 0},
};

LOOP_TEST(beneath_case, beneath)
{
    const char *p = beneath[_i].rules;

    ck_assert_int_eq(urlpath_beneath(p, strlen(p), beneath[_i].subject),
                     beneath[_i].want);
}
END_TEST

const struct check_main check_main = {
    .suite = "urlpath",
    .tcases = {{"urlpath",
                .loops = {LOOP(normalize_case), LOOP(glob_case),
                          LOOP(prefix_case), LOOP(beneath_case)},
                .tests = {&normalize_small, &encode, &glob_errors}}}};
