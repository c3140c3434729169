/* SPDX-License-Identifier: MIT */
/* test_cidr.c - address lists: syntax, host bits, IPv4-mapped, matching. */
#include "cases.h"
#include "check_main.h"
#include "syntax/cidr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

static const struct spec_case lists[] = {
    {"10.0.0.0/8", NULL},
    {"10.0.0.0/8, 192.168.1.0/24", NULL},
    {"127.0.0.1", NULL},
    {"::1", NULL},
    {"2001:db8::/32,fe80::/10", NULL},
    {"0.0.0.0/0", NULL},
    {"::/0", NULL},
    {"::ffff:10.0.0.0/104", NULL},
    {" 10.1.0.0/16 ,\t10.2.0.0/16 ", NULL},
    {"", "empty item in the address list"},
    {"10.0.0.0/8,", "empty item in the address list"},
    {",10.0.0.0/8", "empty item in the address list"},
    {"10.0.0.300", "'10.0.0.300' is not an IPv4 or IPv6 address"},
    {"example.com", "'example.com' is not an IPv4 or IPv6 address"},
    {"10.0.0.0/33", "'10.0.0.0/33': the prefix length is 0..32"},
    {"::/129", "'::/129': the prefix length is 0..128"},
    {"10.0.0.0/", "'10.0.0.0/': the prefix length is not a number"},
    {"10.0.0.0/-1", "'10.0.0.0/-1': the prefix length is not a number"},
    {"10.0.0.0/8x", "'10.0.0.0/8x': the prefix length is not a number"},
    {"10.0.0.1/8", "'10.0.0.1/8' has host bits set (the network is "
                   "10.0.0.0/8)"},
    {"2001:db8::1/32", "'2001:db8::1/32' has host bits set (the network is "
                       "2001:db8::/32)"},
    {"fe80::1%eth0", "'fe80::1%eth0': zone ids (%...) are not supported in "
                     "rules"},
    {"::ffff:10.0.0.0/64", "'::ffff:10.0.0.0/64': an IPv4-mapped prefix is "
                           "/96 to /128"},
    {"10.0.0.0 /8", "'10.0.0.0 ' is not an IPv4 or IPv6 address"},
};

LOOP_TEST(list_case, lists)
{
    struct cidr_list l = {0};
    char err[256] = "";
    int r = cidr_list_add(&l, lists[_i].spec, err, sizeof err);

    cases_check_spec(&lists[_i], r, err);
    if (lists[_i].err)
        ck_assert_uint_eq(l.n, 0);
    else
        ck_assert_uint_gt(l.n, 0);
    cidr_list_free(&l);
}
END_TEST

/* An address list and an address in it or not. */
static const struct match_case matches[] = {
    {"10.0.0.0/8", "10.255.1.2", 1},
    {"10.0.0.0/8", "11.0.0.1", 0},
    {"10.0.0.0/8", "::ffff:10.1.2.3", 1}, /* a dual-stack client */
    {"::ffff:10.0.0.0/104", "10.9.9.9", 1},
    {"192.168.1.0/25", "192.168.1.127", 1},
    {"192.168.1.0/25", "192.168.1.128", 0},
    {"127.0.0.2", "127.0.0.2", 1},
    {"127.0.0.2", "127.0.0.1", 0},
    {"0.0.0.0/0", "1.2.3.4", 1},
    {"0.0.0.0/0", "::1", 0},
    {"::/0", "2001:db8::1", 1},
    {"::/0", "1.2.3.4", 0},
    {"2001:db8::/32", "2001:db8:ffff::1", 1},
    {"2001:db8::/33", "2001:db8:8000::1", 0},
    {"::1", "::1", 1},
    {"10.0.0.0/8,::1", "::1", 1},
};

LOOP_TEST(match_case, matches)
{
    struct cidr_list l = {0};
    struct cidr_addr a;
    const char *s = matches[_i].subject;

    ck_assert_int_eq(cidr_list_add(&l, matches[_i].rules, NULL, 0), 0);
    ck_assert_int_eq(cidr_addr_parse(s, strlen(s), &a), 0);
    ck_assert_msg(cidr_list_match(&l, &a) == matches[_i].want, "%s in %s", s,
                  matches[_i].rules);
    cidr_list_free(&l);
}
END_TEST

START_TEST(sockaddr_forms)
{
    struct sockaddr_in in = {.sin_family = AF_INET};
    struct sockaddr_in6 in6 = {.sin6_family = AF_INET6};
    struct sockaddr sa = {.sa_family = AF_UNIX};
    struct cidr_addr a;
    char text[CIDR_TEXT_MAX];

    inet_pton(AF_INET, "127.0.0.2", &in.sin_addr);
    ck_assert_int_eq(
        cidr_addr_from_sockaddr((struct sockaddr *)&in, sizeof in, &a), 0);
    cidr_addr_format(&a, text, sizeof text);
    ck_assert_str_eq(text, "127.0.0.2");
    inet_pton(AF_INET6, "::ffff:192.0.2.1", &in6.sin6_addr);
    ck_assert_int_eq(
        cidr_addr_from_sockaddr((struct sockaddr *)&in6, sizeof in6, &a), 0);
    ck_assert_int_eq(a.family, AF_INET);
    cidr_addr_format(&a, text, sizeof text);
    ck_assert_str_eq(text, "192.0.2.1");
    ck_assert_int_eq(cidr_addr_from_sockaddr(&sa, sizeof sa, &a),
                     -EAFNOSUPPORT);
    ck_assert_int_eq(cidr_addr_from_sockaddr((struct sockaddr *)&in, 4, &a),
                     -EAFNOSUPPORT);
}
END_TEST

const struct check_main check_main = {
    .suite = "cidr",
    .tcases = {{"cidr", .loops = {LOOP(list_case), LOOP(match_case)},
                .tests = {&sockaddr_forms}}}};
