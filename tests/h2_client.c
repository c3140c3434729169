// SPDX-License-Identifier: MIT
/* h2_client.c - HTTP/2 clients for the tests (h2_client.h). */
#include "h2_client.h"

#include "common/elems.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/err.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- an nghttp2 client session ---------------------------------------- */

static struct got *got_of(struct client *c, int32_t id)
{
    for (size_t i = 0; i < c->n_got; i++)
        if (c->got[i].id == id)
            return &c->got[i];
    return NULL;
}

static ssize_t c_send(nghttp2_session *ng, const uint8_t *data, size_t len,
                      int flags, void *arg)
{
    struct client *c = arg;
    ssize_t n;

    (void)ng;
    (void)flags;
    if (c->ssl) {
        int k = SSL_write(c->ssl, data, (int)len);
        if (k > 0)
            return k;
        return SSL_get_error(c->ssl, k) == SSL_ERROR_WANT_WRITE
                   ? NGHTTP2_ERR_WOULDBLOCK
                   : NGHTTP2_ERR_CALLBACK_FAILURE;
    }
    n = send(c->fd, data, len, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n >= 0)
        return n;
    /* the server left: what it said is still read (client_run), to its
       end of stream */
    return errno == EAGAIN || errno == EPIPE || errno == ECONNRESET
               ? NGHTTP2_ERR_WOULDBLOCK
               : NGHTTP2_ERR_CALLBACK_FAILURE;
}

/* Bytes from the server: > 0, 0 at its end, -1 when none are there now,
 * -2 on an error. */
ssize_t client_recv(struct client *c, void *buf, size_t len)
{
    ssize_t n;

    if (c->ssl) {
        int k = SSL_read(c->ssl, buf, (int)len);
        if (k > 0)
            return k;
        int e = SSL_get_error(c->ssl, k);
        ERR_clear_error();
        return e == SSL_ERROR_WANT_READ     ? -1
               : e == SSL_ERROR_ZERO_RETURN ? 0
                                            : -2;
    }
    n = recv(c->fd, buf, len, MSG_DONTWAIT);
    return n >= 0 ? n : errno == EAGAIN ? -1 : -2;
}

static int c_header(nghttp2_session *ng, const nghttp2_frame *frame,
                    const uint8_t *name, size_t namelen, const uint8_t *value,
                    size_t valuelen, uint8_t flags, void *arg)
{
    struct got *g = got_of(arg, frame->hd.stream_id);

    (void)ng;
    (void)flags;
    if (!g)
        return 0;
    if (namelen == 7 && memcmp(name, ":status", 7) == 0) {
        g->status = (unsigned)strtoul((const char *)value, NULL, 10);
        return 0;
    }
    int n =
        snprintf(g->fields + g->fields_len, sizeof g->fields - g->fields_len,
                 "%.*s: %.*s\n", (int)namelen, name, (int)valuelen, value);
    if (n > 0 && (size_t)n < sizeof g->fields - g->fields_len)
        g->fields_len += (size_t)n;
    return 0;
}

static int c_data(nghttp2_session *ng, uint8_t flags, int32_t id,
                  const uint8_t *data, size_t len, void *arg)
{
    struct got *g = got_of(arg, id);

    (void)ng;
    (void)flags;
    if (!g)
        return 0;
    char *b = realloc(g->body, g->body_len + len + 1);
    ck_assert_ptr_nonnull(b);
    memcpy(b + g->body_len, data, len);
    g->body = b;
    g->body_len += len;
    b[g->body_len] = '\0';
    return 0;
}

static int c_frame(nghttp2_session *ng, const nghttp2_frame *frame, void *arg)
{
    struct client *c = arg;
    struct got *g = got_of(c, frame->hd.stream_id);

    (void)ng;
    if (frame->hd.type == NGHTTP2_GOAWAY) {
        c->goaway = true;
        c->goaway_error = frame->goaway.error_code;
    }
    if (!g)
        return 0;
    if (frame->hd.type == NGHTTP2_HEADERS &&
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
        g->end_on_headers = true;
    if (frame->hd.type == NGHTTP2_RST_STREAM)
        g->reset = true;
    if (frame->hd.type == NGHTTP2_DATA) {
        g->data_frames++;
        if (frame->hd.length > g->max_frame)
            g->max_frame = frame->hd.length;
    }
    return 0;
}

static int c_close(nghttp2_session *ng, int32_t id, uint32_t error, void *arg)
{
    struct got *g = got_of(arg, id);

    (void)ng;
    if (g) {
        g->closed = true;
        g->error = error;
    }
    return 0;
}

void client_open_opts(struct client *c, int fd, uint32_t window,
                      size_t max_head, bool manual_windows)
{
    nghttp2_session_callbacks *cb;
    nghttp2_option *opt;

    memset(c, 0, sizeof *c);
    c->fd = fd;
    ck_assert_int_eq(nghttp2_session_callbacks_new(&cb), 0);
    nghttp2_session_callbacks_set_send_callback(cb, c_send);
    nghttp2_session_callbacks_set_on_header_callback(cb, c_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, c_data);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, c_frame);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, c_close);
    ck_assert_int_eq(nghttp2_option_new(&opt), 0);
    if (max_head)
        nghttp2_option_set_max_send_header_block_length(opt, max_head);
    if (manual_windows)
        nghttp2_option_set_no_auto_window_update(opt, 1);
    ck_assert_int_eq(nghttp2_session_client_new2(&c->ng, cb, c, opt), 0);
    nghttp2_option_del(opt);
    nghttp2_session_callbacks_del(cb);
    nghttp2_settings_entry iv[] = {
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, window},
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 1},
    };
    bool set = window || manual_windows;
    ck_assert_int_eq(nghttp2_submit_settings(c->ng, NGHTTP2_FLAG_NONE,
                                             set ? iv : iv + 1, set ? 2 : 1),
                     0);
}

void client_open_head(struct client *c, int fd, uint32_t window,
                      size_t max_head)
{
    client_open_opts(c, fd, window, max_head, false);
}

void client_open(struct client *c, int fd, uint32_t window)
{
    client_open_head(c, fd, window, 0);
}

/* client_open over TLS with @ctx: the handshake done before it returns
 * (the server's thread accepts meanwhile). */
void client_open_tls(struct client *c, int fd, uint32_t window, SSL_CTX *ctx)
{
    SSL *ssl = SSL_new(ctx);

    ck_assert_ptr_nonnull(ssl);
    ck_assert_int_eq(SSL_set_fd(ssl, fd), 1);
    SSL_set_tlsext_host_name(ssl, "localhost");
    ck_assert_int_eq(SSL_connect(ssl), 1);
    ck_assert_int_eq(fcntl(fd, F_SETFL, O_NONBLOCK), 0);
    client_open(c, fd, window);
    c->ssl = ssl;
}

void client_close(struct client *c)
{
    SSL_free(c->ssl);
    nghttp2_session_del(c->ng);
    for (size_t i = 0; i < c->n_got; i++)
        free(c->got[i].body);
    close(c->fd);
}

/* A request: "name: value" fields, in order, pseudo-fields included, and
 * a body read from @body (NULL: none, END_STREAM on the HEADERS). */
int32_t client_request_body(struct client *c, const char *const *fields,
                            size_t n, const nghttp2_data_provider *body)
{
    nghttp2_nv nva[32];

    ck_assert_uint_le(n, N_ELEMS(nva));
    for (size_t i = 0; i < n; i++) {
        const char *colon = strchr(fields[i] + 1, ':');
        nva[i] = (nghttp2_nv){
            .name = (uint8_t *)(uintptr_t)fields[i],
            .namelen = (size_t)(colon - fields[i]),
            .value = (uint8_t *)(uintptr_t)(colon + 2),
            .valuelen = strlen(colon + 2),
            /* as given: nghttp2 would lower-case a name it copies; the
               strings outlive the exchange (client_run) */
            .flags =
                NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE,
        };
    }
    int32_t id = nghttp2_submit_request(c->ng, NULL, nva, n, body, NULL);
    ck_assert_int_gt(id, 0);
    ck_assert_uint_lt(c->n_got, H2_CLIENT_MAX_GOT);
    c->got[c->n_got++] = (struct got){.id = id};
    return id;
}

int32_t client_request(struct client *c, const char *const *fields, size_t n)
{
    return client_request_body(c, fields, n, NULL);
}

/* Exchange frames until @done(@c, @arg) or @ms pass or the server leaves;
 * returns @done's last answer. */
bool client_run(struct client *c, bool (*done)(struct client *, void *),
                void *arg, int ms)
{
    int64_t end = now_ms() + ms;

    for (;;) {
        ck_assert_int_eq(nghttp2_session_send(c->ng), 0);
        if (done(c, arg))
            return true;
        int64_t now = now_ms();
        if (now >= end || c->eof)
            return false;
        struct pollfd p = {c->fd, POLLIN, 0};
        /* what an SSL holds, no poll announces */
        if (!(c->ssl && SSL_has_pending(c->ssl)) &&
            poll(&p, 1, (int)(end - now)) <= 0)
            continue;
        unsigned char buf[65536];
        ssize_t n = client_recv(c, buf, sizeof buf);
        if (n <= 0) {
            if (n != -1)
                c->eof = true;
            continue;
        }
        ck_assert_int_eq(nghttp2_session_mem_recv(c->ng, buf, (size_t)n), n);
    }
}

bool client_all_closed(struct client *c, void *arg)
{
    (void)arg;
    for (size_t i = 0; i < c->n_got; i++)
        if (!c->got[i].closed)
            return false;
    return true;
}

bool client_left(struct client *c, void *arg)
{
    (void)arg;
    return c->eof;
}

/* The response field "name: value" holds, or "name" is present. */
bool got_has(const struct got *g, const char *want)
{
    const char *colon = strchr(want, ':');
    size_t n = colon ? (size_t)(colon - want) : strlen(want);

    for (const char *l = g->fields; *l; l = strchr(l, '\n') + 1) {
        const char *end = strchr(l, '\n');
        if (strncasecmp(l, want, n) == 0 && l[n] == ':' &&
            (!colon || ((size_t)(end - l) == strlen(want) &&
                        strncmp(l + n, colon, (size_t)(end - l) - n) == 0)))
            return true;
    }
    return false;
}

/* The value of response field @name (lower case), copied into @buf. */
const char *got_get(const struct got *g, const char *name, char *buf,
                    size_t size)
{
    size_t n = strlen(name);

    for (const char *l = g->fields; *l; l = strchr(l, '\n') + 1)
        if (strncmp(l, name, n) == 0 && l[n] == ':') {
            const char *v = l + n + 2;
            snprintf(buf, size, "%.*s", (int)(strchr(v, '\n') - v), v);
            return buf;
        }
    return NULL;
}

/* ---- a hostile client: frames as bytes -------------------------------- */

/* One frame's header and @n bytes of payload into @out at *@len. */
void frame_put(unsigned char *out, size_t *len, uint8_t type, uint8_t flags,
               uint32_t id, const void *payload, size_t n)
{
    unsigned char *p = out + *len;

    p[0] = (unsigned char)(n >> 16);
    p[1] = (unsigned char)(n >> 8);
    p[2] = (unsigned char)n;
    p[3] = type;
    p[4] = flags;
    p[5] = (unsigned char)(id >> 24 & 0x7f);
    p[6] = (unsigned char)(id >> 16);
    p[7] = (unsigned char)(id >> 8);
    p[8] = (unsigned char)id;
    if (n)
        memcpy(p + 9, payload, n);
    *len += 9 + n;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           p[3];
}

/* Read and parse what the server sent: wait up to @ms for the first bytes,
 * then take what is there. */
void raw_read(struct raw *r, int ms)
{
    struct pollfd p = {r->fd, POLLIN, 0};

    while (!r->eof && poll(&p, 1, ms) > 0) {
        ssize_t n = recv(r->fd, r->in + r->in_len, sizeof r->in - r->in_len,
                         MSG_DONTWAIT);
        if (n <= 0) {
            if (n == 0 || errno != EAGAIN)
                r->eof = true;
            break;
        }
        r->in_len += (size_t)n;
        size_t off = 0;
        while (r->in_len - off >= 9) {
            const unsigned char *f = r->in + off;
            size_t len = (size_t)f[0] << 16 | (size_t)f[1] << 8 | f[2];
            if (r->in_len - off < 9 + len)
                break;
            if (f[3] == NGHTTP2_GOAWAY && len >= 8) {
                r->goaway = true;
                r->goaway_last = be32(f + 9) & 0x7fffffff;
                r->goaway_error = be32(f + 13);
            }
            if (f[3] == NGHTTP2_HEADERS)
                r->headers++;
            if (f[3] == NGHTTP2_RST_STREAM)
                r->resets++;
            off += 9 + len;
        }
        memmove(r->in, r->in + off, r->in_len - off);
        r->in_len -= off;
        ms = 0;
    }
}

/* @n bytes to the server, reading what it says while it takes none. */
void raw_send(struct raw *r, const void *b, size_t n)
{
    const unsigned char *p = b;

    while (n && !r->eof) {
        ssize_t w = send(r->fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
        } else if (w < 0 && errno == EAGAIN) {
            raw_read(r, 10);
        } else {
            r->eof = true; /* the server left */
        }
    }
}

/* Until the server leaves or @ms pass; true when it left. */
bool raw_wait_end(struct raw *r, int ms)
{
    int64_t end = now_ms() + ms;

    while (!r->eof && now_ms() < end)
        raw_read(r, 50);
    return r->eof;
}

/* The preface and an empty SETTINGS on @fd. */
void raw_open(struct raw *r, int fd)
{
    unsigned char b[64];
    size_t n = NGHTTP2_CLIENT_MAGIC_LEN;

    memset(r, 0, sizeof *r);
    r->fd = fd;
    /* frames, not a string: the preface's bytes without its NUL */
    // NOLINTNEXTLINE(bugprone-not-null-terminated-result)
    memcpy(b, NGHTTP2_CLIENT_MAGIC, NGHTTP2_CLIENT_MAGIC_LEN);
    frame_put(b, &n, NGHTTP2_SETTINGS, 0, 0, NULL, 0);
    raw_send(r, b, n);
}
