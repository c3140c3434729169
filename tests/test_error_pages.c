/* SPDX-License-Identifier: MIT */
/* test_error_pages.c - --error-page CODES=FILE values. */
#include "cases.h"
#include "check_main.h"
#include "syntax/error_pages.h"

#include <errno.h>
#include <string.h>

static const struct spec_case specs[] = {
    {"404=/errors/404.html", NULL},
    {"403,404=errors/4xx.html", NULL},
    {"500, 502 ,503=/50x.html", NULL},
    {"599=/x", NULL},
    {"404", "expected CODES=FILE, as in 404=/errors/404.html"},
    {"404=", "FILE names no file under the root"},
    {"404=/", "FILE names no file under the root"},
    {"=/x.html", "no status before '='"},
    {"200=/x.html", "'200': CODES is a comma list of statuses 400-599"},
    {"600=/x.html", "'600': CODES is a comma list of statuses 400-599"},
    {"4044=/x.html", "'4044': CODES is a comma list of statuses 400-599"},
    {"40=/x.html", "'40': CODES is a comma list of statuses 400-599"},
    {"404;500=/x.html", "'404;500': CODES is a comma list of statuses 400-599"},
    {"404,,500=/x.html", "'404,,500': CODES is a comma list of statuses "
                         "400-599"},
    {"404,=/x.html", "empty item in CODES"},
    {"404,404=/x.html", "status 404 has an error page already"},
    {"401=/x.html", "status 401 has an error page already"},
};

LOOP_TEST(spec_case, specs)
{
    struct error_pages e = {0};
    char err[128] = "";

    /* 401 is taken before every row */
    ck_assert_int_eq(error_pages_add(&e, "401=/login.html", err, sizeof err),
                     0);
    int r = error_pages_add(&e, specs[_i].spec, err, sizeof err);
    cases_check_spec(&specs[_i], r, err);
    if (specs[_i].err)
        ck_assert_uint_eq(e.n, 1);
    error_pages_free(&e);
}
END_TEST

START_TEST(find)
{
    struct error_pages e = {0};

    ck_assert_int_eq(error_pages_add(&e, "403,404=/errors/4xx.html", NULL, 0),
                     0);
    ck_assert_int_eq(error_pages_add(&e, "500,502,503=/50x.html", NULL, 0), 0);
    ck_assert_str_eq(error_pages_find(&e, 404), "errors/4xx.html");
    ck_assert_str_eq(error_pages_find(&e, 403), "errors/4xx.html");
    ck_assert_str_eq(error_pages_find(&e, 502), "50x.html");
    ck_assert_ptr_null(error_pages_find(&e, 401));
    ck_assert_ptr_null(error_pages_find(NULL, 404));
    error_pages_free(&e);
}
END_TEST

const struct check_main check_main = {
    .suite = "error_pages",
    .tcases = {{"error_pages", .loops = {LOOP(spec_case)}, .tests = {&find}}}};
