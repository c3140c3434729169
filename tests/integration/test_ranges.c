/* SPDX-License-Identifier: MIT */
/*
 * test_ranges.c - several byte ranges end to end: multipart/byteranges
 * bodies checked byte for byte (curl -r 0-9,20-29 and libcurl), coalescing,
 * HEAD, If-Range and the other conditionals, and the many-range requests
 * of CVE-2011-3192 (10,000 ranges, 0-,1-,2-,...). Once per resolver backend
 * ($BENEATH_E2E_RESOLVER).
 */
#include "harness.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TXT_LEN 100
#define BIN_LEN 300000 /* several 64 KiB steps of the body callback */

static char *root;
static char txt[TXT_LEN + 1];
static unsigned char *bin;

/* The tree: t.txt (a..z repeated), big.bin (bytes of every value, among
 * them the CR LF and dashes a boundary is made of). */
static void tree_setup(void)
{
    harness_test_setup();
    for (int i = 0; i < TXT_LEN; i++)
        txt[i] = (char)('a' + i % 26);
    bin = (unsigned char *)hbuf(BIN_LEN);
    uint32_t x = 2463534242u;
    for (int i = 0; i < BIN_LEN; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        bin[i] = (unsigned char)(i % 97 == 0 ? '-' : i % 89 == 0 ? '\r' : x);
    }
    root = tree_new();
    tree_write(root, "t.txt", txt, TXT_LEN);
    tree_write(root, "big.bin", bin, BIN_LEN);
}

static struct server *start(void)
{
    return server_start(root, NULL);
}

/* The boundary of a multipart/byteranges Content-Type, harness-owned. */
static const char *boundary_of(const struct http_response *r)
{
    const char *ct = http_header(r, "Content-Type");
    static const char pre[] = "multipart/byteranges; boundary=";

    EXPECT(ct && strncasecmp(ct, pre, sizeof pre - 1) == 0,
           "Content-Type '%s', want multipart/byteranges\n%s", ct ?: "(none)",
           r->head);
    const char *b = ct + sizeof pre - 1;
    EXPECT(strlen(b) == 32 && strspn(b, "0123456789abcdef") == 32,
           "boundary '%s': want 32 hex digits", b);
    return b;
}

/* The bounds of the part "A-Z" at @p; returns what follows it. */
static const char *part(const char *p, unsigned long *a, unsigned long *z)
{
    char *end;

    *a = strtoul(p, &end, 10);
    EXPECT(*end == '-', "part '%s'", p);
    *z = strtoul(end + 1, &end, 10);
    return end;
}

/*
 * The exact multipart body for @parts ("a-b,c-d", inclusive) of @file
 * (@size bytes, served as @type) with boundary @b; its length in *@len.
 */
static char *expected(const char *parts, const void *file, size_t size,
                      const char *type, const char *b, size_t *len)
{
    char *out = hbuf(size + (size_t)4096 * 16);
    size_t n = 0;
    const char *p = parts;

    for (int i = 0; *p; i++) {
        unsigned long a, z;
        p = part(p, &a, &z);
        p += *p == ',';
        n += (size_t)sprintf(out + n,
                             "%s--%s\r\nContent-Type: %s\r\n"
                             "Content-Range: bytes %lu-%lu/%zu\r\n\r\n",
                             i ? "\r\n" : "", b, type, a, z, size);
        memcpy(out + n, (const char *)file + a, z - a + 1);
        n += z - a + 1;
    }
    n += (size_t)sprintf(out + n, "\r\n--%s--\r\n", b);
    *len = n;
    return out;
}

/* @r is the multipart 206 of @parts, byte for byte. */
static void expect_multipart(const struct http_response *r, const char *parts,
                             const void *file, size_t size, const char *type,
                             const char *what)
{
    size_t len;

    EXPECT_STATUS(r, 206, what);
    const char *b = boundary_of(r);
    char *want = expected(parts, file, size, type, b, &len);
    const char *cl = http_header(r, "Content-Length");
    EXPECT(cl && strtoull(cl, NULL, 10) == len,
           "%s: Content-Length %s, body of %zu bytes expected", what,
           cl ?: "(none)", len);
    EXPECT(http_header(r, "Content-Range") == NULL,
           "%s: a multipart 206 with a top-level Content-Range", what);
    EXPECT(r->body_len == len && memcmp(r->body, want, len) == 0,
           "%s: body of %zu bytes differs from the %zu expected:\n%.*s", what,
           r->body_len, len, (int)(r->body_len < 2000 ? r->body_len : 2000),
           r->body);
}

/* ---- curl -r, the command line client --------------------------------- */

/* Run curl with @args (NULL-terminated) bounded by 30 s; 0 when it
 * succeeded. Its stdout goes to /dev/null. */
static int curl_run(const char *const *args)
{
    const char *argv[24] = {"curl", "-s", "-S", "-m", "20"};
    size_t n = 5;
    for (; *args && n < N_ELEMS(argv) - 1; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    pid_t pid = fork();
    int ws;

    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null < 0)
            _exit(126);
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        char *v[N_ELEMS(argv)];
        for (size_t i = 0; i < N_ELEMS(argv); i++)
            v[i] = argv[i] ? strdup(argv[i]) : NULL; /* the child execs */
        execvp("curl", v);
        _exit(127);
    }
    for (int i = 0; i < 3000 && waitpid(pid, &ws, WNOHANG) != pid; i++)
        usleep(10000);
    if (kill(pid, 0) == 0 && waitpid(pid, &ws, WNOHANG) != pid) {
        kill(pid, SIGKILL);
        waitpid(pid, &ws, 0);
        return -1;
    }
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

START_TEST(curl_two_ranges)
{
    struct server *s = start();
    char *dir = tree_new(), *hp = tree_path(dir, "head"),
         *bp = tree_path(dir, "body");
    const char *args[] = {
        "-D", hp, "-o", bp, "-r", "0-9,20-29", server_url(s, 0, "/t.txt"),
        NULL};

    EXPECT(curl_run(args) == 0, "curl -r 0-9,20-29 failed");
    size_t hlen, blen;
    char *head = tree_read(hp, &hlen), *body = tree_read(bp, &blen);
    EXPECT(head && body, "curl wrote no output");
    EXPECT(strncmp(head, "HTTP/1.1 206 ", 13) == 0, "curl -r: %s", head);
    const char *b = strstr(head, "boundary=");
    EXPECT(b, "no boundary in\n%s", head);
    char *bnd = hmem(b + 9, strcspn(b + 9, "\r\n"));
    size_t len;
    char *want = expected("0-9,20-29", txt, TXT_LEN,
                          "text/plain; charset=utf-8", bnd, &len);
    EXPECT(blen == len && memcmp(body, want, len) == 0,
           "curl -r 0-9,20-29: body\n%s\nwant\n%s", body, want);
    EXPECT(strstr(head, hfmt("Content-Length: %zu\r\n", len)),
           "curl -r: Content-Length not %zu:\n%s", len, head);
    /* the parts are the file's bytes: 0-9 and 20-29 */
    EXPECT(strstr(body, "\r\n\r\nabcdefghij\r\n--") &&
               strstr(body, "\r\n\r\nuvwxyzabcd\r\n--"),
           "the parts are not bytes 0-9 and 20-29:\n%s", body);
    server_stop_clean(s);
}
END_TEST

/* ---- a table of range sets -------------------------------------------- */

static const struct {
    const char *path, *range;
    int status;
    const char *parts; /* 206: "a-b,..." inclusive, in the order sent */
} sets[] = {
    {"/t.txt", "bytes=0-9,20-29", 206, "0-9,20-29"},
    {"/t.txt", "bytes=0-0,-1", 206, "0-0,99-99"},
    {"/t.txt", "bytes=50-59, 0-9", 206, "50-59,0-9"},
    {"/t.txt", "bytes=,0-9,,30-39,", 206, "0-9,30-39"},
    /* overlapping and nearby ranges coalesce (gap below 8 bytes) */
    {"/t.txt", "bytes=0-9,5-14,40-49,45-54", 206, "0-14,40-54"},
    {"/t.txt", "bytes=0-9,17-19,30-39", 206, "0-19,30-39"},
    {"/t.txt", "bytes=0-9,18-19", 206, "0-9,18-19"},
    {"/t.txt", "bytes=0-9,200-300,20-29", 206, "0-9,20-29"},
    /* into one part: an ordinary 206 */
    {"/t.txt", "bytes=0-9,5-14", 206, "0-14"},
    {"/t.txt", "bytes=200-300,20-29", 206, "20-29"},
    /* none satisfiable: 416; more than the file or a syntax error: 200 */
    {"/t.txt", "bytes=200-300,100-", 416, NULL},
    {"/t.txt", "bytes=0-,0-", 200, NULL},
    {"/t.txt", "bytes=0-50,50-99", 200, NULL},
    {"/t.txt", "bytes=0-9,x-y", 200, NULL},
    /* parts across the 64 KiB steps of the body, binary data */
    {"/big.bin", "bytes=0-70000,100000-200000,-5", 206,
     "0-70000,100000-200000,299995-299999"},
    {"/big.bin", "bytes=65530-65545,131070-131075,196600-262200", 206,
     "65530-65545,131070-131075,196600-262200"},
    /* 16 parts: served; 17: the whole file */
    {"/big.bin",
     "bytes=0-0,100-100,200-200,300-300,400-400,500-500,600-600,700-700,"
     "800-800,900-900,1000-1000,1100-1100,1200-1200,1300-1300,1400-1400,"
     "1500-1500",
     206,
     "0-0,100-100,200-200,300-300,400-400,500-500,600-600,700-700,"
     "800-800,900-900,1000-1000,1100-1100,1200-1200,1300-1300,1400-1400,"
     "1500-1500"},
    {"/big.bin",
     "bytes=0-0,100-100,200-200,300-300,400-400,500-500,600-600,700-700,"
     "800-800,900-900,1000-1000,1100-1100,1200-1200,1300-1300,1400-1400,"
     "1500-1500,1600-1600",
     200, NULL},
};

LOOP_TEST(set_case, sets)
{
    struct server *s = start();
    bool txt_file = strcmp(sets[_i].path, "/t.txt") == 0;
    const void *file = txt_file ? (const void *)txt : (const void *)bin;
    size_t size = txt_file ? TXT_LEN : BIN_LEN;
    const char *type =
        txt_file ? "text/plain; charset=utf-8" : "application/octet-stream";
    const char *h[] = {hfmt("Range: %s", sets[_i].range), NULL};
    struct http_response *r = http_do(NULL, s, "GET", sets[_i].path, h);
    const char *what = hfmt("%s %s", sets[_i].path, h[0]);

    EXPECT_STATUS(r, sets[_i].status, what);
    if (sets[_i].status == 206 && strchr(sets[_i].parts, ',')) {
        expect_multipart(r, sets[_i].parts, file, size, type, what);
    } else if (sets[_i].status == 206) {
        unsigned long a, z;
        part(sets[_i].parts, &a, &z);
        EXPECT_HEADER(r, "Content-Range", hfmt("bytes %lu-%lu/%zu", a, z, size),
                      what);
        EXPECT_HEADER(r, "Content-Type", type, what);
        EXPECT(r->body_len == z - a + 1 &&
                   memcmp(r->body, (const char *)file + a, r->body_len) == 0,
               "%s: single-part body differs", what);
    } else if (sets[_i].status == 416) {
        EXPECT_HEADER(r, "Content-Range", hfmt("bytes */%zu", size), what);
    } else {
        EXPECT(r->body_len == size && memcmp(r->body, file, size) == 0,
               "%s: 200 without the whole file", what);
        EXPECT_HEADER(r, "Content-Range", NULL, what);
    }
    server_stop_clean(s);
}
END_TEST

/* HEAD: the GET's status and headers, no body; keep-alive holds. */
START_TEST(head_and_keepalive)
{
    struct server *s = start();
    CURL *e = http_easy();
    const char *h[] = {"Range: bytes=0-9,20-29", NULL};
    struct http_response *g = http_do(e, s, "GET", "/t.txt", h);
    struct http_response *hd = http_do(e, s, "HEAD", "/t.txt", h);

    expect_multipart(g, "0-9,20-29", txt, TXT_LEN, "text/plain; charset=utf-8",
                     "GET");
    EXPECT_STATUS(hd, 206, "HEAD with two ranges");
    EXPECT(hd->body_len == 0, "HEAD 206 with a body");
    boundary_of(hd);
    EXPECT_HEADER(hd, "Content-Length", http_header(g, "Content-Length"),
                  "HEAD");
    EXPECT_HEADER(hd, "ETag", http_header(g, "ETag"), "HEAD");
    EXPECT_HEADER(hd, "Accept-Ranges", "bytes", "HEAD");
    /* the connection carried both, and carries a third */
    EXPECT(hd->num_connects == 0, "HEAD on a new connection");
    struct http_response *g2 = http_do(e, s, "GET", "/big.bin", NULL);
    EXPECT(g2->status == 200 && g2->num_connects == 0 &&
               g2->body_len == BIN_LEN,
           "a GET after the multipart on the same connection: %d, %ld",
           g2->status, g2->num_connects);
    server_stop_clean(s);
}
END_TEST

/* If-Range and the other conditionals with several ranges. */
START_TEST(conditionals)
{
    struct server *s = start();
    struct http_response *r = http_get(s, "/t.txt");
    const char *etag = hfmt("%s", http_header(r, "ETag"));
    const char *lm = hfmt("%s", http_header(r, "Last-Modified"));
    static const char range[] = "Range: bytes=0-9,20-29";

    r = http_do(NULL, s, "GET", "/t.txt",
                (const char *[]){range, hfmt("If-Range: %s", etag), NULL});
    expect_multipart(r, "0-9,20-29", txt, TXT_LEN, "text/plain; charset=utf-8",
                     "If-Range matching");
    r = http_do(NULL, s, "GET", "/t.txt",
                (const char *[]){range, hfmt("If-Range: %s", lm), NULL});
    expect_multipart(r, "0-9,20-29", txt, TXT_LEN, "text/plain; charset=utf-8",
                     "If-Range with the date");
    /* If-Range mismatch: the whole file, 200 */
    r = http_do(NULL, s, "GET", "/t.txt",
                (const char *[]){range, "If-Range: \"other\"", NULL});
    EXPECT_STATUS(r, 200, "If-Range mismatch");
    EXPECT(r->body_len == TXT_LEN && memcmp(r->body, txt, TXT_LEN) == 0,
           "If-Range mismatch: not the whole file");
    EXPECT_HEADER(r, "Content-Type", "text/plain; charset=utf-8", "200");
    r = http_do(NULL, s, "GET", "/t.txt",
                (const char *[]){range, "If-Range: W/\"x\"", NULL});
    EXPECT_STATUS(r, 200, "If-Range with a weak tag");
    /* If-None-Match matching: 304 before any range */
    r = http_do(NULL, s, "GET", "/t.txt",
                (const char *[]){range, hfmt("If-None-Match: %s", etag), NULL});
    EXPECT_STATUS(r, 304, "If-None-Match with two ranges");
    EXPECT(r->body_len == 0, "304 with a body");
    r = http_do(NULL, s, "HEAD", "/t.txt",
                (const char *[]){range, hfmt("If-None-Match: %s", etag), NULL});
    EXPECT_STATUS(r, 304, "HEAD If-None-Match with two ranges");
    r = http_do(NULL, s, "GET", "/t.txt",
                (const char *[]){range, "If-Match: \"nope\"", NULL});
    EXPECT_STATUS(r, 412, "If-Match failing with two ranges");
    r = http_do(NULL, s, "GET", "/t.txt",
                (const char *[]){range, "If-None-Match: \"nope\"", NULL});
    expect_multipart(r, "0-9,20-29", txt, TXT_LEN, "text/plain; charset=utf-8",
                     "If-None-Match not matching");
    server_stop_clean(s);
}
END_TEST

/* "bytes=" and @n specs "2i-2i" (@n * ~10 bytes). */
static char *spaced_ranges(int n)
{
    size_t cap = 16 + (size_t)n * 16, len = 0;
    char *h = hbuf(cap);

    len += (size_t)snprintf(h, cap, "bytes=");
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(h + len, cap - len, "%s%d-%d", i ? "," : "",
                                2 * i, 2 * i);
    return h;
}

/*
 * 10,000 ranges: with the default --max-header-size (8K) the head is
 * refused (431); with a 1 MiB head the Range field reaches the parser,
 * which ignores it past 128 specs: 200 and the whole file. Either way a
 * prompt answer and a server that goes on serving.
 */
START_TEST(ten_thousand_ranges)
{
    char *range = spaced_ranges(10000);
    char *req = hfmt("GET /big.bin HTTP/1.1\r\nHost: x\r\nRange: %s\r\n"
                     "Connection: close\r\n\r\n",
                     range);
    struct server *s = start();
    struct http_response *r = raw_request(s->port, req, 10000);

    EXPECT(strlen(range) > 60000, "only %zu bytes of ranges", strlen(range));
    EXPECT_STATUS(r, 431, "10,000 ranges, default head size");
    expect_get(s, "/t.txt", 200, "after 10,000 ranges");
    server_stop_clean(s);

    s = server_start(root, "--max-header-size", "1M", NULL);
    r = raw_request(s->port, req, 10000);
    EXPECT_STATUS(r, 200, "10,000 ranges in a 1 MiB head");
    EXPECT(r->body_len == BIN_LEN && memcmp(r->body, bin, BIN_LEN) == 0,
           "10,000 ranges: not the whole file");
    EXPECT(http_header(r, "Content-Range") == NULL, "200 with Content-Range");
    /* a long Range field that does not parse: ignored */
    r = raw_request(s->port,
                    hfmt("GET /t.txt HTTP/1.1\r\nHost: x\r\nRange: bytes=%s"
                         "\r\nConnection: close\r\n\r\n",
                         hfill(129 * 4 - 1, 'x')),
                    10000);
    EXPECT_STATUS(r, 200, "a garbage Range field");
    expect_get(s, "/t.txt", 200, "after 10,000 ranges");
    server_stop_clean(s);
}
END_TEST

/* CVE-2011-3192's request: 0-,1-,2-,... each nearly the whole file. */
START_TEST(apache_killer)
{
    struct server *s = server_start(root, "--max-header-size", "64K", NULL);
    size_t cap = (size_t)1300 * 8, len = 0;
    char *h = hbuf(cap);

    len += (size_t)snprintf(h, cap, "Range: bytes=");
    for (int i = 0; i < 1300; i++)
        len += (size_t)snprintf(h + len, cap - len, "%s%d-", i ? "," : "", i);
    struct http_response *r =
        http_do(NULL, s, "GET", "/big.bin", (const char *[]){h, NULL});
    EXPECT_STATUS(r, 200, "0-,1-,...,1299-");
    EXPECT(r->body_len == BIN_LEN, "0-,1-,...: %zu bytes, want the file once",
           r->body_len);
    /* the same as a set of 5: still more than the file */
    r = http_do(NULL, s, "GET", "/big.bin",
                (const char *[]){"Range: bytes=0-,1-,2-,3-,4-", NULL});
    EXPECT_STATUS(r, 200, "0-,1-,2-,3-,4-");
    server_stop_clean(s);
}
END_TEST

const struct check_main check_main = {
    .suite = "e2e_ranges",
    .fixture = {tree_setup, harness_test_teardown, harness_suite_setup,
                harness_suite_teardown, 120},
    .tcases = {
        {"multipart", .loops = {LOOP(set_case)},
         .tests = {&curl_two_ranges, &head_and_keepalive, &conditionals}},
        {"bounds", .tests = {&ten_thousand_ranges, &apache_killer}}}};
