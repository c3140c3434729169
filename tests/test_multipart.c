// SPDX-License-Identifier: MIT
/*
 * test_multipart.c - the multipart/byteranges writer: the exact bytes of a
 * body, its announced length, and the same bytes whatever the step size.
 */
#include "check_main.h"
#include "http/multipart.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A 100-byte "file": a..z repeated. */
static char file[101];

static void file_setup(void)
{
    for (int i = 0; i < 100; i++)
        file[i] = (char)('a' + i % 26);
    file[100] = '\0';
}

/* The whole body of @m read in steps of at most @step bytes. */
static char *render(const struct multipart *m, size_t step, size_t *len)
{
    char *out = malloc(m->total + 1);
    uint64_t pos = 0;

    ck_assert_ptr_nonnull(out);
    for (;;) {
        uint64_t off;
        size_t flen, n = multipart_step(m, pos, out + pos, step, &off, &flen);

        ck_assert_uint_le(n, step);
        if (n == 0 && flen == 0)
            break;
        if (n == 0) {
            ck_assert_uint_le(flen, step);
            ck_assert_uint_le(off + flen, 100);
            memcpy(out + pos, file + off, flen);
            n = flen;
        }
        pos += n;
        ck_assert_uint_le(pos, m->total);
    }
    ck_assert_uint_eq(pos, m->total);
    out[pos] = '\0';
    *len = (size_t)pos;
    return out;
}

static const struct {
    struct range_set set;
    const char *want;
} bodies[] = {
    {{2, {{0, 10}, {20, 10}}},
     "--B\r\nContent-Type: text/plain\r\nContent-Range: bytes 0-9/100\r\n\r\n"
     "abcdefghij"
     "\r\n--B\r\nContent-Type: text/plain\r\n"
     "Content-Range: bytes 20-29/100\r\n\r\n"
     "uvwxyzabcd"
     "\r\n--B--\r\n"},
    {{3, {{99, 1}, {0, 1}, {50, 3}}},
     "--B\r\nContent-Type: text/plain\r\nContent-Range: bytes 99-99/100\r\n\r\n"
     "v"
     "\r\n--B\r\nContent-Type: text/plain\r\n"
     "Content-Range: bytes 0-0/100\r\n\r\n"
     "a"
     "\r\n--B\r\nContent-Type: text/plain\r\n"
     "Content-Range: bytes 50-52/100\r\n\r\n"
     "yza"
     "\r\n--B--\r\n"},
    /* one part is a valid multipart body too */
    {{1, {{0, 100}}},
     "--B\r\nContent-Type: text/plain\r\nContent-Range: bytes 0-99/100\r\n\r\n"
     "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"
     "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuv"
     "\r\n--B--\r\n"},
};

LOOP_TEST(body_case, bodies)
{
    struct multipart m;
    /* every step size from 1 byte (a step inside every header) up */
    static const size_t steps[] = {1, 2, 3, 7, 10, 64, 4096};

    ck_assert_int_eq(
        multipart_init(&m, &bodies[_i].set, 100, "text/plain", "B"), 0);
    ck_assert_uint_eq(m.total, strlen(bodies[_i].want));
    for (size_t k = 0; k < N_ELEMS(steps); k++) {
        size_t len;
        char *got = render(&m, steps[k], &len);

        ck_assert_msg(len == m.total && memcmp(got, bodies[_i].want, len) == 0,
                      "step %zu: body\n%s\nwant\n%s", steps[k], got,
                      bodies[_i].want);
        free(got);
    }
}
END_TEST

/* Past the end: nothing, and no file bytes either. */
START_TEST(past_end)
{
    struct multipart m;
    uint64_t off = 7;
    size_t flen = 7;
    char buf[8];

    ck_assert_int_eq(multipart_init(&m, &bodies[0].set, 100, "text/plain", "B"),
                     0);
    ck_assert_uint_eq(multipart_step(&m, m.total, buf, 8, &off, &flen), 0);
    ck_assert_uint_eq(flen, 0);
    ck_assert_uint_eq(multipart_step(&m, m.total + 1000, buf, 8, &off, &flen),
                      0);
    ck_assert_uint_eq(flen, 0);
}
END_TEST

static const struct {
    struct range_set set;
    uint64_t size;
    const char *type, *boundary;
} bad[] = {
    {{0, {{0, 1}}}, 100, "text/plain", "B"},          /* no part */
    {{1, {{0, 0}}}, 100, "text/plain", "B"},          /* empty part */
    {{1, {{100, 1}}}, 100, "text/plain", "B"},        /* past the end */
    {{1, {{50, 51}}}, 100, "text/plain", "B"},        /* runs past it */
    {{1, {{0, 1}}}, 100, "text/plain\r\nX: y", "B"},  /* header injection */
    {{1, {{0, 1}}}, 100, "text/plain", ""},           /* empty boundary */
    {{1, {{0, 1}}}, 100, "text/plain", "a b"},        /* space */
    {{1, {{0, 1}}}, 100, "text/plain", "a\r\nb"},     /* control bytes */
    {{1, {{0, 1}}}, 100, "text/plain", "a\"b"},       /* not a bchar */
    {{RANGE_MAX_PARTS + 1, {{0, 1}}}, 100, "t", "B"}, /* too many parts */
};

LOOP_TEST(bad_case, bad)
{
    struct multipart m;

    ck_assert_int_eq(multipart_init(&m, &bad[_i].set, bad[_i].size,
                                    bad[_i].type, bad[_i].boundary),
                     -EINVAL);
}
END_TEST

START_TEST(long_type)
{
    struct multipart m;
    struct range_set s = {1, {{0, 1}}};
    char type[MULTIPART_TYPE_MAX + 2];

    memset(type, 'x', sizeof type - 1);
    type[sizeof type - 1] = '\0';
    ck_assert_int_eq(multipart_init(&m, &s, 100, type, "B"), -EINVAL);
    type[MULTIPART_TYPE_MAX] = '\0';
    ck_assert_int_eq(multipart_init(&m, &s, 100, type, "B"), 0);
}
END_TEST

START_TEST(boundary_and_type)
{
    unsigned char rnd[MULTIPART_RANDOM];
    char b[MULTIPART_BOUNDARY_LEN + 1], ct[MULTIPART_CTYPE_LEN];
    struct multipart m;

    for (size_t i = 0; i < sizeof rnd; i++)
        rnd[i] = (unsigned char)(i * 17);
    multipart_boundary(rnd, b);
    ck_assert_str_eq(b, "00112233445566778899aabbccddeeff");
    ck_assert_int_eq(multipart_init(&m, &bodies[0].set, 100, "a/b", b), 0);
    multipart_content_type(&m, ct);
    ck_assert_str_eq(ct, "multipart/byteranges; "
                         "boundary=00112233445566778899aabbccddeeff");
}
END_TEST

/* The largest body: 16 parts of a file near 2^63 bytes; lengths add up. */
START_TEST(big_numbers)
{
    struct multipart m;
    struct range_set s = {RANGE_MAX_PARTS, {{0}}};
    uint64_t size = (uint64_t)1 << 62, sum = 0;
    char b[MULTIPART_BOUNDARY_LEN + 1];

    memset(b, 'z', MULTIPART_BOUNDARY_LEN);
    b[MULTIPART_BOUNDARY_LEN] = '\0';
    for (size_t i = 0; i < s.n; i++) {
        s.v[i].start = i * (size / 16);
        s.v[i].len = size / 16;
        sum += s.v[i].len;
    }
    ck_assert_int_eq(
        multipart_init(&m, &s, size, "application/octet-stream", b), 0);
    ck_assert_uint_gt(m.total, sum);
    ck_assert_uint_lt(m.total - sum, (uintmax_t)16 * 200);
    /* the last byte before the close delimiter is the file's last byte */
    uint64_t off;
    size_t flen;
    char buf[64];
    size_t tail = strlen("\r\n--") + MULTIPART_BOUNDARY_LEN + strlen("--\r\n");
    ck_assert_uint_eq(
        multipart_step(&m, m.total - tail - 1, buf, sizeof buf, &off, &flen),
        0);
    ck_assert_uint_eq(off, size - 1);
    ck_assert_uint_eq(flen, 1);
}
END_TEST

const struct check_main check_main = {
    .suite = "multipart",
    .tcases = {
        {"writer", file_setup, NULL, .loops = {LOOP(body_case), LOOP(bad_case)},
         .tests = {&past_end, &long_type, &boundary_and_type, &big_numbers}}}};
