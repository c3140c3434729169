/* SPDX-License-Identifier: MIT */
/*
 * test_cache.c - end-to-end tests of the small-file path (bodies up to
 * RESPOND_SMALL_MAX read into memory and sent with the headers) and of the
 * reply cache that keeps such responses per thread: it must never serve
 * stale bytes, never serve a file the resolver would now refuse, and answer
 * 206, 304 and HEAD exactly like the sendfile path. Every request of one
 * test goes over one keep-alive connection to a one-thread server, so the
 * thread's cache is hit; the "settled" runs wait until the files' ctime is
 * old enough for the cache to keep them, and check with --metrics that it
 * did.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* server/respond/reply_cache.h: REPLY_CACHE_SETTLE_S, plus one second of margin
 */
#define SETTLE_S 3

static struct http_response *ka(struct raw_conn *c, const char *method,
                                const char *path, const char *extra)
{
    char *req = hfmt("%s %s HTTP/1.1\r\nHost: x\r\n%s\r\n", method, path,
                     extra ? extra : "");
    EXPECT(raw_send_str(c, req) == 0, "send %s %s", method, path);
    struct http_response *r = raw_read(c, strcmp(method, "HEAD") == 0, 5000);
    EXPECT(!r->closed, "%s %s: the connection was closed", method, path);
    return r;
}

/* GET /f.html on @c answers 200 with the 1024 bytes @want; @what is the
 * failure message. */
static struct http_response *get_f(struct raw_conn *c, const char *want,
                                   const char *what)
{
    struct http_response *r = ka(c, "GET", "/f.html", NULL);

    EXPECT_STATUS(r, 200, what);
    EXPECT(r->body_len == 1024 && memcmp(r->body, want, 1024) == 0, "%s", what);
    return r;
}

/* Wait until every file named in @rels (NULL-ended) under @dir changed at
 * least SETTLE_S seconds ago, so the reply cache keeps it. */
static void settle(const char *dir, const char *const *rels)
{
    time_t newest = 0;

    for (size_t i = 0; rels[i]; i++) {
        struct stat st;
        EXPECT(stat(tree_path(dir, rels[i]), &st) == 0, "stat %s", rels[i]);
        if (st.st_ctim.tv_sec > newest)
            newest = st.st_ctim.tv_sec;
    }
    while (time(NULL) < newest + SETTLE_S)
        usleep(100 * 1000);
}

/* Whether the IMF-fixdate @d is this second or the one before. */
static bool date_is_now(const char *d)
{
    time_t now = time(NULL);

    for (time_t t = now - 1; d && t <= now; t++) {
        char want[64];
        struct tm tm;

        gmtime_r(&t, &tm);
        strftime(want, sizeof want, "%a, %d %b %Y %H:%M:%S GMT", &tm);
        if (strcmp(d, want) == 0)
            return true;
    }
    return false;
}

/* The reply cache's counter @result ("hit" or "kept") from --metrics /m. */
static long reply_count(struct raw_conn *c, const char *result);

/* HEAD of @path answers 200 with Content-Length @n and no body. */
#define HEAD_IS(c, path, n)                                                    \
    do {                                                                       \
        struct http_response *h_ = ka((c), "HEAD", (path), NULL);              \
        EXPECT_STATUS(h_, 200, "HEAD");                                        \
        EXPECT(h_->body_len == 0 &&                                            \
                   http_value_eq(http_header(h_, "Content-Length"),            \
                                 hfmt("%d", (int)(n))),                        \
               "HEAD %s: Content-Length %s", (path),                           \
               http_header(h_, "Content-Length"));                             \
    } while (0)

static char *filled(size_t n, char ch)
{
    char *b = hbuf(n);
    memset(b, ch, n);
    return b;
}

/* Overwrite @rel in place (same inode, same size) with @data. */
static void rewrite_in_place(const char *dir, const char *rel, const char *data,
                             size_t n)
{
    int fd = open(tree_path(dir, rel), O_WRONLY);
    EXPECT(fd >= 0, "open %s: %s", rel, strerror(errno));
    EXPECT(pwrite(fd, data, n, 0) == (ssize_t)n, "pwrite %s", rel);
    close(fd);
}

static long reply_count(struct raw_conn *c, const char *result)
{
    struct http_response *r = ka(c, "GET", "/m", NULL);
    const char *key = hfmt("beneath_reply_cache_total{result=\"%s\"} ", result);
    const char *at = r->body ? strstr(r->body, key) : NULL;

    EXPECT(r->status == 200 && at, "metrics: no %s in\n%s", key,
           r->body ? r->body : "");
    return strtol(at + strlen(key), NULL, 10);
}

/*
 * The reply cache: a kept response is served again only for the very
 * version it was made from. Same inode, size and mtime, other bytes (only
 * ctime moved); a file renamed over it with the same size and mtime (another
 * inode).
 */
START_TEST(reply_cache_never_stale)
{
    static const char *const files[] = {"f.html", "g.tmp", NULL};
    char *w = tree_new();
    char *a = filled(1024, 'a'), *b = filled(1024, 'b'), *c = filled(1024, 'c');
    const time_t m = 1000000000;
    tree_write(w, "f.html", a, 1024);
    tree_write(w, "g.tmp", b, 1024);
    tree_mtime(w, "f.html", m);
    tree_mtime(w, "g.tmp", m);
    settle(w, files);
    struct server *s =
        server_start(w, "--threads", "1", "--metrics", "/m", NULL);
    struct raw_conn *rc = raw_open(s->port);

    for (int i = 0; i < 3; i++)
        get_f(rc, a, "first GETs: wrong body");
    EXPECT(reply_count(rc, "kept") == 1 && reply_count(rc, "hit") == 2,
           "a settled small file was not answered from the reply cache "
           "(kept %ld, hit %ld)",
           reply_count(rc, "kept"), reply_count(rc, "hit"));

    /* Other bytes, same inode, size and mtime: only ctime tells. */
    rewrite_in_place(w, "f.html", c, 1024);
    tree_mtime(w, "f.html", m);
    get_f(rc, c, "same size and mtime, new ctime: stale body served");
    HEAD_IS(rc, "/f.html", 1024);

    /* Settled again, the new version is kept and served. */
    settle(w, files);
    long hits = reply_count(rc, "hit");
    for (int i = 0; i < 2; i++)
        get_f(rc, c, "the rewritten file, settled: wrong body");
    EXPECT(reply_count(rc, "hit") == hits + 1,
           "the settled new version was not kept");
    /* A kept response answered seconds after it was made names now. */
    sleep(2);
    struct http_response *r =
        get_f(rc, c, "the kept response, 2 s later: wrong body");
    EXPECT(date_is_now(http_header(r, "Date")),
           "a kept response's Date is not the current time: %s",
           http_header(r, "Date"));
    EXPECT(http_header_count(r, "Date") == 1, "%zu Date headers",
           http_header_count(r, "Date"));

    /* Renamed over it: same size and mtime, another inode. */
    EXPECT(rename(tree_path(w, "g.tmp"), tree_path(w, "f.html")) == 0,
           "rename: %s", strerror(errno));
    get_f(rc, b, "a file renamed over the cached one: stale body served");

    /* Removed: 404, not the kept bytes. */
    EXPECT(unlink(tree_path(w, "f.html")) == 0, "unlink");
    r = ka(rc, "GET", "/f.html", NULL);
    EXPECT_STATUS(r, 404, "after the unlink");
    raw_close(rc);
}
END_TEST

START_TEST(same_size_rewrite_served_fresh)
{
    char *w = tree_new();
    char *a = filled(1024, 'a'), *b = filled(1024, 'b'), *c = filled(1024, 'c');
    tree_write(w, "f.html", a, 1024);
    tree_mtime(w, "f.html", 1000000000);
    struct server *s = server_start(w, NULL);
    struct raw_conn *rc = raw_open(s->port);

    for (int i = 0; i < 3; i++)
        get_f(rc, a, "first GETs: wrong body");
    /* Same size, different mtime: the new bytes. */
    rewrite_in_place(w, "f.html", b, 1024);
    tree_mtime(w, "f.html", 1000000001);
    get_f(rc, b, "same size, new mtime: stale body served");
    /* Same size, mtime set back to the old value (ctime still moves). */
    rewrite_in_place(w, "f.html", c, 1024);
    tree_mtime(w, "f.html", 1000000001);
    get_f(rc, c, "same size, same mtime: stale body served");
    /* Immediately, no mtime games: whatever the timestamps' granularity. */
    rewrite_in_place(w, "f.html", a, 1024);
    get_f(rc, a, "rewrite right after a read: stale body served");
    raw_close(rc);
}
END_TEST

START_TEST(symlink_swap_refused)
{
    char *w = tree_new(), *out = tree_new();
    char *secret = hfmt("SECRET-%s", hrandom(16));
    tree_write_str(out, "secret.html", secret);
    tree_write_str(w, "f.html", "inside\n");
    struct server *s = server_start(w, NULL);
    struct raw_conn *rc = raw_open(s->port);

    for (int i = 0; i < 3; i++) {
        struct http_response *r = ka(rc, "GET", "/f.html", NULL);
        EXPECT_STATUS(r, 200, "before the swap");
        EXPECT(strcmp(r->body, "inside\n") == 0, "before the swap: body");
    }
    /* Replace the served file by a symlink leaving the root, atomically. */
    tree_symlink(w, tree_path(out, "secret.html"), "new");
    EXPECT(rename(tree_path(w, "new"), tree_path(w, "f.html")) == 0,
           "rename: %s", strerror(errno));
    struct http_response *r = ka(rc, "GET", "/f.html", NULL);
    EXPECT_STATUS(r, 403, "after the swap");
    EXPECT(!strstr(r->body, secret), "the escaping link was served");
    /* And a relative one. */
    EXPECT(unlink(tree_path(w, "f.html")) == 0, "unlink");
    tree_symlink(w, hfmt("../%s/secret.html", strrchr(out, '/') + 1), "f.html");
    r = ka(rc, "GET", "/f.html", NULL);
    EXPECT_STATUS(r, 403, "after the relative swap");
    EXPECT(!strstr(r->body, secret), "the escaping relative link was served");
    raw_close(rc);
}
END_TEST

/*
 * 206, 304 and HEAD of files around the small-file limit; run 1: with the
 * files settled, the 200s come from the reply cache after the first, and
 * Range, If-None-Match and HEAD meet a kept response.
 */
START_TEST(range_304_head_by_size)
{
    static const size_t sizes[] = {1, 1024, 65535, 65536, 65537, 200000};
    const char *names[N_ELEMS(sizes) + 1] = {0};
    char *w = tree_new();
    struct server *s;
    struct raw_conn *rc;
    bool settled = _i == 1;

    for (size_t i = 0; i < N_ELEMS(sizes); i++) {
        char *d = hbuf(sizes[i]);
        for (size_t j = 0; j < sizes[i]; j++)
            d[j] = (char)('A' + (j * 7 + i) % 26);
        names[i] = hfmt("f%zu.bin", sizes[i]);
        tree_write(w, names[i], d, sizes[i]);
    }
    if (settled)
        settle(w, names);
    s = server_start(w, "--threads", "1", "--metrics", "/m", NULL);
    rc = raw_open(s->port);
    for (size_t i = 0; i < N_ELEMS(sizes); i++) {
        size_t n = sizes[i], len;
        const char *path = hfmt("/f%zu.bin", n);
        char *want = tree_read(tree_path(w, path + 1), &len);
        const char *cl = hfmt("%zu", n);

        for (int k = 0; k < 2; k++) {
            struct http_response *r = ka(rc, "GET", path, NULL);
            EXPECT_STATUS(r, 200, path);
            EXPECT(r->body_len == n && memcmp(r->body, want, n) == 0,
                   "%s: body differs (GET %d)", path, k + 1);
        }
        struct http_response *r = ka(rc, "GET", path, NULL);
        EXPECT_STATUS(r, 200, path);
        EXPECT(r->body_len == n && memcmp(r->body, want, n) == 0,
               "%s: body differs", path);
        const char *etag = http_header(r, "ETag");
        EXPECT(etag, "%s: no ETag", path);

        size_t from = n / 3, to = n / 3 + (n > 10 ? 9 : 0);
        r = ka(rc, "GET", path, hfmt("Range: bytes=%zu-%zu\r\n", from, to));
        EXPECT_STATUS(r, 206, hfmt("%s Range", path));
        EXPECT(r->body_len == to - from + 1 &&
                   memcmp(r->body, want + from, to - from + 1) == 0,
               "%s: 206 body differs", path);
        EXPECT(http_value_eq(http_header(r, "Content-Range"),
                             hfmt("bytes %zu-%zu/%zu", from, to, n)),
               "%s: Content-Range %s", path, http_header(r, "Content-Range"));

        r = ka(rc, "GET", path, hfmt("If-None-Match: %s\r\n", etag));
        EXPECT_STATUS(r, 304, hfmt("%s If-None-Match", path));
        EXPECT(r->body_len == 0, "%s: 304 with a body", path);
        const char *l304 = http_header(r, "Content-Length");
        EXPECT(!l304 || http_value_eq(l304, cl),
               "%s: 304 Content-Length %s, file %s", path, l304, cl);

        r = ka(rc, "HEAD", path, NULL);
        EXPECT_STATUS(r, 200, hfmt("HEAD %s", path));
        EXPECT(r->body_len == 0, "HEAD %s: a body", path);
        EXPECT(http_value_eq(http_header(r, "Content-Length"), cl),
               "HEAD %s: Content-Length %s", path,
               http_header(r, "Content-Length"));
    }
    /* The connection is still good, and nothing leaked. */
    struct http_response *r = ka(rc, "GET", "/f1.bin", NULL);
    EXPECT_STATUS(r, 200, "last GET");
    /* Kept: the four files up to 64 KiB, only when settled; each then
     * answered from the cache on its second and third GET and its HEAD. */
    long kept = reply_count(rc, "kept"), hits = reply_count(rc, "hit");
    EXPECT(settled ? kept == 4 && hits == 4 * 3 + 1 : kept == 0 && hits == 0,
           "reply cache: kept %ld, hit %ld (settled: %d)", kept, hits, settled);
    raw_close(rc);
}
END_TEST

/*
 * The "mtime-size" tag earlier versions sent while a content tag was
 * pending still matches (respond_file.c, alt_tag): If-None-Match with it
 * is a 304, and If-Range with it a 206, on the first request and on kept
 * replies alike; another tag is no match.
 */
START_TEST(old_tag_still_matches)
{
    static const char *const files[] = {"f.html", NULL};
    char *w = tree_new();
    struct stat st;
    tree_write(w, "f.html", filled(1024, 'a'), 1024);
    settle(w, files);
    EXPECT(stat(tree_path(w, "f.html"), &st) == 0, "stat");
    const char *old =
        hfmt("\"%llx-%llx\"",
             (unsigned long long)st.st_mtim.tv_sec * 1000000000ull +
                 (unsigned long long)st.st_mtim.tv_nsec,
             (unsigned long long)st.st_size);
    struct server *s = server_start(w, "--threads", "1", NULL);
    struct raw_conn *rc = raw_open(s->port);

    for (int i = 0; i < 3; i++) {
        struct http_response *r =
            ka(rc, "GET", "/f.html", hfmt("If-None-Match: %s\r\n", old));
        EXPECT(r->status == 304,
               "If-None-Match with the mtime-size tag %s: status %d", old,
               r->status);
        EXPECT(strcmp(http_header(r, "ETag"), old) != 0,
               "the content tag is the mtime-size one: the test proves "
               "nothing");
        r = ka(rc, "GET", "/f.html",
               hfmt("Range: bytes=0-9\r\nIf-Range: %s\r\n", old));
        EXPECT(r->status == 206,
               "If-Range with the mtime-size tag %s: status %d", old,
               r->status);
        r = ka(rc, "GET", "/f.html", "If-None-Match: \"other\"\r\n");
        EXPECT_STATUS(r, 200, "If-None-Match with another tag");
    }
    raw_close(rc);
    server_stop_clean(s);
}
END_TEST

/*
 * Over TLS the reply is the plain one unless --hsts adds its field: then
 * TLS requests neither take nor keep a kept reply, and every one carries
 * Strict-Transport-Security, even for a file whose plain reply is kept.
 */
START_TEST(reply_cache_tls)
{
    static const char *const files[] = {"f.html", NULL};
    char *w = tree_new();
    tree_write(w, "f.html", filled(1024, 'a'), 1024);
    settle(w, files);
    const char *hdrs = tree_path(w, "hdrs");

    for (int hsts = 0; hsts < 2; hsts++) {
        struct server *s =
            server_start(w, "--listen", "https://127.0.0.1:0",
                         "--tls-self-signed", "--threads", "1", "--metrics",
                         "/m", "--hsts", hsts ? "600" : "0", NULL);
        struct raw_conn *rc = raw_open(s->port);
        const char *url =
            hfmt("https://127.0.0.1:%u/f.html", server_https_port(s));
        if (hsts)
            get_f(rc, filled(1024, 'a'), "plain GET");
        long kept = reply_count(rc, "kept"), hits = reply_count(rc, "hit");
        /* three GETs on one TLS connection (one thread: one cache) */
        EXPECT(system(hfmt("timeout 30 curl -sSkf --http1.1 -D %s -o /dev/null "
                           "-o /dev/null -o /dev/null %s %s %s",
                           hdrs, url, url, url)) == 0,
               "curl %s", url);
        char *h = tree_read(hdrs, NULL);
        size_t n = 0;
        for (const char *p = h; (p = strstr(p, "Strict-Transport-Security:"));
             p++)
            n++;
        EXPECT(n == (hsts ? 3u : 0u),
               "--hsts %s: %zu of 3 TLS replies had Strict-Transport-Security:"
               "\n%s",
               hsts ? "600" : "0", n, h);
        long kept2 = reply_count(rc, "kept"), hits2 = reply_count(rc, "hit");
        if (hsts)
            EXPECT(kept2 == kept && hits2 == hits,
                   "with --hsts, TLS requests used the reply cache (kept %ld "
                   "-> %ld, hit %ld -> %ld)",
                   kept, kept2, hits, hits2);
        else
            EXPECT(kept2 == kept + 1 && hits2 == hits + 2,
                   "without --hsts, TLS requests were not answered from the "
                   "reply cache (kept %ld -> %ld, hit %ld -> %ld)",
                   kept, kept2, hits, hits2);
        raw_close(rc);
        server_stop_clean(s);
    }
}
END_TEST

const struct check_main check_main = {
    .suite = "cache",
    .fixture = HARNESS_FIXTURE(120),
    .tcases = {{"small", .loops = {{&range_304_head_by_size, 2}},
                .tests = {&same_size_rewrite_served_fresh,
                          &symlink_swap_refused, &reply_cache_never_stale,
                          &reply_cache_tls, &old_tag_still_matches}}}};
