/* SPDX-License-Identifier: MIT */
/*
 * h2_io.h - the ways an HTTP/2 session's bytes come and go (struct h2_io,
 * transport/h2/h2.h): a plain socket (HTTP/2 with prior knowledge on a
 * cleartext listener) or the TLS front's SSL after ALPN chose "h2"; and
 * how a cleartext connection is known to be HTTP/2 at all.
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

enum h2_preface {
    H2_PREFACE_NO,   /* not HTTP/2: HTTP/1.x, or anything else */
    H2_PREFACE_MORE, /* all @n bytes begin the preface: read on */
    H2_PREFACE_YES,  /* the 24 bytes of the preface (RFC 9113 3.4) */
};

/*
 * h2_preface_check - what the first @n bytes a cleartext connection sent
 * say: whether it is HTTP/2 with prior knowledge ("PRI * HTTP/2.0..."),
 * HTTP/1.x, or too few to tell. The bytes are only looked at (MSG_PEEK):
 * the session reads the preface itself.
 */
enum h2_preface h2_preface_check(const void *buf, size_t n);

#endif
