// SPDX-License-Identifier: MIT
/* test_range.c - Range parsing and If-Range. */
#include "check_main.h"
#include "range.h"

#include <stdlib.h>

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
    /* ignored: whole file */
    {"bytes=5-4", 100, RANGE_NONE, 0, 0},
    {"bytes=0-1,5-6", 100, RANGE_NONE, 0, 0},
    {"bytes=0-1, 200-300", 100, RANGE_NONE, 0, 0},
    {"items=0-1", 100, RANGE_NONE, 0, 0},
    {"bytes=", 100, RANGE_NONE, 0, 0},
    {"bytes=-", 100, RANGE_NONE, 0, 0},
    {"bytes=a-b", 100, RANGE_NONE, 0, 0},
    {"bytes=1-2x", 100, RANGE_NONE, 0, 0},
    {"bytes=--1", 100, RANGE_NONE, 0, 0},
    {"bytes 0-1", 100, RANGE_NONE, 0, 0},
    {"", 100, RANGE_NONE, 0, 0},
};

START_TEST(range_case)
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

static const struct {
    const char *if_range;
    int want;
} if_range_cases[] = {
    {NULL, 1},
    {ETAG, 1},
    {"W/" ETAG, 0},
    {"\"other\"", 0},
    {"Sun, 06 Nov 1994 08:49:37 GMT", 1},
    {"Sun, 06 Nov 1994 08:49:38 GMT", 0},
    {"Sun, 06 Nov 1994 08:49:36 GMT", 0},
    {"garbage", 0},
};

START_TEST(if_range_case)
{
    ck_assert_int_eq(range_if_range(if_range_cases[_i].if_range, ETAG, MTIME),
                     if_range_cases[_i].want);
}
END_TEST

const struct check_main check_main = {
    .suite = "range",
    .tcases = {
        {"parse", .loops = {{&range_case, N_ELEMS(cases)},
                            {&if_range_case, N_ELEMS(if_range_cases)}}}}};
