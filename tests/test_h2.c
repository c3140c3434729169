// SPDX-License-Identifier: MIT
/*
 * test_h2.c - the HTTP/2 engine (transport/h2.c) in process: a real
 * HTTP/2 client (an nghttp2 client session, h2_client.h) on one end of a
 * socketpair, the server session on the other, driven by a poll loop on a
 * thread of its own as a front's loop would drive it (events, deadlines,
 * the close).
 * The configuration is loaded over a fixture tree as the server loads it,
 * and the table of respond()'s suite (respond_fixture.h) is asked again
 * over HTTP/2: the same statuses, fields and bodies, HEAD, 304 and 204
 * with no DATA frame; then what only HTTP/2 has: framing of large and
 * multipart bodies under flow control, :authority and Host, the access
 * log's and the metrics' protocol, and the limits that end a connection.
 */
#include "check_main.h"
#include "fixture.h"
#include "h2_client.h"
#include "http/arena.h"
#include "observe/log.h"
#include "observe/metrics.h"
#include "respond_fixture.h"
#include "runtime/live.h"
#include "tls_fixture.h"
#include "transport/conn/gen_conf.h"
#include "transport/front/preface.h"
#include "transport/h2/h2.h"
#include "transport/h2/h2_io.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <nghttp2/nghttp2.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- the server side: a session on its own thread ----------------------- */

struct server {
    int fd;
    int stop[2]; /* a pipe: a byte ends the loop */
    struct gen_conf gen;
    struct live *gens;
    struct h2_conf conf;
    atomic_uint in_flight;
    atomic_bool draining;
    atomic_uint files; /* the pool of file streams (conf.files_used) */
    pthread_t thread;
    _Atomic int64_t ended_ms; /* when the session ended */
    bool by_deadline;         /* its deadline ended it */
    bool tls;                 /* the session is told it came over TLS */
    SSL_CTX *ctx;  /* real TLS on the socketpair (tls_start), or NULL */
    char alpn[16]; /* the protocol ALPN chose */
};

/* The version as the TLS front names it ("TLS1.3"). */
static const char *tls_version(SSL *ssl)
{
    return SSL_version(ssl) == TLS1_3_VERSION ? "TLS1.3" : "TLS1.2";
}

/* The server's end of TLS, as the front leaves it for a session: the
 * handshake done, the socket non-blocking, the SSL reading ahead. */
static SSL *tls_accept(struct server *v)
{
    SSL *ssl = SSL_new(v->ctx);
    const unsigned char *p;
    unsigned len;

    ck_assert_ptr_nonnull(ssl);
    ck_assert_int_eq(SSL_set_fd(ssl, v->fd), 1);
    ck_assert_int_eq(SSL_accept(ssl), 1);
    ck_assert_int_eq(fcntl(v->fd, F_SETFL, O_NONBLOCK), 0);
    SSL_set_read_ahead(ssl, 1);
    SSL_get0_alpn_selected(ssl, &p, &len);
    snprintf(v->alpn, sizeof v->alpn, "%.*s", (int)len, (const char *)p);
    return ssl;
}

static void *serve(void *arg)
{
    struct server *v = arg;
    struct h2_tls t = {0};
    struct h2_io io = h2_io_socket(&v->fd);
    struct sockaddr_in sin = {.sin_family = AF_INET,
                              .sin_addr.s_addr = htonl(0x7f000001)};
    struct h2_peer peer = {.addr = (struct sockaddr *)&sin,
                           .addr_len = sizeof sin,
                           .text = "127.0.0.1",
                           .tls = v->tls ? "TLS1.3" : NULL,
                           .start_ms = h2_now_ms()};
    struct h2_session *s;
    int64_t deadline;

    if (v->ctx) {
        t.ssl = tls_accept(v);
        io = h2_io_tls(&t);
        peer.tls = tls_version(t.ssl);
    }
    ck_assert_int_eq(h2_session_new(&v->conf, &io, &peer, &s), 0);
    unsigned want = h2_session_event(s, h2_now_ms(), &deadline);
    while (want) {
        struct pollfd p[2] = {
            {v->fd,
             (short)((want & H2_WANT_READ ? POLLIN : 0) |
                     (want & H2_WANT_WRITE || t.want_write ? POLLOUT : 0)),
             0},
            {v->stop[0], POLLIN, 0},
        };
        int64_t now = h2_now_ms();
        int ms = deadline == INT64_MAX ? -1
                 : deadline <= now     ? 0
                                       : (int)(deadline - now);
        int n = poll(p, 2, ms);
        if (n < 0 && errno == EINTR)
            continue;
        if (p[1].revents)
            break;
        /* at its deadline, as the front does: the session's timer (a
           stream to reset), or its end if it says so */
        bool due = h2_now_ms() >= deadline;
        if (n == 0 && !due)
            continue;
        want = h2_session_event(s, h2_now_ms(), &deadline);
        v->by_deadline = !want && due;
    }
    h2_session_close(s);
    v->ended_ms = h2_now_ms();
    if (t.ssl) {
        (void)SSL_shutdown(t.ssl);
        SSL_free(t.ssl);
    }
    shutdown(v->fd, SHUT_RDWR);
    return NULL;
}

static void nothing(void *p)
{
    (void)p;
}

/*
 * Contexts for both ends of real TLS: the server's with a self-signed
 * certificate for localhost, ALPN h2 or http/1.1 and the front's write
 * modes; the client's offering @alpn.
 */
struct tls_pair {
    SSL_CTX *server, *client;
};

static int alpn_select(SSL *ssl, const unsigned char **out,
                       unsigned char *outlen, const unsigned char *in,
                       unsigned inlen, void *arg)
{
    static const unsigned char ours[] = "\x02h2\x08http/1.1";
    unsigned char *o;

    (void)ssl;
    (void)arg;
    if (SSL_select_next_proto(&o, outlen, ours, sizeof ours - 1, in, inlen) !=
        OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_ALERT_FATAL;
    *out = o;
    return SSL_TLSEXT_ERR_OK;
}

static void tls_pair_new(struct tls_pair *t, const char *alpn)
{
    EVP_PKEY *key = tls_fixture_key();
    X509 *cert = tls_fixture_cert("localhost", key, NULL, NULL, time(NULL), -60,
                                  TLS_FIXTURE_DAY, false, "DNS:localhost");

    /* OpenSSL's socket BIO writes with write(2): a peer gone raises
       SIGPIPE, which beneath ignores (the front's BIO sends with
       MSG_NOSIGNAL besides) */
    signal(SIGPIPE, SIG_IGN);
    t->server = SSL_CTX_new(TLS_server_method());
    ck_assert_ptr_nonnull(t->server);
    ck_assert_int_eq(SSL_CTX_use_certificate(t->server, cert), 1);
    ck_assert_int_eq(SSL_CTX_use_PrivateKey(t->server, key), 1);
    SSL_CTX_set_min_proto_version(t->server, TLS1_2_VERSION);
    SSL_CTX_set_alpn_select_cb(t->server, alpn_select, NULL);
    SSL_CTX_set_mode(t->server, SSL_MODE_ENABLE_PARTIAL_WRITE |
                                    SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    t->client = SSL_CTX_new(TLS_client_method());
    ck_assert_ptr_nonnull(t->client);
    ck_assert_int_eq(SSL_CTX_set_alpn_protos(t->client,
                                             (const unsigned char *)alpn,
                                             (unsigned)strlen(alpn)),
                     0);
    X509_free(cert);
    EVP_PKEY_free(key);
}

static void tls_pair_free(struct tls_pair *t)
{
    SSL_CTX_free(t->server);
    SSL_CTX_free(t->client);
}

/*
 * A server over @e's configuration on one end of a new socketpair, the
 * session told it is TLS when @tls, or speaking real TLS with @ctx; the
 * client's end is returned.
 */
static int server_open(struct server *v, struct env *e, struct log *log,
                       unsigned timeout, bool tls, SSL_CTX *ctx)
{
    int sv[2];

    memset(v, 0, sizeof *v);
    v->ctx = ctx;
    v->tls = tls || ctx;
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    ck_assert_int_eq(pipe(v->stop), 0);
    v->fd = sv[0];
    v->gen.respond = e->rc;
    v->gen.log = log;
    ck_assert_int_eq(live_new(&v->gen, nothing, &v->gens), 0);
    v->conf = (struct h2_conf){
        .gens = v->gens,
        .max_streams = H2_MAX_STREAMS_DEFAULT,
        .max_header_list = e->c.max_header_size,
        .header_timeout = timeout,
        .timeout = timeout,
        .in_flight = &v->in_flight,
        .draining = &v->draining,
        .files_used = &v->files,
        .files_pool = 1000,
    };
    ck_assert_int_eq(pthread_create(&v->thread, NULL, serve, v), 0);
    return sv[1];
}

static int server_start(struct server *v, struct env *e, struct log *log,
                        unsigned timeout)
{
    return server_open(v, e, log, timeout, false, NULL);
}

static void server_stop(struct server *v)
{
    (void)!write(v->stop[1], "x", 1);
    pthread_join(v->thread, NULL);
    close(v->fd);
    close(v->stop[0]);
    close(v->stop[1]);
    live_free(v->gens);
    ck_assert_uint_eq(atomic_load(&v->in_flight), 0);
    ck_assert_uint_eq(atomic_load(&v->files), 0);
}

/* ---- one request, asked as a row of respond()'s table -------------------- */

/* The Host of @s, or NULL. */
static const char *spec_host(const struct req_spec *s)
{
    for (size_t i = 0; i < N_ELEMS(s->fields) && s->fields[i]; i++)
        if (strncasecmp(s->fields[i], "Host: ", 6) == 0)
            return s->fields[i] + 6;
    return NULL;
}

/*
 * A Host that is no valid authority makes an HTTP/2 request malformed
 * (RFC 9113 8.3.1, 8.1.1): nghttp2 resets its stream where HTTP/1.1
 * answers 400.
 */
static bool spec_malformed(const struct req_spec *s)
{
    const char *h = spec_host(s);

    return h && !nghttp2_check_authority((const uint8_t *)h, strlen(h));
}

/* @s as HTTP/2 fields: its Host as :authority (as a Host field when it is
 * not a valid authority, which nghttp2 would refuse to carry). */
static size_t h2_fields(const struct req_spec *s, char store[][300],
                        const char **out)
{
    size_t n = 0;
    const char *host = spec_host(s);
    const char *authority = !host               ? "localhost"
                            : spec_malformed(s) ? NULL
                                                : host;

    snprintf(store[n], sizeof store[n], ":method: %s", s->method);
    out[n] = store[n];
    n++;
    snprintf(store[n], sizeof store[n], ":scheme: %s",
             s->tls ? "https" : "http");
    out[n] = store[n];
    n++;
    snprintf(store[n], sizeof store[n], ":path: %s", s->target);
    out[n] = store[n];
    n++;
    if (authority) {
        snprintf(store[n], sizeof store[n], ":authority: %s", authority);
        out[n] = store[n];
        n++;
    }
    for (size_t i = 0; i < N_ELEMS(s->fields) && s->fields[i]; i++) {
        if (authority && strncasecmp(s->fields[i], "Host: ", 6) == 0)
            continue;
        snprintf(store[n], sizeof store[n], "%s", s->fields[i]);
        for (char *p = store[n]; *p != ':'; p++)
            *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
        out[n] = store[n];
        n++;
    }
    return n;
}

LOOP_TEST(respond_case_h2, respond_cases)
{
    const struct respond_case *t = &respond_cases[_i];
    char store[12][300];
    const char *fields[12];
    struct server v;
    struct client c;
    struct env e;

    env_open(&e, t->args);
    int fd = server_open(&v, &e, NULL, 10, t->rq.tls, NULL);
    client_open(&c, fd, 0);
    client_request(&c, fields, h2_fields(&t->rq, store, fields));
    ck_assert_msg(client_run(&c, client_all_closed, NULL, 5000),
                  "%s: no answer", t->what);
    const struct got *g = &c.got[0];
    if (spec_malformed(&t->rq)) {
        ck_assert_msg(g->error == NGHTTP2_PROTOCOL_ERROR && g->status == 0,
                      "%s: status %u, error %u", t->what, g->status, g->error);
        goto out;
    }
    ck_assert_msg(g->error == NGHTTP2_NO_ERROR, "%s: reset %u", t->what,
                  g->error);
    ck_assert_msg(g->status == t->status, "%s: status %u, want %u", t->what,
                  g->status, t->status);
    if (t->head)
        ck_assert_msg(g->data_frames == 0 && g->end_on_headers,
                      "%s: %u DATA frames", t->what, g->data_frames);
    if (t->body)
        ck_assert_msg(
            g->body_len == strlen(t->body) &&
                (!g->body_len || memcmp(g->body, t->body, g->body_len) == 0),
            "%s: body '%.*s', want '%s'", t->what, (int)g->body_len,
            g->body ? g->body : "", t->body);
    for (size_t i = 0; i < N_ELEMS(t->field) && t->field[i]; i++)
        ck_assert_msg(got_has(g, t->field[i]), "%s: no %s in\n%s", t->what,
                      t->field[i], g->fields);
    for (size_t i = 0; i < N_ELEMS(t->no_field) && t->no_field[i]; i++)
        ck_assert_msg(!got_has(g, t->no_field[i]), "%s: has %s", t->what,
                      t->no_field[i]);
    /* the framing fields: a date; a length but on 204 */
    ck_assert_msg(got_has(g, "date"), "%s: no date", t->what);
    ck_assert_msg(got_has(g, "content-length") == (t->status != 204),
                  "%s: content-length in\n%s", t->what, g->fields);
out:
    client_close(&c);
    server_stop(&v);
    env_close(&e);
}
END_TEST

/* ---- what only HTTP/2 has ------------------------------------------------ */

static const char *const get_root[] = {":method: GET", ":scheme: http",
                                       ":path: /", ":authority: localhost"};

/* A file of @size bytes at @name in @e's root, each byte its offset's. */
static void big_file(const struct env *e, const char *name, size_t size)
{
    char path[PATH_MAX + 64];
    unsigned char *b = malloc(size);

    ck_assert_ptr_nonnull(b);
    for (size_t i = 0; i < size; i++)
        b[i] = (unsigned char)(i * 7 + i / 251);
    snprintf(path, sizeof path, "%s/%s", e->dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(b, 1, size, f), size);
    fclose(f);
    free(b);
}

static bool body_is(const struct got *g, size_t size)
{
    if (g->body_len != size)
        return false;
    for (size_t i = 0; i < size; i++)
        if ((unsigned char)g->body[i] != (unsigned char)(i * 7 + i / 251))
            return false;
    return true;
}

/*
 * A body far larger than the windows (64 KiB by default, 16 KiB here):
 * every byte comes, in frames of at most 16 KiB, as the client's
 * WINDOW_UPDATEs allow; and three such at once on one connection.
 */
START_TEST(large_bodies_flow_control)
{
    const size_t size = 3 * 1024 * 1024 + 17;
    const char *const get_big[] = {":method: GET", ":scheme: http",
                                   ":path: /big.bin", ":authority: localhost"};
    struct server v;
    struct client c;
    struct env e;

    env_open(&e, NULL);
    big_file(&e, "big.bin", size);
    int fd = server_start(&v, &e, NULL, 10);
    client_open(&c, fd, 16384);
    for (int i = 0; i < 3; i++)
        client_request(&c, get_big, N_ELEMS(get_big));
    ck_assert(client_run(&c, client_all_closed, NULL, 20000));
    for (int i = 0; i < 3; i++) {
        const struct got *g = &c.got[i];
        char len[32];
        ck_assert_uint_eq(g->status, 200);
        ck_assert_str_eq(got_get(g, "content-length", len, sizeof len),
                         "3145745");
        ck_assert_msg(body_is(g, size), "stream %d: %zu bytes", i, g->body_len);
        ck_assert_uint_le(g->max_frame, 16384);
        ck_assert_uint_ge(g->data_frames, size / 16384);
    }
    client_close(&c);
    server_stop(&v);
    env_close(&e);
}
END_TEST

/* A request body of @arg's size, sent as the windows allow. */
static ssize_t upload(nghttp2_session *ng, int32_t id, uint8_t *buf,
                      size_t length, uint32_t *flags, nghttp2_data_source *src,
                      void *arg)
{
    size_t *left = src->ptr;

    (void)ng;
    (void)id;
    (void)arg;
    if (length > *left)
        length = *left;
    memset(buf, 'x', length);
    *left -= length;
    if (*left == 0)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)length;
}

/*
 * A POST with a body, which nothing reads: its 405 goes out at once, and a
 * body up to H2_DISCARD_MAX (whether announced by content-length or not)
 * is read to its end and dropped, so the stream closes without a reset (a
 * client that sends all of it before reading, as curl does, sees the 405);
 * a larger one ends with RST_STREAM NO_ERROR after the 405.
 */
START_TEST(post_body_dropped)
{
    static const struct {
        size_t size;
        bool announce, reset;
    } rows[] = {
        {1000, true, false},
        {(size_t)200 * 1024, true, false},
        {(size_t)200 * 1024, false, false},
        {H2_DISCARD_MAX, true, false},
        {H2_DISCARD_MAX + 1, true, true},
        {3 * H2_DISCARD_MAX, false, true},
    };
    struct server v;
    struct client c;
    struct env e;

    env_open(&e, NULL);
    for (size_t i = 0; i < N_ELEMS(rows); i++) {
        size_t left = rows[i].size;
        char length[48];
        snprintf(length, sizeof length, "content-length: %zu", rows[i].size);
        const char *const post[] = {":method: POST", ":scheme: http",
                                    ":path: /", ":authority: localhost",
                                    length};
        nghttp2_data_provider prd = {.source.ptr = &left,
                                     .read_callback = upload};
        int fd = server_start(&v, &e, NULL, 10);

        client_open(&c, fd, 0);
        client_request_body(&c, post, N_ELEMS(post) - !rows[i].announce, &prd);
        ck_assert_msg(client_run(&c, client_all_closed, NULL, 10000),
                      "row %zu: not closed", i);
        const struct got *g = &c.got[0];
        ck_assert_msg(g->status == 405 && g->error == NGHTTP2_NO_ERROR,
                      "row %zu: status %u, error %u", i, g->status, g->error);
        ck_assert_msg(g->reset == rows[i].reset, "row %zu: reset %d", i,
                      g->reset);
        ck_assert_msg(rows[i].reset || left == 0, "row %zu: %zu bytes unsent",
                      i, left);
        client_close(&c);
        server_stop(&v);
    }
    env_close(&e);
}
END_TEST

/* Several ranges: the multipart/byteranges body, byte for byte. */
START_TEST(multipart_body)
{
    const char *const req[] = {":method: GET", ":scheme: http",
                               ":path: /big.txt", ":authority: localhost",
                               "range: bytes=0-1,15-16"};
    struct server v;
    struct client c;
    struct env e;
    char type[128], want[512];

    env_open(&e, NULL);
    int fd = server_start(&v, &e, NULL, 10);
    client_open(&c, fd, 0);
    client_request(&c, req, N_ELEMS(req));
    ck_assert(client_run(&c, client_all_closed, NULL, 5000));
    const struct got *g = &c.got[0];
    ck_assert_uint_eq(g->status, 206);
    ck_assert_ptr_nonnull(got_get(g, "content-type", type, sizeof type));
    const char *b = strstr(type, "boundary=");
    ck_assert_ptr_nonnull(b);
    b += 9;
    snprintf(want, sizeof want,
             "--%s\r\nContent-Type: text/plain; charset=utf-8\r\n"
             "Content-Range: bytes 0-1/20\r\n\r\n01\r\n"
             "--%s\r\nContent-Type: text/plain; charset=utf-8\r\n"
             "Content-Range: bytes 15-16/20\r\n\r\nfg\r\n--%s--\r\n",
             b, b, b);
    ck_assert_str_eq(g->body ? g->body : "", want);
    char len[32];
    snprintf(type, sizeof type, "%zu", strlen(want));
    ck_assert_str_eq(got_get(g, "content-length", len, sizeof len), type);
    client_close(&c);
    server_stop(&v);
    env_close(&e);
}
END_TEST

struct host_case {
    const char *what;
    const char *authority; /* NULL: none */
    const char *host[2];   /* Host fields */
    unsigned status;       /* 0: malformed, the stream reset */
    const char *body;
};

static const struct host_case hosts[] = {
    {"authority picks the vhost", "a.example", {NULL}, 200, "docs"},
    {"a Host field alone", NULL, {"a.example"}, 200, "docs"},
    {"the same in both", "a.example", {"A.Example"}, 200, "docs"},
    {"two that differ", "a.example", {"b.example"}, 400, NULL},
    {"two Host fields", NULL, {"a.example", "a.example"}, 0, NULL},
    {"neither", NULL, {NULL}, 0, NULL},
    {"another name: the root", "b.example", {NULL}, 200, "<h1>home</h1>"},
};

/* RFC 9113 8.3.1: :authority is the Host; vhosts are chosen by it. */
LOOP_TEST(authority_case, hosts)
{
    const struct host_case *t = &hosts[_i];
    const char *const args[] = {"--vhost", "a.example=@/docs", NULL};
    char store[6][300];
    const char *fields[6] = {":method: GET", ":scheme: http", ":path: /"};
    size_t n = 3;
    struct server v;
    struct client c;
    struct env e;

    if (t->authority) {
        snprintf(store[n], sizeof store[n], ":authority: %s", t->authority);
        fields[n] = store[n];
        n++;
    }
    for (size_t i = 0; i < 2 && t->host[i]; i++) {
        snprintf(store[n], sizeof store[n], "host: %s", t->host[i]);
        fields[n] = store[n];
        n++;
    }
    env_open(&e, args);
    int fd = server_start(&v, &e, NULL, 10);
    client_open(&c, fd, 0);
    client_request(&c, fields, n);
    ck_assert(client_run(&c, client_all_closed, NULL, 5000));
    ck_assert_msg(c.got[0].status == t->status &&
                      c.got[0].error == (t->status ? NGHTTP2_NO_ERROR
                                                   : NGHTTP2_PROTOCOL_ERROR),
                  "%s: status %u, error %u", t->what, c.got[0].status,
                  c.got[0].error);
    if (t->body)
        ck_assert_str_eq(c.got[0].body, t->body);
    client_close(&c);
    server_stop(&v);
    env_close(&e);
}
END_TEST

struct malformed_case {
    const char *what;
    const char *field; /* added to a GET of / */
};

/* RFC 9113 8.2: what makes a request malformed is a stream error. */
static const struct malformed_case malformed[] = {
    {"an upper-case name", "Accept: */*"},
    {"a connection-specific field", "connection: keep-alive"},
    {"transfer-encoding", "transfer-encoding: chunked"},
    {"te other than trailers", "te: gzip"},
    {"an unknown pseudo-field", ":protocol: websocket"},
    {"a pseudo-field after a field", "accept: */*"},
    {"a second :path", ":path: /x"},
    {"a NUL in a value", "x-a: a\001b"},
};

LOOP_TEST(malformed_case, malformed)
{
    const struct malformed_case *t = &malformed[_i];
    const char *fields[6] = {":method: GET", ":scheme: http", ":path: /",
                             ":authority: localhost"};
    size_t n = 4;
    struct server v;
    struct client c;
    struct env e;

    if (_i == 5) {
        /* the field first, the pseudo-fields after it */
        fields[0] = t->field;
        fields[1] = ":method: GET";
        fields[2] = ":scheme: http";
        fields[3] = ":path: /";
        fields[4] = ":authority: localhost";
        n = 5;
    } else {
        fields[n++] = t->field;
    }
    env_open(&e, NULL);
    int fd = server_start(&v, &e, NULL, 10);
    client_open(&c, fd, 0);
    client_request(&c, fields, n);
    client_request(&c, get_root, N_ELEMS(get_root));
    ck_assert(client_run(&c, client_all_closed, NULL, 5000));
    ck_assert_msg(
        c.got[0].error == NGHTTP2_PROTOCOL_ERROR && c.got[0].status == 0,
        "%s: status %u, error %u", t->what, c.got[0].status, c.got[0].error);
    /* the connection goes on */
    ck_assert_uint_eq(c.got[1].status, 200);
    client_close(&c);
    server_stop(&v);
    env_close(&e);
}
END_TEST

/* The log says h2 and HTTP/2.0; the metrics count by protocol. */
START_TEST(log_and_metrics)
{
    struct server v;
    struct client c;
    struct env e;
    struct log *log;
    struct metrics m;
    char path[PATH_MAX + 16], line[2048];

    env_open(&e, NULL);
    metrics_init(&m);
    e.rc.metrics = &m;
    snprintf(path, sizeof path, "%s/access.log", e.dir);
    ck_assert_int_eq(log_open(path, "json", &log), 0);
    int fd = server_start(&v, &e, log, 10);
    client_open(&c, fd, 0);
    client_request(&c, get_root, N_ELEMS(get_root));
    ck_assert(client_run(&c, client_all_closed, NULL, 5000));
    client_close(&c);
    server_stop(&v);
    log_close(log);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    fclose(f);
    ck_assert_msg(strstr(line, "\"method\":\"GET\",\"target\":\"/\","
                               "\"protocol\":\"HTTP/2.0\",\"proto\":\"h2\","
                               "\"status\":200,\"bytes\":13,"),
                  "%s", line);
    ck_assert_msg(strstr(line, "\"host\":\"localhost\""), "%s", line);
    size_t len;
    char *text = metrics_render_alloc(&m, &len);
    ck_assert_ptr_nonnull(strstr(text, "beneath_http_requests_total{class="
                                       "\"2xx\",code=\"200\",proto=\"h2\"} "
                                       "1\n"));
    free(text);
    env_close(&e);
}
END_TEST

/* An idle connection ends within its timeout (1 s), with GOAWAY. */
START_TEST(idle_goaway)
{
    struct server v;
    struct client c;
    struct env e;

    env_open(&e, NULL);
    int fd = server_start(&v, &e, NULL, 1);
    client_open(&c, fd, 0);
    client_request(&c, get_root, N_ELEMS(get_root));
    ck_assert(client_run(&c, client_all_closed, NULL, 5000));
    int64_t t0 = h2_now_ms();
    /* PINGs are no requests: they do not keep it open */
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(nghttp2_submit_ping(c.ng, NGHTTP2_FLAG_NONE, NULL), 0);
        client_run(&c, client_left, NULL, 300);
    }
    ck_assert(client_run(&c, client_left, NULL, 3000));
    int64_t took = h2_now_ms() - t0;
    ck_assert_msg(took >= 800 && took < 2500, "ended after %lld ms",
                  (long long)took);
    ck_assert(c.goaway);
    ck_assert_uint_eq(c.goaway_error, NGHTTP2_NO_ERROR);
    ck_assert(v.by_deadline);
    client_close(&c);
    server_stop(&v);
    env_close(&e);
}
END_TEST

/* A connection that never sends its preface ends within the header
 * timeout; one that sends half of it too. */
START_TEST(no_preface)
{
    struct server v;
    struct env e;

    env_open(&e, NULL);
    for (int half = 0; half < 2; half++) {
        int fd = server_start(&v, &e, NULL, 1);
        int64_t t0 = h2_now_ms();
        if (half)
            ck_assert_int_eq(send(fd, PREFACE_H2, 10, 0), 10);
        char b[256];
        while (recv(fd, b, sizeof b, 0) > 0)
            ; /* the server's SETTINGS, then its end */
        int64_t took = h2_now_ms() - t0;
        ck_assert_msg(took >= 800 && took < 2500, "ended after %lld ms",
                      (long long)took);
        ck_assert(v.by_deadline);
        close(fd);
        server_stop(&v);
    }
    env_close(&e);
}
END_TEST

/*
 * A reply the client never lets through (its window is 0 and stays so,
 * while it keeps the connection busy with PINGs) ends the connection
 * within the timeout; the stream's fd is released.
 */
START_TEST(zero_window_stall)
{
    const char *const get_big[] = {":method: GET", ":scheme: http",
                                   ":path: /big.bin", ":authority: localhost"};
    struct server v;
    struct client c;
    struct env e;

    env_open(&e, NULL);
    big_file(&e, "big.bin", 100000);
    int fd = server_start(&v, &e, NULL, 1);
    client_open(&c, fd, 0);
    /* a connection window of 0 too: nghttp2 reads nothing more */
    nghttp2_settings_entry iv = {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 0};
    ck_assert_int_eq(nghttp2_submit_settings(c.ng, NGHTTP2_FLAG_NONE, &iv, 1),
                     0);
    client_request(&c, get_big, N_ELEMS(get_big));
    int64_t t0 = h2_now_ms();
    /* PINGs answered are no progress of the reply */
    for (int i = 0; i < 25 && !c.eof; i++) {
        ck_assert_int_eq(nghttp2_submit_ping(c.ng, NGHTTP2_FLAG_NONE, NULL), 0);
        client_run(&c, client_left, NULL, 200);
    }
    ck_assert(c.eof);
    int64_t took = h2_now_ms() - t0;
    ck_assert_msg(took >= 800 && took < 2500, "ended after %lld ms",
                  (long long)took);
    ck_assert_uint_eq(c.got[0].status, 200);
    ck_assert_uint_eq(c.got[0].body_len, 0);
    ck_assert(v.by_deadline);
    client_close(&c);
    server_stop(&v);
    env_close(&e);
}
END_TEST

/* Whether every stream the client asked for has its HEADERS or ended. */
static bool n_answered(struct client *c, void *arg)
{
    unsigned n = 0;

    for (size_t i = 0; i < c->n_got; i++)
        n += c->got[i].status != 0 || c->got[i].closed;
    return n >= *(const unsigned *)arg;
}

static unsigned answered(const struct client *c)
{
    unsigned n = 0;

    for (size_t i = 0; i < c->n_got; i++)
        n += c->got[i].status != 0;
    return n;
}

/*
 * Twenty GETs of a file at once, every window at 0: the connection holds
 * H2_FILES_PER_CONN files open, the other requests wait unanswered; once
 * the client opens its windows, each slot freed answers the next and all
 * twenty come whole. With no pool, the same one at a time.
 */
START_TEST(file_slots)
{
    const char *const get_big[] = {":method: GET", ":scheme: http",
                                   ":path: /big.bin", ":authority: localhost"};
    const size_t size = 100000;

    for (int pool = 1; pool >= 0; pool--) {
        struct server v;
        struct client c;
        struct env e;
        unsigned want;

        env_open(&e, NULL);
        big_file(&e, "big.bin", size);
        int fds0 = fixture_count_fds();
        int fd = server_open(&v, &e, NULL, 10, false, NULL);
        if (!pool)
            v.conf.files_used = NULL; /* one file stream a connection */
        client_open_opts(&c, fd, 0, 0, true);
        for (int i = 0; i < 20; i++)
            client_request(&c, get_big, N_ELEMS(get_big));
        want = pool ? H2_FILES_PER_CONN : 1;
        ck_assert(client_run(&c, n_answered, &want, 5000));
        client_run(&c, client_left, NULL, 300); /* no more come */
        ck_assert_uint_eq(answered(&c), want);
        ck_assert_uint_eq(atomic_load(&v.in_flight), want);
        /* the socketpair's two ends, the stop pipe's two and the files */
        ck_assert_int_le(fixture_count_fds(), fds0 + 4 + (int)want);
        /* the windows open: every stream, then the connection */
        for (size_t i = 0; i < c.n_got; i++)
            ck_assert_int_eq(nghttp2_submit_window_update(
                                 c.ng, NGHTTP2_FLAG_NONE, c.got[i].id, 1 << 30),
                             0);
        ck_assert_int_eq(
            nghttp2_submit_window_update(c.ng, NGHTTP2_FLAG_NONE, 0, 1 << 30),
            0);
        ck_assert(client_run(&c, client_all_closed, NULL, 10000));
        for (size_t i = 0; i < c.n_got; i++) {
            ck_assert_uint_eq(c.got[i].status, 200);
            ck_assert_msg(body_is(&c.got[i], size), "stream %zu: %zu bytes", i,
                          c.got[i].body_len);
        }
        client_close(&c);
        server_stop(&v);
        ck_assert_int_eq(fixture_count_fds(), fds0);
        env_close(&e);
    }
}
END_TEST

static bool got_closed(struct client *c, void *arg)
{
    return c->got[*(const size_t *)arg].closed;
}

/*
 * A window opened a byte at a time (every 200 ms) is no progress: with
 * --timeout 1, the reply is reset (CANCEL) and its file closed within a
 * few timeouts, while the connection, kept busy by new requests that are
 * answered, stays open.
 */
START_TEST(trickle_reset)
{
    const char *const get_big[] = {":method: GET", ":scheme: http",
                                   ":path: /big.bin", ":authority: localhost"};
    const char *const get_small[] = {":method: GET", ":scheme: http",
                                     ":path: /small.txt",
                                     ":authority: localhost"};
    struct server v;
    struct client c;
    struct env e;
    size_t first = 0;

    env_open(&e, NULL);
    big_file(&e, "big.bin", 100000);
    big_file(&e, "small.txt", 100);
    int fds0 = fixture_count_fds();
    int fd = server_start(&v, &e, NULL, 1);
    client_open_opts(&c, fd, 0, 0, true);
    ck_assert_int_eq(
        nghttp2_submit_window_update(c.ng, NGHTTP2_FLAG_NONE, 0, 1 << 30), 0);
    int32_t id = client_request(&c, get_big, N_ELEMS(get_big));
    int64_t t0 = h2_now_ms();
    while (!c.got[first].closed && h2_now_ms() - t0 < 3000 && !c.eof) {
        ck_assert_int_eq(
            nghttp2_submit_window_update(c.ng, NGHTTP2_FLAG_NONE, id, 1), 0);
        size_t k = c.n_got;
        int32_t small = client_request(&c, get_small, N_ELEMS(get_small));
        ck_assert_int_eq(nghttp2_submit_window_update(c.ng, NGHTTP2_FLAG_NONE,
                                                      small, 1 << 20),
                         0);
        client_run(&c, got_closed, &k, 200);
        client_run(&c, got_closed, &first, 10);
    }
    int64_t took = h2_now_ms() - t0;
    ck_assert_msg(c.got[first].closed && c.got[first].error == NGHTTP2_CANCEL,
                  "the trickled stream: closed %d, error %u, after %lld ms",
                  c.got[first].closed, c.got[first].error, (long long)took);
    ck_assert_msg(took >= 900 && took < 3000, "reset after %lld ms",
                  (long long)took);
    ck_assert_uint_gt(c.got[first].body_len, 0);
    ck_assert_uint_lt(c.got[first].body_len, 100);
    ck_assert(!c.eof);
    /* its file is closed: the socketpair's and the stop pipe's ends only */
    ck_assert_int_eq(fixture_count_fds(), fds0 + 4);
    client_close(&c);
    server_stop(&v);
    env_close(&e);
}
END_TEST

/*
 * A slow reader of many streams whose windows are open: eight replies of
 * 20 KiB share a socket read 2.5 KiB every 50 ms (about 50 KB/s), so each
 * frames less than H2_PROGRESS_BYTES per --timeout (2 s) while the
 * connection frames more than its output buffer (64 KiB) per --timeout:
 * none is reset, all come whole.
 */
START_TEST(slow_reader_not_reset)
{
    const char *const get_mid[] = {":method: GET", ":scheme: http",
                                   ":path: /mid.bin", ":authority: localhost"};
    const size_t size = (size_t)20 * 1024;
    struct server v;
    struct client c;
    struct env e;

    env_open(&e, NULL);
    big_file(&e, "mid.bin", size);
    int fd = server_start(&v, &e, NULL, 2);
    /* the server's writes wait for the reader */
    ck_assert_int_eq(
        setsockopt(v.fd, SOL_SOCKET, SO_SNDBUF, &(int){4096}, sizeof(int)), 0);
    client_open(&c, fd, 0);
    for (int i = 0; i < 8; i++)
        client_request(&c, get_mid, N_ELEMS(get_mid));
    int64_t end = h2_now_ms() + 10000;
    while (!client_all_closed(&c, NULL) && !c.eof && h2_now_ms() < end) {
        unsigned char buf[2560];
        ck_assert_int_eq(nghttp2_session_send(c.ng), 0);
        usleep(50 * 1000);
        ssize_t n = client_recv(&c, buf, sizeof buf);
        if (n == 0 || n == -2)
            c.eof = true;
        if (n > 0)
            ck_assert_int_eq(nghttp2_session_mem_recv(c.ng, buf, (size_t)n), n);
    }
    for (size_t i = 0; i < c.n_got; i++) {
        ck_assert_msg(c.got[i].closed && c.got[i].error == 0,
                      "stream %zu: closed %d, error %u, status %u, %zu bytes, "
                      "eof %d",
                      i, c.got[i].closed, c.got[i].error, c.got[i].status,
                      c.got[i].body_len, c.eof);
        ck_assert_msg(body_is(&c.got[i], size), "stream %zu: %zu bytes", i,
                      c.got[i].body_len);
    }
    ck_assert(!c.eof);
    client_close(&c);
    server_stop(&v);
    env_close(&e);
}
END_TEST

/* ---- over TLS, as the front hands a connection over ---------------------- */

/*
 * ALPN chose h2 on a real OpenSSL connection: the session reads and
 * writes through the SSL (h2_io_tls), which reads ahead; large bodies on
 * three streams under a 16 KiB window, HSTS (the request is TLS), and the
 * log line names the TLS version and h2.
 */
START_TEST(tls_bodies)
{
    const size_t size = 1024 * 1024 + 5;
    const char *const args[] = {"--hsts", "600", NULL};
    const char *const get_big[] = {":method: GET", ":scheme: https",
                                   ":path: /big.bin", ":authority: localhost"};
    struct tls_pair t;
    struct server v;
    struct client c;
    struct env e;
    struct log *log;
    char path[PATH_MAX + 16], line[2048];

    env_open(&e, args);
    big_file(&e, "big.bin", size);
    snprintf(path, sizeof path, "%s/access.log", e.dir);
    ck_assert_int_eq(log_open(path, "json", &log), 0);
    tls_pair_new(&t, "\x02h2\x08http/1.1");
    int fd = server_open(&v, &e, log, 10, true, t.server);
    client_open_tls(&c, fd, 16384, t.client);
    for (int i = 0; i < 3; i++)
        client_request(&c, get_big, N_ELEMS(get_big));
    ck_assert(client_run(&c, client_all_closed, NULL, 30000));
    for (int i = 0; i < 3; i++) {
        const struct got *g = &c.got[i];
        ck_assert_uint_eq(g->status, 200);
        ck_assert_msg(body_is(g, size), "stream %d: %zu bytes", i, g->body_len);
        ck_assert(got_has(g, "strict-transport-security: max-age=600"));
    }
    client_close(&c);
    server_stop(&v);
    ck_assert_str_eq(v.alpn, "h2");
    log_close(log);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    fclose(f);
    ck_assert_msg(strstr(line, "\"proto\":\"h2\""), "%s", line);
    ck_assert_msg(strstr(line, "\"tls\":\"TLS1."), "%s", line);
    tls_pair_free(&t);
    env_close(&e);
}
END_TEST

/* The client leaves with close_notify mid-reply: the session ends at
 * once (its read says end of stream), the stream's fd released. */
START_TEST(tls_client_leaves)
{
    const char *const get_big[] = {":method: GET", ":scheme: https",
                                   ":path: /big.bin", ":authority: localhost"};
    struct tls_pair t;
    struct server v;
    struct client c;
    struct env e;

    env_open(&e, NULL);
    big_file(&e, "big.bin", (size_t)1024 * 1024);
    tls_pair_new(&t, "\x02h2");
    int fd = server_open(&v, &e, NULL, 10, true, t.server);
    client_open_tls(&c, fd, 0, t.client);
    client_request(&c, get_big, N_ELEMS(get_big));
    client_run(&c, client_left, NULL, 200); /* the reply begins */
    int64_t t0 = h2_now_ms();
    (void)SSL_shutdown(c.ssl);
    while (!v.ended_ms && h2_now_ms() - t0 < 5000) {
        char b[65536];
        (void)client_recv(&c, b, sizeof b); /* unblock the server's writes */
        usleep(1000);
    }
    ck_assert_msg(v.ended_ms && v.ended_ms - t0 < 2000,
                  "ended %lld ms after close_notify",
                  (long long)(v.ended_ms ? v.ended_ms - t0 : -1));
    ck_assert(!v.by_deadline);
    client_close(&c);
    server_stop(&v);
    tls_pair_free(&t);
    env_close(&e);
}
END_TEST

struct preface_case {
    const char *bytes;
    size_t n;
    enum preface want;
};

/* Cleartext: HTTP/2 with prior knowledge or HTTP/1.x, from the first
 * bytes alone. */
static const struct preface_case prefaces[] = {
    {PREFACE_H2, PREFACE_H2_LEN, PREFACE_YES},
    {PREFACE_H2 "\x00\x00\x00\x04", PREFACE_H2_LEN + 4, PREFACE_YES},
    {"PRI * HTTP/2.0\r\n", 16, PREFACE_MORE},
    {"P", 1, PREFACE_MORE},
    {"", 0, PREFACE_MORE},
    {"POST / HTTP/1.1\r\n", 17, PREFACE_NO},
    {"GET / HTTP/1.1\r\n", 16, PREFACE_NO},
    {"PRI * HTTP/1.1\r\n\r\n", 18, PREFACE_NO},
    {"PRI * HTTP/2.0\r\n\r\nXX", 20, PREFACE_NO},
    {"\x16\x03\x01", 3, PREFACE_NO}, /* TLS on a cleartext port */
};

LOOP_TEST(preface_case, prefaces)
{
    const struct preface_case *t = &prefaces[_i];

    ck_assert_int_eq(preface_check(t->bytes, t->n), t->want);
}
END_TEST

/*
 * GET / as an HPACK block that needs no table (RFC 7541 C.2): :method GET,
 * :scheme http, :path / from the static table, :authority localhost as a
 * literal without indexing; so any number of them decode alike.
 */
static const unsigned char get_block[] = {
    0x82, 0x86, 0x84, 0x01, 0x09, 'l', 'o', 'c', 'a', 'l', 'h', 'o', 's', 't'};

/*
 * Rapid reset (CVE-2023-44487): HEADERS then RST_STREAM, again and
 * again, without reading. Past the budget the connection ends with GOAWAY
 * ENHANCE_YOUR_CALM, whose last stream says how few were processed.
 */
START_TEST(rapid_reset)
{
    const uint32_t cancel = htonl(NGHTTP2_CANCEL);
    struct server v;
    struct raw r;
    struct env e;
    unsigned sent;

    env_open(&e, NULL);
    int fd = server_start(&v, &e, NULL, 10);
    raw_open(&r, fd);
    for (sent = 0; sent < 5000 && !r.goaway && !r.eof; sent++) {
        unsigned char b[64];
        size_t n = 0;
        uint32_t id = 1 + 2 * sent;
        frame_put(b, &n, NGHTTP2_HEADERS,
                  NGHTTP2_FLAG_END_STREAM | NGHTTP2_FLAG_END_HEADERS, id,
                  get_block, sizeof get_block);
        frame_put(b, &n, NGHTTP2_RST_STREAM, 0, id, &cancel, 4);
        raw_send(&r, b, n);
        if (sent % 50 == 49)
            raw_read(&r, 5);
    }
    ck_assert(raw_wait_end(&r, 3000));
    ck_assert_msg(r.goaway, "no GOAWAY after %u resets", sent);
    ck_assert_uint_eq(r.goaway_error, NGHTTP2_ENHANCE_YOUR_CALM);
    /* the burst and what a few seconds refill, not the 5000 sent */
    ck_assert_uint_lt(r.goaway_last, 2 * ((uintmax_t)H2_RESET_BURST +
                                          5 * (uintmax_t)H2_RESET_RATE));
    close(fd);
    server_stop(&v);
    env_close(&e);
}
END_TEST

/*
 * More streams than SETTINGS_MAX_CONCURRENT_STREAMS, each kept open (a
 * window of 0): the ones past the limit are refused, the rest answered.
 */
START_TEST(too_many_streams)
{
    const unsigned char window0[6] = {0, NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE};
    const unsigned n = H2_MAX_STREAMS_DEFAULT + 50;
    struct server v;
    struct raw r;
    struct env e;

    env_open(&e, NULL);
    int fd = server_start(&v, &e, NULL, 10);
    raw_open(&r, fd);
    unsigned char b[64];
    size_t len = 0;
    frame_put(b, &len, NGHTTP2_SETTINGS, 0, 0, window0, sizeof window0);
    raw_send(&r, b, len);
    for (unsigned i = 0; i < n; i++) {
        len = 0;
        frame_put(b, &len, NGHTTP2_HEADERS,
                  NGHTTP2_FLAG_END_STREAM | NGHTTP2_FLAG_END_HEADERS, 1 + 2 * i,
                  get_block, sizeof get_block);
        raw_send(&r, b, len);
    }
    int64_t end = h2_now_ms() + 5000;
    while (r.headers + r.resets < n && !r.eof && h2_now_ms() < end)
        raw_read(&r, 50);
    ck_assert_msg(r.headers == H2_MAX_STREAMS_DEFAULT &&
                      r.resets == n - r.headers,
                  "%u answered, %u refused", r.headers, r.resets);
    ck_assert(!r.eof);
    ck_assert_uint_eq(atomic_load(&v.in_flight), H2_MAX_STREAMS_DEFAULT);
    close(fd);
    server_stop(&v);
    env_close(&e);
}
END_TEST

/*
 * An HPACK bomb: one 3000-byte field indexed once, then referenced 1400
 * times (about 4.5 KB on the wire, 4 MB decoded; nghttp2's encoder makes
 * it of the repeated field). The head is over --max-header-size: 431, and
 * the connection goes on.
 */
START_TEST(hpack_bomb)
{
    /* under 3/4 of the 4 KiB table, so that nghttp2's encoder indexes it */
    static char big[3001];
    nghttp2_nv nva[4 + 1400];
    struct server v;
    struct client c;
    struct env e;

    memset(big, 'b', sizeof big - 1);
    for (size_t i = 0; i < 4; i++) {
        const char *colon = strchr(get_root[i] + 1, ':');
        nva[i] = (nghttp2_nv){(uint8_t *)(uintptr_t)get_root[i],
                              (uint8_t *)(uintptr_t)(colon + 2),
                              (size_t)(colon - get_root[i]), strlen(colon + 2),
                              NGHTTP2_NV_FLAG_NO_COPY_NAME |
                                  NGHTTP2_NV_FLAG_NO_COPY_VALUE};
    }
    for (size_t i = 4; i < N_ELEMS(nva); i++)
        nva[i] = (nghttp2_nv){
            (uint8_t *)"x-b", (uint8_t *)big, 3, sizeof big - 1,
            NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE};
    env_open(&e, NULL);
    int fd = server_start(&v, &e, NULL, 10);
    client_open_head(&c, fd, 0, 8u << 20);
    int32_t id =
        nghttp2_submit_request(c.ng, NULL, nva, N_ELEMS(nva), NULL, NULL);
    ck_assert_int_gt(id, 0);
    c.got[c.n_got++] = (struct got){.id = id};
    client_request(&c, get_root, N_ELEMS(get_root));
    ck_assert(client_run(&c, client_all_closed, NULL, 10000));
    ck_assert_msg(c.got[0].status == 431, "status %u, error %u, goaway %d %u",
                  c.got[0].status, c.got[0].error, c.goaway, c.goaway_error);
    ck_assert_uint_eq(c.got[1].status, 200);
    client_close(&c);
    server_stop(&v);
    env_close(&e);
}
END_TEST

/* A flood of frames that ask nothing of the server but an answer or work. */
struct flood_case {
    const char *what;
    uint8_t type, flags;
    uint32_t stream; /* 0: the connection */
    unsigned char payload[8];
    uint32_t len;
    bool open_stream; /* first a request that stays open (no END_STREAM) */
};

static const struct flood_case floods[] = {
    {"PING flood", NGHTTP2_PING, 0, 0, {0}, 8, false},
    {"SETTINGS flood", NGHTTP2_SETTINGS, 0, 0, {0}, 0, false},
    {"PRIORITY flood", NGHTTP2_PRIORITY, 0, 1, {0, 0, 0, 0, 16}, 5, false},
    {"empty DATA flood", NGHTTP2_DATA, 0, 1, {0}, 0, true},
    {"CONTINUATION flood",
     NGHTTP2_CONTINUATION,
     0,
     1,
     {0x40, 0x01, 'a', 0x01, 'b'},
     5,
     false},
};

/*
 * Each flood ends within a bounded time (the connection closes, after a
 * GOAWAY ENHANCE_YOUR_CALM where the budget saw it) instead of being
 * answered forever.
 */
LOOP_TEST(flood_case, floods)
{
    const struct flood_case *t = &floods[_i];
    struct server v;
    struct raw r;
    struct env e;
    unsigned sent;

    env_open(&e, NULL);
    int fd = server_start(&v, &e, NULL, 10);
    raw_open(&r, fd);
    if (t->open_stream || t->type == NGHTTP2_CONTINUATION) {
        /* a window of 0: the reply cannot end, the stream stays open */
        const unsigned char window0[6] = {0,
                                          NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE};
        unsigned char b[64];
        size_t n = 0;
        if (t->open_stream)
            frame_put(b, &n, NGHTTP2_SETTINGS, 0, 0, window0, sizeof window0);
        frame_put(b, &n, NGHTTP2_HEADERS,
                  t->open_stream ? NGHTTP2_FLAG_END_HEADERS : 0, 1, get_block,
                  sizeof get_block);
        raw_send(&r, b, n);
    }
    int64_t t0 = h2_now_ms();
    for (sent = 0; sent < 100000 && !r.eof; sent++) {
        unsigned char b[64];
        size_t n = 0;
        frame_put(b, &n, t->type, t->flags, t->stream, t->payload, t->len);
        raw_send(&r, b, n);
        if (sent % 100 == 99)
            raw_read(&r, 0);
    }
    ck_assert_msg(raw_wait_end(&r, 5000), "%s: still open after %u frames",
                  t->what, sent);
    ck_assert_msg(h2_now_ms() - t0 < 8000, "%s: took %lld ms", t->what,
                  (long long)(h2_now_ms() - t0));
    /* our budget ends it with GOAWAY; nghttp2's own limits (ACKs the
       client does not read, CONTINUATIONs past H2_MAX_CONTINUATIONS) with
       a close: which comes first depends on how the reads fall */
    ck_assert_msg(!r.goaway || r.goaway_error == NGHTTP2_ENHANCE_YOUR_CALM,
                  "%s: GOAWAY error %u", t->what, r.goaway_error);
    close(fd);
    server_stop(&v);
    env_close(&e);
}
END_TEST

/* The server stops: a GOAWAY with NO_ERROR, the stream begun answered. */
START_TEST(drain_goaway)
{
    struct server v;
    struct client c;
    struct env e;

    env_open(&e, NULL);
    int fd = server_start(&v, &e, NULL, 10);
    client_open(&c, fd, 0);
    client_request(&c, get_root, N_ELEMS(get_root));
    ck_assert(client_run(&c, client_all_closed, NULL, 5000));
    atomic_store(&v.draining, true);
    nghttp2_submit_ping(c.ng, NGHTTP2_FLAG_NONE, NULL);
    ck_assert(client_run(&c, client_left, NULL, 5000));
    ck_assert(c.goaway);
    ck_assert_uint_eq(c.goaway_error, NGHTTP2_NO_ERROR);
    ck_assert(!v.by_deadline);
    client_close(&c);
    server_stop(&v);
    env_close(&e);
}
END_TEST

const struct check_main check_main = {
    .suite = "h2",
    .tcases = {
        {"respond", .loops = {LOOP(respond_case_h2)}},
        {"framing",
         .loops = {LOOP(authority_case), LOOP(malformed_case),
                   LOOP(preface_case)},
         .tests = {&large_bodies_flow_control, &multipart_body,
                   &post_body_dropped, &log_and_metrics}},
        {"tls", .tests = {&tls_bodies, &tls_client_leaves}},
        {"limits", .timeout = 15, .loops = {LOOP(flood_case)},
         .tests = {&idle_goaway, &no_preface, &zero_window_stall, &file_slots,
                   &trickle_reset, &slow_reader_not_reset, &rapid_reset,
                   &too_many_streams, &hpack_bomb, &drain_goaway}}}};
