/* SPDX-License-Identifier: MIT */
/* test_headers_opt.c - --header parsing and the --security-headers set. */
#include "check_main.h"
#include "syntax/headers_opt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *spec;
    int want;
    const char *name;  /* when want == 0 */
    const char *value; /* when want == 0; else a word of the message */
} cases[] = {
    {"X-Robots-Tag: noindex", 0, "X-Robots-Tag", "noindex"},
    {"X-A:b", 0, "X-A", "b"},
    {"X-A:   spaced out \t ", 0, "X-A", "spaced out"},
    {"X-A:", 0, "X-A", ""},
    {"X-A: a: b", 0, "X-A", "a: b"},
    {"X-A: caf\xc3\xa9", 0, "X-A", "caf\xc3\xa9"},
    {"X-A: tab\there", 0, "X-A", "tab\there"},
    {"Permissions-Policy: camera=()", 0, "Permissions-Policy", "camera=()"},
    {"x~!#$%&'*+.^_`|-: y", 0, "x~!#$%&'*+.^_`|-", "y"},
    {"no colon", -EINVAL, NULL, "Name: value"},
    {": empty name", -EINVAL, NULL, "Name: value"},
    {"X A: b", -EINVAL, NULL, "token"},
    {"X-A : b", -EINVAL, NULL, "token"},
    {"X(A): b", -EINVAL, NULL, "token"},
    {"X-\xc3\xa9: b", -EINVAL, NULL, "token"},
    {"X-A: b\r\nSet-Cookie: evil=1", -EINVAL, NULL, "control"},
    {"X-A: b\nc", -EINVAL, NULL, "control"},
    {"X-A: b\rc", -EINVAL, NULL, "control"},
    {"X-A: \x01", -EINVAL, NULL, "control"},
    {"X-A: \x7f", -EINVAL, NULL, "control"},
    {"Content-Length: 5", -EINVAL, NULL, "set by the server"},
    {"transfer-encoding: chunked", -EINVAL, NULL, "set by the server"},
    {"CONTENT-TYPE: text/plain", -EINVAL, NULL, "set by the server"},
    {"Vary: *", -EINVAL, NULL, "set by the server"},
    /* RFC 9530's digests, and the older ones they replace */
    {"Repr-Digest: sha-256=:AAAA:", -EINVAL, NULL, "Repr-Digest is set"},
    {"content-digest: sha-256=:AAAA:", -EINVAL, NULL, "Content-Digest is set"},
    {"Digest: SHA-256=AAAA", -EINVAL, NULL, "Digest is set"},
    {"Content-MD5: AAAA", -EINVAL, NULL, "Content-MD5 is set"},
    /* connection-specific fields (RFC 9113 8.2.2) */
    {"Proxy-Connection: close", -EINVAL, NULL, "set by the server"},
    {"TE: trailers", -EINVAL, NULL, "set by the server"},
    {"Keep-Alive: timeout=5", -EINVAL, NULL, "set by the server"},
    /* decided per request */
    {"WWW-Authenticate: Basic", -EINVAL, NULL, "set by the server"},
    {"Age: 0", -EINVAL, NULL, "set by the server"},
    {"Date: Thu, 01 Jan 1970 00:00:00 GMT", -EINVAL, NULL, "set by the server"},
    /* policy the server does not set stays the operator's */
    {"Content-Disposition: attachment", 0, "Content-Disposition", "attachment"},
    {"Want-Repr-Digest: sha-256=1", 0, "Want-Repr-Digest", "sha-256=1"},
    {"Cache-Control: no-store", -EINVAL, NULL, "--cache"},
};

LOOP_TEST(add_case, cases)
{
    struct headers_opt h = {0};
    char err[160] = "";
    int ret = headers_opt_add(&h, cases[_i].spec, err, sizeof(err));

    ck_assert_msg(ret == cases[_i].want, "%s: %d, want %d (%s)", cases[_i].spec,
                  ret, cases[_i].want, err);
    if (ret == 0) {
        ck_assert_uint_eq(h.n, 1);
        ck_assert_str_eq(h.v[0].name, cases[_i].name);
        ck_assert_str_eq(h.v[0].value, cases[_i].value);
    } else {
        ck_assert_uint_eq(h.n, 0);
        ck_assert_msg(strstr(err, cases[_i].value) != NULL,
                      "%s: message \"%s\" lacks \"%s\"", cases[_i].spec, err,
                      cases[_i].value);
    }
    headers_opt_free(&h);
}
END_TEST

/* @h holds the four security headers, with these two values; names are
 * looked up in any case. */
static void expect_security(const struct headers_opt *h, const char *xfo,
                            const char *csp)
{
    ck_assert_uint_eq(h->n, 4);
    ck_assert_str_eq(headers_opt_find(h, "x-content-type-options"), "nosniff");
    ck_assert_str_eq(headers_opt_find(h, "Referrer-Policy"),
                     "strict-origin-when-cross-origin");
    ck_assert_str_eq(headers_opt_find(h, "X-Frame-Options"), xfo);
    ck_assert_str_eq(headers_opt_find(h, "content-security-policy"), csp);
}

START_TEST(security_set)
{
    struct headers_opt h = {0};

    ck_assert_int_eq(headers_opt_add_security(&h), 0);
    expect_security(&h, "DENY", "frame-ancestors 'none'");
    ck_assert_ptr_null(headers_opt_find(&h, "Strict-Transport-Security"));
    headers_opt_free(&h);
}
END_TEST

START_TEST(operator_header_wins)
{
    struct headers_opt h = {0};

    ck_assert_int_eq(
        headers_opt_add(&h, "x-frame-options: SAMEORIGIN", NULL, 0), 0);
    ck_assert_int_eq(
        headers_opt_add(&h, "Content-Security-Policy: default-src 'self'", NULL,
                        0),
        0);
    ck_assert_int_eq(headers_opt_add_security(&h), 0);
    expect_security(&h, "SAMEORIGIN", "default-src 'self'");
    /* Twice is harmless: nothing new is added. */
    ck_assert_int_eq(headers_opt_add_security(&h), 0);
    expect_security(&h, "SAMEORIGIN", "default-src 'self'");
    headers_opt_free(&h);
    headers_opt_free(&h);
    headers_opt_free(NULL);
}
END_TEST

const struct check_main check_main = {
    .suite = "headers_opt",
    .tcases = {{"core", .loops = {LOOP(add_case)},
                .tests = {&security_set, &operator_header_wins}}}};
