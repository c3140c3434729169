/* SPDX-License-Identifier: MIT */
/*
 * wire.h - the bytes of each client connection on their way into and out
 * of libmicrohttpd: the byte tap, and the TLS of connections the front
 * handed over.
 *
 * libmicrohttpd 0.9.75 lower-cases nothing but unfolds badly, cuts values
 * at NUL, keeps a space before a colon in the name and has no hook that
 * shows the bytes it parsed; it speaks TLS only through GnuTLS; and it does
 * not say what of a response went. Its static archive is linked with its
 * recv(2), send(2), sendmsg(2), sendfile64(2) and shutdown(2) calls renamed
 * to the wire_* functions below (transport/h1/mhd_tap.cmake): they are
 * libmicrohttpd's alone, nothing else in the process goes through them.
 * For a connection attached here they scan request heads
 * (http/framing.c), notice an end of stream that arrived together with
 * half a request, end a sendfile whose file was truncated, and count the
 * bytes of each response written; for one attached with an SSL (a TLS
 * connection whose handshake the front made, front.c), every read and
 * write goes through OpenSSL instead of the socket: libmicrohttpd speaks
 * plain HTTP/1.1 on a socket whose bytes are TLS records. Any other
 * descriptor passes through untouched.
 */
#ifndef BENEATH_TRANSPORT_H1_WIRE_H
#define BENEATH_TRANSPORT_H1_WIRE_H

#include "http/framing.h"
#include "transport/front/sock_bio.h"

#include <openssl/ssl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

/*
 * struct wire_sent - what of the current response went to the connection:
 * every byte a write put there (plaintext, over TLS: in records written
 * whole), the head's among them (through its empty line), and whether the
 * last write was cut short (the socket was full, or it failed).
 */
struct wire_sent {
    uint64_t bytes;
    uint64_t head;
    uint8_t head_end; /* bytes of the head's final CRLF CRLF seen */
    bool head_done;
    bool short_write;
};

/*
 * Per connection; owned by the daemon's connection state.
 *
 * Waiting between requests (h1.c): @park_at set while libmicrohttpd's
 * timeout is short; if it closes the connection for that silence, the
 * close is a park: its shutdown is not done (@parked), and the socket goes
 * back to the front, which waits for the next request at the cost of a
 * struct front_conn. Not when bytes of a head are held, the client ended
 * its stream or the connection failed: then the close is one. A read of
 * bytes clears @park_at (a request is under way); @slow is called (once,
 * until @slow_set is cleared) when its head does not come whole: it needs
 * the long timeout before its handler gives it one.
 */
struct wire_conn {
    struct framing_scan scan; /* plaintext request heads */
    SSL *ssl;                 /* TLS: the front's session, else NULL */
    struct sock_io *io;       /* its socket (TLS) */
    struct wire_sent sent;    /* the current response's bytes written */
    int64_t park_at; /* ms (CLOCK_MONOTONIC_COARSE): a close from then on
                        parks; 0: it closes */
    void (*slow)(struct wire_conn *w); /* see above, or NULL */
    bool slow_set;                     /* @slow was called */
    bool eof;        /* the client's end of stream is pending */
    bool failed;     /* a read failed: the connection is over */
    bool parked;     /* its close was a park (the shutdown not done) */
    bool short_file; /* a file ended before its size (sendfile) */
    bool closing;    /* TLS: close_notify sent */
};

/*
 * wire_init - room for descriptors below @max_fd (beyond them connections
 * are not scanned: framing is then only checked on the stored fields, and
 * a TLS connection there cannot be handed over).
 *
 * Returns 0 or -ENOMEM.
 */
int wire_init(size_t max_fd);

/* wire_free - release the table; no connection may be attached. */
void wire_free(void);

/*
 * wire_attach - scan connection @fd from now on into @w (initialised here);
 * with @ssl (borrowed, @io its socket), read and write through it. Called
 * on the connection's thread before libmicrohttpd reads from it.
 */
void wire_attach(int fd, struct wire_conn *w, SSL *ssl, struct sock_io *io);

/* wire_detach - stop scanning @fd if it is still @w's. */
void wire_detach(int fd, struct wire_conn *w);

/*
 * wire_body_sent - body bytes of the current response written to the
 * connection so far: all bytes written after its head (a chunked body's
 * framing included, as nginx's $body_bytes_sent counts it); 0 until the
 * head is out whole.
 */
uint64_t wire_body_sent(const struct wire_conn *w);

/* wire_sent_reset - the next bytes written are a new response's. */
void wire_sent_reset(struct wire_conn *w);

/*
 * wire_unpark - the park of @fd (@w->parked) did not happen: the shutdown
 * it skipped (TLS: close_notify first) is done now.
 */
void wire_unpark(int fd, struct wire_conn *w);

/*
 * libmicrohttpd's socket calls (its archive calls these instead of libc's),
 * each with the system call's contract: on an attached connection,
 * wire_recv scans what it reads (and over TLS reads plaintext from the
 * SSL), the writes count what went (over TLS as records), wire_sendfile64
 * fails EBADF for a file that ended before @count, and wire_shutdown sends
 * TLS's close_notify first. Other descriptors: the system call.
 */
ssize_t wire_recv(int fd, void *buf, size_t n, int flags);
ssize_t wire_send(int fd, const void *buf, size_t n, int flags);
ssize_t wire_sendmsg(int fd, const struct msghdr *msg, int flags);
ssize_t wire_sendfile64(int out_fd, int in_fd, off64_t *offset, size_t count);
int wire_shutdown(int fd, int how);

#endif
