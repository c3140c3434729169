// SPDX-License-Identifier: MIT
/*
 * test_wire.c - hostile messages against the real binary: each row is the
 * exact bytes sent on a fresh connection, the statuses that must come back
 * in order, and whether the server must close the connection afterwards.
 * No body may ever be answered as a request of its own (a smuggled request
 * shows up as a second status). Then the slow and half-open clients, plain
 * HTTP on an HTTPS port, and a large file's one ETag across the background
 * hash and a restart.
 * Runs once per resolver backend (BENEATH_E2E_RESOLVER).
 */
#include "harness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static char *www;

static void test_setup(void)
{
    harness_test_setup();
    www = tree_site("hello\n");
    tree_write_str(www, "a.txt", "aaaa\n");
}

#define REQ "GET / HTTP/1.1\r\nHost: x\r\n"
#define NEXT "GET /missing HTTP/1.1\r\nHost: x\r\n\r\n"

static const struct {
    const char *name;
    const char *bytes;
    size_t len;  /* 0: strlen */
    int want[3]; /* statuses in order, 0-terminated */
    bool closed;
} hostile[] = {
    /* the reproductions of the framing findings */
    {"space before colon",
     REQ "Content-Length : 34\r\n\r\n" NEXT,
     0,
     {400},
     true},
    {"CL with TE",
     REQ "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
         "0\r\n\r\n" NEXT,
     0,
     {400},
     true},
    {"two CL",
     REQ "Content-Length: 0\r\nContent-Length: 38\r\n\r\n" NEXT,
     0,
     {400},
     true},
    {"CL list differs",
     REQ "Content-Length: 0, 38\r\n\r\n" NEXT,
     0,
     {400},
     true},
    {"CL not digits", REQ "Content-Length: +38\r\n\r\n" NEXT, 0, {400}, true},
    {"CL trailing space",
     REQ "Content-Length: 0 \r\n\r\n" NEXT,
     0,
     {400},
     true},
    {"CL overflows",
     REQ "Content-Length: 99999999999999999999\r\n\r\n",
     0,
     {400},
     true},
    {"CL after a bad name",
     REQ "A@b: c\r\nContent-Length: zz\r\n\r\n",
     0,
     {400},
     true},
    {"TE foo", REQ "Transfer-Encoding: foo\r\n\r\n", 0, {501}, true},
    {"TE chunked, identity",
     REQ "Transfer-Encoding: chunked, identity\r\n\r\n",
     0,
     {501},
     true},
    {"TE chunked not last",
     REQ "Transfer-Encoding: chunked, gzip\r\n\r\n",
     0,
     {400},
     true},
    {"TE on HTTP/1.0",
     "GET / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" NEXT,
     0,
     {400},
     true},
    {"obs-fold", REQ "If-None-Match: \"x\",\r\n \"y\"\r\n\r\n", 0, {400}, true},
    {"obs-fold TE",
     REQ "Transfer-Encoding: chunked\r\n x\r\n\r\n",
     0,
     {400},
     true},
    {"NUL in value", REQ "X-A: a\0b\r\n\r\n", sizeof REQ - 1 + 12, {400}, true},
    {"bare CR", REQ "X-A: b\rX-B: c\r\n\r\n", 0, {400}, true},
    {"bare CR ends line", "GET / HTTP/1.1\rHost: x\r\n\r\n", 0, {400}, true},
    {"NUL in method", "G\0ET / HTTP/1.1\r\nHost: x\r\n\r\n", 29, {400}, true},
    {"space before first field",
     "GET / HTTP/1.1\r\n Host: x\r\n\r\n",
     0,
     {400},
     true},
    {"bad field name", REQ "A\"b: c\r\n\r\n", 0, {400}, true},
    {"control byte in a name", REQ "X\x01: a\r\n\r\n", 0, {400}, true},
    {"control byte in a value", REQ "X: a\x01\r\n\r\n", 0, {200}, false},
    {"two Host", REQ "Host: y\r\n\r\n", 0, {400}, true},
    /* a body is never read: answered at once, then closed */
    {"GET with a body",
     REQ "Content-Length: 1000000000\r\n\r\nx",
     0,
     {200},
     true},
    {"GET chunked",
     REQ "Transfer-Encoding: chunked\r\n\r\n5\r\n",
     0,
     {200},
     true},
    {"GET body is a request",
     REQ "Content-Length: 36\r\n\r\n" NEXT,
     0,
     {200},
     true},
    {"POST with a body",
     "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: "
     "5\r\n\r\nhello",
     0,
     {405},
     true},
    /* what stays allowed, and keeps the connection */
    {"plain GET", REQ "\r\n", 0, {200}, false},
    {"CL 0", REQ "Content-Length: 0\r\n\r\n", 0, {200}, false},
    {"CL 0 twice",
     REQ "Content-Length: 0\r\nContent-Length: 0\r\n\r\n",
     0,
     {200},
     false},
    {"bare LF", "GET / HTTP/1.1\nHost: x\n\n", 0, {200}, false},
    {"empty line first", "\r\n" REQ "\r\n", 0, {200}, false},
    {"pipelined", REQ "\r\n" NEXT, 0, {200, 404}, false},
    {"pipelined then bad", REQ "\r\n" REQ "A : b\r\n\r\n", 0, {200, 400}, true},
};

LOOP_TEST(hostile_case, hostile)
{
    struct server *s = server_start(www, NULL);
    struct raw_conn *c = raw_connect(s->port);
    size_t len = hostile[_i].len ? hostile[_i].len : strlen(hostile[_i].bytes);
    char got[64] = "", want[64] = "";
    bool closed = false;

    EXPECT(c != NULL, "connect");
    EXPECT(raw_send(c, hostile[_i].bytes, len) == 0, "send");
    for (int k = 0; k < 3 && hostile[_i].want[k]; k++)
        snprintf(want + strlen(want), sizeof want - strlen(want), "%d ",
                 hostile[_i].want[k]);
    for (int k = 0; k < 4; k++) {
        struct http_response *r = raw_read(c, false, 2000);
        if (r->status)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%d ",
                     r->status);
        if (r->closed || (r->error && r->error != ETIMEDOUT)) {
            closed = true;
            break;
        }
        if (r->error == ETIMEDOUT)
            break;
    }
    if (!closed && strcmp(got, want) == 0)
        closed = raw_wait_closed(c, hostile[_i].closed ? 2000 : 300);
    EXPECT(strcmp(got, want) == 0, "%s: statuses '%s', want '%s'",
           hostile[_i].name, got, want);
    EXPECT(closed == hostile[_i].closed, "%s: closed %d, want %d",
           hostile[_i].name, closed, hostile[_i].closed);
    raw_close(c);
    EXPECT(server_stderr_since_startup(s)[0] == '\0',
           "%s: a client-caused line on stderr", hostile[_i].name);
}
END_TEST

/*
 * A request the server cannot finish reading, dealt with at once, not after
 * a timeout (--header-timeout 10, --timeout 30):
 *   - half a request and the client's FIN in one segment: closed with no
 *     answer (libmicrohttpd's epoll loop alone would hold the slot until the
 *     header timeout; a pause between the two would let the server read the
 *     bytes first and see the FIN as a new event);
 *   - headers that announce a huge body, then one byte of it: answered (2xx)
 *     without waiting for the body, then closed.
 */
static const struct {
    const char *bytes;
    bool fin;    /* then the FIN; else one byte of the body */
    bool answer; /* a 2xx answer comes before the close */
    bool head;   /* the request is a HEAD (the answer has no body) */
} unfinished[] = {
    {"GET / HTTP/1.1\r\nHost: x\r\n", true, false, false},
    {"GET / HTT", true, false, false},
    {"G", true, false, false},
    {"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\n", false,
     true, false},
    {"HEAD / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", false,
     true, true},
    {"OPTIONS / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n", false, true,
     false},
};

LOOP_TEST(unfinished_at_once, unfinished)
{
    const char *bytes = unfinished[_i].bytes;
    struct server *s =
        server_start(www, "--header-timeout", "10", "--timeout", "30", NULL);
    struct raw_conn *c = raw_open(s->port);
    long long t0;

    if (unfinished[_i].fin) {
        EXPECT(send(c->fd, bytes, strlen(bytes), MSG_MORE) > 0, "send");
        shutdown(c->fd, SHUT_WR);
    } else {
        EXPECT(raw_send_str(c, bytes) == 0, "send");
        EXPECT(raw_send_str(c, "x") == 0, "send");
    }
    t0 = now_ms();
    if (unfinished[_i].answer) {
        struct http_response *r = raw_read(c, unfinished[_i].head, 3000);
        EXPECT(r->status >= 200 && r->status < 300, "%s: status %d", bytes,
               r->status);
        EXPECT(now_ms() - t0 < 1500, "%s: answer took %lld ms", bytes,
               now_ms() - t0);
        EXPECT(r->closed || raw_wait_closed(c, 1500), "%s: not closed", bytes);
    } else {
        EXPECT(raw_wait_closed(c, 5000), "'%s' + FIN: not closed in 5 s",
               bytes);
        EXPECT(now_ms() - t0 < 1500, "'%s' + FIN: closed after %lld ms", bytes,
               now_ms() - t0);
        EXPECT(c->len == 0, "'%s' + FIN: an answer to half a request", bytes);
    }
    raw_close(c);
}
END_TEST

/* A whole request and the FIN: answered, then closed without a timeout. */
START_TEST(request_then_fin)
{
    struct server *s = server_start(www, "--timeout", "30", NULL);
    struct raw_conn *c = raw_connect(s->port);
    const char *req = "GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HT";

    EXPECT(c != NULL, "connect");
    EXPECT(send(c->fd, req, strlen(req), MSG_MORE) > 0, "send");
    shutdown(c->fd, SHUT_WR);
    struct http_response *r = raw_read(c, false, 3000);
    EXPECT(r->status == 200, "status %d", r->status);
    EXPECT(r->closed || raw_wait_closed(c, 1500),
           "not closed after the answer");
}
END_TEST

START_TEST(plain_http_on_https_port)
{
    struct server *s = server_start(www, "--listen", "https://127.0.0.1:0",
                                    "--tls-self-signed", NULL);
    struct raw_conn *c = raw_connect(server_https_port(s));

    EXPECT(c != NULL, "connect");
    EXPECT(raw_send_str(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n") == 0, "send");
    struct http_response *r = raw_read(c, false, 3000);
    EXPECT(r->status == 400, "status %d", r->status);
    EXPECT(strstr(r->body, "HTTPS port") != NULL, "body '%s'", r->body);
    EXPECT(r->closed || raw_wait_closed(c, 1500), "not closed");
    raw_close(c);
}
END_TEST

/*
 * A large file's ETag never changes while the file does not: it is answered
 * without one until the background hash is known, then always with its
 * content tag, so a 200 and a 206 of the same bytes never carry two tags
 * (REDbot's RANGE_CHANGED); after a restart the tag a client holds matches
 * at once (If-None-Match: 304, If-Range: 206) and no other is sent.
 */
START_TEST(big_file_tag_never_changes)
{
    size_t size = 4u << 20;
    tree_write(www, "big.bin", hfill(size, 'z'), size);
    struct server *s = server_start(www, NULL);
    struct http_response *r = expect_get(s, "/big.bin", 200, NULL);
    EXPECT(!http_header(r, "ETag"), "a tag before the hash is known: %s",
           http_header(r, "ETag"));
    /* the content tag, bounded; 200s and 206s meanwhile carry none */
    const char *tag = NULL;
    for (int i = 0; i < 100 && !tag; i++) {
        r = raw_request(s->port,
                        hfmt("GET /big.bin HTTP/1.1\r\nHost: x\r\n%s\r\n",
                             i % 2 ? "Range: bytes=0-9\r\n" : ""),
                        3000);
        EXPECT(r->status == (i % 2 ? 206 : 200), "request %d: %d", i,
               r->status);
        if (http_header(r, "ETag"))
            tag = hfmt("%s", http_header(r, "ETag"));
        else
            usleep(50000);
    }
    EXPECT(tag && tag[0] == '"' && strlen(tag) == 24, "no content tag: %s",
           tag ? tag : "(none)");
    for (int pass = 0; pass < 2; pass++) {
        /* the tag as If-None-Match (304), as If-Range (206) */
        static const struct {
            const char *field;
            int status;
        } asks[] = {{"If-None-Match: ", 304},
                    {"Range: bytes=0-9\r\nIf-Range: ", 206},
                    {"X-Plain: ", 200},
                    {"Range: bytes=5-9\r\nX-Plain: ", 206}};
        for (size_t j = 0; j < N_ELEMS(asks); j++) {
            r = raw_request(
                s->port,
                hfmt("GET /big.bin HTTP/1.1\r\nHost: x\r\n%s%s\r\n\r\n",
                     asks[j].field, tag),
                3000);
            EXPECT(r->status == asks[j].status, "pass %d: %s%s: %d, want %d",
                   pass, asks[j].field, tag, r->status, asks[j].status);
            EXPECT(!http_header(r, "ETag") ||
                       strcmp(http_header(r, "ETag"), tag) == 0,
                   "pass %d: %s%s: another tag %s", pass, asks[j].field, tag,
                   http_header(r, "ETag"));
            EXPECT(r->status != 304 || http_header(r, "Content-Type") == NULL,
                   "304 with a Content-Type");
        }
        server_stop_clean(s);
        s = server_start(www, NULL);
    }
}
END_TEST

/* Named for the resolver backend it runs on. */
static Suite *wire_suite(void)
{
    static const struct check_fixture fixture = HARNESS_FIXTURE(60);
    static const struct check_tcase tcases[] = {
        {"hostile", test_setup, .loops = {LOOP(hostile_case)}},
        {"slow", test_setup, .loops = {LOOP(unfinished_at_once)},
         .tests = {&request_then_fin, &plain_http_on_https_port}},
        {"validators", test_setup, .tests = {&big_file_tag_never_changes}},
    };
    static char name[64];

    snprintf(name, sizeof name, "e2e_wire_%s", harness_backend());
    return check_suite_make(name, &fixture, tcases, N_ELEMS(tcases));
}

const struct check_main check_main = {.suites = {{.make = wire_suite}}};
