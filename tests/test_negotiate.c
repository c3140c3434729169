/* SPDX-License-Identifier: MIT */
/* test_negotiate.c - Accept-Encoding parsing and sidecar order, by table. */
#include "check_main.h"
#include "http/negotiate.h"
#include "syntax/coding.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const enum coding all[] = {CODING_BR, CODING_ZSTD, CODING_GZIP};
static const enum coding gz_first[] = {CODING_GZIP, CODING_BR, CODING_ZSTD};

/* want: the order tried, as "br,zstd,gzip" tokens; "" = plain file. */
static const struct {
    const char *header; /* NULL: no header */
    const enum coding *prefs;
    size_t n_prefs;
    const char *want;
} cases[] = {
    {NULL, all, 3, ""},
    {"", all, 3, ""},
    {"gzip", all, 3, "gzip"},
    {"br", all, 3, "br"},
    {"br;q=0", all, 3, ""},
    {"br;q=0, gzip", all, 3, "gzip"},
    {"gzip, deflate, br, zstd", all, 3, "br,zstd,gzip"},
    {"gzip, deflate, br, zstd", gz_first, 3, "gzip,br,zstd"},
    {"gzip;q=0.5, br;q=0.9", all, 3, "br,gzip"},
    {"gzip;q=0.5, br;q=0.9", gz_first, 3, "br,gzip"},
    {"gzip, br;q=0.9", all, 3, "gzip,br"},
    {"*", all, 3, "br,zstd,gzip"},
    {"*;q=0", all, 3, ""},
    {"*;q=0, gzip", all, 3, "gzip"},
    {"br;q=0, *", all, 3, "zstd,gzip"},
    {"*, br;q=0.1", all, 3, "zstd,gzip"},
    {"*;q=0.1, br;q=0.1", all, 3, "br,zstd,gzip"},
    {"GZIP, Br", all, 3, "br,gzip"},
    {"x-gzip", all, 3, "gzip"},
    {"gzip;Q=0.3", all, 3, "gzip"},
    {"gzip ; q=0.3 , br", all, 3, "br,gzip"},
    {"\tgzip\t;\tq=1.000", all, 3, "gzip"},
    {"gzip;q=1.001", all, 3, ""},
    {"gzip;q=2", all, 3, ""},
    {"gzip;q=0.1234", all, 3, ""},
    {"gzip;q=abc, br", all, 3, "br"},
    {"gzip;level=9, br", all, 3, "br"},
    {"gzip;q=", all, 3, ""},
    {"gzip br", all, 3, ""},
    {",,gzip,,", all, 3, "gzip"},
    {"gzip;q=0.001", all, 3, "gzip"},
    {"gzip;q=0.000", all, 3, ""},
    {"gzip;q=0., br;q=1.", all, 3, "br"},
    {"gzip, gzip;q=0", all, 3, "gzip"},
    {"gzip;q=0, gzip", all, 3, ""},
    {"identity;q=0.5, gzip;q=0.4, br;q=0.6", all, 3, "br"},
    {"identity;q=0, gzip;q=0.1", all, 3, "gzip"},
    {"*;q=0.5, gzip;q=0.2", all, 3, "br,zstd"},
    {"compress, deflate", all, 3, ""},
    {"br, zstd, gzip", all + 2, 1, "gzip"},
    {"br", all + 2, 1, ""},
    {"br", all, 0, ""},
    {"zstd;q=0.8, gzip;q=0.8, br;q=0.7", all, 3, "zstd,gzip,br"},
};

LOOP_TEST(order_case, cases)
{
    struct negotiate_accept a;
    enum coding out[CODING_N];
    char got[64] = "";
    size_t n, len = 0;

    negotiate_parse(cases[_i].header, &a);
    n = negotiate_order(&a, cases[_i].prefs, cases[_i].n_prefs, out);
    ck_assert_uint_le(n, cases[_i].n_prefs);
    for (size_t i = 0; i < n && len < sizeof got; i++)
        len += (size_t)snprintf(got + len, sizeof got - len, "%s%s",
                                i > 0 ? "," : "", coding_token(out[i]));
    ck_assert_msg(strcmp(got, cases[_i].want) == 0,
                  "Accept-Encoding: %s -> \"%s\", want \"%s\"",
                  cases[_i].header ? cases[_i].header : "(none)", got,
                  cases[_i].want);
}
END_TEST

START_TEST(qvalues)
{
    struct negotiate_accept a;

    negotiate_parse("gzip;q=0.5, *;q=0.25", &a);
    ck_assert_int_eq(negotiate_qvalue(&a, CODING_GZIP), 500);
    ck_assert_int_eq(negotiate_qvalue(&a, CODING_BR), 250);
    negotiate_parse("gzip;q=0.05", &a);
    ck_assert_int_eq(negotiate_qvalue(&a, CODING_GZIP), 50);
    ck_assert_int_eq(negotiate_qvalue(&a, CODING_BR), 0);
    ck_assert_int_eq(negotiate_qvalue(&a, CODING_N), 0);
}
END_TEST

START_TEST(names)
{
    ck_assert_str_eq(coding_suffix(CODING_BR), ".br");
    ck_assert_str_eq(coding_suffix(CODING_ZSTD), ".zst");
    ck_assert_str_eq(coding_suffix(CODING_GZIP), ".gz");
    ck_assert_str_eq(coding_token(CODING_ZSTD), "zstd");
}
END_TEST

static const struct {
    const char *list;
    int want; /* count or -EINVAL */
    const char *first;
    const char *bad;
} prefs_cases[] = {
    {"br,zst,gz", 3, "br", NULL},     {"gz,br", 2, "gzip", NULL},
    {"zstd", 1, "zstd", NULL},        {"gzip,zstd,br", 3, "gzip", NULL},
    {"off", 0, NULL, NULL},           {"", -EINVAL, NULL, ""},
    {"br,,gz", -EINVAL, NULL, ",gz"}, {"br,deflate", -EINVAL, NULL, "deflate"},
    {"br,br", -EINVAL, NULL, "br"},   {"br,", -EINVAL, NULL, ""},
    {"br, gz", -EINVAL, NULL, " gz"},
};

LOOP_TEST(prefs_case, prefs_cases)
{
    enum coding out[CODING_N];
    const char *bad = NULL;
    size_t bad_len = 0;
    int n = coding_list_parse(prefs_cases[_i].list, out, &bad, &bad_len);

    ck_assert_int_eq(n, prefs_cases[_i].want);
    if (prefs_cases[_i].first != NULL)
        ck_assert_str_eq(coding_token(out[0]), prefs_cases[_i].first);
    if (prefs_cases[_i].bad != NULL) {
        ck_assert_ptr_nonnull(bad);
        ck_assert_str_eq(bad, prefs_cases[_i].bad + 0);
        ck_assert_uint_eq(bad_len, strcspn(prefs_cases[_i].bad, ","));
    }
}
END_TEST

START_TEST(compressible)
{
    ck_assert(negotiate_compressible("text/html; charset=utf-8"));
    ck_assert(negotiate_compressible("text/css; charset=utf-8"));
    ck_assert(negotiate_compressible("application/json; charset=utf-8"));
    ck_assert(negotiate_compressible("image/svg+xml; charset=utf-8"));
    ck_assert(negotiate_compressible("application/wasm"));
    ck_assert(!negotiate_compressible("image/png"));
    ck_assert(!negotiate_compressible("font/woff2"));
    ck_assert(!negotiate_compressible("application/gzip"));
    ck_assert(!negotiate_compressible("application/octet-stream"));
}
END_TEST

const struct check_main check_main = {
    .suite = "negotiate",
    .tcases = {{"core", .loops = {LOOP(order_case), LOOP(prefs_case)},
                .tests = {&qvalues, &names, &compressible}}}};
