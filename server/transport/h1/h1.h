/* SPDX-License-Identifier: MIT */
/*
 * h1.h - HTTP/1.x on libmicrohttpd, for the connections the front tells
 * to be HTTP/1.x: one daemon without a listening socket that the front
 * hands each of them to, one struct conn per connection
 * (daemon_internal.h), the header watchdog, and the park of a connection
 * that waits for its next request (back to the front). transport/daemon.c
 * starts it beside the front.
 */
#ifndef BENEATH_TRANSPORT_H1_H
#define BENEATH_TRANSPORT_H1_H

#include "runtime/live.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

struct front;
struct front_conn;
struct h1;

/*
 * struct h1_conf - borrowed for the life of the struct h1; the counters
 * are shared with the rest of the transport (HTTP/2's sessions).
 * @threads:         libmicrohttpd's workers
 * @max_connections: the admission's limit (each worker's is above it)
 * @timeout:         s of a request's inactivity, 0: none
 * @header_timeout:  s to receive a request's headers, 0: none
 * @max_header_size: a request head's bytes at most
 * @gens:            the current struct gen_conf (transport/conn/gen_conf.h)
 * @front:           the front, set before its first hand-off
 * @in_flight:       requests whose headers arrived and that are not done
 * @draining:        replies close, waiting connections are closed
 * @parks:           counted up when a connection parks; the watchdog gives
 *                   the heap's pages back after a burst of them
 */
struct h1_conf {
    unsigned threads;
    unsigned max_connections;
    unsigned timeout;
    unsigned header_timeout;
    size_t max_header_size;
    struct live *gens;
    struct front *const *front;
    atomic_uint *in_flight;
    atomic_bool *draining;
    atomic_uint *parks;
};

/*
 * h1_new - the byte tap's table (wire.h) and the header watchdog, for
 * @conf; the daemon comes with h1_start. A message is written to stderr
 * on failure.
 *
 * Returns 0 with *@out, -ENOMEM, or -errno of the watchdog's thread.
 */
int h1_new(const struct h1_conf *conf, struct h1 **out);

/* h1_start - start libmicrohttpd's daemon. 0, or -EIO when it refused. */
int h1_start(struct h1 *h);

/*
 * h1_started - from now on, libmicrohttpd messages about one client's
 * connection are not written to stderr (daemon_started).
 */
void h1_started(void);

/*
 * h1_add - give libmicrohttpd the connection @fc (the front's http1): 0,
 * it took the socket (and takes @fc with front_take); -ECONNREFUSED, the
 * socket is closed. Draining too: it was accepted before, and gets its
 * reply (closing).
 */
int h1_add(struct h1 *h, struct front_conn *fc);

/*
 * h1_plain - plain HTTP came to a TLS port and was answered 400 before
 * any request existed (the front's plain): its access log line.
 */
void h1_plain(struct h1 *h, struct front_conn *fc, bool whole);

/* h1_wake - draining began: the watchdog looks at once. */
void h1_wake(struct h1 *h);

/* h1_abort - every connection libmicrohttpd holds resets when closed. */
void h1_abort(struct h1 *h);

/* h1_stop - stop libmicrohttpd's daemon (closing its connections). */
void h1_stop(struct h1 *h);

/* h1_free - after h1_stop: the watchdog, the tap's table, @h; NULL ok. */
void h1_free(struct h1 *h);

#endif
