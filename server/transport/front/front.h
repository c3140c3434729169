/* SPDX-License-Identifier: MIT */
/*
 * front.h - beneath's own accept and event loops for the https://
 * listeners: the TLS handshake (OpenSSL, non-blocking), then the
 * connection goes where its protocol is served; and, with --http2 on, for
 * the plain listeners too: HTTP/2 with prior knowledge or HTTP/1.x.
 *
 * One loop thread per --threads, each with its epoll set; every listening
 * socket is in every set (EPOLLEXCLUSIVE: one loop wakes per connection).
 * A connection's way:
 *
 *   accept4 -> admit (--allow/--deny, limits; counted from here)
 *     -> the first byte: a letter is plain HTTP on a TLS port: 400, close
 *     -> SSL_do_handshake until done, within the handshake deadline
 *        (--header-timeout, or --timeout without one); a failure ends
 *        with OpenSSL's alert and a close
 *     -> by ALPN: "http/1.1", "http/1.0" or none: handed to libmicrohttpd
 *        (the socket itself; its reads and writes go through the SSL, see
 *        h1/wire.h); "acme-tls/1": closed after the handshake (RFC 8737);
 *        "h2" (with --http2 on): an HTTP/2 session on this loop
 *        (front_ops.h2: h2_front.c).
 *
 * On a plain listener (front_start's @tls false):
 *
 *   accept4 -> admit (the same rules)
 *     -> its first bytes, peeked (left in the socket), at once after the
 *        accept and then as more arrive, within --header-timeout (or
 *        --timeout without one; neither: no limit):
 *        the 24 bytes of "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n": an HTTP/2
 *        session on this loop (front_ops.h2, its io the socket itself);
 *        anything else: handed to libmicrohttpd as it is (most requests
 *        are told by their first byte, without waiting in the loop).
 *
 * A connection the front keeps (in handshake, or an HTTP/2 session)
 * belongs to the loop that accepted it and is only touched by that thread.
 * A connection handed over belongs to libmicrohttpd's worker, which takes
 * its struct front_conn with front_take and frees it with front_conn_free.
 */
#ifndef BENEATH_TRANSPORT_FRONT_H
#define BENEATH_TRANSPORT_FRONT_H

#include "transport/front/sock_bio.h"
#include "transport/front/tls_front.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct front;
struct front_loop;
struct front_conn;

/*
 * struct front_session - a protocol served on the loop itself rather than
 * by libmicrohttpd: HTTP/2 (h2_front.c). front_ops.h2 sets it on
 * a connection that chose "h2"; from then on the connection's loop calls
 * @event with the epoll events of its socket. The session reads with
 * SSL_read until SSL_ERROR_WANT_READ (the SSL reads ahead: stopping
 * earlier would leave bytes no event announces), feeds its parser, writes
 * with SSL_write, says what it waits for next with front_conn_want and
 * when it gives up with front_conn_deadline, and returns false to end the
 * connection. @end releases the session's state (fc->session_data), when
 * the connection ends for any reason or the front stops; the loop then
 * closes the socket and frees @fc.
 */
struct front_session {
    bool (*event)(struct front_conn *fc, uint32_t events);
    void (*end)(struct front_conn *fc);
};

/*
 * struct front_conn - one connection the front accepted. After the hand-off
 * the fields above "loop-private" are the taker's to read; the SSL and the
 * socket are its to use (the socket is libmicrohttpd's to close).
 */
struct front_conn {
    int fd;
    SSL *ssl;                   /* the session; NULL on a plain connection */
    struct sock_io io;          /* the socket under the SSL's BIO */
    enum tls_front_proto proto; /* chosen by ALPN */
    const char *version;        /* "TLS1.3", once the handshake is done */
    int64_t accepted_ms; /* when accept4 returned, or a parked connection's
                            next request came (monotonic) */
    struct sockaddr_storage addr;
    socklen_t addrlen;
    char client[INET6_ADDRSTRLEN]; /* the peer as text, or "unix" */

    const struct front_session *session; /* on the loop (h2), or NULL */
    void *session_data;                  /* the session's own */

    /* loop-private */
    struct front_loop *loop;
    struct front_conn *prev, *next; /* the loop's list, by deadline */
    int64_t deadline;               /* ms: done by then or closed */
    int64_t hs_deadline; /* waiting for a certificate: the handshake's;
                            lingering: the linger's end */
    bool cert_wait;      /* the ClientHello waits for a certificate */
    uint32_t events;     /* what epoll waits for */
    bool watched;        /* in the epoll set and the list */
    int state;           /* front.c's enum */
};

/*
 * struct front_ops - what the front asks of the daemon (transport/daemon.c);
 * @arg is passed back. Each runs on a loop thread, but @release.
 * @admit:     may this peer connect? If so, it is counted as open.
 * @release:   a connection from @sa the front admitted ends: in the front
 *             (never handed over, or the hand-off failed), or where it was
 *             handed (front_conn_done, on that thread).
 * @handshake: a TLS handshake ended, @ok or failed (metrics).
 * @parked:    an HTTP/1.1 connection came back to wait in the front (@in,
 *             front_park; on libmicrohttpd's thread), or left it: its next
 *             request, its end (metrics).
 * @plain:     plain HTTP came to a TLS port and was answered 400 (its log
 *             line; @whole: the answer went whole).
 * @http1:     give the connection to libmicrohttpd. 0: it took the socket
 *             (and will front_take @fc); -errno: refused, the socket is
 *             closed, @fc is still the front's.
 * @h2:        serve a connection that chose "h2", or sent the preface on
 *             a plain listener, on this loop: set @fc->session and return
 *             0, or -errno (it is closed). NULL while HTTP/2 is not served
 *             (then "h2" is never offered: struct tls_front's h2; plain
 *             listeners are then never given to the front).
 */
struct front_ops {
    bool (*admit)(void *arg, const struct sockaddr *sa, socklen_t len);
    void (*release)(void *arg, const struct sockaddr *sa, socklen_t len);
    void (*handshake)(void *arg, bool ok);
    void (*parked)(void *arg, bool in);
    void (*plain)(void *arg, struct front_conn *fc, bool whole);
    int (*http1)(void *arg, struct front_conn *fc);
    int (*h2)(void *arg, struct front_conn *fc);
};

/*
 * struct front_conf - borrowed for the life of the front.
 * @threads:         loop threads (>= 1)
 * @handshake_limit: s from accept to the end of the handshake (>= 1)
 * @peek_limit:      s from accept for a plain connection's first bytes to
 *                   tell HTTP/2 from HTTP/1.x (0: none): the sooner of
 *                   --header-timeout and --timeout
 * @store:           the certificates (their contexts' settings included);
 *                   NULL when every listener is plain
 */
struct front_conf {
    unsigned threads;
    unsigned handshake_limit;
    unsigned peek_limit;
    struct tls_store *store;
};

/*
 * front_start - serve the listening sockets @fds (@n of them; they pass to
 * the front, which closes them; @tls[i]: https://, else plain) with
 * @conf's loops, calling @ops. A message is written to stderr on failure.
 *
 * Returns 0 with *@out, or -errno (the sockets are closed then too).
 */
int front_start(const struct front_conf *conf, const struct front_ops *ops,
                void *arg, const int *fds, const bool *tls, size_t n,
                struct front **out);

/*
 * front_stop - stop the loops: no more accepts or hand-offs; connections
 * still in the front are closed, the listening sockets too. Those handed
 * over stay libmicrohttpd's. NULL is allowed.
 */
void front_stop(struct front *f);

/*
 * front_drain - accept no more (the listening sockets stay open: another
 * process may be accepting on them); connections already accepted go on,
 * and each HTTP/2 session is told at once (GOAWAY). Returns once no loop
 * will accept again (bounded: FRONT_DRAIN_WAIT_S). Any thread but a
 * loop's. NULL is allowed.
 */
void front_drain(struct front *f);

/*
 * front_abort - the connections front_stop closes from now on are reset
 * (SO_LINGER 0): a drain's bound is reached, what a client has not read
 * is dropped rather than sent on after the close.
 */
void front_abort(struct front *f);

/* front_abort_socket - the next close of @fd resets (SO_LINGER 0). */
void front_abort_socket(int fd);

/*
 * front_free - after front_stop and after libmicrohttpd stopped: release
 * what was handed over but never taken. NULL is allowed.
 */
void front_free(struct front *f);

/*
 * front_take - the connection handed over on @fd (libmicrohttpd's
 * NOTIFY_CONNECTION started, on its worker), now the caller's; NULL when
 * @fd did not come from the front.
 */
struct front_conn *front_take(struct front *f, int fd);

/*
 * front_conn_want - a session's connection waits for @events (EPOLLIN,
 * EPOLLOUT) on its socket from now on. On the loop's thread. 0 or -1.
 */
int front_conn_want(struct front_conn *fc, uint32_t events);

/*
 * front_conn_deadline - a session's connection ends at @ms (monotonic, as
 * accepted_ms; INT64_MAX: never) unless moved again. On the loop's thread.
 */
void front_conn_deadline(struct front_conn *fc, int64_t ms);

/*
 * front_park - an HTTP/1.1 connection libmicrohttpd let go while it waits
 * for its next request (h1/h1.c) comes back to the front, on @fd (a
 * descriptor of its own: libmicrohttpd closes the one it had): its loop
 * watches it, at the cost of @fc alone (over TLS the SSL's buffers are
 * released), hands it to libmicrohttpd again when bytes come (accepted_ms
 * set to then: its next headers are due --header-timeout later), and
 * closes it at @deadline (monotonic ms, as accepted_ms; INT64_MAX: never)
 * or when the client closes. Draining, it waits FRONT_DRAIN_IDLE_MS more
 * at most. From a libmicrohttpd worker.
 *
 * Returns 0 (@fc and @fd are the front's now), or -ESHUTDOWN (the front
 * stops; both are still the caller's).
 */
int front_park(struct front *f, struct front_conn *fc, int fd,
               int64_t deadline);

/* Draining, a connection that waits for a request is closed once it has
 * waited this long (ms; in libmicrohttpd, h1/h1.c), or this long after the
 * drain (parked in the front). */
#define FRONT_DRAIN_IDLE_MS 5000

/* front_conn_free - release @fc and its SSL; not its socket. NULL ok. */
void front_conn_free(struct front_conn *fc);

/*
 * front_conn_done - a connection handed over (front_take) ends where it
 * was served: the front's @release for its peer, then front_conn_free.
 * Before its socket closes. NULL is allowed.
 */
void front_conn_done(struct front *f, struct front_conn *fc);

/* The text of the 400 to plain HTTP on a TLS port (tests look for it). */
#define FRONT_HTTPS_PORT_TEXT "This is an HTTPS port: use https:// URLs.\n"

#endif
