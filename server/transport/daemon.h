/* SPDX-License-Identifier: MIT */
/*
 * daemon.h - the transport: every listening socket served by the front,
 * HTTP/1.x by libmicrohttpd and HTTP/2 on the front's loops (daemon.c).
 */
#ifndef BENEATH_TRANSPORT_DAEMON_H
#define BENEATH_TRANSPORT_DAEMON_H

#include "runtime/live.h"
#include "runtime/root.h"
#include "tls/store.h"

#include <stdbool.h>
#include <stddef.h>

/* What only a restart changes: the worker pool and its limits. */
struct daemon_conf {
    struct access *access; /* sites and access rules, or NULL: the root only */
    unsigned threads;
    unsigned max_connections;
    unsigned max_connections_per_ip; /* 0: unlimited */
    unsigned timeout;                /* s of inactivity, 0: none */
    unsigned header_timeout;         /* s to receive headers, 0: none */
    size_t max_header_size;
    bool http2; /* HTTP/2: ALPN "h2", and prior knowledge on plain ports */
    /* HTTP/2 streams that may hold a file beyond one per connection, all
       connections together (process/fd_budget.h) */
    unsigned h2_files;
    /* the certificates of the https:// listeners (set up by tls_front.c),
       or NULL without any */
    struct tls_store *tls;
    /* counts connections and TLS handshakes; NULL when metrics are off */
    struct metrics *metrics;
};

struct daemon;

/*
 * daemon_new - serve the listening sockets @fds (bound and listening;
 * ownership passes: closed when stopped) with the limits of @conf: the
 * front (front/front.c, its loops sized like the pool) accepts and admits
 * every connection, hands HTTP/1.x to a libmicrohttpd daemon without a
 * listening socket (h1/h1.c, with the header watchdog) and, with
 * @conf->http2, serves HTTP/2 on its loops (h2/h2_front.c). @tls (NULL:
 * none) marks the https:// ones; their certificates are @conf->tls's.
 * @gens holds the current struct gen_conf (transport/conn/gen_conf.h); each
 * worker thread takes its generation from it between requests.
 * @conf, @gens and @root are borrowed and must outlive the server.
 * On failure a message is written to stderr and nothing keeps running.
 *
 * Returns 0, -ENOMEM, or -EIO when libmicrohttpd refused to start.
 */
int daemon_new(const struct daemon_conf *conf, struct live *gens,
               struct root *root, const int *fds, const bool *tls, size_t n_fds,
               struct daemon **out);

/*
 * daemon_started - from now on, libmicrohttpd messages about one client's
 * connection (resets, malformed or too large requests) are not written to
 * stderr; messages about the server itself still are.
 */
void daemon_started(void);

/*
 * daemon_drain - accept no more connections (the listening sockets stay
 * open: a newer serving process accepts on them); from now on every
 * HTTP/1.1 reply says Connection: close, connections idle for a second are
 * closed, and each HTTP/2 session is sent GOAWAY. Requests and streams
 * under way go on.
 */
void daemon_drain(struct daemon *h);

/*
 * daemon_abort - the drain's bound is reached: every connection still open
 * is reset when daemon_free closes it (what a client has not read is
 * dropped, not sent on after the close).
 */
void daemon_abort(struct daemon *h);

/* daemon_connections - connections open (accepted, not yet closed). */
unsigned daemon_connections(struct daemon *h);

/* daemon_in_flight - requests whose headers arrived and that are not done. */
unsigned daemon_in_flight(struct daemon *h);

/* daemon_free - stop every daemon (closing connections), free @h; NULL ok. */
void daemon_free(struct daemon *h);

#endif
