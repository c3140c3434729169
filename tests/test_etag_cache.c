// SPDX-License-Identifier: MIT
/*
 * test_etag_cache.c - content ETags: known vectors, hits, change detection by
 * mtime, size, ctime and inode, LRU eviction, background hashing of big
 * files (pending, then ready), identical content under different mtimes, the
 * mtime and off modes, and many threads at once.
 */
#include "cases.h"
#include "check_main.h"
#include "files/etag_cache.h"
#include "fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* SHA-256("abc"), FIPS 180-2: truncated base64url, and full base64. */
#define ABC_ETAG "\"ungWv48Bz-pBQUDeXa4iIw\""
#define ABC_DIGEST "sha-256=:ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=:"

/* put - write @len bytes of @data to @name, with mtime @mtime (0: now). */
static void put(const char *name, const void *data, size_t len, time_t mtime)
{
    int fd = open(fixture_path(name), O_WRONLY | O_CREAT | O_TRUNC, 0644);

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
    if (mtime != 0) {
        struct timespec ts[2] = {{mtime, 0}, {mtime, 0}};
        ck_assert_int_eq(futimens(fd, ts), 0);
    }
    close(fd);
}

/* A file of @len pseudo-random bytes (seeded: the same for the same seed). */
static void put_big(const char *name, size_t len, unsigned seed, time_t mtime)
{
    unsigned char *buf = malloc(len);
    size_t i;

    ck_assert_ptr_nonnull(buf);
    for (i = 0; i < len; i++) {
        seed = seed * 1103515245u + 12345u;
        buf[i] = (unsigned char)(seed >> 16);
    }
    put(name, buf, len, mtime);
    free(buf);
}

/* get - open @name and ask the cache; the fd is closed again. */
static int get(struct etag_cache *c, const char *name, bool digest,
               struct etag_value *v)
{
    struct stat st;
    int fd = open(fixture_path(name), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    int rc;

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(fstat(fd, &st), 0);
    rc = etag_cache_get(c, fd, &st, digest, v);
    close(fd);
    return rc;
}

/* get @name (@digest: with its digest) answers at once (not pending) with
 * @etag and @repr_digest */
static void expect_get(struct etag_cache *c, const char *name, bool digest,
                       const char *etag, const char *repr_digest)
{
    struct etag_value v;

    ck_assert_int_eq(get(c, name, digest, &v), 0);
    ck_assert_str_eq(v.etag, etag);
    ck_assert_str_eq(v.repr_digest, repr_digest);
    ck_assert(!v.pending);
}

static struct etag_cache *make(enum etag_mode mode, size_t max_entries,
                               off_t inline_max)
{
    struct etag_cache_config cfg = {
        .mode = mode, .max_entries = max_entries, .inline_max = inline_max};
    struct etag_cache *c = NULL;

    ck_assert_int_eq(etag_cache_new(&c, &cfg), 0);
    ck_assert_ptr_nonnull(c);
    return c;
}

static struct etag_cache_stats stats(struct etag_cache *c)
{
    struct etag_cache_stats s;

    etag_cache_stats(c, &s);
    return s;
}

START_TEST(known_vector_and_hit)
{
    struct etag_cache *c = make(ETAG_MODE_CONTENT, 0, 0);

    put("abc", "abc", 3, 0);
    expect_get(c, "abc", false, ABC_ETAG, "");
    ck_assert_uint_eq(stats(c).misses, 1);
    ck_assert_uint_eq(stats(c).hashed, 1);

    expect_get(c, "abc", true, ABC_ETAG, ABC_DIGEST);
    ck_assert_uint_eq(stats(c).hits, 1);
    ck_assert_uint_eq(stats(c).hashed, 1); /* not hashed again */
    ck_assert_uint_eq(stats(c).entries, 1);
    etag_cache_free(c);
}
END_TEST

/* The empty file has a hash too: SHA-256("") = e3b0c442... */
START_TEST(empty_file)
{
    struct etag_cache *c = make(ETAG_MODE_CONTENT, 0, 0);

    put("empty", "", 0, 0);
    expect_get(c, "empty", true, "\"47DEQpj8HBSa-_TImW-5JA\"",
               "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:");
    etag_cache_free(c);
}
END_TEST

enum change { TOUCH, APPEND, REWRITE_SAME_MTIME, REPLACE_SAME_BYTES };

/* Each way a file can change, and whether its ETag must change too. */
static const struct {
    const char *name;
    enum change how;
    bool same_etag;
} changes[] = {
    {"mtime only: same bytes, same ETag, hashed again", TOUCH, true},
    {"appended: new size", APPEND, false},
    {"rewritten, mtime put back: ctime tells", REWRITE_SAME_MTIME, false},
    {"replaced by rename, same bytes: new inode", REPLACE_SAME_BYTES, true},
};

LOOP_TEST(change_detection, changes)
{
    struct etag_cache *c = make(ETAG_MODE_CONTENT, 0, 0);
    struct etag_value before, after;
    struct timespec ts[2] = {{1000000000, 5}, {1000000000, 5}};
    int fd;

    put("f", "version one", 11, 1000000000);
    ck_assert_int_eq(get(c, "f", false, &before), 0);
    switch (changes[_i].how) {
    case TOUCH:
        ts[0].tv_sec = ts[1].tv_sec = 1000000001;
        ck_assert_int_eq(utimensat(AT_FDCWD, fixture_path("f"), ts, 0), 0);
        break;
    case APPEND:
        fd = open(fixture_path("f"), O_WRONLY | O_APPEND);
        ck_assert_int_eq(write(fd, "!", 1), 1);
        close(fd);
        break;
    case REWRITE_SAME_MTIME: {
        struct stat st0, st1;
        ck_assert_int_eq(stat(fixture_path("f"), &st0), 0);
        fd = open(fixture_path("f"), O_WRONLY);
        ck_assert_int_eq(write(fd, "VERSION ONE", 11), 11);
        ts[0].tv_nsec = ts[1].tv_nsec = 0;
        /*
         * The kernel stamps ctime from a coarse clock: repeat until it has
         * moved, so the case tests the cache and not the clock.
         */
        do {
            ck_assert_int_eq(futimens(fd, ts), 0);
            ck_assert_int_eq(fstat(fd, &st1), 0);
            if (st1.st_ctim.tv_sec == st0.st_ctim.tv_sec &&
                st1.st_ctim.tv_nsec == st0.st_ctim.tv_nsec)
                usleep(1000);
        } while (st1.st_ctim.tv_sec == st0.st_ctim.tv_sec &&
                 st1.st_ctim.tv_nsec == st0.st_ctim.tv_nsec);
        ck_assert_int_eq(st1.st_mtim.tv_sec, st0.st_mtim.tv_sec);
        ck_assert_int_eq(st1.st_mtim.tv_nsec, st0.st_mtim.tv_nsec);
        close(fd);
        break;
    }
    case REPLACE_SAME_BYTES:
        put("f.new", "version one", 11, 1000000000);
        ck_assert_int_eq(rename(fixture_path("f.new"), fixture_path("f")), 0);
        break;
    }
    ck_assert_int_eq(get(c, "f", false, &after), 0);
    ck_assert_uint_eq(stats(c).hashed, 2);
    ck_assert_uint_eq(stats(c).hits, 0);
    if (changes[_i].same_etag)
        ck_assert_str_eq(after.etag, before.etag);
    else
        ck_assert_str_ne(after.etag, before.etag);
    /* And now it is a hit. */
    ck_assert_int_eq(get(c, "f", false, &after), 0);
    ck_assert_uint_eq(stats(c).hits, 1);
    etag_cache_free(c);
}
END_TEST

START_TEST(lru_eviction)
{
    struct etag_cache *c = make(ETAG_MODE_CONTENT, 2, 0);
    struct etag_value v;

    put("a", "a", 1, 0);
    put("b", "b", 1, 0);
    put("c", "c", 1, 0);
    get(c, "a", false, &v);
    get(c, "b", false, &v);
    get(c, "c", false, &v); /* evicts a */
    ck_assert_uint_eq(stats(c).evictions, 1);
    ck_assert_uint_eq(stats(c).entries, 2);
    get(c, "b", false, &v); /* hit; b is now the most recent */
    ck_assert_uint_eq(stats(c).hits, 1);
    get(c, "a", false, &v); /* miss; evicts c, the least recent */
    ck_assert_uint_eq(stats(c).misses, 4);
    ck_assert_uint_eq(stats(c).evictions, 2);
    get(c, "b", false, &v);
    ck_assert_uint_eq(stats(c).hits, 2);
    get(c, "c", false, &v);
    ck_assert_uint_eq(stats(c).misses, 5);
    ck_assert_uint_eq(stats(c).hashed, 5);
    ck_assert_uint_eq(stats(c).entries, 2);
    etag_cache_free(c);
}
END_TEST

START_TEST(big_file_pending_then_ready)
{
    struct etag_cache *c = make(ETAG_MODE_CONTENT, 0, 4096);
    struct etag_cache *inl = make(ETAG_MODE_CONTENT, 0, 8 << 20);
    struct etag_value v, w;
    char mtime_etag[ETAG_LEN];
    struct stat st;

    put_big("big", 3 << 20, 7, 1500000000);
    ck_assert_int_eq(stat(fixture_path("big"), &st), 0);
    etag_cache_mtime_etag(&st, mtime_etag);

    /* The lookup that finds it does not hash it, and gives no tag: not a
     * provisional one that would change once the hash is known. */
    ck_assert_int_eq(get(c, "big", true, &v), 0);
    ck_assert(v.pending);
    ck_assert_str_eq(v.etag, "");
    ck_assert_str_eq(v.repr_digest, "");
    ck_assert_uint_eq(stats(c).hashed, 0);

    etag_cache_drain(c);
    ck_assert_uint_eq(stats(c).hashed_async, 1);
    ck_assert_int_eq(get(c, "big", true, &v), 0);
    ck_assert(!v.pending);
    ck_assert_uint_eq(strlen(v.etag), 24);
    ck_assert_str_ne(v.etag, mtime_etag);
    ck_assert_uint_eq(stats(c).hits, 1);

    /* The same bytes hashed inline give the same answer. */
    ck_assert_int_eq(get(inl, "big", true, &w), 0);
    ck_assert(!w.pending);
    ck_assert_str_eq(w.etag, v.etag);
    ck_assert_str_eq(w.repr_digest, v.repr_digest);
    etag_cache_free(inl);
    etag_cache_free(c);
}
END_TEST

/* Many big files queued, then destroyed at once: no fd or memory left. */
START_TEST(destroy_with_queue)
{
    int fds = fixture_count_fds();
    struct etag_cache *c = make(ETAG_MODE_CONTENT, 0, -1);
    struct etag_value v;
    char name[16];
    int i;

    for (i = 0; i < 8; i++) {
        snprintf(name, sizeof(name), "q%d", i);
        put_big(name, 1 << 20, (unsigned)i, 0);
        ck_assert_int_eq(get(c, name, false, &v), 0);
        ck_assert(v.pending);
    }
    etag_cache_free(c);
    ck_assert_int_eq(fixture_count_fds(), fds);
}
END_TEST

/* Two replicas: the same tree copied at different times. */
START_TEST(same_content_different_mtime)
{
    struct etag_cache *c = make(ETAG_MODE_CONTENT, 0, 0);
    struct etag_cache *m = make(ETAG_MODE_MTIME, 0, 0);
    struct etag_value v1, v2, m1, m2;

    put("replica1", "<h1>same</h1>", 13, 1600000000);
    put("replica2", "<h1>same</h1>", 13, 1700000000);
    ck_assert_int_eq(get(c, "replica1", false, &v1), 0);
    ck_assert_int_eq(get(c, "replica2", false, &v2), 0);
    ck_assert_str_eq(v1.etag, v2.etag);
    ck_assert_int_eq(get(m, "replica1", false, &m1), 0);
    ck_assert_int_eq(get(m, "replica2", false, &m2), 0);
    ck_assert_str_ne(m1.etag, m2.etag);
    etag_cache_free(m);
    etag_cache_free(c);
}
END_TEST

START_TEST(mtime_mode)
{
    struct etag_cache *c = make(ETAG_MODE_MTIME, 0, 0);

    /* 1600000000 s = 0x16345785d8a00000 ns */
    put("abc", "abc", 3, 1600000000);
    expect_get(c, "abc", false, "\"16345785d8a00000-3\"", "");
    ck_assert_uint_eq(stats(c).hashed, 0);
    /* A digest asked for is computed even in mtime mode. */
    expect_get(c, "abc", true, "\"16345785d8a00000-3\"", ABC_DIGEST);
    ck_assert_uint_eq(stats(c).hashed, 1);
    etag_cache_free(c);
}
END_TEST

START_TEST(off_mode)
{
    struct etag_cache *c = make(ETAG_MODE_OFF, 0, 0);
    struct etag_value v;

    put("abc", "abc", 3, 0);
    ck_assert_int_eq(get(c, "abc", false, &v), 0);
    ck_assert_str_eq(v.etag, "");
    ck_assert(!v.pending);
    expect_get(c, "abc", true, "", ABC_DIGEST);
    etag_cache_free(c);
}
END_TEST

START_TEST(not_regular)
{
    struct etag_cache *c = make(ETAG_MODE_CONTENT, 0, 0);
    struct etag_value v;
    struct stat st;
    int fd = open(fixture_dir, O_RDONLY | O_DIRECTORY);

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(fstat(fd, &st), 0);
    ck_assert_int_eq(etag_cache_get(c, fd, &st, true, &v), -EINVAL);
    ck_assert_str_eq(v.repr_digest, "");
    close(fd);
    etag_cache_free(c);
}
END_TEST

START_TEST(bad_mode)
{
    struct etag_cache_config cfg = {.mode = (enum etag_mode)42};
    struct etag_cache *c = (struct etag_cache *)&cfg;

    ck_assert_int_eq(etag_cache_new(&c, &cfg), -EINVAL);
    ck_assert_ptr_null(c);
    etag_cache_free(NULL);
}
END_TEST

#define N_THREADS 4
#define N_FILES 8
#define N_ROUNDS 300

struct worker_arg {
    struct etag_cache *c;
    char want[N_FILES][ETAG_LEN];
    unsigned seed;
    int bad;
};

static void *hammer(void *p)
{
    struct worker_arg *a = p;
    char name[16];
    int r;

    for (r = 0; r < N_ROUNDS; r++) {
        struct etag_value v;
        unsigned i;

        a->seed = a->seed * 1103515245u + 12345u;
        i = (a->seed >> 16) % N_FILES;
        snprintf(name, sizeof(name), "h%u", i);
        if (get(a->c, name, true, &v) != 0 ||
            (!v.pending && strcmp(v.etag, a->want[i]) != 0))
            a->bad++;
    }
    return NULL;
}

/* Threads on a cache smaller than the working set: evictions, queue, hits. */
START_TEST(threads)
{
    struct etag_cache *ref = make(ETAG_MODE_CONTENT, 0, 1 << 30);
    struct etag_cache *c = make(ETAG_MODE_CONTENT, 3, (off_t)64 * 1024);
    struct worker_arg args[N_THREADS];
    pthread_t t[N_THREADS];
    char want[N_FILES][ETAG_LEN];
    char name[16];
    unsigned i;

    for (i = 0; i < N_FILES; i++) {
        struct etag_value v;
        snprintf(name, sizeof(name), "h%u", i);
        put_big(name, i % 2 ? 200 * 1024 : 1000 + i, i, 0);
        ck_assert_int_eq(get(ref, name, false, &v), 0);
        memcpy(want[i], v.etag, ETAG_LEN);
    }
    for (i = 0; i < N_THREADS; i++) {
        args[i].c = c;
        memcpy(args[i].want, want, sizeof(want));
        args[i].seed = i + 1;
        args[i].bad = 0;
        ck_assert_int_eq(pthread_create(&t[i], NULL, hammer, &args[i]), 0);
    }
    for (i = 0; i < N_THREADS; i++) {
        pthread_join(t[i], NULL);
        ck_assert_int_eq(args[i].bad, 0);
    }
    etag_cache_drain(c);
    ck_assert_uint_le(stats(c).entries, 3);
    etag_cache_free(c);
    etag_cache_free(ref);
}
END_TEST

static const struct pred_case wants[] = {
    {"sha-256=1", true},
    {"sha-256=10", true},
    {"sha-512=3, sha-256=1", true},
    {" SHA-256=5 ", true},
    {"sha-256", true},
    {"sha-256;q=1", true},
    {"sha-512=3,sha-256=7;x=y", true},
    {"sha-256=0", false},
    {"sha-256=11", false},
    {"sha-256=x", false},
    {"sha-512=3", false},
    {"sha-2566=1", false},
    {"xsha-256=1", false},
    {"", false},
    {",,,", false},
};

LOOP_TEST(want_digest, wants)
{
    ck_assert_msg(etag_cache_want_digest(wants[_i].in) == wants[_i].want,
                  "'%s': want %d", wants[_i].in, wants[_i].want);
    ck_assert(!etag_cache_want_digest(NULL));
}
END_TEST

const struct check_main check_main = {
    .suite = "etag_cache",
    .tcases = {{"cache", fixture_dir_setup, fixture_dir_teardown, .timeout = 60,
                .loops = {LOOP(change_detection)},
                .tests = {&known_vector_and_hit, &empty_file, &lru_eviction,
                          &big_file_pending_then_ready, &destroy_with_queue,
                          &same_content_different_mtime, &mtime_mode, &off_mode,
                          &not_regular, &bad_mode, &threads}},
               {"want_digest", .loops = {LOOP(want_digest)}}}};
