/* SPDX-License-Identifier: MIT */
/*
 * daemon.h - the libmicrohttpd daemons: one per listening socket.
 */
#ifndef DAEMON_H
#define DAEMON_H

#include "log.h"
#include "respond.h"
#include "root.h"

#include <stdbool.h>
#include <stddef.h>

struct daemon_conf {
    struct respond_conf respond;
    unsigned threads;
    unsigned max_connections;
    unsigned max_connections_per_ip; /* 0: unlimited */
    unsigned timeout;                /* s of inactivity, 0: none */
    unsigned header_timeout;         /* s to receive headers, 0: none */
    size_t max_header_size;
};

struct daemon;

/*
 * daemon_new - start one daemon per listening socket in @fds (bound and
 * listening; ownership passes to the daemons, which close them when
 * stopped) with the worker pool, limits and header watchdog of @conf.
 * @tls (NULL: none) marks the HTTPS ones; their certificate comes from
 * tls_load, which must have succeeded before.
 * @conf, @root and @log are borrowed and must outlive the server.
 * On failure a message is written to stderr and nothing keeps running.
 *
 * Returns 0, -ENOMEM, or -EIO when libmicrohttpd refused to start.
 */
int daemon_new(const struct daemon_conf *conf, struct root *root,
               struct log *log, const int *fds, const bool *tls, size_t n_fds,
               struct daemon **out);

/*
 * daemon_started - from now on, libmicrohttpd messages about one client's
 * connection (resets, malformed or too large requests) are not written to
 * stderr; messages about the server itself still are.
 */
void daemon_started(void);

/*
 * daemon_quiesce - stop serving new connections (each is closed as soon as it
 * is accepted); requests in flight go on.
 */
void daemon_quiesce(struct daemon *h);

/* daemon_in_flight - requests whose headers arrived and that are not done. */
unsigned daemon_in_flight(struct daemon *h);

/* daemon_free - stop every daemon (closing connections), free @h; NULL ok. */
void daemon_free(struct daemon *h);

#endif
