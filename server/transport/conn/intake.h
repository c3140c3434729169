/* SPDX-License-Identifier: MIT */
/*
 * intake.h - a request head into a struct request (http/request.h), the
 * same for HTTP/1.1 and HTTP/2: the request line or pseudo-fields and the
 * connection (intake_start), the field lines one by one
 * (request_add_field), then the Host rule (intake_host).
 */
#ifndef BENEATH_TRANSPORT_CONN_INTAKE_H
#define BENEATH_TRANSPORT_CONN_INTAKE_H

#include "http/request.h"

#include <stdbool.h>
#include <sys/socket.h>

/*
 * struct intake - what a request head and its connection give.
 * @method:       the method token as sent
 * @target:       the raw request-target
 * @version:      the protocol
 * @version_name: its name as the log shows it
 * @peer:         the client's address, or NULL
 * @peer_len:     its length; 0: the length of its family's address
 * @peer_text:    that address as text (front.c's client_text)
 * @tls:          the connection is over TLS
 * @tls_version:  its version ("TLSv1.3"), or NULL
 */
struct intake {
    const char *method;
    const char *target;
    enum http_version version;
    const char *version_name;
    const struct sockaddr *peer;
    socklen_t peer_len;
    const char *peer_text;
    bool tls;
    const char *tls_version;
};

/* intake_start - @rq's request line and connection from @in. */
void intake_start(struct request *rq, const struct intake *in);

/*
 * intake_host - the Host rule, once every field line is in @rq: more than
 * one Host is a 400 (RFC 9112 3.2); an @authority (HTTP/2's :authority,
 * or NULL) is the Host, and a Host field beside it must name the same
 * (RFC 9113 8.3.1); a request of HTTP/1.1 or later without either is a
 * 400. Returns 0 or 400.
 */
unsigned intake_host(struct request *rq, const char *authority);

#endif
