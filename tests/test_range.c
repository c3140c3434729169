// SPDX-License-Identifier: MIT
/* test_range.c - Range parsing and If-Range. */
#include "cases.h"
#include "check_main.h"
#include "http/range.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *hdr;
    uint64_t size;
    enum range_result want;
    uint64_t start, len;
} cases[] = {
    {"bytes=0-0", 100, RANGE_SINGLE, 0, 1},
    {"bytes=0-99", 100, RANGE_SINGLE, 0, 100},
    {"bytes=10-19", 100, RANGE_SINGLE, 10, 10},
    {"bytes=10-", 100, RANGE_SINGLE, 10, 90},
    {"bytes=90-500", 100, RANGE_SINGLE, 90, 10},
    {"bytes=99-", 100, RANGE_SINGLE, 99, 1},
    {"bytes=-10", 100, RANGE_SINGLE, 90, 10},
    {"bytes=-100", 100, RANGE_SINGLE, 0, 100},
    {"bytes=-1000", 100, RANGE_SINGLE, 0, 100},
    {" bytes = 5-6 ", 100, RANGE_SINGLE, 5, 2},
    {"Bytes=5-6", 100, RANGE_SINGLE, 5, 2},
    {"bytes=0-99999999999999999999999", 100, RANGE_SINGLE, 0, 100},
    /* unsatisfiable */
    {"bytes=100-", 100, RANGE_UNSATISFIABLE, 0, 0},
    {"bytes=100-200", 100, RANGE_UNSATISFIABLE, 0, 0},
    {"bytes=99999999999999999999999-", 100, RANGE_UNSATISFIABLE, 0, 0},
    {"bytes=-0", 100, RANGE_UNSATISFIABLE, 0, 0},
    {"bytes=0-", 0, RANGE_UNSATISFIABLE, 0, 0},
    {"bytes=-5", 0, RANGE_UNSATISFIABLE, 0, 0},
    /* several specs that coalesce into one part: one range */
    {"bytes=0-1, 200-300", 100, RANGE_SINGLE, 0, 2},
    {"bytes=0-9,5-14", 100, RANGE_SINGLE, 0, 15},
    {"bytes=0-9,10-19", 100, RANGE_SINGLE, 0, 20},
    {"bytes=0-9,17-19", 100, RANGE_SINGLE, 0, 20},
    /* several parts: range_parse sends the whole file */
    {"bytes=0-1,50-60", 100, RANGE_NONE, 0, 0},
    {"bytes=0-1,5-6", 100, RANGE_SINGLE, 0, 7},
    /* ignored: whole file */
    {"bytes=5-4", 100, RANGE_NONE, 0, 0},
    {"items=0-1", 100, RANGE_NONE, 0, 0},
    {"bytes=", 100, RANGE_NONE, 0, 0},
    {"bytes=-", 100, RANGE_NONE, 0, 0},
    {"bytes=a-b", 100, RANGE_NONE, 0, 0},
    {"bytes=1-2x", 100, RANGE_NONE, 0, 0},
    {"bytes=--1", 100, RANGE_NONE, 0, 0},
    {"bytes 0-1", 100, RANGE_NONE, 0, 0},
    {"", 100, RANGE_NONE, 0, 0},
};

LOOP_TEST(range_case, cases)
{
    uint64_t start = 0, len = 0;
    enum range_result r =
        range_parse(cases[_i].hdr, cases[_i].size, &start, &len);

    ck_assert_msg(r == cases[_i].want, "%s: %d, want %d", cases[_i].hdr, r,
                  cases[_i].want);
    if (r == RANGE_SINGLE) {
        ck_assert_uint_eq(start, cases[_i].start);
        ck_assert_uint_eq(len, cases[_i].len);
    }
}
END_TEST

#define ETAG "\"abc-10\""
#define MTIME 784111777

/* An If-Range field (NULL: none) and whether the range is honoured. */
static const struct pred_case if_range_cases[] = {
    {NULL, true},
    {ETAG, true},
    {"W/" ETAG, false},
    {"\"other\"", false},
    {"Sun, 06 Nov 1994 08:49:37 GMT", true},
    {"Sun, 06 Nov 1994 08:49:38 GMT", false},
    {"Sun, 06 Nov 1994 08:49:36 GMT", false},
    {"garbage", false},
};

/* range_plan: the parts, in order; "" for none. */
#define P(a, b) "," #a "-" #b
static const struct {
    const char *hdr;
    uint64_t size;
    enum range_result want;
    const char *parts; /* ",a-b" per part, inclusive */
} plans[] = {
    {"bytes=0-9,20-29", 100, RANGE_MULTI, P(0, 9) P(20, 29)},
    {"bytes=0-9, 20-29 ,40-", 100, RANGE_MULTI, P(0, 9) P(20, 29) P(40, 99)},
    {"bytes=0-0,-1", 100, RANGE_MULTI, P(0, 0) P(99, 99)},
    /* empty list elements are allowed (RFC 9110 5.6.1) */
    {"bytes=,0-9,,20-29,", 100, RANGE_MULTI, P(0, 9) P(20, 29)},
    /* the order asked for is kept (RFC 9110 15.3.7.2) */
    {"bytes=50-59,0-9", 100, RANGE_MULTI, P(50, 59) P(0, 9)},
    {"bytes=50-59,0-9,20-24,55-69", 100, RANGE_MULTI,
     P(50, 69) P(0, 9) P(20, 24)},
    {"bytes=80-89,0-9,5-84", 200, RANGE_SINGLE, P(0, 89)},
    /* coalescing: overlapping, adjacent, a gap below RANGE_GAP (8) */
    {"bytes=0-9,5-14", 100, RANGE_SINGLE, P(0, 14)},
    {"bytes=0-9,10-19", 100, RANGE_SINGLE, P(0, 19)},
    {"bytes=0-9,17-19", 100, RANGE_SINGLE, P(0, 19)},
    {"bytes=0-9,18-19", 100, RANGE_MULTI, P(0, 9) P(18, 19)},
    {"bytes=10-19,0-9", 100, RANGE_SINGLE, P(0, 19)},
    {"bytes=0-0,0-0,0-0", 100, RANGE_SINGLE, P(0, 0)},
    {"bytes=0-9,2-3,-91", 200, RANGE_MULTI, P(0, 9) P(109, 199)},
    /* unsatisfiable specs beside satisfiable ones are left out */
    {"bytes=0-9,200-300,20-29", 100, RANGE_MULTI, P(0, 9) P(20, 29)},
    {"bytes=200-300,-0,20-29", 100, RANGE_SINGLE, P(20, 29)},
    {"bytes=200-300,-0", 100, RANGE_UNSATISFIABLE, ""},
    {"bytes=0-1,2-3", 0, RANGE_UNSATISFIABLE, ""},
    /* more bytes than the file: the whole file once */
    {"bytes=0-,0-", 100, RANGE_NONE, ""},
    {"bytes=0-50,50-99", 100, RANGE_NONE, ""},
    {"bytes=0-49,50-99", 100, RANGE_SINGLE, P(0, 99)},
    {"bytes=-60,0-40", 100, RANGE_NONE, ""},
    /* a syntax error anywhere: the whole field is ignored */
    {"bytes=0-9,x", 100, RANGE_NONE, ""},
    {"bytes=0-9,9-5", 100, RANGE_NONE, ""},
    {"bytes=0-9;20-29", 100, RANGE_NONE, ""},
    {"bytes=0-9 20-29", 100, RANGE_NONE, ""},
    {"bytes=,", 100, RANGE_NONE, ""},
    {"bytes=0-9,-", 100, RANGE_NONE, ""},
};
#undef P

LOOP_TEST(plan_case, plans)
{
    struct range_set s;
    char got[512] = "";
    enum range_result r = range_plan(plans[_i].hdr, plans[_i].size, &s);

    for (size_t i = 0; i < s.n; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), ",%llu-%llu",
                 (unsigned long long)s.v[i].start,
                 (unsigned long long)(s.v[i].start + s.v[i].len - 1));
    ck_assert_msg(r == plans[_i].want, "%s: %d, want %d", plans[_i].hdr, r,
                  plans[_i].want);
    ck_assert_msg(strcmp(got, plans[_i].parts) == 0,
                  "%s: parts '%s', want '%s'", plans[_i].hdr, got,
                  plans[_i].parts);
}
END_TEST

/* "bytes=" and @n specs made by @spec(i), into a malloc'ed string. */
static char *many(size_t n, int (*spec)(char *, size_t, size_t))
{
    size_t cap = 16 + n * 48, len = 6;
    char *s = malloc(cap);

    ck_assert_ptr_nonnull(s);
    memcpy(s, "bytes=", 7);
    for (size_t i = 0; i < n; i++)
        len += (size_t)spec(s + len, cap - len, i);
    return s;
}

static int spaced(char *out, size_t cap, size_t i)
{
    return snprintf(out, cap, "%s%zu-%zu", i ? "," : "", i * 100, i * 100);
}

static int overlapping(char *out, size_t cap, size_t i)
{
    return snprintf(out, cap, "%s%zu-", i ? "," : "", i);
}

static int same(char *out, size_t cap, size_t i)
{
    return snprintf(out, cap, "%s0-0", i ? "," : "");
}

/* The bounds against many-range requests (CVE-2011-3192). */
START_TEST(plan_bounds)
{
    struct range_set s;
    char *h;

    /* 16 parts: served; 17: the whole file */
    h = many(RANGE_MAX_PARTS, spaced);
    ck_assert_int_eq(range_plan(h, 1000000, &s), RANGE_MULTI);
    ck_assert_uint_eq(s.n, RANGE_MAX_PARTS);
    free(h);
    h = many(RANGE_MAX_PARTS + 1, spaced);
    ck_assert_int_eq(range_plan(h, 1000000, &s), RANGE_NONE);
    ck_assert_uint_eq(s.n, 0);
    free(h);
    /* 128 specs that coalesce into one part: served; 129: ignored */
    h = many(RANGE_MAX_SPECS, same);
    ck_assert_int_eq(range_plan(h, 1000, &s), RANGE_SINGLE);
    free(h);
    h = many(RANGE_MAX_SPECS + 1, same);
    ck_assert_int_eq(range_plan(h, 1000, &s), RANGE_NONE);
    free(h);
    /* Apache Killer: 0-,1-,2-,... adds up past the file at once */
    h = many(1300, overlapping);
    ck_assert_int_eq(range_plan(h, 1 << 20, &s), RANGE_NONE);
    free(h);
    /* 10,000 specs: ignored, in time linear in the field */
    h = many(10000, spaced);
    ck_assert_int_eq(range_plan(h, 1 << 30, &s), RANGE_NONE);
    free(h);
}
END_TEST

LOOP_TEST(if_range_case, if_range_cases)
{
    ck_assert_int_eq(range_if_range(if_range_cases[_i].in, ETAG, MTIME),
                     if_range_cases[_i].want);
}
END_TEST

const struct check_main check_main = {
    .suite = "range",
    .tcases = {
        {"parse",
         .loops = {LOOP(range_case), LOOP(plan_case), LOOP(if_range_case)},
         .tests = {&plan_bounds}}}};
