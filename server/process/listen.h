/* SPDX-License-Identifier: MIT */
/*
 * listen.h - the listening sockets: bound from --listen, or inherited from
 * systemd-style socket activation (LISTEN_FDS), before privileges are
 * dropped.
 */
#ifndef BENEATH_PROCESS_LISTEN_H
#define BENEATH_PROCESS_LISTEN_H

#include "conf.h"

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* One bound listening socket and how to show it. */
struct listener {
    int fd;
    bool tls;
    char url[INET6_ADDRSTRLEN + 128];
    char *unix_path; /* unlinked at close if still ours, or NULL */
    dev_t unix_dev;  /* the socket file bound, to know it is still ours */
    ino_t unix_ino;
};

struct listeners {
    struct listener *v;
    size_t n;
    bool activated; /* inherited from the service manager */
};

/*
 * listen_open - bind every --listen address of @c into @out, or take the
 * sockets passed by socket activation instead (they are plain HTTP). Each
 * problem is one line on stderr.
 *
 * Returns the number of problems (0: all bound), or -ENOMEM.
 */
int listen_open(const struct conf *c, struct listeners *out);

/*
 * listen_check - what --check can know about the --listen addresses of @c
 * without binding any: a name that does not resolve or a unix socket path
 * that cannot be created is a problem (one line on stderr each); an address
 * some socket listens on now (perhaps the running server's) is a warning.
 *
 * Returns the number of problems.
 */
int listen_check(const struct conf *c);

/*
 * listen_caps_drop - once every socket is bound: a process not running as
 * root drops every capability it was given (AmbientCapabilities=
 * CAP_NET_BIND_SERVICE, for a port below 1024), ambient, permitted,
 * effective and inheritable; a line when it cannot.
 */
void listen_caps_drop(void);

/*
 * listen_close - close the sockets still owned by @ls (fd >= 0), unlink
 * the unix sockets bound here, free @ls's memory.
 */
void listen_close(struct listeners *ls);

#endif
