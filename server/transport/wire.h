/* SPDX-License-Identifier: MIT */
/*
 * wire.h - the raw bytes of each client connection, seen on their way into
 * libmicrohttpd.
 *
 * libmicrohttpd 0.9.75 lower-cases nothing but unfolds badly, cuts values
 * at NUL, keeps a space before a colon in the name and has no hook that
 * shows the bytes it parsed. This module sees them anyway: it defines the
 * recv(2), sendfile64(2), gnutls_record_recv, and gnutls_handshake symbols of
 * the
 * executable, which the dynamic linker binds libmicrohttpd's (and GnuTLS's)
 * calls to, and passes each call on to the real function. For connections
 * attached here it scans request heads (http/framing.c), notices an end of
 * stream that arrived together with half a request, ends a sendfile whose
 * file was truncated, answers plain HTTP sent to an HTTPS port, and sends
 * the TLS alert of a failed handshake. Any
 * other descriptor passes through untouched.
 */
#ifndef BENEATH_TRANSPORT_WIRE_H
#define BENEATH_TRANSPORT_WIRE_H

#include "http/framing.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/* Per connection; owned by the daemon's connection state. */
struct wire_conn {
    struct framing_scan scan; /* plaintext request heads */
    bool tls;                 /* an HTTPS connection */
    bool first_seen;          /* TLS: the first byte was looked at */
    bool plain_on_tls;        /* plain HTTP on the HTTPS port: answered */
    bool eof;                 /* the client's end of stream is pending */
    bool short_file;          /* a file ended before its size (sendfile) */
};

/*
 * wire_init - room for descriptors below @max_fd (beyond them connections
 * are not scanned: framing is then only checked on the stored fields).
 *
 * Returns 0 or -ENOMEM.
 */
int wire_init(size_t max_fd);

/* wire_free - release the table; no connection may be attached. */
void wire_free(void);

/*
 * wire_attach - scan connection @fd from now on into @w (initialised here).
 * Called on the connection's thread before libmicrohttpd reads from it.
 */
void wire_attach(int fd, struct wire_conn *w, bool tls);

/* wire_detach - stop scanning @fd if it is still @w's. */
void wire_detach(int fd, struct wire_conn *w);

/* The line sent to plain HTTP on an HTTPS port (tests look for it). */
#define WIRE_HTTPS_PORT_TEXT "This is an HTTPS port: use https:// URLs.\n"

#endif
