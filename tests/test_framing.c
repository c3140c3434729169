// SPDX-License-Identifier: MIT
/*
 * test_framing.c - request framing: the raw-byte scanner (fed whole and one
 * byte at a time, which must agree) and the Content-Length /
 * Transfer-Encoding verdict over stored fields.
 */
#include "check_main.h"
#include "http/framing.h"

#include <check.h>
#include <string.h>

/* Raw streams: status, why, head index of the violation, and whether the
 * stream ends in the middle of a head. */
static const struct {
    const char *bytes;
    size_t len; /* 0: strlen */
    unsigned want;
    enum framing_why why;
    unsigned bad_head;
    bool mid_head;
} scans[] = {
    {"GET / HTTP/1.1\r\nHost: x\r\n\r\n", 0, 0, FRAMING_FINE, 0, false},
    {"GET / HTTP/1.1\nHost: x\n\n", 0, 0, FRAMING_FINE, 0, false},
    {"\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n", 0, 0, FRAMING_FINE, 0, false},
    {"GET / HTTP/1.1\r\nHost: x\r\n", 0, 0, FRAMING_FINE, 0, true},
    {"GE", 0, 0, FRAMING_FINE, 0, true},
    {"", 0, 0, FRAMING_FINE, 0, false},
    {"GET / HTTP/1.1\r\nX: \x80\xff\tv\r\n\r\n", 0, 0, FRAMING_FINE, 0, false},
    /* pipelined: the second head is scanned too */
    {"GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nA : b\r\n\r\n", 0, 400,
     FRAMING_SPACE_COLON, 1, false},
    {"GET / HTTP/1.1\r\nContent-Length: 0\r\n\r\nGET / HTTP/1.1\r\nA\x01: "
     "b\r\n\r\n",
     0, 400, FRAMING_CTL, 1, false},
    /* a body stops the scan: what follows is never a request */
    {"GET / HTTP/1.1\r\nContent-Length: 5\r\n\r\nA : b\r\n", 0, 0, FRAMING_FINE,
     0, false},
    {"GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n\x01\x00", 48, 0,
     FRAMING_FINE, 0, false},
    {"GET / HTTP/1.1\r\nContent-Length: 00\r\n\r\nGET / HTTP/1.1\r\nA : "
     "b\r\n",
     0, 400, FRAMING_SPACE_COLON, 1, true},
    /* request smuggling reproductions that are visible in the bytes */
    {"GET / HTTP/1.1\r\nHost: x\r\nContent-Length : 34\r\n\r\n", 0, 400,
     FRAMING_SPACE_COLON, 0, false},
    {"GET / HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"x\",\r\n \"y\"\r\n\r\n", 0,
     400, FRAMING_OBS_FOLD, 0, false},
    {"GET / HTTP/1.1\r\nHost: x\r\nX: a\tb\r\n\tc\r\n\r\n", 0, 400,
     FRAMING_OBS_FOLD, 0, false},
    {"GET / HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n", 37, 400, FRAMING_NUL, 0,
     false},
    {"GET / HTTP/1.1\r\nHost: x\rX-A: b\r\n\r\n", 0, 400, FRAMING_BARE_CR, 0,
     false},
    {"GET / HTTP/1.1\rHost: x\r\n\r\n", 0, 400, FRAMING_BARE_CR, 0, false},
    {"GET / HTTP/1.1\r\nHost: x\r\n\r\r\n", 0, 400, FRAMING_BARE_CR, 0, true},
    {"\rGET / HTTP/1.1\r\n\r\n", 0, 400, FRAMING_BARE_CR, 0, false},
    {"G\0ET / HTTP/1.1\r\nHost: x\r\n\r\n", 29, 400, FRAMING_NUL, 0, false},
    {"G(T / HTTP/1.1\r\n\r\n", 0, 400, FRAMING_BAD_METHOD, 0, false},
    {" GET / HTTP/1.1\r\n\r\n", 0, 400, FRAMING_BAD_METHOD, 0, false},
    {"GET\r\n\r\n", 0, 400, FRAMING_BAD_METHOD, 0, false},
    {"GET /\0 HTTP/1.1\r\n\r\n", 20, 400, FRAMING_NUL, 0, false},
    {"GET /\t HTTP/1.1\r\n\r\n", 0, 400, FRAMING_CTL, 0, false},
    {"GET / HTTP/1.1\r\n Host: x\r\n\r\n", 0, 400, FRAMING_OBS_FOLD, 0, false},
    {"GET / HTTP/1.1\r\nHost\t: x\r\n\r\n", 0, 400, FRAMING_SPACE_COLON, 0,
     false},
    {"GET / HTTP/1.1\r\n: x\r\n\r\n", 0, 400, FRAMING_BAD_NAME, 0, false},
    {"GET / HTTP/1.1\r\nA\"b: x\r\n\r\n", 0, 400, FRAMING_BAD_NAME, 0, false},
    {"GET / HTTP/1.1\r\nNoColon\r\n\r\n", 0, 400, FRAMING_BAD_NAME, 0, false},
    /* Content-Length as libmicrohttpd can read it, or refused here */
    {"GET / HTTP/1.1\r\nContent-Length:  \t0000000000000000000\r\n\r\n", 0, 0,
     FRAMING_FINE, 0, false},
    {"GET / HTTP/1.1\r\nContent-Length: 00000000000000000000\r\n\r\n", 0, 400,
     FRAMING_BAD_LENGTH, 0, false},
    {"GET / HTTP/1.1\r\nContent-Length: 0 \r\n\r\n", 0, 400, FRAMING_BAD_LENGTH,
     0, false},
    {"GET / HTTP/1.1\r\nContent-Length: 5, 5\r\n\r\n", 0, 400,
     FRAMING_BAD_LENGTH, 0, false},
    {"GET / HTTP/1.1\r\nContent-Length: abc\r\n\r\n", 0, 400,
     FRAMING_BAD_LENGTH, 0, false},
    {"GET / HTTP/1.1\r\nContent-Length:\r\n\r\n", 0, 400, FRAMING_BAD_LENGTH, 0,
     false},
    {"GET / HTTP/1.1\r\ncontent-LENGTH: +1\r\n\r\n", 0, 400, FRAMING_BAD_LENGTH,
     0, false},
    {"GET / HTTP/1.1\r\nX: a\x7f\x01\r\n\r\n", 0, 0, FRAMING_FINE, 0, false},
    {"GET / HTTP/1.1\r\nX\x01: a\r\n\r\n", 0, 400, FRAMING_CTL, 0, false},
    {"GET / HTTP/1.1\r\nX\x7f: a\r\n\r\n", 0, 400, FRAMING_CTL, 0, false},
};

static size_t scan_len(size_t i)
{
    return scans[i].len ? scans[i].len : strlen(scans[i].bytes);
}

LOOP_TEST(scan_whole, scans)
{
    struct framing_scan s;

    framing_scan_init(&s);
    unsigned got = framing_scan_feed(&s, scans[_i].bytes, scan_len(_i));
    ck_assert_msg(got == scans[_i].want, "row %d: %u, want %u", _i, got,
                  scans[_i].want);
    ck_assert_msg(s.why == scans[_i].why, "row %d: why %s, want %s", _i,
                  framing_why_text(s.why), framing_why_text(scans[_i].why));
    if (got)
        ck_assert_uint_eq(s.bad_head, scans[_i].bad_head);
    ck_assert_msg(framing_scan_mid_head(&s) == scans[_i].mid_head,
                  "row %d: mid_head", _i);
}
END_TEST

LOOP_TEST(scan_bytewise, scans)
{
    struct framing_scan s;
    unsigned got = 0;

    framing_scan_init(&s);
    for (size_t k = 0; k < scan_len(_i); k++)
        got = framing_scan_feed(&s, scans[_i].bytes + k, 1);
    ck_assert_msg(got == scans[_i].want, "row %d: %u, want %u", _i, got,
                  scans[_i].want);
    ck_assert_int_eq(s.why, scans[_i].why);
}
END_TEST

/*
 * The filter: from the start of the refused field line (when it is in the
 * same read) to the end of the refused head every byte but LF (and a CR that
 * starts a line) is 'x', so lines end in a bare LF; before and after, the
 * bytes stay.
 */
static const struct {
    const char *in, *out;
    const char *out1; /* fed a byte at a time, when it differs: a line
                         begun in an earlier read is not rewritten */
} filters[] = {
    {"GET / HTTP/1.1\r\nHost: x\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
     NULL},
    {"GET / HTTP/1.1\r\nA@b: c\r\nContent-Length: zz\r\n\r\nGET",
     "GET / HTTP/1.1\r\nxxxxxxx\nxxxxxxxxxxxxxxxxxxx\n\r\nGET",
     "GET / HTTP/1.1\r\nAxxxxxx\nxxxxxxxxxxxxxxxxxxx\n\r\nGET"},
    {"GET / HTTP/1.1\r\nContent-Length : 5\r\n\r\nhello",
     "GET / HTTP/1.1\r\nxxxxxxxxxxxxxxxxxxx\n\r\nhello",
     "GET / HTTP/1.1\r\nContent-Lengthxxxxx\n\r\nhello"},
    {"GET / HTTP/1.1\r\nContent-Length: 5x\r\n\r\n",
     "GET / HTTP/1.1\r\nxxxxxxxxxxxxxxxxxxx\n\r\n",
     "GET / HTTP/1.1\r\nContent-Length: 5xx\n\r\n"},
    {"GET / HTTP/1.1\r\nX: \"a\",\r\n \"b\"\r\n\r\n",
     "GET / HTTP/1.1\r\nX: \"a\",\r\nxxxxx\n\r\n", NULL},
    {"GET / HTTP/1.1\r\nX: a\rb\r\n\r\n", "GET / HTTP/1.1\r\nxxxxxxx\n\r\n",
     "GET / HTTP/1.1\r\nX: a\rxx\n\r\n"},
    {"GET / HTTP/1.1\r\n\rZ\r\n\r\n", "GET / HTTP/1.1\r\nxxx\n\r\n",
     "GET / HTTP/1.1\r\n\rxx\n\r\n"},
    {"G(T / HTTP/1.1\nA: b\n\nGET", "GxT / HTTP/1.1\nxxxx\n\nGET", NULL},
    {"G\x01T /\x02 HTTP/1.1\r\nA: b\r\n\r\n", "GxT /x HTTP/1.1\r\nxxxxx\n\r\n",
     NULL},
};

LOOP_TEST(filter_case, filters)
{
    struct framing_scan s;
    size_t n = strlen(filters[_i].in);
    char buf[128], one[128];

    ck_assert_uint_lt(n, sizeof buf);
    memcpy(buf, filters[_i].in, n + 1);
    memcpy(one, filters[_i].in, n + 1);
    framing_scan_init(&s);
    framing_scan_filter(&s, buf, n);
    ck_assert_str_eq(buf, filters[_i].out);
    /* the same, a byte at a time */
    framing_scan_init(&s);
    for (size_t k = 0; k < n; k++)
        framing_scan_filter(&s, one + k, 1);
    ck_assert_str_eq(one,
                     filters[_i].out1 ? filters[_i].out1 : filters[_i].out);
}
END_TEST

/* Stored fields: NULL-terminated name/value pairs. */
static const struct {
    const char *version;
    const char *f[10];
    unsigned want;
    bool body;
    enum framing_why why;
} fields[] = {
    {"HTTP/1.1", {"Host", "x"}, 0, false, FRAMING_FINE},
    {"HTTP/1.1", {"Content-Length", "0"}, 0, false, FRAMING_FINE},
    {"HTTP/1.1", {"Content-Length", " 000 "}, 0, false, FRAMING_FINE},
    {"HTTP/1.1", {"Content-Length", "12"}, 0, true, FRAMING_FINE},
    {"HTTP/1.1", {"content-length", "7, 7"}, 0, true, FRAMING_FINE},
    {"HTTP/1.1",
     {"Content-Length", "5", "Content-Length", "5"},
     0,
     true,
     FRAMING_FINE},
    {"HTTP/1.1",
     {"Content-Length", "0", "Content-Length", "38"},
     400,
     true,
     FRAMING_LENGTHS},
    {"HTTP/1.1", {"Content-Length", "5, 6"}, 400, true, FRAMING_LENGTHS},
    {"HTTP/1.1", {"Content-Length", "+5"}, 400, true, FRAMING_BAD_LENGTH},
    {"HTTP/1.1", {"Content-Length", "5 5"}, 400, true, FRAMING_BAD_LENGTH},
    {"HTTP/1.1", {"Content-Length", ""}, 400, true, FRAMING_BAD_LENGTH},
    {"HTTP/1.1", {"Content-Length", "0x10"}, 400, true, FRAMING_BAD_LENGTH},
    {"HTTP/1.1", {"Content-Length", "5,"}, 400, true, FRAMING_BAD_LENGTH},
    {"HTTP/1.1",
     {"Content-Length", "99999999999999999999999"},
     400,
     true,
     FRAMING_BAD_LENGTH},
    {"HTTP/1.1", {"Content-Length ", "34"}, 400, true, FRAMING_BAD_NAME},
    {"HTTP/1.1", {"", "x"}, 400, true, FRAMING_BAD_NAME},
    {"HTTP/1.1", {"If-None-Match\"y\"", "x"}, 400, true, FRAMING_BAD_NAME},
    {"HTTP/1.1", {"Transfer-Encoding", "chunked"}, 0, true, FRAMING_FINE},
    {"HTTP/1.1", {"Transfer-Encoding", "CHUNKED "}, 0, true, FRAMING_FINE},
    {"HTTP/1.1", {"Transfer-Encoding", "gzip, chunked"}, 0, true, FRAMING_FINE},
    {"HTTP/1.1",
     {"Transfer-Encoding", "gzip", "Transfer-Encoding", "chunked"},
     0,
     true,
     FRAMING_FINE},
    {"HTTP/1.1",
     {"Content-Length", "5", "Transfer-Encoding", "chunked"},
     400,
     true,
     FRAMING_LENGTH_AND_TE},
    {"HTTP/1.1",
     {"Transfer-Encoding", "chunked", "Content-Length", "0"},
     400,
     true,
     FRAMING_LENGTH_AND_TE},
    {"HTTP/1.0",
     {"Transfer-Encoding", "chunked"},
     400,
     true,
     FRAMING_TE_HTTP10},
    {"HTTP/1.1", {"Transfer-Encoding", "foo"}, 501, true, FRAMING_TE_UNKNOWN},
    {"HTTP/1.1",
     {"Transfer-Encoding", "chunked, identity"},
     501,
     true,
     FRAMING_TE_UNKNOWN},
    {"HTTP/1.1",
     {"Transfer-Encoding", "chunked, gzip"},
     400,
     true,
     FRAMING_TE_NOT_CHUNKED},
    {"HTTP/1.1",
     {"Transfer-Encoding", "gzip"},
     400,
     true,
     FRAMING_TE_NOT_CHUNKED},
    {"HTTP/1.1",
     {"Transfer-Encoding", "chunked, chunked"},
     400,
     true,
     FRAMING_TE_NOT_CHUNKED},
    {"HTTP/1.1", {"Transfer-Encoding", ""}, 400, true, FRAMING_TE_NOT_CHUNKED},
    {"HTTP/1.1", {"Transfer-Encoding", ","}, 400, true, FRAMING_TE_NOT_CHUNKED},
};

LOOP_TEST(fields_case, fields)
{
    struct framing_fields f;
    enum framing_why why = FRAMING_FINE;
    bool body = false;

    framing_fields_init(&f);
    for (size_t k = 0; fields[_i].f[k]; k += 2)
        framing_fields_add(&f, fields[_i].f[k], strlen(fields[_i].f[k]),
                           fields[_i].f[k + 1], strlen(fields[_i].f[k + 1]));
    unsigned got = framing_fields_verdict(&f, fields[_i].version, &body, &why);
    ck_assert_msg(got == fields[_i].want, "row %d: %u, want %u (%s)", _i, got,
                  fields[_i].want, framing_why_text(why));
    ck_assert_msg(why == fields[_i].why, "row %d: why %s, want %s", _i,
                  framing_why_text(why), framing_why_text(fields[_i].why));
    ck_assert_msg(body == fields[_i].body, "row %d: body", _i);
}
END_TEST

START_TEST(why_texts)
{
    for (int w = FRAMING_FINE + 1; w <= FRAMING_TE_UNKNOWN; w++)
        ck_assert_str_ne(framing_why_text((enum framing_why)w), "");
    ck_assert_str_eq(framing_why_text((enum framing_why)1000), "");
}
END_TEST

const struct check_main check_main = {
    .suite = "framing",
    .tcases = {
        {"scan",
         .loops = {LOOP(scan_whole), LOOP(scan_bytewise), LOOP(filter_case)}},
        {"fields", .loops = {LOOP(fields_case)}, .tests = {&why_texts}}}};
