// SPDX-License-Identifier: MIT
/* test_date.c - HTTP date formatting and the three accepted forms. */
#include "check_main.h"
#include "http/date.h"

#include <errno.h>
#include <stdlib.h>

/* 784111777 = Sun, 06 Nov 1994 08:49:37 GMT (RFC 9110's example). */
static const struct {
    const char *s;
    int ok;
    time_t want;
} cases[] = {
    {"Sun, 06 Nov 1994 08:49:37 GMT", 1, 784111777},
    {"Sunday, 06-Nov-94 08:49:37 GMT", 1, 784111777},
    {"Sun Nov  6 08:49:37 1994", 1, 784111777},
    {"  Sun, 06 Nov 1994 08:49:37 GMT  ", 1, 784111777},
    {"Thu, 01 Jan 1970 00:00:00 GMT", 1, 0},
    {"Tue, 29 Feb 2000 12:00:00 GMT", 1, 951825600},
    {"Sun Nov 16 08:49:37 1994", 1, 784975777},
    {"Sun, 06 Nov 1994 08:49:37 UTC", 0, 0},
    {"Sun, 6 Nov 1994 08:49:37 GMT", 0, 0},
    {"Sun, 06 Nov 94 08:49:37 GMT", 0, 0},
    {"Sun, 06 Foo 1994 08:49:37 GMT", 0, 0},
    {"Sun, 31 Feb 1994 08:49:37 GMT", 0, 0},
    {"Mon, 29 Feb 1900 00:00:00 GMT", 0, 0},
    {"Sun, 06 Nov 1994 24:00:00 GMT", 0, 0},
    {"Sun, 06 Nov 1994 08:60:00 GMT", 0, 0},
    {"Sun, 06 Nov 1994 08:49:37 GMT x", 0, 0},
    {"Sun, 06 Nov 1994 08:49 GMT", 0, 0},
    {"Xyz, 06 Nov 1994 08:49:37 GMT", 0, 0},
    {"1994-11-06T08:49:37Z", 0, 0},
    {"", 0, 0},
    {"Sun", 0, 0},
    {"Sun Nov 6 08:49:37 1994", 0, 0},
};

LOOP_TEST(parse_case, cases)
{
    time_t t = -1;
    int r = date_parse(cases[_i].s, &t);

    if (cases[_i].ok) {
        ck_assert_int_eq(r, 0);
        ck_assert_int_eq((long long)t, (long long)cases[_i].want);
    } else {
        ck_assert_int_eq(r, -EINVAL);
    }
}
END_TEST

START_TEST(format_round_trip)
{
    static const time_t ts[] = {0, 784111777, 951825600, 1764745600,
                                253402300799};
    char buf[DATE_LEN];
    time_t back;

    for (size_t i = 0; i < N_ELEMS(ts); i++) {
        date_format(ts[i], buf);
        ck_assert_int_eq(date_parse(buf, &back), 0);
        ck_assert_int_eq((long long)back, (long long)ts[i]);
    }
    date_format(784111777, buf);
    ck_assert_str_eq(buf, "Sun, 06 Nov 1994 08:49:37 GMT");
}
END_TEST

const struct check_main check_main = {
    .suite = "date",
    .tcases = {
        {"parse", .loops = {LOOP(parse_case)}, .tests = {&format_round_trip}}}};
