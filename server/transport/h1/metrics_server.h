/* SPDX-License-Identifier: MIT */
/*
 * metrics_server.h - --metrics-listen: the Prometheus metrics on a listener
 * of their own (plain HTTP, one thread, GET/HEAD /metrics only), so a
 * server whose site is public need not publish its metrics. The site's
 * address rules (--allow/--deny) hold there too.
 */
#ifndef BENEATH_TRANSPORT_H1_METRICS_SERVER_H
#define BENEATH_TRANSPORT_H1_METRICS_SERVER_H

#include "access/access.h"
#include "observe/metrics.h"

#include <stddef.h>

struct metrics_server;

/*
 * metrics_server_bind - bind and listen on @addr (numeric "HOST:PORT" or
 * "[V6]:PORT", as conf checked it; port 0 picks one). @url (@size bytes)
 * gets "http://HOST:PORT/metrics" with the port bound.
 *
 * Returns the listening fd (the caller's), or -errno.
 */
int metrics_server_bind(const char *addr, char *url, size_t size);

/*
 * metrics_server_start - serve @m on the listening @fd (taken over: closed
 * by metrics_server_stop, or here on failure). Connections are accepted
 * under @a's address rules (--allow/--deny, access_accept_direct; @a
 * borrowed, NULL: none), the site's own.
 *
 * Returns 0, -ENOMEM, or -EIO when libmicrohttpd refused to start.
 */
int metrics_server_start(int fd, const struct metrics *m, struct access *a,
                         struct metrics_server **out);

/* metrics_server_stop - stop serving, close the fd, free @s; NULL ok. */
void metrics_server_stop(struct metrics_server *s);

#endif
