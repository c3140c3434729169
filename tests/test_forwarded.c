/* SPDX-License-Identifier: MIT */
/* test_forwarded.c - the client behind trusted proxies. */
#include "cases.h"
#include "check_main.h"
#include "http/forwarded.h"
#include "syntax/trusted_proxy.h"

#include <errno.h>
#include <string.h>

/* Trusted proxies that append to X-Forwarded-For (the default). */
#define XFF "10.0.0.0/8, ::1"
/* The same networks, appending to Forwarded. */
#define FWD "10.0.0.0/8, ::1=forwarded"
/* 10/8 appends to X-Forwarded-For, 192.168/16 to Forwarded. */
#define MIXED "10.0.0.0/8", "192.168.0.0/16=Forwarded"

static const struct {
    const char *trusted[3]; /* --trusted-proxy items, NULL-ended */
    const char *peer;
    const char *forwarded; /* NULL: none */
    const char *xff;
    const char *want;
    unsigned hops;
} cases[] = {
    /* an untrusted peer: the headers are the client's own words */
    {{XFF}, "192.0.2.9", NULL, "1.1.1.1", "192.0.2.9", 0},
    {{XFF}, "10.0.0.1", NULL, NULL, "10.0.0.1", 0},
    {{XFF}, "10.0.0.1", NULL, "203.0.113.5", "203.0.113.5", 1},
    /* the rightmost untrusted hop, not the leftmost (spoofable) one */
    {{XFF}, "10.0.0.1", NULL, "6.6.6.6, 203.0.113.5", "203.0.113.5", 1},
    {{XFF},
     "10.0.0.1",
     NULL,
     "6.6.6.6, 203.0.113.5, 10.0.0.7",
     "203.0.113.5",
     2},
    {{XFF}, "10.0.0.1", NULL, "10.0.0.9, 10.0.0.8", "10.0.0.9", 2},
    {{XFF}, "10.0.0.1", NULL, "203.0.113.5:4711", "203.0.113.5", 1},
    {{XFF}, "10.0.0.1", NULL, "[2001:db8::1]:80", "2001:db8::1", 1},
    {{XFF}, "10.0.0.1", NULL, "2001:db8::1", "2001:db8::1", 1},
    {{XFF}, "::1", NULL, "::ffff:198.51.100.1", "198.51.100.1", 1},
    /* garbage stops the walk at the proxy before it */
    {{XFF}, "10.0.0.1", NULL, "6.6.6.6, garbage", "10.0.0.1", 0},
    {{XFF}, "10.0.0.1", NULL, "6.6.6.6, unknown, 10.0.0.2", "10.0.0.2", 1},
    {{XFF}, "10.0.0.1", NULL, "", "10.0.0.1", 0},
    {{XFF}, "10.0.0.1", NULL, "1.2.3.4,", "10.0.0.1", 0},
    /* a proxy that writes X-Forwarded-For: a client's Forwarded is never
     * read (nginx with proxy_params passes it untouched) */
    {{XFF},
     "10.0.0.1",
     "for=198.51.100.7;proto=https",
     "6.6.6.6",
     "6.6.6.6",
     1},
    {{XFF}, "10.0.0.1", "for=198.51.100.7", NULL, "10.0.0.1", 0},
    {{XFF}, "10.0.0.1", "for=10.1.1.1", "127.0.0.5", "127.0.0.5", 1},
    /* a proxy that writes Forwarded: X-Forwarded-For is never read */
    {{FWD},
     "10.0.0.1",
     "for=198.51.100.7;proto=https",
     "6.6.6.6",
     "198.51.100.7",
     1},
    {{FWD}, "10.0.0.1", NULL, "6.6.6.6", "10.0.0.1", 0},
    {{FWD},
     "10.0.0.1",
     "for=6.6.6.6, for=\"[2001:db8:cafe::17]:4711\"",
     NULL,
     "2001:db8:cafe::17",
     1},
    {{FWD},
     "10.0.0.1",
     "For=\"198.51.100.7\";by=10.0.0.1",
     NULL,
     "198.51.100.7",
     1},
    {{FWD}, "10.0.0.1", "for=_hidden", NULL, "10.0.0.1", 0},
    {{FWD}, "10.0.0.1", "for=unknown", NULL, "10.0.0.1", 0},
    {{FWD}, "10.0.0.1", "proto=https", NULL, "10.0.0.1", 0},
    {{FWD},
     "10.0.0.1",
     "for=\"a,b\", for=198.51.100.8",
     NULL,
     "198.51.100.8",
     1},
    /* a chain: each hop from the list its own proxy writes */
    {{MIXED},
     "10.0.0.1",
     "for=6.6.6.6, for=203.0.113.9",
     "7.7.7.7, 192.168.1.1",
     "203.0.113.9",
     2},
    {{MIXED},
     "192.168.1.1",
     "for=6.6.6.6, for=10.0.0.3",
     "7.7.7.7",
     "7.7.7.7",
     2},
    {{MIXED}, "10.0.0.1", "for=203.0.113.9", "6.6.6.6", "6.6.6.6", 1},
    /* the most specific network decides the header */
    {{"10.0.0.0/8", "10.9.0.0/16=forwarded"},
     "10.9.0.1",
     "for=203.0.113.1",
     "6.6.6.6",
     "203.0.113.1",
     1},
    {{"10.0.0.0/8=forwarded", "10.9.0.0/16"},
     "10.9.0.1",
     "for=203.0.113.1",
     "6.6.6.6",
     "6.6.6.6",
     1},
};

LOOP_TEST(client_case, cases)
{
    struct cidr_list trusted = {0};
    struct cidr_addr c;
    char text[CIDR_TEXT_MAX];
    const char *values[TRUSTED_PROXY_N_HEADERS] = {
        [TRUSTED_PROXY_XFF] = cases[_i].xff,
        [TRUSTED_PROXY_FORWARDED] = cases[_i].forwarded};

    for (size_t k = 0; cases[_i].trusted[k]; k++)
        ck_assert_int_eq(
            trusted_proxy_add(&trusted, cases[_i].trusted[k], NULL, 0), 0);
    ck_assert_int_eq(
        cidr_addr_parse(cases[_i].peer, strlen(cases[_i].peer), &c), 0);
    unsigned hops = 0;
    if (cidr_list_match(&trusted, &c))
        hops = forwarded_client(&trusted, values, &c);
    cidr_addr_format(&c, text, sizeof text);
    ck_assert_msg(strcmp(text, cases[_i].want) == 0 && hops == cases[_i].hops,
                  "%s / %s -> %s (%u hops), want %s (%u)", cases[_i].forwarded,
                  cases[_i].xff, text, hops, cases[_i].want, cases[_i].hops);
    cidr_list_free(&trusted);
}
END_TEST

/* The header a proxy writes: each item accepted, or refused with its
 * sentence (exactly). */
static const struct spec_case specs[] = {
    {"10.0.0.1", NULL},
    {"10.0.0.1,::1=x-forwarded-for", NULL},
    {"10.0.0.1 = Forwarded", NULL},
    {"10.0.0.1=x-real-ip",
     "'x-real-ip': the header a proxy writes is forwarded or x-forwarded-for"},
    {"10.0.0.1=",
     "'': the header a proxy writes is forwarded or x-forwarded-for"},
    {"10.0.0.1/8=forwarded",
     "'10.0.0.1/8' has host bits set (the network is 10.0.0.0/8)"},
    {"=forwarded", "empty item in the address list"},
};

LOOP_TEST(spec_case, specs)
{
    struct cidr_list l = {0};
    char err[256] = "";
    int r = trusted_proxy_add(&l, specs[_i].spec, err, sizeof err);

    cases_check_spec(&specs[_i], r, err);
    if (r != 0)
        ck_assert_uint_eq(l.n, 0); /* a refused item adds nothing */
    cidr_list_free(&l);
}
END_TEST

const struct check_main check_main = {
    .suite = "forwarded",
    .tcases = {{"forwarded", .loops = {LOOP(client_case), LOOP(spec_case)}}}};
