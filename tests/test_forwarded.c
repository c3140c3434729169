/* SPDX-License-Identifier: MIT */
/* test_forwarded.c - the client behind trusted proxies. */
#include "check_main.h"
#include "http/forwarded.h"

#include <string.h>

#define TRUSTED "10.0.0.0/8, ::1"

static const struct {
    const char *peer;
    const char *forwarded; /* NULL: none */
    const char *xff;
    const char *want;
    unsigned hops;
} cases[] = {
    /* an untrusted peer: the headers are the client's own words */
    {"192.0.2.9", NULL, "1.1.1.1", "192.0.2.9", 0},
    {"10.0.0.1", NULL, NULL, "10.0.0.1", 0},
    {"10.0.0.1", NULL, "203.0.113.5", "203.0.113.5", 1},
    /* the rightmost untrusted hop, not the leftmost (spoofable) one */
    {"10.0.0.1", NULL, "6.6.6.6, 203.0.113.5", "203.0.113.5", 1},
    {"10.0.0.1", NULL, "6.6.6.6, 203.0.113.5, 10.0.0.7", "203.0.113.5", 2},
    {"10.0.0.1", NULL, "10.0.0.9, 10.0.0.8", "10.0.0.9", 2},
    {"10.0.0.1", NULL, "203.0.113.5:4711", "203.0.113.5", 1},
    {"10.0.0.1", NULL, "[2001:db8::1]:80", "2001:db8::1", 1},
    {"10.0.0.1", NULL, "2001:db8::1", "2001:db8::1", 1},
    {"::1", NULL, "::ffff:198.51.100.1", "198.51.100.1", 1},
    /* garbage stops the walk at the proxy before it */
    {"10.0.0.1", NULL, "6.6.6.6, garbage", "10.0.0.1", 0},
    {"10.0.0.1", NULL, "6.6.6.6, unknown, 10.0.0.2", "10.0.0.2", 1},
    {"10.0.0.1", NULL, "", "10.0.0.1", 0},
    {"10.0.0.1", NULL, "1.2.3.4,", "10.0.0.1", 0},
    /* Forwarded wins over X-Forwarded-For */
    {"10.0.0.1", "for=198.51.100.7;proto=https", "6.6.6.6", "198.51.100.7", 1},
    {"10.0.0.1", "for=6.6.6.6, for=\"[2001:db8:cafe::17]:4711\"", NULL,
     "2001:db8:cafe::17", 1},
    {"10.0.0.1", "For=\"198.51.100.7\";by=10.0.0.1", NULL, "198.51.100.7", 1},
    {"10.0.0.1", "for=_hidden", NULL, "10.0.0.1", 0},
    {"10.0.0.1", "for=unknown", NULL, "10.0.0.1", 0},
    {"10.0.0.1", "proto=https", NULL, "10.0.0.1", 0},
    {"10.0.0.1", "for=\"a,b\", for=198.51.100.8", NULL, "198.51.100.8", 1},
};

LOOP_TEST(client_case, cases)
{
    struct cidr_list trusted = {0};
    struct cidr_addr c;
    char text[CIDR_TEXT_MAX];

    ck_assert_int_eq(cidr_list_add(&trusted, TRUSTED, NULL, 0), 0);
    ck_assert_int_eq(
        cidr_addr_parse(cases[_i].peer, strlen(cases[_i].peer), &c), 0);
    unsigned hops = 0;
    if (cidr_list_match(&trusted, &c))
        hops =
            forwarded_client(&trusted, cases[_i].forwarded, cases[_i].xff, &c);
    cidr_addr_format(&c, text, sizeof text);
    ck_assert_msg(strcmp(text, cases[_i].want) == 0 && hops == cases[_i].hops,
                  "%s / %s -> %s (%u hops), want %s (%u)", cases[_i].forwarded,
                  cases[_i].xff, text, hops, cases[_i].want, cases[_i].hops);
    cidr_list_free(&trusted);
}
END_TEST

const struct check_main check_main = {
    .suite = "forwarded",
    .tcases = {{"forwarded", .loops = {LOOP(client_case)}}}};
