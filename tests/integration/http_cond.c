/* SPDX-License-Identifier: MIT */
/*
 * http_cond.c - the end-to-end HTTP suite (test_http.c): conditional
 * requests (If-None-Match, If-Modified-Since, If-Match,
 * If-Unmodified-Since and which one counts) and Range (single ranges,
 * If-Range, numbers at the edges, a file past 4 GiB).
 */
#include "http_suite.h"
#include "site.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ===== conditional requests ============================================== */

/* One conditional request for /range.txt; @h are templates for
 * fill_validators(), the second one optional. */
static const struct {
    const char *method;
    const char *h[2];
    int status;
} conds[] = {
    {"GET", {"If-None-Match: {ETAG}"}, 304},
    {"GET", {"If-None-Match: {WEAK}"}, 304},
    {"GET", {"If-None-Match: \"nope\", {ETAG}"}, 304},
    {"GET", {"If-None-Match: \"nope\",{WEAK} , \"other\""}, 304},
    {"GET", {"If-None-Match: *"}, 304},
    {"GET", {"If-None-Match: \"nope\""}, 200},
    {"GET", {"If-None-Match: W/\"nope\""}, 200},
    {"HEAD", {"If-None-Match: {ETAG}"}, 304},
    {"GET", {"If-Modified-Since: {LM}"}, 304},
    {"HEAD", {"If-Modified-Since: {LM}"}, 304},
    {"GET", {"If-Modified-Since: Mon, 01 Jan 1990 00:00:00 GMT"}, 200},
    /* README: IMF-fixdate, RFC 850 and asctime are accepted (RFC 9110
     * 5.6.7 asks recipients to accept all three) */
    {"GET", {"If-Modified-Since: Tuesday, 02-Jan-24 03:04:05 GMT"}, 304},
    {"GET", {"If-Modified-Since: Tue Jan  2 03:04:05 2024"}, 304},
    {"GET", {"If-Modified-Since: Tue, 02 Jan 2024 03:04:05 GMT junk"}, 200},
    {"GET", {"If-Modified-Since: Tue, 32 Jan 2024 03:04:05 GMT"}, 200},
    {"GET", {"If-Modified-Since: not a date"}, 200},
    {"GET", {"If-Match: \"nope\""}, 412},
    {"HEAD", {"If-Match: \"nope\""}, 412},
    {"GET", {"If-Match: *"}, 200},
    /* If-Match compares strongly: a weak tag never matches */
    {"GET", {"If-Match: {ETAG}"}, 200},
    {"GET", {"If-Match: \"nope\", {ETAG}"}, 200},
    {"GET", {"If-Match: {WEAK}"}, 412},
    {"GET", {"If-Unmodified-Since: Mon, 01 Jan 1990 00:00:00 GMT"}, 412},
    {"GET", {"If-Unmodified-Since: {LM}"}, 200},
    {"GET", {"If-Unmodified-Since: Fri, 01 Jan 2100 00:00:00 GMT"}, 200},
    {"GET", {"If-Unmodified-Since: not a date"}, 200},
    /* two headers: which one counts */
    /* RFC 9110 13.1.3: If-Modified-Since is ignored with If-None-Match */
    {"GET", {"If-None-Match: \"nope\"", "If-Modified-Since: {LM}"}, 200},
    {"GET",
     {"If-None-Match: {ETAG}",
      "If-Modified-Since: Mon, 01 Jan 1990 00:00:00 GMT"},
     304},
    /* RFC 9110 13.1.4: If-Unmodified-Since is ignored with If-Match */
    {"GET",
     {"If-Match: *", "If-Unmodified-Since: Mon, 01 Jan 1990 00:00:00 GMT"},
     200},
    /* a 304 wins over Range (RFC 9110 13.2.2 order) */
    {"GET", {"If-None-Match: {ETAG}", "Range: bytes=0-9"}, 304},
    {"GET", {"If-Match: \"nope\"", "Range: bytes=0-9"}, 412},
};

LOOP_TEST(conditional_case, conds)
{
    struct server *s = start_default();
    struct validators v = get_validators(s, "/range.txt");
    const char *h[3] = {0};
    for (size_t i = 0; i < N_ELEMS(conds[_i].h) && conds[_i].h[i]; i++)
        h[i] = fill_validators(conds[_i].h[i], &v);
    int want = conds[_i].status;
    struct http_response *r =
        http_do(NULL, s, conds[_i].method, "/range.txt", h);
    EXPECT(r->status == want, "%s with '%s' '%s' (ETag %s): status %d, want %d",
           conds[_i].method, h[0], h[1] ? h[1] : "", v.etag, r->status, want);
    if (r->status == 304) {
        EXPECT(r->body_len == 0, "304 with a body");
        const char *cl = http_header(r, "Content-Length");
        EXPECT(cl == NULL || strtoul(cl, NULL, 10) == SITE_RANGE_LEN,
               "304 with Content-Length %s (the file has %d bytes; RFC 9110 "
               "8.6)",
               cl, SITE_RANGE_LEN);
        EXPECT(http_header(r, "ETag") &&
                   strcmp(http_header(r, "ETag"), v.etag) == 0,
               "304 without the ETag (RFC 9110 15.4.5)");
    }
    if (r->status == 200 && strcmp(conds[_i].method, "GET") == 0)
        EXPECT(strcmp(r->body, site.range) == 0, "200 with a wrong body");
    server_stop_clean(s);
}
END_TEST

START_TEST(conditional_304_keepalive_raw)
{
    /* The MHD trap: a 304 with Content-Length 0 or the body length would
     * desynchronise a keep-alive connection; check the exact bytes. */
    struct server *s = start_default();
    struct validators v = get_validators(s, "/range.txt");
    struct raw_conn *c = raw_connect(s->port);
    raw_send_str(c, hfmt("GET /range.txt HTTP/1.1\r\nHost: x\r\n"
                         "If-None-Match: %s\r\n\r\n",
                         v.etag));
    struct http_response *r = raw_read(c, false, 5000);
    EXPECT_STATUS(r, 304, "raw If-None-Match");
    const char *cl = http_header(r, "Content-Length");
    EXPECT(cl == NULL || strtoul(cl, NULL, 10) == SITE_RANGE_LEN,
           "304 Content-Length: %s", cl);
    raw_send_str(c, "GET /readme.txt HTTP/1.1\r\nHost: x\r\n\r\n");
    r = raw_read(c, false, 5000);
    EXPECT_STATUS(r, 200, "request after a 304 on the same connection");
    EXPECT(strcmp(r->body, "plain text\n") == 0,
           "after a 304: body '%s' (stray bytes?)", r->body);
    server_stop_clean(s);
}
END_TEST

/* ===== Range ============================================================= */

static const struct {
    const char *range;
    const char *if_range; /* template, or NULL */
    int status;
    long first, last; /* 206: inclusive */
} ranges[] = {
    {"bytes=0-9", NULL, 206, 0, 9},
    {"bytes=-10", NULL, 206, 90, 99},
    {"bytes=10-", NULL, 206, 10, 99},
    {"bytes=0-0", NULL, 206, 0, 0},
    {"bytes=99-99", NULL, 206, 99, 99},
    {"bytes=90-1000", NULL, 206, 90, 99},
    {"bytes=-1000", NULL, 206, 0, 99},
    {"bytes=0-", NULL, 206, 0, 99},
    /* outside RFC 9110's grammar (no OWS around "="), read leniently */
    {"bytes = 5-7", NULL, 206, 5, 7},
    {"bytes=100-200", NULL, 416, 0, 0},
    {"bytes=100-", NULL, 416, 0, 0},
    {"bytes=1000-2000", NULL, 416, 0, 0},
    {"bytes=-0", NULL, 416, 0, 0},
    {"bytes=abc", NULL, 200, 0, 0},
    {"bytes=5-2", NULL, 200, 0, 0},
    {"items=0-5", NULL, 200, 0, 0},
    {"bytes=", NULL, 200, 0, 0},
    {"bytes=--5", NULL, 200, 0, 0},
    {"bytes=1-2-3", NULL, 200, 0, 0},
    {"bytes=0-9", "{ETAG}", 206, 0, 9},
    {"bytes=0-9", "\"other\"", 200, 0, 0},
    {"bytes=0-9", "{LM}", 206, 0, 9},
    {"bytes=0-9", "Mon, 01 Jan 1990 00:00:00 GMT", 200, 0, 0},
    /* If-Range compares strongly (RFC 9110 13.1.5): a weak tag -> 200 */
    {"bytes=0-9", "{WEAK}", 200, 0, 0},
    /* numbers past 64 bits and at the edges: never a crash (ASan) or a
     * bogus length */
    {"bytes=0-99999999999999999999999999", NULL, 206, 0, 99},
    {"bytes=99999999999999999999999999-", NULL, 416, 0, 0},
    {"bytes=-99999999999999999999999999", NULL, 206, 0, 99},
    {"bytes=18446744073709551615-", NULL, 416, 0, 0},
    {"bytes=9223372036854775807-9223372036854775807", NULL, 416, 0, 0},
    {"bytes=0-18446744073709551615", NULL, 206, 0, 99},
    {"bytes=-9223372036854775808", NULL, 206, 0, 99},
    {"bytes=00000000000000000000000000000005-9", NULL, 206, 5, 9},
    /* several ranges that coalesce into one (docs/http.md): one part */
    {"bytes=0-1,5-6", NULL, 206, 0, 6},
    {"bytes=5-6, 0-1", NULL, 206, 0, 6},
    /* more bytes than the file: the whole file (multipart: test_ranges.c) */
    {"bytes=0-,0-", NULL, 200, 0, 0},
    {"bytes=-60,0-40", NULL, 200, 0, 0},
};

LOOP_TEST(range_case, ranges)
{
    struct server *s = start_default();
    struct validators v = get_validators(s, "/range.txt");
    const char *h[3] = {hfmt("Range: %s", ranges[_i].range), NULL, NULL};
    int want = ranges[_i].status;
    if (ranges[_i].if_range)
        h[1] = hfmt("If-Range: %s", fill_validators(ranges[_i].if_range, &v));
    struct http_response *r = http_do(NULL, s, "GET", "/range.txt", h);
    EXPECT(r->status == want, "Range '%s' If-Range '%s': status %d, want %d",
           h[0], h[1] ? h[1] : "", r->status, want);
    const char *cr = http_header(r, "Content-Range");
    if (want == 206) {
        long f = ranges[_i].first, l = ranges[_i].last;
        char *wcr = hfmt("bytes %ld-%ld/%d", f, l, SITE_RANGE_LEN);
        EXPECT(cr && strcmp(cr, wcr) == 0, "%s: Content-Range '%s', want '%s'",
               h[0], cr ?: "(none)", wcr);
        EXPECT(r->body_len == (size_t)(l - f + 1) &&
                   memcmp(r->body, site.range + f, r->body_len) == 0,
               "%s: body '%s'", h[0], r->body);
        const char *cl = http_header(r, "Content-Length");
        EXPECT(cl && strtol(cl, NULL, 10) == l - f + 1, "%s: Content-Length %s",
               h[0], cl);
        EXPECT(http_value_eq(http_header(r, "Content-Type"),
                             "text/plain; charset=utf-8"),
               "206 Content-Type '%s'", http_header(r, "Content-Type") ?: "");
    } else if (want == 416) {
        char *wcr = hfmt("bytes */%d", SITE_RANGE_LEN);
        EXPECT(cr && strcmp(cr, wcr) == 0, "416 Content-Range '%s', want '%s'",
               cr ?: "(none)", wcr);
    } else {
        EXPECT(strcmp(r->body, site.range) == 0, "200: body not the file");
        EXPECT(cr == NULL, "200 with Content-Range %s", cr);
    }
    server_stop_clean(s);
}
END_TEST

START_TEST(range_head_and_big)
{
    struct server *s = start_default();
    struct http_response *r =
        http_do(NULL, s, "HEAD", "/range.txt",
                (const char *[]){"Range: bytes=0-9", NULL});
    EXPECT_STATUS(r, 206, "HEAD with Range");
    EXPECT(r->body_len == 0, "HEAD 206 with a body");
    EXPECT(http_header(r, "Content-Length") &&
               strcmp(http_header(r, "Content-Length"), "10") == 0,
           "HEAD 206 Content-Length %s", http_header(r, "Content-Length"));
    /* a range deep into a 1 MiB file: the sendfile offset must be right */
    r = http_do(NULL, s, "GET", "/big.bin",
                (const char *[]){"Range: bytes=700000-700099", NULL});
    EXPECT_STATUS(r, 206, "big.bin range");
    EXPECT(r->body_len == 100 && memcmp(r->body, site.big + 700000, 100) == 0,
           "big.bin range body differs");
    r = http_do(NULL, s, "GET", "/big.bin",
                (const char *[]){"Range: bytes=-5", NULL});
    EXPECT(r->status == 206 && r->body_len == 5 &&
               memcmp(r->body, site.big + SITE_BIG_LEN - 5, 5) == 0,
           "big.bin suffix range");
    server_stop_clean(s);
}
END_TEST

START_TEST(range_large_file)
{
    /* A sparse 5 GB file: lengths and offsets past 4 GiB must survive (the
     * MHD off_t/size_t traps: _from_fd_at_offset vs _at_offset64). */
    char *w = tree_new();
    char *p = tree_path(w, "huge.bin");
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    EXPECT(fd >= 0, "create %s", p);
    const long long size = 5000000000LL, off = 4800000000LL;
    EXPECT(ftruncate(fd, size) == 0, "ftruncate: %s", strerror(errno));
    EXPECT(pwrite(fd, "DEEP-MARK!", 10, off) == 10, "pwrite");
    close(fd);
    struct server *s = server_start(w, NULL);
    struct http_response *r = http_do(NULL, s, "HEAD", "/huge.bin", NULL);
    EXPECT_STATUS(r, 200, "HEAD /huge.bin");
    const char *cl = http_header(r, "Content-Length");
    EXPECT(cl && strcmp(cl, "5000000000") == 0, "5 GB file: Content-Length %s",
           cl ?: "(none)");
    const char *h[] = {hfmt("Range: bytes=%lld-%lld", off, off + 9), NULL};
    r = http_do(NULL, s, "GET", "/huge.bin", h);
    EXPECT_STATUS(r, 206, "range past 4 GiB");
    EXPECT(r->body_len == 10 && memcmp(r->body, "DEEP-MARK!", 10) == 0,
           "range past 4 GiB: body '%s'", r->body);
    char *wcr = hfmt("bytes %lld-%lld/%lld", off, off + 9, size);
    EXPECT(http_header(r, "Content-Range") &&
               strcmp(http_header(r, "Content-Range"), wcr) == 0,
           "Content-Range %s, want %s", http_header(r, "Content-Range"), wcr);
    const char *h2[] = {"Range: bytes=-3", NULL};
    r = http_do(NULL, s, "GET", "/huge.bin", h2);
    EXPECT(r->status == 206 && r->body_len == 3,
           "suffix range of a 5 GB file: %d, %zu bytes", r->status,
           r->body_len);
    server_stop_clean(s);
}
END_TEST

static const struct http_tcase tcases[] = {
    {"conditional", LOOP(conditional_case), {&conditional_304_keepalive_raw}},
    {"range", LOOP(range_case), {&range_head_and_big, &range_large_file}},
};

Suite *http_cond_suite(void)
{
    return http_suite_make("cond", tcases, N_ELEMS(tcases));
}
