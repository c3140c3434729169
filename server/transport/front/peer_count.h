/* SPDX-License-Identifier: MIT */
/*
 * peer_count.h - open connections per client address, for
 * --max-connections-per-ip on connections the TLS front accepted: counted
 * from their accept (the handshake included) to their close, wherever they
 * are served. libmicrohttpd counts the ones it accepted itself.
 *
 * IPv4 and IPv6 addresses (an IPv4-mapped IPv6 address is its IPv4 one);
 * other families are not counted. Thread-safe (one mutex: taken once per
 * connection, not per request).
 */
#ifndef BENEATH_TRANSPORT_FRONT_PEER_COUNT_H
#define BENEATH_TRANSPORT_FRONT_PEER_COUNT_H

#include <stdbool.h>
#include <sys/socket.h>

struct peer_count;

/*
 * peer_count_new - counts allowing @max connections per address (0: no
 * limit, nothing is counted). Returns 0 with *@out, or -ENOMEM.
 */
int peer_count_new(unsigned max, struct peer_count **out);

/* peer_count_free - release @p (NULL allowed). */
void peer_count_free(struct peer_count *p);

/*
 * peer_count_take - count one more connection from @sa, unless it has @max
 * already (or no memory is left to count it). Returns whether it was
 * counted; each true needs one peer_count_put.
 */
bool peer_count_take(struct peer_count *p, const struct sockaddr *sa,
                     socklen_t len);

/* peer_count_put - one connection from @sa closed. */
void peer_count_put(struct peer_count *p, const struct sockaddr *sa,
                    socklen_t len);

#endif
