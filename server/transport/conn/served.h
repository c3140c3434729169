/* SPDX-License-Identifier: MIT */
/*
 * served.h - what every transport does once a reply is over (its last byte
 * written, or cut short): the access log line and the metrics of it, from
 * the request as read, the reply's result, the bytes that went and the
 * connection, in one place for HTTP/1.1 and HTTP/2.
 */
#ifndef BENEATH_TRANSPORT_CONN_SERVED_H
#define BENEATH_TRANSPORT_CONN_SERVED_H

#include "http/request.h"
#include "respond/reply.h"
#include "transport/conn/gen_conf.h"

#include <stdbool.h>
#include <stdint.h>

/*
 * struct served - one answered request.
 * @rq:       the request (its version_name NULL when none was read: a
 *            reply the wire library made itself)
 * @res:      what respond() said of its reply
 * @client:   the peer's address as text
 * @target:   the raw request-target, or NULL
 * @tls:      the connection's TLS version ("TLS1.3"), or NULL
 * @start_ns: when its head was complete (mono_ns), 0: unknown
 * @status:   the status sent
 * @bytes:    body bytes written to the connection
 * @aborted:  the reply ended before its last byte (the client left, a
 *            timeout, the server stopping, a file cut short)
 */
struct served {
    const struct request *rq;
    const struct respond_result *res;
    const char *client;
    const char *target;
    const char *tls;
    uint64_t start_ns;
    unsigned status;
    uint64_t bytes;
    bool aborted;
};

/*
 * served_log - the access log line of @s in @g's log, and @s counted in
 * @g's metrics, its duration ending now; the clocks are read only when
 * either is on.
 */
void served_log(const struct gen_conf *g, const struct served *s);

/*
 * served_short_file - say on stderr that the file of @target (NULL: "-")
 * ended before its size while being sent, and what @then became of the
 * connection or stream: the operator's business (a file changed while
 * served), not a client's, so one line and no more.
 */
void served_short_file(const char *target, const char *then);

#endif
