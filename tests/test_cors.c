// SPDX-License-Identifier: MIT
/*
 * test_cors.c - --cors: the origins accepted and refused, and the headers
 * each kind of request gets (a plain request, a preflight, an origin not
 * listed, the headers a preflight asks for).
 */
#include "cases.h"
#include "check_main.h"
#include "http/cors.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct spec_case specs[] = {
    {"*", NULL},
    {"https://docs.example.org", NULL},
    {"http://127.0.0.1:8080", NULL},
    {"https://a.example, https://b.example:8443", NULL},
    {"http://[::1]:8000", NULL},
    {"HTTPS://Docs.Example.org", NULL},
    {"https://a.example/", "'https://a.example/' is not an origin "
                           "(http[s]://HOST[:PORT], no path), nor *"},
    {"https://a.example/x", "is not an origin"},
    {"a.example", "is not an origin"},
    {"ftp://a.example", "is not an origin"},
    {"null", "is not an origin"},
    {"https://", "is not an origin"},
    {"https://a.example:", "is not an origin"},
    {"https://a.example:http", "is not an origin"},
    {"https://u@a.example", "is not an origin"},
    {"https://a.example,", "an empty origin in the list"},
    {"https://a.example,,https://b.example", "an empty origin in the list"},
    {"*,https://a.example", "is not an origin"},
    {"http://[::1", "is not an origin"},
};

LOOP_TEST(spec_case, specs)
{
    struct origins c;
    char err[256] = "";
    int r = origins_parse(&c, specs[_i].spec, err, sizeof err);

    if (specs[_i].err && r == -EINVAL)
        ck_assert_msg(strstr(err, specs[_i].err), "'%s': %s", specs[_i].spec,
                      err);
    else
        ck_assert_msg(r == (specs[_i].err ? -EINVAL : 0), "'%s': %d %s",
                      specs[_i].spec, r, err);
    origins_free(&c);
}
END_TEST

/* One request under one --cors value, and the headers it gets. */
static const struct { // NOLINT(clang-analyzer-optin.performance.Padding)
    const char *cors; /* NULL: --cors not given */
    const char *origin;
    bool options;
    const char *acr_method, *acr_headers;
    const char *want; /* "Name: value|..." */
    bool per_origin;
} decisions[] = {
    {NULL, "https://a.example", true, "GET", "X-Test", "", false},
    /* "*": every response, whoever asks */
    {"*", NULL, false, NULL, NULL, "Access-Control-Allow-Origin: *|", false},
    {"*", "https://a.example", false, NULL, NULL,
     "Access-Control-Allow-Origin: *|", false},
    {"*", "https://a.example", true, "GET", NULL,
     "Access-Control-Allow-Origin: *|Access-Control-Allow-Methods: GET, "
     "HEAD|Access-Control-Max-Age: 7200|",
     false},
    {"*", "https://a.example", true, "GET", "x-test, Content-Type",
     "Access-Control-Allow-Origin: *|Vary: Access-Control-Request-Headers|"
     "Access-Control-Allow-Methods: GET, HEAD|Access-Control-Allow-Headers: "
     "x-test, Content-Type|Access-Control-Max-Age: 7200|",
     false},
    /* an OPTIONS without Access-Control-Request-Method is no preflight */
    {"*", "https://a.example", true, NULL, "X-Test",
     "Access-Control-Allow-Origin: *|", false},
    /* a list: the origin itself, and Vary: Origin on every response */
    {"https://a.example,https://b.example", "https://b.example", false, NULL,
     NULL, "Access-Control-Allow-Origin: https://b.example|Vary: Origin|",
     true},
    {"https://a.example", "HTTPS://A.EXAMPLE", false, NULL, NULL,
     "Access-Control-Allow-Origin: HTTPS://A.EXAMPLE|Vary: Origin|", true},
    {"https://a.example", "https://a.example.evil", false, NULL, NULL,
     "Vary: Origin|", true},
    {"https://a.example", "http://a.example", false, NULL, NULL,
     "Vary: Origin|", true},
    {"https://a.example", "null", false, NULL, NULL, "Vary: Origin|", true},
    {"https://a.example", NULL, false, NULL, NULL, "Vary: Origin|", false},
    {"https://a.example", "https://a.example", true, "GET", "X-Test",
     "Access-Control-Allow-Origin: https://a.example|Vary: Origin, "
     "Access-Control-Request-Headers|Access-Control-Allow-Methods: GET, "
     "HEAD|Access-Control-Allow-Headers: X-Test|Access-Control-Max-Age: "
     "7200|",
     true},
    /* a preflight from an origin not listed: no answer a browser accepts */
    {"https://a.example", "https://c.example", true, "GET", "X-Test",
     "Vary: Origin|", true},
    /* asked-for headers that are not a list of names: none sent back */
    {"*", "https://a.example", true, "GET", "X-Test: 1",
     "Access-Control-Allow-Origin: *|Access-Control-Allow-Methods: GET, "
     "HEAD|Access-Control-Max-Age: 7200|",
     false},
    {"*", "https://a.example", true, "GET", ",, X-A ,X-B,",
     "Access-Control-Allow-Origin: *|Vary: Access-Control-Request-Headers|"
     "Access-Control-Allow-Methods: GET, HEAD|Access-Control-Allow-Headers: "
     "X-A, X-B|Access-Control-Max-Age: 7200|",
     false},
};

LOOP_TEST(decide_case, decisions)
{
    struct origins c = {0};
    struct cors_reply out;
    char err[256], got[1024] = "";
    size_t n = 0;

    if (decisions[_i].cors)
        ck_assert_int_eq(origins_parse(&c, decisions[_i].cors, err, sizeof err),
                         0);
    cors_decide(decisions[_i].cors ? &c : NULL, decisions[_i].origin,
                decisions[_i].options, decisions[_i].acr_method,
                decisions[_i].acr_headers, &out);
    for (size_t i = 0; i < out.n; i++)
        n += (size_t)snprintf(got + n, sizeof got - n, "%s: %s|", out.h[i].name,
                              out.h[i].value);
    ck_assert_str_eq(got, decisions[_i].want);
    ck_assert_int_eq(out.per_origin, decisions[_i].per_origin);
    origins_free(&c);
}
END_TEST

/* A list of asked-for headers too long to send back: none. */
START_TEST(long_header_list)
{
    struct origins c;
    struct cors_reply out;
    char err[64], asked[4096];
    size_t n = 0;

    ck_assert_int_eq(origins_parse(&c, "*", err, sizeof err), 0);
    while (n + 8 < sizeof asked)
        n += (size_t)snprintf(asked + n, sizeof asked - n, "X-%04zu,", n);
    cors_decide(&c, "https://a.example", true, "GET", asked, &out);
    ck_assert_str_eq(out.allow_headers, "");
    origins_free(&c);
}
END_TEST

const struct check_main check_main = {
    .suite = "cors",
    .tcases = {{"cors", .loops = {LOOP(spec_case), LOOP(decide_case)},
                .tests = {&long_header_list}}}};
