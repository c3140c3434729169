// SPDX-License-Identifier: MIT
/*
 * test_compress.c - the encoders (each output decoded again by the other
 * side of its library) and the cache of compressed bodies: hits, keys,
 * the byte budget and LRU order, bodies kept alive by their holders after
 * eviction, a file changed under the encoder, incompressible data, the
 * background queue that compresses a key once however often it is asked,
 * and bodies compressed as they are sent (compress_stream): their bytes,
 * the body the first of them keeps, cut short, too large, the limit.
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
static size_t decode(enum coding enc, const unsigned char *in, size_t len,
                     char *out, size_t cap)
{
    if (enc == CODING_GZIP) {
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
    if (enc == CODING_BR) {
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
    enum coding enc;
    enum compress_level level;
    size_t size;
} rounds[] = {
    {CODING_GZIP, COMPRESS_FAST, 1},      {CODING_GZIP, COMPRESS_FAST, 20480},
    {CODING_GZIP, COMPRESS_BEST, 300000}, {CODING_BR, COMPRESS_FAST, 1},
    {CODING_BR, COMPRESS_FAST, 20480},    {CODING_BR, COMPRESS_BEST, 300000},
    {CODING_ZSTD, COMPRESS_FAST, 1},      {CODING_ZSTD, COMPRESS_FAST, 20480},
    {CODING_ZSTD, COMPRESS_BEST, 300000},
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

    for (int e = 0; e < CODING_N; e++) {
        ck_assert_int_eq(compress_fd((enum coding)e, COMPRESS_FAST, fd, 50000,
                                     45000, &out, &len),
                         -EFBIG);
        ck_assert_ptr_null(out);
        ck_assert_uint_eq(len, 0);
        /* the file is shorter than the size asked for */
        ck_assert_int_eq(compress_fd((enum coding)e, COMPRESS_FAST, fd, 60000,
                                     90000, &out, &len),
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
    ck_assert_ptr_null(compress_cache_get(c, "\"x\" gzip", NULL));
    struct compress_body *b =
        compress_cache_make(c, "\"x\" gzip", CODING_GZIP, fd, &st);
    ck_assert_ptr_nonnull(b);
    ck_assert(!b->no_gain);
    struct compress_body *h = compress_cache_get(c, "\"x\" gzip", NULL);
    ck_assert_ptr_eq(h, b);
    /* another coding of the same tag is another body */
    ck_assert_ptr_null(compress_cache_get(c, "\"x\" br", NULL));
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
    ck_assert_int_eq(compress_fd(CODING_GZIP, COMPRESS_FAST, fd, 60000, 60000,
                                 &probe, &plen),
                     0);
    free(probe);
    size_t one = sizeof *held + plen;
    struct compress_cache_config cfg = {.budget = 2 * one + one / 2};
    ck_assert_int_eq(compress_cache_new(&c, &cfg), 0);
    held = compress_cache_make(c, "k1", CODING_GZIP, fd, &st);
    ck_assert_ptr_nonnull(held);
    ck_assert_uint_eq(sizeof *held + held->len, one);
    compress_body_put(compress_cache_make(c, "k2", CODING_GZIP, fd, &st));
    compress_body_put(
        compress_cache_get(c, "k1", NULL)); /* k1 is now the newest */
    compress_body_put(compress_cache_make(c, "k3", CODING_GZIP, fd, &st));
    compress_cache_stats(c, &s);
    ck_assert_uint_eq(s.entries, 2);
    ck_assert_uint_eq(s.evicted, 1);
    ck_assert_uint_le(s.bytes, cfg.budget);
    struct compress_body *k2 = compress_cache_get(c, "k2", NULL);
    ck_assert_ptr_null(k2); /* the least recently used went */
    struct compress_body *k1 = compress_cache_get(c, "k1", NULL);
    ck_assert_ptr_nonnull(k1);
    compress_body_put(k1);
    /* freeing the cache leaves a held body intact (ASan watches) */
    compress_cache_free(c);
    char *back = malloc(60000);
    ck_assert_uint_eq(decode(CODING_GZIP, held->data, held->len, back, 60000),
                      60000);
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
    ck_assert_ptr_null(compress_cache_make(c, "c", CODING_BR, fd, &st));
    ck_assert_ptr_null(compress_cache_get(c, "c", NULL));
    /* noise: kept as "no gain", so it is not compressed again */
    struct compress_body *b =
        compress_cache_make(c, "r", CODING_ZSTD, rfd, &rst);
    ck_assert_ptr_nonnull(b);
    ck_assert(b->no_gain);
    ck_assert_uint_eq(b->len, 0);
    compress_body_put(b);
    b = compress_cache_get(c, "r", NULL);
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
        ck_assert(compress_cache_queue(c, "big br", CODING_BR, fd, &st));
    ck_assert(compress_cache_wait_idle(c, 30000));
    compress_cache_stats(c, &s);
    ck_assert_uint_eq(s.queued, 1);
    ck_assert_uint_eq(s.made, 1);
    ck_assert_int_eq(fixture_count_fds(), fds); /* the duplicate is closed */
    struct compress_body *b = compress_cache_get(c, "big br", NULL);
    ck_assert_ptr_nonnull(b);
    char *back = malloc(n);
    ck_assert_uint_eq(decode(CODING_BR, b->data, b->len, back, n), n);
    ck_assert_mem_eq(back, t, n);
    free(back);
    compress_body_put(b);
    /* a queue left full at free: its fds are closed too */
    for (int i = 0; i < 40; i++) {
        char key[32];
        snprintf(key, sizeof key, "k%d", i);
        compress_cache_queue(c, key, CODING_BR, fd, &st);
    }
    compress_cache_free(c);
    ck_assert_int_eq(fixture_count_fds(), fds);
    /* a file larger than the budget is not queued at all */
    struct compress_cache_config small = {.budget = 65536};
    ck_assert_int_eq(compress_cache_new(&c, &small), 0);
    ck_assert(!compress_cache_queue(c, "big gzip", CODING_GZIP, fd, &st));
    compress_cache_stats(c, &s);
    ck_assert_uint_eq(s.queued, 0);
    compress_cache_free(c);
    free(t);
    close(fd);
}
END_TEST

/* Read @cs to its end in reads of @step bytes: the output, its length. */
static unsigned char *drain(struct compress_stream *cs, size_t step,
                            size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    unsigned char *out = malloc(cap);
    ssize_t got;

    ck_assert_ptr_nonnull(out);
    do {
        if (cap - n < step) {
            cap *= 2;
            out = realloc(out, cap);
            ck_assert_ptr_nonnull(out);
        }
        got = compress_stream_read(cs, (char *)out + n, step);
        ck_assert_int_ge(got, 0);
        n += (size_t)got;
    } while (got > 0);
    *len = n;
    return out;
}

/*
 * A stream's bytes are compress_fd's, whatever the sizes it is read in, for
 * each coding; the first stream of a key keeps them as the body; a second
 * stream of the key at the same time makes nothing; the kept body is that
 * output, byte for byte.
 */
static const enum coding codings[] = {CODING_GZIP, CODING_BR, CODING_ZSTD};

LOOP_TEST(stream_is_the_body, codings)
{
    const size_t n = (size_t)700 * 1024, steps[] = {1, 4093, 32768, 1 << 20};
    enum coding enc = codings[_i];
    struct compress_cache *c;
    struct compress_cache_stats s;
    struct stat st;
    int fd = put_text("s.html", n, &st);
    unsigned char *want;
    size_t want_len;

    ck_assert_int_eq(
        compress_fd(enc, COMPRESS_FAST, fd, n, n, &want, &want_len), 0);
    ck_assert_int_eq(compress_cache_new(&c, NULL), 0);
    for (size_t k = 0; k < N_ELEMS(steps); k++) {
        struct compress_stream *a, *b;
        char key[32];
        size_t alen, blen;

        snprintf(key, sizeof key, "s%zu", k);
        ck_assert_int_eq(compress_stream_open(c, key, enc, dup(fd), &st, &a),
                         0);
        ck_assert_int_eq(compress_stream_open(c, key, enc, dup(fd), &st, &b),
                         0);
        unsigned char *ao = drain(a, steps[k], &alen);
        unsigned char *bo = drain(b, steps[k] + 7, &blen);
        ck_assert_uint_eq(alen, want_len);
        ck_assert_mem_eq(ao, want, want_len);
        ck_assert_uint_eq(blen, want_len);
        ck_assert_mem_eq(bo, want, want_len);
        compress_stream_close(a);
        compress_stream_close(b);
        struct compress_body *kept = compress_cache_get(c, key, NULL);
        ck_assert_ptr_nonnull(kept);
        ck_assert_uint_eq(kept->len, want_len);
        ck_assert_mem_eq(kept->data, want, want_len);
        compress_body_put(kept);
        free(ao);
        free(bo);
    }
    compress_cache_stats(c, &s);
    ck_assert_uint_eq(s.made, N_ELEMS(steps));
    ck_assert_uint_eq(s.streamed, 2 * N_ELEMS(steps));
    ck_assert_uint_eq(s.queued, 0);
    compress_cache_free(c);
    free(want);
    close(fd);
}
END_TEST

/*
 * A stream cut short (the client left) leaves the body to the background
 * thread; a file larger than the budget is streamed but not kept;
 * incompressible bytes are kept as a no-gain mark; at most
 * COMPRESS_STREAMS_MAX streams are open; every fd comes back.
 */
START_TEST(stream_cut_large_noise_and_limit)
{
    const size_t n = (size_t)300 * 1024;
    struct compress_cache *c;
    struct compress_cache_config small = {.budget = (uint64_t)100 * 1024};
    struct compress_stream *cs, *open_[COMPRESS_STREAMS_MAX + 1];
    struct compress_cache_stats s;
    struct stat st, rst;
    char *r = noise(n), buf[100];
    int fd = put_text("cut.js", n, &st), rfd = put("r.js", r, n, &rst);
    int fds = fixture_count_fds();
    size_t len;

    ck_assert_int_eq(compress_cache_new(&c, NULL), 0);
    ck_assert_int_eq(
        compress_stream_open(c, "cut", CODING_GZIP, dup(fd), &st, &cs), 0);
    ck_assert_int_gt(compress_stream_read(cs, buf, sizeof buf), 0);
    compress_stream_close(cs);
    ck_assert(compress_cache_wait_idle(c, 30000));
    struct compress_body *b = compress_cache_get(c, "cut", NULL);
    ck_assert(b && !b->no_gain && b->len > 0);
    compress_body_put(b);
    compress_cache_stats(c, &s);
    ck_assert_uint_eq(s.queued, 1);

    ck_assert_int_eq(
        compress_stream_open(c, "noise", CODING_ZSTD, dup(rfd), &rst, &cs), 0);
    free(drain(cs, 65536, &len));
    compress_stream_close(cs);
    b = compress_cache_get(c, "noise", NULL);
    ck_assert(b && b->no_gain && b->len == 0);
    compress_body_put(b);

    for (int i = 0; i < COMPRESS_STREAMS_MAX; i++)
        ck_assert_int_eq(compress_stream_open(c, "many", CODING_GZIP, dup(fd),
                                              &st, &open_[i]),
                         0);
    int extra = dup(fd);
    ck_assert_int_eq(compress_stream_open(c, "many", CODING_GZIP, extra, &st,
                                          &open_[COMPRESS_STREAMS_MAX]),
                     -EBUSY);
    close(extra); /* still the caller's on an error */
    for (int i = 0; i < COMPRESS_STREAMS_MAX; i++)
        compress_stream_close(open_[i]);
    ck_assert(compress_cache_wait_idle(c, 30000));
    compress_cache_free(c);

    /* larger than the budget: sent, never kept, nothing queued */
    ck_assert_int_eq(compress_cache_new(&c, &small), 0);
    ck_assert_int_eq(
        compress_stream_open(c, "big", CODING_BR, dup(fd), &st, &cs), 0);
    unsigned char *out = drain(cs, 4096, &len);
    ck_assert_uint_gt(len, 0);
    free(out);
    compress_stream_close(cs);
    ck_assert_ptr_null(compress_cache_get(c, "big", NULL));
    compress_cache_stats(c, &s);
    ck_assert_uint_eq(s.made + s.queued, 0);
    compress_cache_free(c);
    ck_assert_int_eq(fixture_count_fds(), fds);
    free(r);
    close(fd);
    close(rfd);
}
END_TEST

const struct check_main check_main = {
    .suite = "compress",
    .tcases = {{"encoders", fixture_dir_setup, fixture_dir_teardown,
                .loops = {LOOP(round_trip)}, .tests = {&too_big_and_short}},
               {"cache", fixture_dir_setup, fixture_dir_teardown,
                .loops = {LOOP(stream_is_the_body)},
                .tests = {&cache_hit_and_keys, &budget_lru_and_holders,
                          &changed_and_no_gain, &queue_once,
                          &stream_cut_large_noise_and_limit}}}};
