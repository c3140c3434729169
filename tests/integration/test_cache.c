/* SPDX-License-Identifier: MIT */
/*
 * test_cache.c - end-to-end tests of the small-file path (bodies up to
 * STATIC_FILE_SMALL_MAX read into memory and sent with the headers): it must
 * never serve stale bytes, never serve a file the resolver would now refuse,
 * and answer 206, 304 and HEAD exactly like the sendfile path. Every request
 * of one test goes over one keep-alive connection, so a per-connection or
 * per-thread cache would be hit.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Overwrite @rel in place (same inode, same size) with @data. */
static void rewrite_in_place(const char *dir, const char *rel, const char *data,
                             size_t n)
{
    int fd = open(tree_path(dir, rel), O_WRONLY);
    EXPECT(fd >= 0, "open %s: %s", rel, strerror(errno));
    EXPECT(pwrite(fd, data, n, 0) == (ssize_t)n, "pwrite %s", rel);
    close(fd);
}

/* GET /f.html on @rc is a 200 with the 1024 bytes @want. */
static void expect_f(struct raw_conn *rc, const char *want, const char *what)
{
    struct http_response *r = ka(rc, "GET", "/f.html", NULL);

    EXPECT_STATUS(r, 200, what);
    EXPECT(r->body_len == 1024 && memcmp(r->body, want, 1024) == 0,
           "%s: a stale or wrong body", what);
}

START_TEST(same_size_rewrite_served_fresh)
{
    char *w = tree_new();
    char *a = hfill(1024, 'a'), *b = hfill(1024, 'b'), *c = hfill(1024, 'c');
    tree_write(w, "f.html", a, 1024);
    tree_mtime(w, "f.html", 1000000000);
    struct server *s = server_start(w, NULL);
    struct raw_conn *rc = raw_connect(s->port);
    EXPECT(rc, "connect");

    for (int i = 0; i < 3; i++)
        expect_f(rc, a, "first GETs");
    /* Same size, different mtime: the new bytes. */
    rewrite_in_place(w, "f.html", b, 1024);
    tree_mtime(w, "f.html", 1000000001);
    expect_f(rc, b, "same size, new mtime");
    /* Same size, mtime set back to the old value (ctime still moves). */
    rewrite_in_place(w, "f.html", c, 1024);
    tree_mtime(w, "f.html", 1000000001);
    expect_f(rc, c, "same size, same mtime");
    /* Immediately, no mtime games: whatever the timestamps' granularity. */
    rewrite_in_place(w, "f.html", a, 1024);
    expect_f(rc, a, "rewrite right after a read");
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
    struct raw_conn *rc = raw_connect(s->port);
    EXPECT(rc, "connect");

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

/* 206, 304 and HEAD of files around the small-file limit. */
START_TEST(range_304_head_by_size)
{
    static const size_t sizes[] = {1, 1024, 65535, 65536, 65537, 200000};
    char *w = tree_new();
    struct server *s;
    struct raw_conn *rc;

    for (size_t i = 0; i < N_ELEMS(sizes); i++) {
        char *d = hbuf(sizes[i]);
        for (size_t j = 0; j < sizes[i]; j++)
            d[j] = (char)('A' + (j * 7 + i) % 26);
        tree_write(w, hfmt("f%zu.bin", sizes[i]), d, sizes[i]);
    }
    s = server_start(w, NULL);
    rc = raw_connect(s->port);
    EXPECT(rc, "connect");
    for (size_t i = 0; i < N_ELEMS(sizes); i++) {
        size_t n = sizes[i], len;
        const char *path = hfmt("/f%zu.bin", n);
        char *want = tree_read(tree_path(w, path + 1), &len);
        const char *cl = hfmt("%zu", n);

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
    raw_close(rc);
}
END_TEST

const struct check_main check_main = {
    .suite = "cache",
    .fixture = HARNESS_FIXTURE(120),
    .tcases = {
        {"small", .tests = {&same_size_rewrite_served_fresh,
                            &symlink_swap_refused, &range_304_head_by_size}}}};
