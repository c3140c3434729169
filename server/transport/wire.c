// SPDX-License-Identifier: MIT
/*
 * wire.c - the byte tap between the kernel (or GnuTLS) and libmicrohttpd:
 * definitions of recv, sendfile64, gnutls_record_recv and gnutls_handshake
 * that the
 * dynamic linker prefers to libc's and GnuTLS's for every library of the
 * process, each calling the real one and then looking at the result for
 * connections that daemon.c attached.
 *
 * Why interpose instead of a libmicrohttpd hook: 0.9.75 offers none that
 * shows the bytes of a request head, and what it stores is already cut (a
 * value ends at NUL), merged (obs-fold glued onto the name) or kept with a
 * space before the colon. Framing must be judged on the bytes themselves.
 *
 * Invariants: a descriptor not attached passes through unchanged (our own
 * sockets, libcurl in tests, GnuTLS's recv of ciphertext); the table entry
 * of a connection is written only on the connection's own thread (attach in
 * NOTIFY_CONNECTION started, detach in closed), and detach clears it only if
 * it still points at the same state, so a descriptor number reused by
 * another worker is never cleared by the old connection.
 */
/* Not the fortified inline recv of <bits/socket2.h>: this file defines
 * the symbol itself. */
#undef _FORTIFY_SOURCE

#include "transport/wire.h"

#include <dlfcn.h>
#include <errno.h>
#include <gnutls/gnutls.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static void *table; /* by_fd's memory */
static _Atomic(struct wire_conn *) *by_fd;
static size_t n_fd;

int wire_init(size_t max_fd)
{
    table = calloc(max_fd, sizeof *by_fd);
    if (!table)
        return -ENOMEM;
    by_fd = table;
    n_fd = max_fd;
    return 0;
}

void wire_free(void)
{
    n_fd = 0;
    by_fd = NULL;
    free(table);
    table = NULL;
}

void wire_attach(int fd, struct wire_conn *w, bool tls)
{
    memset(w, 0, sizeof *w);
    framing_scan_init(&w->scan);
    w->tls = tls;
    if (fd >= 0 && (size_t)fd < n_fd)
        atomic_store_explicit(&by_fd[fd], w, memory_order_release);
}

void wire_detach(int fd, struct wire_conn *w)
{
    struct wire_conn *want = w;

    if (fd >= 0 && (size_t)fd < n_fd)
        atomic_compare_exchange_strong(&by_fd[fd], &want, NULL);
}

static struct wire_conn *lookup(int fd)
{
    if (fd < 0 || (size_t)fd >= n_fd)
        return NULL;
    return atomic_load_explicit(&by_fd[fd], memory_order_acquire);
}

static const char https_port_reply[] =
    "HTTP/1.1 400 Bad Request\r\n"
    "Content-Type: text/plain; charset=utf-8\r\n"
    "Content-Length: 42\r\n"
    "Connection: close\r\n"
    "\r\n" WIRE_HTTPS_PORT_TEXT;

_Static_assert(sizeof WIRE_HTTPS_PORT_TEXT - 1 == 42,
               "Content-Length of the HTTPS-port reply");

/*
 * The first bytes of an HTTPS connection: a TLS record starts with its
 * content type (22, handshake); an ASCII letter is a plain HTTP method.
 * Answer that in plain text and report end of stream to GnuTLS, which then
 * fails the handshake and libmicrohttpd closes.
 */
static bool plain_on_tls(int fd, struct wire_conn *w, const char *b)
{
    w->first_seen = true;
    if (!((b[0] >= 'A' && b[0] <= 'Z') || (b[0] >= 'a' && b[0] <= 'z')))
        return false;
    w->plain_on_tls = true;
    (void)!send(fd, https_port_reply, sizeof https_port_reply - 1,
                MSG_NOSIGNAL | MSG_DONTWAIT);
    return true;
}

/* Whether the client's end of stream already waits behind the data read. */
static bool eof_pending(int fd)
{
    char b;

    return recvfrom(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT, NULL, NULL) == 0;
}

ssize_t recv(int fd, void *buf, size_t n, int flags)
{
    /* recvfrom is not interposed: it is the real call. */
    ssize_t r = recvfrom(fd, buf, n, flags, NULL, NULL);
    struct wire_conn *w;

    if ((flags & MSG_PEEK) || !(w = lookup(fd)))
        return r;
    if (r == 0) {
        w->eof = true;
        return r;
    }
    if (r < 0)
        return r;
    if (w->tls) {
        if (!w->first_seen && plain_on_tls(fd, w, buf))
            return 0;
        return r;
    }
    unsigned heads = w->scan.heads;
    framing_scan_filter(&w->scan, buf, (size_t)r);
    /*
     * A short read (all there was): did the client's FIN come with it?
     * With epoll libmicrohttpd is not told again, and would hold the
     * connection until a timeout. Without a whole request in these bytes,
     * report end of stream now (libmicrohttpd closes at once: half a
     * request can never complete); with one, let it be answered and close
     * then (daemon.c, on completion). Not when scanning stopped at a
     * body or after a refused head: that request is answered at once and
     * the connection closed.
     */
    /* a body, or a refused head that ended: answered and closed */
    bool at_body = framing_scan_stopped(&w->scan);
    if ((size_t)r < n && !at_body && eof_pending(fd)) {
        w->eof = true;
        if (w->scan.heads == heads)
            return 0;
    }
    return r;
}

/*
 * libmicrohttpd's sendfile path treats a short count as "socket full" and
 * waits for a writable event that never comes when the real reason is the
 * file's end: a file truncated during the transfer held the connection
 * until the timeout. Zero bytes for a non-zero count is that end; report
 * EBADF, on which libmicrohttpd closes the connection at once.
 */
ssize_t sendfile64(int out_fd, int in_fd, off64_t *offset, size_t count)
{
    ssize_t r = syscall(SYS_sendfile, out_fd, in_fd, offset, count);
    struct wire_conn *w;

    if (r == 0 && count > 0) {
        if ((w = lookup(out_fd)))
            w->short_file = true;
        errno = EBADF;
        return -1;
    }
    return r;
}

typedef ssize_t (*record_recv_fn)(gnutls_session_t, void *, size_t);
typedef int (*handshake_fn)(gnutls_session_t);

/* GnuTLS's @name, looked up on the first call into @slot. */
static void *real(_Atomic(void *) *slot, const char *name)
{
    void *f = atomic_load_explicit(slot, memory_order_relaxed);

    if (!f) {
        f = dlsym(RTLD_NEXT, name);
        if (!f)
            abort(); /* GnuTLS is linked: the symbol exists */
        atomic_store_explicit(slot, f, memory_order_relaxed);
    }
    return f;
}

ssize_t gnutls_record_recv(gnutls_session_t s, void *data, size_t n)
{
    static _Atomic(void *) fn;
    record_recv_fn f = (record_recv_fn)real(&fn, "gnutls_record_recv");
    struct wire_conn *w;

    ssize_t r = f(s, data, n);
    if (r > 0 && (w = lookup(gnutls_transport_get_int(s))) && w->tls)
        framing_scan_filter(&w->scan, data, (size_t)r);
    return r;
}

int gnutls_handshake(gnutls_session_t s)
{
    static _Atomic(void *) fn;
    handshake_fn f = (handshake_fn)real(&fn, "gnutls_handshake");
    struct wire_conn *w;

    int r = f(s);
    /*
     * A failed handshake ends with the alert that names the failure
     * (RFC 8446 6.2, RFC 7507 3): libmicrohttpd only closes.
     */
    if (r < 0 && gnutls_error_is_fatal(r) &&
        !((w = lookup(gnutls_transport_get_int(s))) && w->plain_on_tls))
        (void)gnutls_alert_send_appropriate(s, r);
    return r;
}
