/* SPDX-License-Identifier: MIT */
/*
 * http.h - the libmicrohttpd daemons: one per listening socket.
 */
#ifndef HTTP_H
#define HTTP_H

#include "log.h"
#include "root.h"
#include "static_file.h"

#include <stdbool.h>
#include <stddef.h>

struct http_conf {
    struct static_file_conf files;
    unsigned threads;
    unsigned max_connections;
    unsigned max_connections_per_ip; /* 0: unlimited */
    unsigned timeout;                /* s of inactivity, 0: none */
    unsigned header_timeout;         /* s to receive headers, 0: none */
    size_t max_header_size;
};

struct http;

/*
 * http_start - start one daemon per listening socket in @fds (bound and
 * listening; ownership passes to the daemons, which close them when
 * stopped) with the worker pool, limits and header watchdog of @conf.
 * @tls (NULL: none) marks the HTTPS ones; their certificate comes from
 * tls_load, which must have succeeded before.
 * @conf, @root and @log are borrowed and must outlive the server.
 * On failure a message is written to stderr and nothing keeps running.
 *
 * Returns 0, -ENOMEM, or -EIO when libmicrohttpd refused to start.
 */
int http_start(const struct http_conf *conf, struct root *root, struct log *log,
               const int *fds, const bool *tls, size_t n_fds,
               struct http **out);

/*
 * http_started - from now on, libmicrohttpd messages about one client's
 * connection (resets, malformed or too large requests) are not written to
 * stderr; messages about the server itself still are.
 */
void http_started(void);

/*
 * http_quiesce - stop serving new connections (each is closed as soon as it
 * is accepted); requests in flight go on.
 */
void http_quiesce(struct http *h);

/* http_in_flight - requests whose headers arrived and that are not done. */
unsigned http_in_flight(struct http *h);

/* http_stop - stop every daemon (closing connections), free @h; NULL ok. */
void http_stop(struct http *h);

#endif
