/* SPDX-License-Identifier: MIT */
/* test_host.c - Host normalisation and virtual-host names. */
#include "cases.h"
#include "check_main.h"
#include "syntax/host.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

/* A Host field and its normal form; want NULL: garbage (400). */
static const struct text_case norm[] = {
    {"docs.example.com", "docs.example.com"},
    {"Docs.Example.COM", "docs.example.com"},
    {"docs.example.com.", "docs.example.com"},
    {"docs.example.com:8080", "docs.example.com"},
    {"DOCS.example.com.:8080", "docs.example.com"},
    {"docs.example.com:", "docs.example.com"},
    {"127.0.0.1:80", "127.0.0.1"},
    {"[::1]", "[::1]"},
    {"[::1]:8080", "[::1]"},
    {"[2001:DB8::A]:1", "[2001:db8::a]"},
    {"under_score.example", "under_score.example"},
    {"", ""},
    {"docs..example.com", NULL},
    {".example.com", NULL},
    {".", NULL},
    {"docs.example.com..", NULL},
    {"docs example.com", NULL},
    {"docs.example.com:80:80", NULL},
    {"docs.example.com:http", NULL},
    {"docs.example.com:123456", NULL},
    {"[::1", NULL},
    {"[::1]x", NULL},
    {"[::1]:", "[::1]"},
    {"[nothex]", NULL},
    {"[]", NULL},
    {"::1", NULL},
    {"user@docs.example.com", NULL},
    {"docs.example.com/x", NULL},
    {"d\xc3\xa9j\xc3\xa0.example", NULL}, /* IDNs arrive as xn--, not UTF-8 */
    {"xn--dj-kia8a.example", "xn--dj-kia8a.example"},
};

LOOP_TEST(normalize_case, norm)
{
    char out[HOST_MAX];
    int r = host_normalize(norm[_i].in, out);

    if (!norm[_i].want) {
        ck_assert_msg(r == -EINVAL, "'%s' accepted as '%s'", norm[_i].in, out);
        return;
    }
    ck_assert_msg(r == 0, "'%s' refused", norm[_i].in);
    ck_assert_str_eq(out, norm[_i].want);
}
END_TEST

START_TEST(long_names)
{
    char name[300], out[HOST_MAX];

    memset(name, 'a', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    ck_assert_int_eq(host_normalize(name, out), -EINVAL);
    name[253] = '\0';
    ck_assert_int_eq(host_normalize(name, out), 0);
}
END_TEST

static const struct {
    const char *name;
    const char *want; /* NULL: refused with err */
    const char *err;
} patterns[] = {
    {"docs.example.com", "docs.example.com", NULL},
    {"Docs.Example.com.", "docs.example.com", NULL},
    {"*.Example.com", "*.example.com", NULL},
    {"127.0.0.1", "127.0.0.1", NULL},
    {"[::1]", "[::1]", NULL},
    {"localhost", "localhost", NULL},
    {"docs.example.com:8080", NULL,
     "'docs.example.com:8080': a virtual host has no port"},
    {"[::1]:80", NULL, "'[::1]:80': a virtual host has no port"},
    {"*", NULL,
     "'*' is not a host name (NAME, *.SUFFIX, an IPv4 address or [IPv6])"},
    {"*.", NULL,
     "'*.' is not a host name (NAME, *.SUFFIX, an IPv4 address or [IPv6])"},
    {"a.*.example", NULL,
     "'a.*.example' is not a host name (NAME, *.SUFFIX, an IPv4 address or "
     "[IPv6])"},
    {"*.[::1]", NULL,
     "'*.[::1]' is not a host name (NAME, *.SUFFIX, an IPv4 address or "
     "[IPv6])"},
    {"", NULL,
     "'' is not a host name (NAME, *.SUFFIX, an IPv4 address or [IPv6])"},
    {"docs example", NULL,
     "'docs example' is not a host name (NAME, *.SUFFIX, an IPv4 address or "
     "[IPv6])"},
};

LOOP_TEST(pattern_case, patterns)
{
    char out[HOST_MAX], err[256] = "";
    int r = host_pattern_check(patterns[_i].name, out, err, sizeof err);

    if (patterns[_i].want) {
        ck_assert_msg(r == 0, "%s: %s", patterns[_i].name, err);
        ck_assert_str_eq(out, patterns[_i].want);
    } else {
        ck_assert_int_eq(r, -EINVAL);
        ck_assert_str_eq(err, patterns[_i].err);
    }
}
END_TEST

/* A normalised host and whether it names a site directory (--sites). */
static const struct {
    const char *host;
    int want; /* 1 a name, 0 no name (an address, none), -EINVAL never */
} site_names[] = {
    {"docs.example.com", 1},
    {"localhost", 1},
    {"a", 1},
    {"xn--dj-kia8a.example", 1},
    {"a-b.example", 1},
    {"3com.example", 1},
    {"example.123x", 1},
    {"", 0},
    {"127.0.0.1", 0},
    {"10.1", 0},
    {"a.b.123", 0},
    {"[::1]", 0},
    {"[2001:db8::a]", 0},
    {"under_score.example", -EINVAL},
    {"a..b", -EINVAL},
    {"..", -EINVAL},
    {".", -EINVAL},
    {"a.", -EINVAL},
    {".a", -EINVAL},
    {"a/b", -EINVAL},
    {"A.example", -EINVAL}, /* normalised hosts are lower case */
    {"a b", -EINVAL},
};

LOOP_TEST(site_name_case, site_names)
{
    ck_assert_msg(host_site_name(site_names[_i].host) == site_names[_i].want,
                  "'%s': %d, want %d", site_names[_i].host,
                  host_site_name(site_names[_i].host), site_names[_i].want);
}
END_TEST

/* Labels of 63 characters at most, names of 253. */
START_TEST(site_name_lengths)
{
    char name[300];

    memset(name, 'a', 63);
    name[63] = '\0';
    ck_assert_int_eq(host_site_name(name), 1);
    memset(name, 'a', 64);
    name[64] = '\0';
    ck_assert_int_eq(host_site_name(name), -EINVAL);
    /* 4 labels of 63 and "a": 4 * 64 + 1 = 257 characters */
    size_t n = 0;
    for (int k = 0; k < 4; k++) {
        memset(name + n, 'a', 63);
        n += 63;
        name[n++] = '.';
    }
    name[n++] = 'a';
    name[n] = '\0';
    ck_assert_int_eq(host_site_name(name), -EINVAL);
    name[253] = '\0'; /* "...aaaa" cut to 253: ends in a label */
    ck_assert_int_eq(host_site_name(name), 1);
}
END_TEST

START_TEST(matching)
{
    ck_assert_uint_eq(
        host_pattern_match("docs.example.com", "docs.example.com"), SIZE_MAX);
    ck_assert_uint_eq(host_pattern_match("docs.example.com", "example.com"), 0);
    ck_assert_uint_eq(host_pattern_match("*.example.com", "a.example.com"),
                      strlen(".example.com"));
    ck_assert_uint_eq(host_pattern_match("*.example.com", "a.b.example.com"),
                      strlen(".example.com"));
    ck_assert_uint_eq(host_pattern_match("*.example.com", "example.com"), 0);
    ck_assert_uint_eq(host_pattern_match("*.example.com", ".example.com"), 0);
    ck_assert_uint_eq(host_pattern_match("*.example.com", "badexample.com"), 0);
    ck_assert_uint_gt(host_pattern_match("*.b.example.com", "a.b.example.com"),
                      host_pattern_match("*.example.com", "a.b.example.com"));
}
END_TEST

const struct check_main check_main = {
    .suite = "host",
    .tcases = {{"host",
                .loops = {LOOP(normalize_case), LOOP(pattern_case),
                          LOOP(site_name_case)},
                .tests = {&long_names, &matching, &site_name_lengths}}}};
