// SPDX-License-Identifier: MIT
/*
 * daemon.c - the transport put together from struct daemon_conf (daemon.h):
 * the front (front/front.c) accepts every listener, plain and https://;
 * what it tells to be HTTP/1.x goes to libmicrohttpd (h1/h1.c), what chose
 * "h2" or sent the prior-knowledge preface becomes an HTTP/2 session on
 * the front's loop (h2/h2_front.c). Here is what they share: admission
 * (--allow/--deny, --max-connections, per address) and the connection and
 * handshake metrics, for every connection alike; the requests under way
 * and the drain, over both protocols. The only file of transport/ that
 * knows all its parts; none of them includes it.
 */
#include "transport/daemon.h"

#include "access/access.h"
#include "observe/metrics.h"
#include "transport/front/front.h"
#include "transport/front/peer_count.h"
#include "transport/h1/h1.h"
#include "transport/h2/h2.h"
#include "transport/h2/h2_front.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct daemon {
    const struct daemon_conf *conf;
    struct live *gens; /* of struct gen_conf */
    struct root *root;
    struct front *front; /* accepts every connection */
    struct front_conf front_conf;
    struct front_ops front_ops; /* the front borrows it */
    struct peer_count *peers;   /* the front's connections per address */
    struct h1 *h1;              /* takes the front's HTTP/1.x connections */
    struct h1_conf h1_conf;
    struct h2_conf h2_conf; /* of every HTTP/2 session on the front */
    atomic_uint in_flight;
    atomic_uint h2_files; /* HTTP/2 streams holding a pooled file slot */
    atomic_bool draining; /* accepting no more; replies close, idle
                             connections are closed */
    atomic_uint n_conns;  /* open connections, all daemons */
    atomic_uint parks;    /* connections parked, or HTTP/2 sessions that
                             began to wait, since the last trim */
};

void daemon_started(void)
{
    h1_started();
}

/*
 * Admission, for every connection (the front accepts them all): --allow and
 * --deny on the peer (counted in the metrics when refused), then the
 * connection limit. Over the limit a connection is closed at once rather
 * than left waiting unanswered in the listen backlog.
 */
static bool admit(struct daemon *h, const struct sockaddr *addr,
                  socklen_t addrlen)
{
    if (!access_accept(h->conf->access, addr, addrlen))
        return false;
    /* draining, still served (it was accepted): its reply closes */
    return atomic_load(&h->n_conns) < h->conf->max_connections;
}

/* ---- the TLS front's calls (front.h), on its loop threads ---------------- */

static bool front_admit(void *arg, const struct sockaddr *sa, socklen_t len)
{
    struct daemon *h = arg;

    if (!admit(h, sa, len) || !peer_count_take(h->peers, sa, len))
        return false;
    atomic_fetch_add(&h->n_conns, 1);
    if (h->conf->metrics)
        metrics_count_connection(h->conf->metrics, true);
    return true;
}

static void front_release(void *arg, const struct sockaddr *sa, socklen_t len)
{
    struct daemon *h = arg;

    peer_count_put(h->peers, sa, len);
    atomic_fetch_sub(&h->n_conns, 1);
    if (h->conf->metrics)
        metrics_count_connection(h->conf->metrics, false);
}

static void front_handshake(void *arg, bool ok)
{
    struct daemon *h = arg;

    if (h->conf->metrics)
        metrics_count_tls(h->conf->metrics, ok);
}

static void front_parked(void *arg, bool in)
{
    struct daemon *h = arg;

    if (h->conf->metrics)
        metrics_count_parked(h->conf->metrics, in);
}

static void front_plain(void *arg, struct front_conn *fc, bool whole)
{
    struct daemon *h = arg;

    h1_plain(h->h1, fc, whole);
}

static int front_http1(void *arg, struct front_conn *fc)
{
    struct daemon *h = arg;

    return h1_add(h->h1, fc);
}

/* A connection that chose "h2": a session on the front's loop (draining,
 * its GOAWAY comes with the first event). */
static int front_h2(void *arg, struct front_conn *fc)
{
    struct daemon *h = arg;

    return h2_front_attach(&h->h2_conf, fc);
}

/* What the front asks of the daemon; .h2 is cleared in the daemon's copy
 * while HTTP/2 is not served (struct front_ops). */
static const struct front_ops front_ops = {
    .admit = front_admit,
    .release = front_release,
    .handshake = front_handshake,
    .parked = front_parked,
    .plain = front_plain,
    .http1 = front_http1,
    .h2 = front_h2,
};

/*
 * The sockets @fds (@n; ours to close; @tls[i]: https://, else plain with
 * --http2 on) to the front, after a daemon without a listening socket for
 * what it hands over. 0 or -errno.
 */
static int start_front(struct daemon *h, const int *fds, const bool *tls,
                       size_t n)
{
    const struct daemon_conf *conf = h->conf;
    bool any_tls = false;

    for (size_t i = 0; i < n; i++)
        any_tls = any_tls || tls[i];
    if ((any_tls && !conf->tls) ||
        peer_count_new(conf->max_connections_per_ip, &h->peers) != 0 ||
        h1_start(h->h1) != 0) {
        fprintf(stderr, "beneath: libmicrohttpd did not start a daemon\n");
        for (size_t i = 0; i < n; i++)
            close(fds[i]);
        return -EIO;
    }
    h->front_conf = (struct front_conf){
        .threads = conf->threads,
        /* a handshake is part of the first request's header time */
        .handshake_limit =
            conf->header_timeout ? conf->header_timeout : conf->timeout,
        .store = conf->tls,
    };
    /*
     * The first bytes of a plain connection are its first headers', and a
     * connection that sends nothing is idle too: the sooner of the two
     * bounds, as libmicrohttpd closes a silent connection at --timeout.
     */
    h->front_conf.peek_limit = h->front_conf.handshake_limit;
    if (conf->timeout &&
        (!h->front_conf.peek_limit || conf->timeout < h->front_conf.peek_limit))
        h->front_conf.peek_limit = conf->timeout;
    if (!h->front_conf.handshake_limit)
        h->front_conf.handshake_limit = 1;
    h->h2_conf = (struct h2_conf){
        .gens = h->gens,
        .max_streams = H2_MAX_STREAMS_DEFAULT,
        .max_header_list = conf->max_header_size,
        .header_timeout = conf->header_timeout,
        .timeout = conf->timeout,
        .in_flight = &h->in_flight,
        .draining = &h->draining,
        .files_used = &h->h2_files,
        .files_pool = conf->h2_files,
        .idled = &h->parks,
    };
    h->front_ops = front_ops;
    if (!conf->http2)
        h->front_ops.h2 = NULL;
    return front_start(&h->front_conf, &h->front_ops, h, fds, tls, n,
                       &h->front);
}

int daemon_new(const struct daemon_conf *conf, struct live *gens,
               struct root *root, const int *fds, const bool *tls, size_t n_fds,
               struct daemon **out)
{
    struct daemon *h = calloc(1, sizeof *h);
    bool *is_tls = calloc(n_fds ? n_fds : 1, sizeof *is_tls);
    int err = -ENOMEM;

    if (!h || !is_tls)
        goto out_close_fds;
    h->conf = conf;
    h->gens = gens;
    h->root = root;
    atomic_init(&h->in_flight, 0);
    atomic_init(&h->h2_files, 0);
    atomic_init(&h->draining, false);
    atomic_init(&h->n_conns, 0);
    h->h1_conf = (struct h1_conf){
        .threads = conf->threads,
        .max_connections = conf->max_connections,
        .timeout = conf->timeout,
        .header_timeout = conf->header_timeout,
        .max_header_size = conf->max_header_size,
        .gens = gens,
        .front = &h->front,
        .in_flight = &h->in_flight,
        .draining = &h->draining,
        .parks = &h->parks,
    };
    err = h1_new(&h->h1_conf, &h->h1);
    if (err)
        goto out_close_fds;
    for (size_t i = 0; tls && i < n_fds; i++)
        is_tls[i] = tls[i];
    /* every listener is the front's: libmicrohttpd is handed connections */
    err = start_front(h, fds, is_tls, n_fds);
    free(is_tls);
    if (err) {
        daemon_free(h);
        return err;
    }
    *out = h;
    return 0;
out_close_fds:
    free(h);
    free(is_tls);
    for (size_t k = 0; k < n_fds; k++)
        close(fds[k]);
    return err;
}

void daemon_drain(struct daemon *h)
{
    atomic_store(&h->draining, true);
    front_drain(h->front);
    h1_wake(h->h1);
}

void daemon_abort(struct daemon *h)
{
    front_abort(h->front);
    h1_abort(h->h1);
}

unsigned daemon_connections(struct daemon *h)
{
    return atomic_load(&h->n_conns);
}

unsigned daemon_in_flight(struct daemon *h)
{
    return atomic_load(&h->in_flight);
}

void daemon_free(struct daemon *h)
{
    if (!h)
        return;
    /* no more hand-offs, then libmicrohttpd, then what was never taken */
    front_stop(h->front);
    h1_stop(h->h1);
    front_free(h->front);
    peer_count_free(h->peers);
    h1_free(h->h1);
    free(h);
}
