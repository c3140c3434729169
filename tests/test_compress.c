// SPDX-License-Identifier: MIT
/*
 * test_compress.c - the encoders (each output decoded again by the other
 * side of its library) and the cache of compressed bodies: hits, keys,
 * the byte budget and LRU order, bodies kept alive by their holders after
 * eviction, a file changed under the encoder, incompressible data, and the
 * background queue that compresses a key once however often it is asked.
 */
#include "check_main.h"
#include "files/compress.h"
#include "fixture.h"

#include <brotli/decode.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

/* A compressible text of @n bytes. */
static char *text(size_t n)
{
    char *t = malloc(n);
    ck_assert_ptr_nonnull(t);
    for (size_t i = 0; i < n; i++)
        t[i] = "body { color: #123; margin: 0 } /* css */\n"[i % 42] +
               (char)((i / 4096) % 3);
    return t;
}

/* An incompressible (random) text of @n bytes. */
static char *noise(size_t n)
{
    char *t = malloc(n);
    unsigned s = 12345;
    ck_assert_ptr_nonnull(t);
    for (size_t i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        t[i] = (char)(s >> 16);
    }
    return t;
}

/* Write @n bytes of @data to the scratch file @name; its fd and stat. */
static int put(const char *name, const char *data, size_t n, struct stat *st)
{
    int fd =
        open(fixture_path(name), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, data, n), (ssize_t)n);
    ck_assert_int_eq(fstat(fd, st), 0);
    return fd;
}

/* put of @n bytes of text(@n) to the scratch file @name. */
static int put_text(const char *name, size_t n, struct stat *st)
{
    char *t = text(n);
    int fd = put(name, t, n, st);

    free(t);
    return fd;
}

/* Decode @len bytes of @enc into a buffer of @want bytes; returns its size. */
static size_t decode(enum negotiate_encoding enc, const unsigned char *in,
                     size_t len, char *out, size_t cap)
{
    if (enc == NEGOTIATE_GZIP) {
        z_stream z = {0};
        ck_assert_int_eq(inflateInit2(&z, 15 + 16), Z_OK);
        z.next_in = (unsigned char *)(uintptr_t)in;
        z.avail_in = (uInt)len;
        z.next_out = (unsigned char *)out;
        z.avail_out = (uInt)cap;
        ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
        size_t n = cap - z.avail_out;
        inflateEnd(&z);
        return n;
    }
    if (enc == NEGOTIATE_BR) {
        size_t n = cap;
        ck_assert_int_eq(BrotliDecoderDecompress(len, in, &n, (uint8_t *)out),
                         BROTLI_DECODER_RESULT_SUCCESS);
        return n;
    }
    size_t n = ZSTD_decompress(out, cap, in, len);
    ck_assert(!ZSTD_isError(n));
    return n;
}

static const struct {
    enum negotiate_encoding enc;
    enum compress_level level;
    size_t size;
} rounds[] = {
    {NEGOTIATE_GZIP, COMPRESS_FAST, 1},
    {NEGOTIATE_GZIP, COMPRESS_FAST, 20480},
    {NEGOTIATE_GZIP, COMPRESS_BEST, 300000},
    {NEGOTIATE_BR, COMPRESS_FAST, 1},
    {NEGOTIATE_BR, COMPRESS_FAST, 20480},
    {NEGOTIATE_BR, COMPRESS_BEST, 300000},
    {NEGOTIATE_ZSTD, COMPRESS_FAST, 1},
    {NEGOTIATE_ZSTD, COMPRESS_FAST, 20480},
    {NEGOTIATE_ZSTD, COMPRESS_BEST, 300000},
};

LOOP_TEST(round_trip, rounds)
{
    size_t n = rounds[_i].size;
    char *t = text(n), *back = malloc(n + 16);
    struct stat st;
    int fd = put("f.css", t, n, &st);
    unsigned char *out;
    size_t len;

    ck_assert_int_eq(compress_fd(rounds[_i].enc, rounds[_i].level, fd, n,
                                 n + 64, &out, &len),
                     0);
    if (n > 4096)
        ck_assert_uint_lt(len, n / 4);
    ck_assert_uint_eq(decode(rounds[_i].enc, out, len, back, n + 16), n);
    ck_assert_mem_eq(back, t, n);
    free(out);
    free(back);
    free(t);
    close(fd);
}
END_TEST

START_TEST(too_big_and_short)
{
    char *t = noise(50000);
    struct stat st;
    int fd = put("r.txt", t, 50000, &st);
    unsigned char *out = (unsigned char *)1;
    size_t len = 1;

    for (int e = 0; e < NEGOTIATE_N_ENCODINGS; e++) {
        ck_assert_int_eq(compress_fd((enum negotiate_encoding)e, COMPRESS_FAST,
                                     fd, 50000, 45000, &out, &len),
                         -EFBIG);
        ck_assert_ptr_null(out);
        ck_assert_uint_eq(len, 0);
        /* the file is shorter than the size asked for */
        ck_assert_int_eq(compress_fd((enum negotiate_encoding)e, COMPRESS_FAST,
                                     fd, 60000, 90000, &out, &len),
                         -ENODATA);
    }
    free(t);
    close(fd);
}
END_TEST

START_TEST(cache_hit_and_keys)
{
    struct compress_cache *c;
    struct compress_cache_stats s;
    struct stat st;
    int fd = put_text("a.css", 20000, &st);

    ck_assert_int_eq(compress_cache_new(&c, NULL), 0);
    ck_assert_ptr_null(compress_cache_get(c, "\"x\" gzip"));
    struct compress_body *b =
        compress_cache_make(c, "\"x\" gzip", NEGOTIATE_GZIP, fd, &st);
    ck_assert_ptr_nonnull(b);
    ck_assert(!b->no_gain);
    struct compress_body *h = compress_cache_get(c, "\"x\" gzip");
    ck_assert_ptr_eq(h, b);
    /* another coding of the same tag is another body */
    ck_assert_ptr_null(compress_cache_get(c, "\"x\" br"));
    compress_cache_stats(c, &s);
    ck_assert_uint_eq(s.hits, 1);
    ck_assert_uint_eq(s.misses, 2);
    ck_assert_uint_eq(s.made, 1);
    ck_assert_uint_eq(s.entries, 1);
    compress_body_put(h);
    compress_body_put(b);
    compress_cache_free(c);
    close(fd);
}
END_TEST

START_TEST(budget_lru_and_holders)
{
    struct compress_cache *c;
    struct compress_cache_stats s;
    char *t = text(60000);
    struct stat st;
    int fd = put("b.css", t, 60000, &st);
    struct compress_body *held;
    unsigned char *probe;
    size_t plen;

    /* a budget where two bodies fit and three do not */
    ck_assert_int_eq(compress_fd(NEGOTIATE_GZIP, COMPRESS_FAST, fd, 60000,
                                 60000, &probe, &plen),
                     0);
    free(probe);
    size_t one = sizeof *held + plen;
    struct compress_cache_config cfg = {.budget = 2 * one + one / 2};
    ck_assert_int_eq(compress_cache_new(&c, &cfg), 0);
    held = compress_cache_make(c, "k1", NEGOTIATE_GZIP, fd, &st);
    ck_assert_ptr_nonnull(held);
    ck_assert_uint_eq(sizeof *held + held->len, one);
    compress_body_put(compress_cache_make(c, "k2", NEGOTIATE_GZIP, fd, &st));
    compress_body_put(compress_cache_get(c, "k1")); /* k1 is now the newest */
    compress_body_put(compress_cache_make(c, "k3", NEGOTIATE_GZIP, fd, &st));
    compress_cache_stats(c, &s);
    ck_assert_uint_eq(s.entries, 2);
    ck_assert_uint_eq(s.evicted, 1);
    ck_assert_uint_le(s.bytes, cfg.budget);
    struct compress_body *k2 = compress_cache_get(c, "k2");
    ck_assert_ptr_null(k2); /* the least recently used went */
    struct compress_body *k1 = compress_cache_get(c, "k1");
    ck_assert_ptr_nonnull(k1);
    compress_body_put(k1);
    /* freeing the cache leaves a held body intact (ASan watches) */
    compress_cache_free(c);
    char *back = malloc(60000);
    ck_assert_uint_eq(
        decode(NEGOTIATE_GZIP, held->data, held->len, back, 60000), 60000);
    ck_assert_mem_eq(back, t, 60000);
    compress_body_put(held);
    free(back);
    free(t);
    close(fd);
}
END_TEST

START_TEST(changed_and_no_gain)
{
    struct compress_cache *c;
    struct compress_cache_stats s;
    char *r = noise(8000);
    struct stat st, rst;
    int fd = put_text("c.css", 8000, &st);
    int rfd = put("r.css", r, 8000, &rst);

    ck_assert_int_eq(compress_cache_new(&c, NULL), 0);
    /* written after the fstat: not compressed, not kept */
    ck_assert_int_eq(pwrite(fd, "x", 1, 8000), 1);
    ck_assert_ptr_null(compress_cache_make(c, "c", NEGOTIATE_BR, fd, &st));
    ck_assert_ptr_null(compress_cache_get(c, "c"));
    /* noise: kept as "no gain", so it is not compressed again */
    struct compress_body *b =
        compress_cache_make(c, "r", NEGOTIATE_ZSTD, rfd, &rst);
    ck_assert_ptr_nonnull(b);
    ck_assert(b->no_gain);
    ck_assert_uint_eq(b->len, 0);
    compress_body_put(b);
    b = compress_cache_get(c, "r");
    ck_assert(b && b->no_gain);
    compress_body_put(b);
    compress_cache_stats(c, &s);
    ck_assert_uint_eq(s.made, 1);
    compress_cache_free(c);
    free(r);
    close(fd);
    close(rfd);
}
END_TEST

START_TEST(queue_once)
{
    struct compress_cache *c;
    struct compress_cache_stats s;
    size_t n = (size_t)2 * 1024 * 1024;
    char *t = text(n);
    struct stat st;
    int fd = put("big.txt", t, n, &st);
    int fds = fixture_count_fds();

    ck_assert_int_eq(compress_cache_new(&c, NULL), 0);
    for (int i = 0; i < 50; i++)
        ck_assert(compress_cache_queue(c, "big br", NEGOTIATE_BR, fd, &st));
    ck_assert(compress_cache_wait_idle(c, 30000));
    compress_cache_stats(c, &s);
    ck_assert_uint_eq(s.queued, 1);
    ck_assert_uint_eq(s.made, 1);
    ck_assert_int_eq(fixture_count_fds(), fds); /* the duplicate is closed */
    struct compress_body *b = compress_cache_get(c, "big br");
    ck_assert_ptr_nonnull(b);
    char *back = malloc(n);
    ck_assert_uint_eq(decode(NEGOTIATE_BR, b->data, b->len, back, n), n);
    ck_assert_mem_eq(back, t, n);
    free(back);
    compress_body_put(b);
    /* a queue left full at free: its fds are closed too */
    for (int i = 0; i < 40; i++) {
        char key[32];
        snprintf(key, sizeof key, "k%d", i);
        compress_cache_queue(c, key, NEGOTIATE_BR, fd, &st);
    }
    compress_cache_free(c);
    ck_assert_int_eq(fixture_count_fds(), fds);
    /* a file larger than the budget is not queued at all */
    struct compress_cache_config small = {.budget = 65536};
    ck_assert_int_eq(compress_cache_new(&c, &small), 0);
    ck_assert(!compress_cache_queue(c, "big gzip", NEGOTIATE_GZIP, fd, &st));
    compress_cache_stats(c, &s);
    ck_assert_uint_eq(s.queued, 0);
    compress_cache_free(c);
    free(t);
    close(fd);
}
END_TEST

const struct check_main check_main = {
    .suite = "compress",
    .tcases = {{"encoders", fixture_dir_setup, fixture_dir_teardown,
                .loops = {LOOP(round_trip)}, .tests = {&too_big_and_short}},
               {"cache", fixture_dir_setup, fixture_dir_teardown,
                .tests = {&cache_hit_and_keys, &budget_lru_and_holders,
                          &changed_and_no_gain, &queue_once}}}};
