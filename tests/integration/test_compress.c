/* SPDX-License-Identifier: MIT */
/*
 * test_compress.c - compression on the fly end to end: each coding decoded
 * by libcurl (as curl --compressed does), the default (gzip), --compress
 * off, thresholds and types, the variant's ETag, 304 and Range on the
 * compressed bytes, Vary, sidecars winning, a large file coded as it is
 * sent while its body is compressed in the background, hostile Accept-Encoding
 * values, memory with fifty clients of a 1 GiB file, and beneath-precompress on
 * a tree with symlinks out of it.
 */
#include "harness.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A compressible stylesheet of @n bytes. */
static char *css(size_t n)
{
    char *t = hbuf(n);
    for (size_t i = 0; i < n; i++)
        t[i] = ".c { color: #abc; margin: 0 4px } /* rule */\n"[i % 45];
    return t;
}

static const char *aeh(const char *ae)
{
    return hfmt("Accept-Encoding: %s", ae);
}

/* GET @path with libcurl asking for (and decoding) @ae; "" is every coding
 * libcurl knows, as curl --compressed sends. */
static struct http_response *get_decoded(struct server *s, const char *path,
                                         const char *ae)
{
    CURL *e = http_easy();
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, ae);
    return http_do(e, s, "GET", path, NULL);
}

/* GET @path with raw extra header lines @h (NULL-ended), not decoded. */
static struct http_response *get_raw(struct server *s, const char *path,
                                     const char **h)
{
    return http_do(NULL, s, "GET", path, h);
}

static char *site(size_t css_size)
{
    char *root = tree_new();
    tree_write(root, "style.css", css(css_size), css_size);
    tree_write(root, "small.css", "a{b:c}", 6);
    tree_write(root, "img.png", css(4000), 4000);
    return root;
}

START_TEST(each_coding)
{
    char *root = site(20480);
    struct server *s = server_start(root, "--compress", "zstd,br,gzip", NULL);
    const char *want = css(20480);
    const char *codings[] = {"gzip", "br", "zstd"};
    struct http_response *plain = get_raw(s, "/style.css", NULL);

    EXPECT_BODY(plain, want, "identity");
    EXPECT_HEADER(plain, "Content-Encoding", NULL, "identity");
    EXPECT_HEADER(plain, "Vary", "Accept-Encoding", "identity");
    const char *tag = http_header(plain, "ETag");
    EXPECT(tag && tag[strlen(tag) - 1] == '"', "identity ETag %s", tag);
    for (size_t i = 0; i < N_ELEMS(codings); i++) {
        struct http_response *r = get_decoded(s, "/style.css", codings[i]);
        EXPECT(r->status == 200 && r->body_len == 20480 &&
                   memcmp(r->body, want, 20480) == 0,
               "%s: status %d, %zu bytes decoded", codings[i], r->status,
               r->body_len);
        EXPECT_HEADER(r, "Content-Encoding", codings[i], codings[i]);
        EXPECT_HEADER(r, "Vary", "Accept-Encoding", codings[i]);
        EXPECT_HEADER(r, "ETag",
                      hfmt("%.*s-%s\"", (int)strlen(tag) - 1, tag, codings[i]),
                      codings[i]);
        struct http_response *raw =
            get_raw(s, "/style.css", (const char *[]){aeh(codings[i]), NULL});
        EXPECT(raw->body_len < 20480 / 4 &&
                   strtol(http_header(raw, "Content-Length"), NULL, 10) ==
                       (long)raw->body_len,
               "%s: %zu bytes on the wire", codings[i], raw->body_len);
    }
    /* q-values: the client's order wins over the server's */
    struct http_response *q =
        get_raw(s, "/style.css", (const char *[]){aeh("br;q=0.5, gzip"), NULL});
    EXPECT_HEADER(q, "Content-Encoding", "gzip", "br;q=0.5, gzip");
    q = get_raw(s, "/style.css", (const char *[]){aeh("*"), NULL});
    EXPECT_HEADER(q, "Content-Encoding", "zstd", "*: the server's first");
    q = get_raw(s, "/style.css",
                (const char *[]){aeh("gzip;q=0.5, identity"), NULL});
    EXPECT_HEADER(q, "Content-Encoding", NULL, "identity preferred");
    /* HEAD: the same headers and length as GET */
    struct http_response *h = http_do(NULL, s, "HEAD", "/style.css",
                                      (const char *[]){aeh("br"), NULL});
    EXPECT_HEADER(h, "Content-Encoding", "br", "HEAD");
    EXPECT(h->body_len == 0, "HEAD with a body");
    server_stop_clean(s);
}
END_TEST

START_TEST(defaults_and_off)
{
    char *root = site(20480);
    struct server *s = server_start(root, NULL);
    const char *ae[] = {aeh("br, zstd, gzip"), NULL};

    /* curl --compressed */
    struct http_response *r = get_decoded(s, "/style.css", "");
    EXPECT(r->status == 200 && r->body_len == 20480 &&
               memcmp(r->body, css(20480), 20480) == 0,
           "--compressed: %d, %zu bytes", r->status, r->body_len);
    EXPECT_HEADER(r, "Content-Encoding", "gzip", "default coding");
    r = get_raw(s, "/style.css", ae);
    EXPECT_HEADER(r, "Content-Encoding", "gzip", "default is gzip alone");
    /* below 1 KiB, and a compressed type: identity, nothing varies */
    r = get_raw(s, "/small.css", ae);
    EXPECT_BODY(r, "a{b:c}", "small");
    EXPECT_HEADER(r, "Vary", NULL, "small");
    r = get_raw(s, "/img.png", ae);
    EXPECT_HEADER(r, "Content-Encoding", NULL, "png");
    EXPECT_HEADER(r, "Vary", NULL, "png");
    server_stop_clean(s);

    s = server_start(root, "--compress", "off", NULL);
    r = get_raw(s, "/style.css", ae);
    EXPECT_STATUS(r, 200, "off");
    EXPECT(r->body_len == 20480, "off: %zu bytes", r->body_len);
    EXPECT_HEADER(r, "Content-Encoding", NULL, "off");
    EXPECT_HEADER(r, "Vary", NULL, "off");
    server_stop_clean(s);
}
END_TEST

START_TEST(conditional_and_range)
{
    char *root = site(20480);
    struct server *s = server_start(root, NULL);
    const char *ae = aeh("gzip");
    struct http_response *full =
        get_raw(s, "/style.css", (const char *[]){ae, NULL});
    const char *tag = http_header(full, "ETag");
    const char *plain_tag = http_header(get_raw(s, "/style.css", NULL), "ETag");

    EXPECT(tag && strstr(tag, "-gzip\""), "variant ETag %s", tag);
    /* If-None-Match with the variant's tag: 304, its validators, Vary */
    struct http_response *r =
        get_raw(s, "/style.css",
                (const char *[]){ae, hfmt("If-None-Match: %s", tag), NULL});
    EXPECT_STATUS(r, 304, "INM variant");
    EXPECT_HEADER(r, "ETag", tag, "304");
    EXPECT_HEADER(r, "Vary", "Accept-Encoding", "304");
    /* the identity's tag names another representation: 200 gzip */
    r = get_raw(
        s, "/style.css",
        (const char *[]){ae, hfmt("If-None-Match: %s", plain_tag), NULL});
    EXPECT_STATUS(r, 200, "INM identity tag");
    EXPECT_HEADER(r, "Content-Encoding", "gzip", "INM identity tag");
    /* and the variant's tag does not match the identity body */
    r = get_raw(s, "/style.css",
                (const char *[]){hfmt("If-None-Match: %s", tag), NULL});
    EXPECT_STATUS(r, 200, "INM variant tag, no coding");
    /* Range applies to the compressed bytes */
    r = get_raw(s, "/style.css",
                (const char *[]){ae, "Range: bytes=0-9", NULL});
    EXPECT_STATUS(r, 206, "range");
    EXPECT_HEADER(r, "Content-Range", hfmt("bytes 0-9/%zu", full->body_len),
                  "range");
    EXPECT(r->body_len == 10 && memcmp(r->body, full->body, 10) == 0,
           "range body");
    r = get_raw(s, "/style.css", (const char *[]){ae, "Range: bytes=-5", NULL});
    EXPECT(r->status == 206 && r->body_len == 5 &&
               memcmp(r->body, full->body + full->body_len - 5, 5) == 0,
           "suffix range: %d", r->status);
    r = get_raw(s, "/style.css",
                (const char *[]){ae, "Range: bytes=20000-", NULL});
    EXPECT_STATUS(r, 416, "past the compressed length");
    EXPECT_HEADER(r, "Content-Range", hfmt("bytes */%zu", full->body_len),
                  "416");
    /* If-Range with the variant's tag: the range; with another: the 200 */
    r = get_raw(s, "/style.css",
                (const char *[]){ae, "Range: bytes=0-9",
                                 hfmt("If-Range: %s", tag), NULL});
    EXPECT_STATUS(r, 206, "If-Range variant");
    r = get_raw(s, "/style.css",
                (const char *[]){ae, "Range: bytes=0-9",
                                 hfmt("If-Range: %s", plain_tag), NULL});
    EXPECT_STATUS(r, 200, "If-Range identity tag");
    server_stop_clean(s);
}
END_TEST

START_TEST(sidecar_wins)
{
    char *root = site(20480);
    tree_write_str(root, "style.css.br", "SIDECAR-BR");
    struct server *s = server_start(root, "--precompressed", "br,zst,gz",
                                    "--compress", "br,gzip", NULL);

    struct http_response *r =
        get_raw(s, "/style.css", (const char *[]){aeh("br, gzip"), NULL});
    EXPECT(r->status == 200 && strcmp(r->body, "SIDECAR-BR") == 0,
           "sidecar: %d %s", r->status, r->body);
    EXPECT_HEADER(r, "Content-Encoding", "br", "sidecar");
    EXPECT_HEADER(r, "Vary", "Accept-Encoding", "sidecar");
    /* no .gz sidecar: gzip is made on the fly */
    r = get_decoded(s, "/style.css", "gzip");
    EXPECT(r->status == 200 && r->body_len == 20480, "on the fly beside");
    EXPECT_HEADER(r, "Content-Encoding", "gzip", "on the fly beside");
    server_stop_clean(s);
}
END_TEST

START_TEST(large_in_background)
{
    char *root = tree_new();
    size_t n = (size_t)3 * 1024 * 1024;
    tree_write(root, "big.txt", css(n), n);
    struct server *s = server_start(root, NULL);
    const char *ae[] = {aeh("gzip"), NULL};

    /* the first answer is coded as it is sent (no length) while the body
     * to keep is made in the background */
    struct http_response *r = get_decoded(s, "/big.txt", "gzip");
    EXPECT(r->status == 200 && r->body_len == n &&
               memcmp(r->body, css(n), n) == 0,
           "first: %d, %zu bytes", r->status, r->body_len);
    EXPECT_HEADER(r, "Vary", "Accept-Encoding", "first");
    EXPECT_HEADER(r, "Content-Encoding", "gzip", "first");
    EXPECT_HEADER(r, "Content-Length", NULL, "first");
    bool kept = false;
    for (int i = 0; i < 100 && !kept; i++) {
        r = get_raw(s, "/big.txt", ae);
        EXPECT_HEADER(r, "Content-Encoding", "gzip", "meanwhile");
        kept = http_header(r, "Content-Length") != NULL;
        if (!kept)
            usleep(100 * 1000);
    }
    EXPECT(kept, "never kept");
    r = get_decoded(s, "/big.txt", "gzip");
    EXPECT(r->body_len == n && memcmp(r->body, css(n), n) == 0, "decoded");
    server_stop_clean(s);
}
END_TEST

/* Accept-Encoding values a client should not send: clear answers. */
START_TEST(hostile_accept_encoding)
{
    char *root = site(20480);
    struct server *s = server_start(root, "--max-header-size", "64K", NULL);
    char *many = hbuf((size_t)1000 * 24), *dup = hbuf((size_t)1000 * 12);
    size_t m = 0, d = 0;

    for (int i = 0; i < 1000; i++)
        m += (size_t)sprintf(many + m, "%scoding%d;q=0.%03d", i ? ", " : "", i,
                             i % 999 + 1);
    snprintf(many + m, (size_t)1000 * 24 - m, ", gzip;q=0.001");
    for (int i = 0; i < 1000; i++)
        d += (size_t)sprintf(dup + d, "%sgzip;q=%d", i ? "," : "", i ? 1 : 0);
    struct http_response *r =
        get_raw(s, "/style.css", (const char *[]){aeh(many), NULL});
    EXPECT_STATUS(r, 200, "1000 unknown codings and gzip");
    EXPECT_HEADER(r, "Content-Encoding", "gzip", "1000 entries");
    /* the first mention wins: gzip;q=0 refuses it */
    r = get_raw(s, "/style.css", (const char *[]){aeh(dup), NULL});
    EXPECT_STATUS(r, 200, "1000 gzip entries");
    EXPECT_HEADER(r, "Content-Encoding", NULL, "gzip;q=0 first");
    const char *bad[] = {"gzip;q=2", "gzip;q=abc",    "gzip;level=9",
                         ";;;,,,",   "gzip;q=0.1234", "gzip;q=1;q=0"};
    for (size_t i = 0; i < N_ELEMS(bad); i++) {
        r = get_raw(s, "/style.css", (const char *[]){aeh(bad[i]), NULL});
        EXPECT(r->status == 200 && !http_header(r, "Content-Encoding"),
               "'%s': %d %s", bad[i], r->status,
               http_header(r, "Content-Encoding"));
    }
    server_stop_clean(s);
}
END_TEST

/* VmRSS of @pid in KiB. */
static long rss_kib(pid_t pid)
{
    char *st = tree_read(hfmt("/proc/%d/status", (int)pid), NULL);
    const char *p = st ? strstr(st, "VmRSS:") : NULL;
    return p ? strtol(p + 6, NULL, 10) : -1;
}

/*
 * Fifty clients of a 1 GiB text file at once, each asking for gzip: the
 * file is above the on-the-fly maximum and goes out by sendfile, so the
 * server's memory does not grow with it. Each client reads the head and a
 * little of the body, then stays connected while RSS is read.
 */
START_TEST(gib_fifty_clients)
{
    char *root = tree_new();
    int fd = open(tree_path(root, "huge.txt"), O_WRONLY | O_CREAT, 0644);
    EXPECT(fd >= 0 && ftruncate(fd, (off_t)1 << 30) == 0, "1 GiB file");
    close(fd);
    struct server *s = server_start(root, NULL);
    struct raw_conn *c[50];
    long before = rss_kib(server_serving_pid(s)), peak = before;

    for (int i = 0; i < 50; i++) {
        c[i] = raw_open(s->port);
        EXPECT(raw_send_str(c[i], "GET /huge.txt HTTP/1.1\r\nHost: x\r\n"
                                  "Accept-Encoding: gzip, br\r\n\r\n") == 0,
               "send %d", i);
    }
    for (int i = 0; i < 50; i++) {
        char buf[4096];
        ssize_t got = read(c[i]->fd, buf, sizeof buf - 1);
        EXPECT(got > 0, "client %d read nothing", i);
        buf[got] = '\0';
        EXPECT(strncmp(buf, "HTTP/1.1 200", 12) == 0 &&
                   strstr(buf, "Content-Length: 1073741824") &&
                   !strstr(buf, "Content-Encoding"),
               "client %d: %.200s", i, buf);
        long now = rss_kib(server_serving_pid(s));
        if (now > peak)
            peak = now;
    }
    usleep(300 * 1000);
    long now = rss_kib(server_serving_pid(s));
    if (now > peak)
        peak = now;
    fprintf(stderr,
            "gib_fifty_clients: server RSS %ld KiB before, peak %ld "
            "KiB with 50 clients of a 1 GiB file\n",
            before, peak);
    EXPECT(peak < before + 64L * 1024, "RSS grew from %ld to %ld KiB", before,
           peak);
    for (int i = 0; i < 50; i++)
        raw_close(c[i]);
    server_stop_clean(s);
}
END_TEST

/* Run beneath-precompress with @args (a shell word list), bounded by 60 s:
 * its exit status, its stdout and stderr in *@out. */
static int tool(const char *bin, const char *args, char **out)
{
    char *log = tree_path(tree_new(), "out");
    int st = system(hfmt("timeout 60 '%s' %s >'%s' 2>&1", bin, args, log));
    *out = tree_read(log, NULL);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

START_TEST(precompress_tool)
{
    const char *bin = getenv("BENEATH_PRECOMPRESS_BIN");
    char *root = tree_new(), *outside = tree_new();
    char *out;

    EXPECT(bin != NULL, "BENEATH_PRECOMPRESS_BIN");
    tree_write(root, "a.css", css(20480), 20480);
    tree_mkdir(root, "d");
    tree_write(root, "d/b.js", css(5000), 5000);
    tree_write_str(root, "tiny.css", "a{}");
    tree_write(root, "photo.png", css(20480), 20480);
    tree_write(outside, "secret.css", css(20480), 20480);
    tree_symlink(root, outside, "out");
    tree_symlink(root, tree_path(outside, "secret.css"), "link.css");
    tree_symlink(root, "a.css", "inside.css");
    /* a sidecar name that is a symlink out is replaced, not written through */
    tree_symlink(root, tree_path(outside, "victim"), "d/b.js.gz");

    int st = tool(bin, hfmt("'%s'", root), &out);
    EXPECT(st == 0, "exit %d: %s", st, out);
    const char *want[] = {"a.css.br", "a.css.zst", "a.css.gz", "d/b.js.br",
                          "d/b.js.zst"};
    for (size_t i = 0; i < N_ELEMS(want); i++) {
        struct stat sb;
        EXPECT(lstat(tree_path(root, want[i]), &sb) == 0 &&
                   S_ISREG(sb.st_mode) && sb.st_size < 20480 / 4,
               "%s missing: %s", want[i], out);
    }
    struct stat sb;
    EXPECT(lstat(tree_path(root, "d/b.js.gz"), &sb) == 0 && S_ISREG(sb.st_mode),
           "d/b.js.gz should be a file now");
    EXPECT(lstat(tree_path(outside, "victim"), &sb) != 0,
           "wrote through a symlink");
    const char *none[] = {"tiny.css.br", "photo.png.br", "link.css.br",
                          "inside.css.br"};
    for (size_t i = 0; i < N_ELEMS(none); i++)
        EXPECT(lstat(tree_path(root, none[i]), &sb) != 0, "%s written",
               none[i]);
    const char *outs[] = {"secret.css.br", "secret.css.gz", "secret.css.zst"};
    for (size_t i = 0; i < N_ELEMS(outs); i++)
        EXPECT(lstat(tree_path(outside, outs[i]), &sb) != 0,
               "followed a symlink out: %s", outs[i]);
    EXPECT(strstr(out, "3 files, 6 sidecars written"), "summary: %s", out);
    /* a second run finds them current */
    st = tool(bin, hfmt("'%s'", root), &out);
    EXPECT(st == 0 && strstr(out, "0 sidecars written, 6 up to date"),
           "second run: %s", out);
    /* and the server serves them (their mtime is the source's) */
    struct server *s = server_start(root, "--precompressed", "br,zst,gz",
                                    "--compress", "off", NULL);
    struct http_response *r = get_decoded(s, "/a.css", "br");
    EXPECT(r->status == 200 && r->body_len == 20480 &&
               memcmp(r->body, css(20480), 20480) == 0,
           "served sidecar: %d", r->status);
    EXPECT_HEADER(r, "Content-Encoding", "br", "sidecar");
    server_stop_clean(s);
    /* bad usage */
    st = tool(bin, "", &out);
    EXPECT(st == 2, "no DIR: %d %s", st, out);
}
END_TEST

const struct check_main check_main = {
    .suite = "e2e_compress",
    .fixture = HARNESS_FIXTURE(120),
    .tcases = {
        {"compress", .tests = {&each_coding, &defaults_and_off,
                               &conditional_and_range, &sidecar_wins,
                               &large_in_background, &hostile_accept_encoding,
                               &gib_fifty_clients, &precompress_tool}}}};
