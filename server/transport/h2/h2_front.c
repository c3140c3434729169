// SPDX-License-Identifier: MIT
/*
 * h2_front.c - HTTP/2 sessions on the TLS front's loops (h2_front.h): the
 * struct front_session whose event runs h2_session_event and turns what it
 * waits for into the loop's epoll events and the connection's deadline.
 * The front closes the socket and frees the connection after @end.
 */
#include "transport/h2/h2_front.h"

#include "transport/h2/h2_io.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <stdlib.h>
#include <sys/epoll.h>

struct h2_front_conn {
    struct h2_tls tls; /* the io's state over fc->ssl */
    struct h2_session *s;
};

/* What the session waits for, as the loop's; false: end it. */
static bool wait_for(struct front_conn *fc, unsigned want, int64_t deadline)
{
    const struct h2_front_conn *c = fc->session_data;
    uint32_t ev = 0;

    if (!want)
        return false;
    if (want & H2_WANT_READ)
        ev |= EPOLLIN;
    if ((want & H2_WANT_WRITE) || c->tls.want_write)
        ev |= EPOLLOUT;
    if (front_conn_want(fc, ev) != 0)
        return false;
    front_conn_deadline(fc, deadline);
    return true;
}

static bool event(struct front_conn *fc, uint32_t events)
{
    struct h2_front_conn *c = fc->session_data;
    int64_t deadline;

    (void)events; /* the session reads and writes what it can either way */
    unsigned want = h2_session_event(c->s, h2_now_ms(), &deadline);
    return wait_for(fc, want, deadline);
}

static void end(struct front_conn *fc)
{
    struct h2_front_conn *c = fc->session_data;

    if (!c)
        return;
    h2_session_close(c->s); /* a last GOAWAY if the socket takes it */
    if (fc->ssl) {
        /* close_notify if it goes at once; never waited for */
        ERR_clear_error();
        (void)SSL_shutdown(fc->ssl);
        ERR_clear_error();
    }
    free(c);
    fc->session_data = NULL;
}

static const struct front_session h2_front_session = {event, end};

int h2_front_attach(const struct h2_conf *conf, struct front_conn *fc)
{
    struct h2_front_conn *c = calloc(1, sizeof *c);
    struct h2_io io;
    int err;

    if (!c)
        return -ENOMEM;
    /*
     * No Nagle: the last frame of a window would wait for the ACK of the
     * ones before it, which a client that waits for it to send its
     * WINDOW_UPDATE delays (40 ms a window on Linux). Not a TCP socket
     * (unix:): nothing to do.
     */
    (void)setsockopt(fc->fd, IPPROTO_TCP, TCP_NODELAY, &(int){1}, sizeof(int));
    c->tls.ssl = fc->ssl;
    io = fc->ssl ? h2_io_tls(&c->tls) : h2_io_socket(&fc->fd);
    struct h2_peer peer = {
        .addr = (const struct sockaddr *)&fc->addr,
        .addr_len = fc->addrlen,
        .text = fc->client,
        .tls = fc->ssl ? fc->version : NULL,
        .start_ms = fc->accepted_ms,
    };
    err = h2_session_new(conf, &io, &peer, &c->s);
    if (err) {
        free(c);
        return err;
    }
    fc->session_data = c;
    fc->session = &h2_front_session;
    if (event(fc, 0))
        return 0;
    end(fc);
    fc->session = NULL;
    return -ECONNRESET;
}
