/* SPDX-License-Identifier: MIT */
/* test_listing_json.c - JSON listing rendering and string escaping. */
#include "cases.h"
#include "check_main.h"
#include "files/listing_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A name rendered alone: what its "name" and "href" come out as (JSON
 * strings, quotes included).
 */
static const struct name_case name_cases[] = {
    {"plain.txt", "\"plain.txt\"", "\"plain.txt\""},
    {"a b", "\"a b\"", "\"a%20b\""},
    {"q\"uote", "\"q\\\"uote\"", "\"q%22uote\""},
    {"back\\slash", "\"back\\\\slash\"", "\"back%5Cslash\""},
    {"nl\nline", "\"nl\\nline\"", "\"nl%0Aline\""},
    {"\t\r\b\f", "\"\\t\\r\\b\\f\"", "\"%09%0D%08%0C\""},
    {"\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"", "\"%01%1F%7F\""},
    {"caf\xc3\xa9", "\"caf\xc3\xa9\"", "\"caf%C3%A9\""},
    {"\xe2\x82\xac\xf0\x9f\x98\x80", "\"\xe2\x82\xac\xf0\x9f\x98\x80\"",
     "\"%E2%82%AC%F0%9F%98%80\""},
    /* invalid UTF-8: one U+FFFD per bad byte */
    {"bad\xff", "\"bad\xef\xbf\xbd\"", "\"bad%FF\""},
    {"\xc3", "\"\xef\xbf\xbd\"", "\"%C3\""},
    {"\xc0\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\"", "\"%C0%AF\""}, /* overlong */
    {"\xe0\x80\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"",
     "\"%E0%80%AF\""},
    {"\xed\xa0\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"",
     "\"%ED%A0%80\""}, /* surrogate */
    {"\xf4\x90\x80\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"",
     "\"%F4%90%80%80\""},                                       /* > U+10FFFF */
    {"\xe2\x82", "\"\xef\xbf\xbd\xef\xbf\xbd\"", "\"%E2%82\""}, /* truncated */
    {"<script>&", "\"<script>&\"", "\"%3Cscript%3E%26\""},
    {"-._~", "\"-._~\"", "\"-._~\""},
};

LOOP_TEST(name_case, name_cases)
{
    char name[64];
    struct listing_entry e = {.name = name, .kind = LISTING_FILE};
    struct listing l = {.v = &e, .n = 1};
    char want[256];
    char *out = NULL;
    size_t len = 0;

    snprintf(name, sizeof name, "%s", name_cases[_i].name);
    ck_assert_int_eq(listing_json(&l, "", &out, &len), 0);
    ck_assert_uint_eq(len, strlen(out));
    snprintf(want, sizeof(want),
             "{\"path\":\"/\",\"entries\":[{\"name\":%s,\"href\":%s,"
             "\"type\":\"file\",\"size\":0,\"mtime\":\"1970-01-01T00:00:00Z\"}"
             "]}\n",
             name_cases[_i].shown, name_cases[_i].href);
    ck_assert_str_eq(out, want);
    free(out);
}
END_TEST

START_TEST(whole_document)
{
    struct listing_entry e[] = {
        {"sub", LISTING_DIR, 4096, 1796279400},
        {"big.iso", LISTING_FILE, 5000000000ull, 0},
        {"ln", LISTING_OTHER, 3, 86399},
        {"fifo", LISTING_OTHER, 0, 86400},
    };
    struct listing l = {.v = e, .n = N_ELEMS(e)};
    char *out = NULL;
    size_t len = 0;

    ck_assert_int_eq(listing_json(&l, "d\xffir/", &out, &len), 0);
    ck_assert_str_eq(
        out, "{\"path\":\"/d\xef\xbf\xbdir/\",\"entries\":["
             "{\"name\":\"sub\",\"href\":\"sub/\",\"type\":\"dir\","
             "\"size\":4096,\"mtime\":\"2026-12-03T06:30:00Z\"},"
             "{\"name\":\"big.iso\",\"href\":\"big.iso\",\"type\":\"file\","
             "\"size\":5000000000,\"mtime\":\"1970-01-01T00:00:00Z\"},"
             "{\"name\":\"ln\",\"href\":\"ln\",\"type\":\"other\","
             "\"size\":3,\"mtime\":\"1970-01-01T23:59:59Z\"},"
             "{\"name\":\"fifo\",\"href\":\"fifo\",\"type\":\"other\","
             "\"size\":0,\"mtime\":\"1970-01-02T00:00:00Z\"}]}\n");
    free(out);
}
END_TEST

/* A listing that stopped at its bound says so, after the entries. */
START_TEST(truncated_listing)
{
    struct listing_entry e[] = {{"a", LISTING_FILE, 1, 0}};
    struct listing l = {.v = e, .n = 1, .total = 100000};
    char *out = NULL;
    size_t len = 0;

    ck_assert_int_eq(listing_json(&l, "", &out, &len), 0);
    ck_assert_str_eq(out, "{\"path\":\"/\",\"entries\":["
                          "{\"name\":\"a\",\"href\":\"a\",\"type\":\"file\","
                          "\"size\":1,\"mtime\":\"1970-01-01T00:00:00Z\"}],"
                          "\"truncated\":true,\"total\":100000}\n");
    free(out);
}
END_TEST

START_TEST(empty_directory)
{
    char *out = NULL;
    size_t len = 0;

    struct listing l = {0};

    ck_assert_int_eq(listing_json(&l, "empty/", &out, &len), 0);
    ck_assert_str_eq(out, "{\"path\":\"/empty/\",\"entries\":[]}\n");
    free(out);
}
END_TEST

/* Many long entries: the buffer grows past its first size correctly. */
START_TEST(grows)
{
    enum { N = 2000 };
    struct listing_entry *e = calloc(N, sizeof(*e));
    struct listing l = {.v = e, .n = N};
    char name[200];
    char *out = NULL;
    size_t len = 0, count = 0;

    memset(name, '"', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    for (size_t i = 0; i < N; i++)
        e[i] = (struct listing_entry){name, LISTING_FILE, i, 0};
    ck_assert_int_eq(listing_json(&l, "", &out, &len), 0);
    ck_assert_uint_eq(len, strlen(out));
    for (const char *p = out; (p = strstr(p, "\"type\":\"file\"")); p++)
        count++;
    ck_assert_uint_eq(count, N);
    ck_assert_str_eq(out + len - 6, "Z\"}]}\n");
    free(out);
    free(e);
}
END_TEST

const struct check_main check_main = {
    .suite = "listing_json",
    .tcases = {{"core", .loops = {LOOP(name_case)},
                .tests = {&whole_document, &truncated_listing, &empty_directory,
                          &grows}}}};
