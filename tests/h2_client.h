/* SPDX-License-Identifier: MIT */
/*
 * h2_client.h - HTTP/2 clients for the tests: an nghttp2 client session
 * over a socket or an SSL (struct client: requests as "name: value"
 * fields, each response's status, fields, body and frames kept in a
 * struct got), and a hostile one that writes frames as bytes and counts
 * what comes back (struct raw). Every helper fails the running Check test
 * when the library fails.
 */
#ifndef BENEATH_TESTS_H2_CLIENT_H
#define BENEATH_TESTS_H2_CLIENT_H

#include <nghttp2/nghttp2.h>
#include <openssl/ssl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Streams one client keeps the responses of. */
#define H2_CLIENT_MAX_GOT 256

struct got {
    int32_t id;
    unsigned status;
    char fields[4096]; /* "name: value\n" each */
    size_t fields_len;
    char *body;
    size_t body_len;
    unsigned data_frames;
    size_t max_frame;
    bool end_on_headers; /* END_STREAM on the response's HEADERS */
    bool closed;
    uint32_t error; /* the stream's error code (RST_STREAM) */
    bool reset;     /* a RST_STREAM came (NO_ERROR too) */
};

struct client {
    int fd;
    SSL *ssl; /* real TLS (client_open_tls), or NULL */
    nghttp2_session *ng;
    struct got got[H2_CLIENT_MAX_GOT];
    size_t n_got;
    bool goaway;
    uint32_t goaway_error;
    bool eof;
};

struct raw {
    int fd;
    unsigned char in[65536]; /* a partial frame of the server's */
    size_t in_len;
    bool goaway;
    uint32_t goaway_error, goaway_last; /* its error, its last stream */
    unsigned headers;                   /* HEADERS frames the server sent */
    unsigned resets;                    /* its RST_STREAM frames */
    bool eof;
};

/* ---- struct client ---------------------------------------------------- */

/*
 * client_open_opts - a client session on @fd (its SETTINGS queued) with
 * @window as its SETTINGS_INITIAL_WINDOW_SIZE (0: the default), room for a
 * request head of @max_head bytes as nghttp2 estimates it before HPACK (0:
 * its default, 64 KiB; larger heads it refuses to send), and with
 * @manual_windows no WINDOW_UPDATE sent on its own. @c owns @fd.
 */
void client_open_opts(struct client *c, int fd, uint32_t window,
                      size_t max_head, bool manual_windows);
/* client_open_head - client_open_opts with automatic windows. */
void client_open_head(struct client *c, int fd, uint32_t window,
                      size_t max_head);
/* client_open - client_open_head with nghttp2's limit on a head. */
void client_open(struct client *c, int fd, uint32_t window);
/* client_open_tls - client_open over TLS with @ctx (SNI "localhost"): the
 * handshake done before it returns, so the server must accept meanwhile. */
void client_open_tls(struct client *c, int fd, uint32_t window, SSL_CTX *ctx);
/* client_close - release the session, the SSL, the bodies and the fd. */
void client_close(struct client *c);

/* client_recv - bytes from the server: > 0, 0 at its end, -1 when none are
 * there now, -2 on an error. */
ssize_t client_recv(struct client *c, void *buf, size_t len);

/*
 * client_request_body - a request: "name: value" fields, in order,
 * pseudo-fields included, and a body read from @body (NULL: none,
 * END_STREAM on the HEADERS). The strings must outlive the exchange.
 * Returns the stream id; its response is c->got[c->n_got - 1].
 */
int32_t client_request_body(struct client *c, const char *const *fields,
                            size_t n, const nghttp2_data_provider *body);
/* client_request - client_request_body without a body. */
int32_t client_request(struct client *c, const char *const *fields, size_t n);

/* client_run - exchange frames until @done(@c, @arg) or @ms pass or the
 * server leaves; returns @done's last answer. */
bool client_run(struct client *c, bool (*done)(struct client *, void *),
                void *arg, int ms);
/* client_all_closed - a client_run @done: every stream asked is closed. */
bool client_all_closed(struct client *c, void *arg);
/* client_left - a client_run @done: the server closed the connection. */
bool client_left(struct client *c, void *arg);

/* got_has - whether the response field "name: value" is there, or "name"
 * is present. */
bool got_has(const struct got *g, const char *want);
/* got_get - the value of response field @name (lower case) copied into
 * @buf, or NULL. */
const char *got_get(const struct got *g, const char *name, char *buf,
                    size_t size);

/* ---- struct raw ------------------------------------------------------- */

/* frame_put - one frame's header and @n bytes of payload into @out at
 * *@len (advanced). */
void frame_put(unsigned char *out, size_t *len, uint8_t type, uint8_t flags,
               uint32_t id, const void *payload, size_t n);
/* raw_open - the preface and an empty SETTINGS on @fd (not owned). */
void raw_open(struct raw *r, int fd);
/* raw_read - read and count what the server sent: wait up to @ms for the
 * first bytes, then take what is there. */
void raw_read(struct raw *r, int ms);
/* raw_send - @n bytes to the server, reading what it says while it takes
 * none. */
void raw_send(struct raw *r, const void *b, size_t n);
/* raw_wait_end - until the server leaves or @ms pass; true when it left. */
bool raw_wait_end(struct raw *r, int ms);

#endif
