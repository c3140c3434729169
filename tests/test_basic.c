/* SPDX-License-Identifier: MIT */
/* test_basic.c - Basic credentials and the challenge. */
#include "check_main.h"
#include "http/basic.h"

#include <errno.h>
#include <string.h>

static const struct {
    const char *value;
    const char *user; /* NULL: refused */
    const char *password;
} cases[] = {
    {"Basic YWxpY2U6c2VjcmV0", "alice", "secret"},
    {"basic YWxpY2U6c2VjcmV0", "alice", "secret"},
    {"BASIC   YWxpY2U6c2VjcmV0  ", "alice", "secret"},
    {"Basic YWxpY2U6", "alice", ""},
    {"Basic YWxpY2U6YTpiOmM=", "alice", "a:b:c"}, /* alice:a:b:c */
    {"Basic w6lsb8OvOnDDpHNz", "\xc3\xa9lo\xc3\xaf", "p\xc3\xa4ss"}, /* UTF-8 */
    {"Basic YWxpY2U6c2VjcmV0IA", "alice", "secret "}, /* no padding */
    {"Basic YWxpY2U6c2VjcmV0IA==", "alice", "secret "},
    {"Basic", NULL, NULL},
    {"Basic ", NULL, NULL},
    {"Bearer YWxpY2U6c2VjcmV0", NULL, NULL},
    {"BasicYWxpY2U6c2VjcmV0", NULL, NULL},
    {"Basic YWxpY2Vfc2VjcmV0", NULL, NULL},     /* alice_secret: no ':' */
    {"Basic OnNlY3JldA==", NULL, NULL},         /* empty user */
    {"Basic YWxpY2U6c2Vj\x01cmV0", NULL, NULL}, /* not base64 */
    {"Basic YWxpY2U6c2VjcmV0=", NULL, NULL},    /* bad padding */
    {"Basic YWxpY2U6c2VjcmV0IA=", NULL, NULL},  /* bad padding */
    {"Basic YWxpY2U6c2VjcmV0IB==", NULL, NULL}, /* non-zero spare bits */
    {"Basic YWxpY2U6c2VjcmV0!!", NULL, NULL},
    {"Basic YWxpY2U6YQpi", NULL, NULL}, /* alice:a\nb */
    {"Basic YWxpY2U6YQBi", NULL, NULL}, /* alice:a\0b */
    {"Basic YQ", NULL, NULL},           /* "a" */
    {"Basic Y", NULL, NULL},
};

LOOP_TEST(parse_case, cases)
{
    char buf[128];
    const char *user = NULL, *password = NULL;
    int r = basic_parse(cases[_i].value, buf, sizeof buf, &user, &password);

    if (!cases[_i].user) {
        ck_assert_msg(r == -EINVAL, "'%s' accepted as %s", cases[_i].value,
                      user);
        return;
    }
    ck_assert_msg(r == 0, "'%s' refused", cases[_i].value);
    ck_assert_str_eq(user, cases[_i].user);
    ck_assert_str_eq(password, cases[_i].password);
}
END_TEST

START_TEST(long_user)
{
    char value[1024] = "Basic ", raw[400], buf[1024];
    const char *u, *p;
    static const char b64[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = 0, o = strlen(value);

    memset(raw, 'a', 300); /* a 300-byte user */
    raw[300] = ':';
    raw[301] = 'x';
    n = 302;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)raw[i] << 16 |
                     (i + 1 < n ? (unsigned)raw[i + 1] << 8 : 0) |
                     (i + 2 < n ? (unsigned)raw[i + 2] : 0);
        value[o++] = b64[v >> 18];
        value[o++] = b64[(v >> 12) & 63];
        value[o++] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
        value[o++] = i + 2 < n ? b64[v & 63] : '=';
    }
    value[o] = '\0';
    ck_assert_int_eq(basic_parse(value, buf, sizeof buf, &u, &p), -EINVAL);
    /* and a buffer too small is a refusal, not an overflow */
    ck_assert_int_eq(basic_parse("Basic YWxpY2U6c2VjcmV0", buf, 5, &u, &p),
                     -EINVAL);
}
END_TEST

START_TEST(challenge)
{
    char out[128];

    ck_assert_uint_eq(basic_challenge("docs", out, sizeof out),
                      strlen("Basic realm=\"docs\", charset=\"UTF-8\""));
    ck_assert_str_eq(out, "Basic realm=\"docs\", charset=\"UTF-8\"");
    basic_challenge("a \"b\" \\c", out, sizeof out);
    ck_assert_str_eq(out,
                     "Basic realm=\"a \\\"b\\\" \\\\c\", charset=\"UTF-8\"");
}
END_TEST

const struct check_main check_main = {
    .suite = "basic",
    .tcases = {{"basic", .loops = {LOOP(parse_case)},
                .tests = {&long_user, &challenge}}}};
