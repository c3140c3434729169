/* SPDX-License-Identifier: MIT */
/* test_cache_rules.c - Cache-Control rule parsing and glob matching. */
#include "cases.h"
#include "check_main.h"
#include "syntax/cache_rules.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LONG "max-age=31536000, immutable"

/* One rule set for all match cases: first match wins, then the default. */
static const char *const rules[] = {
    "*.html=no-cache",           ("*.css, *.js=" LONG),
    "assets/**=max-age=600",     "/img/*/thumb-?.png=max-age=60",
    "docs/**/index.htm=private", "fonts/[a-c]*.woff2=max-age=99",
};

/* A path and the Cache-Control value the rules give it. */
static const struct text_case match_cases[] = {
    {"index.html", "no-cache"},
    {"a/b/c/page.html", "no-cache"},
    {"site.css", LONG},
    {"deep/er/app.js", LONG},
    {"assets/app.js", LONG}, /* an earlier rule matches first */
    {"assets/logo.svg", "max-age=600"},
    {"assets/a/b/c/logo.svg", "max-age=600"},
    {"assets", "max-age=600"},
    {"assetsx/logo.svg", "default"},
    {"x/assets/logo.svg", "default"},
    {"img/a/thumb-1.png", "max-age=60"},
    {"img/a/thumb-12.png", "default"},
    {"img/a/b/thumb-1.png", "default"}, /* '*' does not cross '/' */
    {"img/thumb-1.png", "default"},
    {"docs/index.htm", "private"},
    {"docs/a/b/index.htm", "private"},
    {"docs/a/b/xindex.htm", "default"},
    {"fonts/b.woff2", "max-age=99"},
    {"fonts/d.woff2", "default"},
    {"css", "default"},
    {".css", LONG},
    {"a.css.map", "default"},
    {"a//b.css", LONG},
    {"", "default"},
};

LOOP_TEST(match_case, match_cases)
{
    struct cache_rules r = {0};
    char err[128];
    const char *got;

    for (size_t i = 0; i < N_ELEMS(rules); i++)
        ck_assert_msg(cache_rules_add(&r, rules[i], err, sizeof(err)) == 0,
                      "%s: %s", rules[i], err);
    ck_assert_int_eq(cache_rules_set_default(&r, "default", err, sizeof(err)),
                     0);
    got = cache_rules_match(&r, match_cases[_i].in);
    ck_assert_msg(got != NULL && strcmp(got, match_cases[_i].want) == 0,
                  "%s -> %s, want %s", match_cases[_i].in, got ? got : "(none)",
                  match_cases[_i].want);
    cache_rules_free(&r);
}
END_TEST

START_TEST(no_default)
{
    struct cache_rules r = {0};

    ck_assert_int_eq(cache_rules_add(&r, "*.css=max-age=1", NULL, 0), 0);
    ck_assert_ptr_null(cache_rules_match(&r, "a.js"));
    ck_assert_int_eq(cache_rules_set_default(&r, "no-store", NULL, 0), 0);
    ck_assert_str_eq(cache_rules_match(&r, "a.js"), "no-store");
    ck_assert_int_eq(cache_rules_set_default(&r, "", NULL, 0), 0);
    ck_assert_ptr_null(cache_rules_match(&r, "a.js"));
    cache_rules_free(&r);
    cache_rules_free(&r); /* idempotent */
    cache_rules_free(NULL);
}
END_TEST

/* Refused; err is a word the message must contain. */
static const struct spec_case bad_cases[] = {
    {"*.css", "GLOB"},
    {"=max-age=1", "empty glob"},
    {"*.css,=max-age=1", "empty glob"},
    {"*.css, ,*.js=max-age=1", "empty glob"},
    {"*.css=", "empty"},
    {"*.css=   ", "empty"},
    {"*.css=max-age=1\r\nSet-Cookie: x", "control"},
    {"*.css=a\tb\x7f", "control"},
    {"a**b=max-age=1", "**"},
    {"assets/x**/y=max-age=1", "**"},
    {"[abc=max-age=1", "]"},
    {"/=max-age=1", "empty glob"},
    {"///=max-age=1", "empty glob"},
};

LOOP_TEST(bad_case, bad_cases)
{
    struct cache_rules r = {0};
    char err[160] = "";
    int ret = cache_rules_add(&r, bad_cases[_i].spec, err, sizeof err);

    cases_check_refused(&bad_cases[_i], ret, err);
    ck_assert_uint_eq(r.n, 0);
    cache_rules_free(&r);
}
END_TEST

START_TEST(value_kept_verbatim)
{
    struct cache_rules r = {0};

    ck_assert_int_eq(
        cache_rules_add(&r, "*.js=public, max-age=10, s-maxage=20", NULL, 0),
        0);
    ck_assert_str_eq(cache_rules_match(&r, "x.js"),
                     "public, max-age=10, s-maxage=20");
    ck_assert_int_eq(cache_rules_set_default(&r, "a\nb", NULL, 0), -EINVAL);
    ck_assert_int_eq(cache_rules_value_check("max-age=0"), 0);
    ck_assert_int_eq(cache_rules_value_check(""), -EINVAL);
    cache_rules_free(&r);
}
END_TEST

const struct check_main check_main = {
    .suite = "cache_rules",
    .tcases = {{"core", .loops = {LOOP(match_case), LOOP(bad_case)},
                .tests = {&no_default, &value_kept_verbatim}}}};
