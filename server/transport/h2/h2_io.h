/* SPDX-License-Identifier: MIT */
/*
 * h2_io.h - the ways an HTTP/2 session's bytes come and go (struct h2_io,
 * transport/h2/h2.h): a plain socket (HTTP/2 with prior knowledge on a
 * cleartext listener) or the TLS front's SSL after ALPN chose "h2".
 *
 * Both readers go on until the source is empty, as h2_session_event
 * needs: a short read is never taken for "empty". With an SSL that reads
 * ahead (the front sets it), SSL_read is called until it wants more from
 * the socket, so nothing stays in the SSL that no readiness event would
 * announce.
 */
#ifndef BENEATH_TRANSPORT_H2_H2_IO_H
#define BENEATH_TRANSPORT_H2_H2_IO_H

#include "transport/h2/h2.h"

#include <openssl/ssl.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * struct h2_tls - a session's TLS connection, borrowed (the front owns the
 * SSL and its socket).
 * @ssl:        the connection, handshake done, non-blocking socket
 * @want_write: the last SSL_read could not go on until the socket takes
 *              bytes (TLS 1.3 KeyUpdate, a renegotiation's answer): the
 *              caller waits for writability too, not for input alone
 */
struct h2_tls {
    SSL *ssl;
    bool want_write;
};

/* h2_io_socket - reads and writes of the non-blocking socket *@fd. */
struct h2_io h2_io_socket(int *fd);

/* h2_io_tls - reads and writes through @t->ssl (SSL_read, SSL_write). */
struct h2_io h2_io_tls(struct h2_tls *t);

#endif
