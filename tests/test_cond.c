// SPDX-License-Identifier: MIT
/* test_cond.c - preconditions in RFC 9110 13.2.2 order, ETag matching. */
#include "check_main.h"
#include "http/cond.h"

#include <stdlib.h>

#define ETAG "\"abc-10\""
#define MTIME 784111777 /* Sun, 06 Nov 1994 08:49:37 GMT */
#define AT "Sun, 06 Nov 1994 08:49:37 GMT"
#define BEFORE "Sun, 06 Nov 1994 08:49:36 GMT"
#define AFTER "Sun, 06 Nov 1994 08:49:38 GMT"

static const struct {
    struct cond_request r;
    int want;
} cases[] = {
    {{0}, 0},
    /* If-None-Match: weak comparison, lists, '*' */
    {{.if_none_match = ETAG}, 304},
    {{.if_none_match = "W/" ETAG}, 304},
    {{.if_none_match = "\"x\", " ETAG}, 304},
    {{.if_none_match = "\"x\",W/" ETAG " , \"y\""}, 304},
    {{.if_none_match = "*"}, 304},
    {{.if_none_match = "\"abc-1\""}, 0},
    {{.if_none_match = "abc-10"}, 0},
    {{.if_none_match = "\"abc-10"}, 0},
    /* If-Modified-Since; ignored when If-None-Match is present */
    {{.if_modified_since = AT}, 304},
    {{.if_modified_since = AFTER}, 304},
    {{.if_modified_since = BEFORE}, 0},
    {{.if_modified_since = "not a date"}, 0},
    {{.if_none_match = "\"other\"", .if_modified_since = AT}, 0},
    /* If-Match: strong comparison */
    {{.if_match = ETAG}, 0},
    {{.if_match = "*"}, 0},
    {{.if_match = "\"x\", " ETAG}, 0},
    {{.if_match = "W/" ETAG}, 412},
    {{.if_match = "\"other\""}, 412},
    /* If-Unmodified-Since; ignored when If-Match is present */
    {{.if_unmodified_since = AT}, 0},
    {{.if_unmodified_since = BEFORE}, 412},
    {{.if_unmodified_since = "garbage"}, 0},
    {{.if_match = ETAG, .if_unmodified_since = BEFORE}, 0},
    /* 412 is decided before 304 */
    {{.if_match = "\"other\"", .if_none_match = ETAG}, 412},
    {{.if_unmodified_since = BEFORE, .if_modified_since = AT}, 412},
    {{.if_match = ETAG, .if_none_match = ETAG}, 304},
};

LOOP_TEST(cond_case, cases)
{
    ck_assert_int_eq(cond_evaluate(&cases[_i].r, ETAG, MTIME), cases[_i].want);
}
END_TEST

START_TEST(weak_etag_strong_compare)
{
    ck_assert(!cond_etag_match("W/\"a\"", "W/\"a\"", false));
    ck_assert(cond_etag_match("W/\"a\"", "W/\"a\"", true));
    ck_assert(cond_etag_match("\"a\"", "W/\"a\"", true));
    ck_assert(!cond_etag_match("\"a\"", "W/\"a\"", false));
    ck_assert(!cond_etag_match("*, \"a\"", "\"a\"", true));
    ck_assert(!cond_etag_match("", "\"a\"", true));
}
END_TEST

const struct check_main check_main = {
    .suite = "cond",
    .tcases = {{"evaluate", .loops = {LOOP(cond_case)},
                .tests = {&weak_etag_strong_compare}}}};
