// SPDX-License-Identifier: MIT
/* test_digits.c - digit values of the hex and base64 alphabets, and a
 * number's decimal digits (printf's "%llu", which the reply paths avoid). */
#include "check_main.h"
#include "syntax/digits.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

START_TEST(values)
{
    ck_assert_int_eq(digits_hex('0'), 0);
    ck_assert_int_eq(digits_hex('a'), 10);
    ck_assert_int_eq(digits_hex('F'), 15);
    ck_assert_int_eq(digits_hex('g'), -1);
    ck_assert_int_eq(digits_hex('\0'), -1);
    ck_assert_int_eq(digits_value(DIGITS_BASE64, '/'), 63);
    ck_assert_int_eq(digits_value(DIGITS_BASE64, '='), -1);
}
END_TEST

START_TEST(decimal)
{
    static const uint64_t v[] = {
        0,         1,    9,           10,          99,
        100,       1024, 4294967295u, 4294967296u, UINT64_MAX - 1,
        UINT64_MAX};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char got[DIGITS_U64_LEN], want[32];
        size_t n = digits_u64(got, v[i]);
        snprintf(want, sizeof want, "%" PRIu64, v[i]);
        ck_assert_str_eq(got, want);
        ck_assert_uint_eq(n, strlen(want));
    }
}
END_TEST

const struct check_main check_main = {
    .suite = "digits", .tcases = {{"digits", .tests = {&values, &decimal}}}};
