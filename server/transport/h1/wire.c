// SPDX-License-Identifier: MIT
/*
 * wire.c - the byte tap: libmicrohttpd's recv, send, sendmsg, sendfile64
 * and shutdown, and no one else's. Its static archive is linked with those
 * five calls renamed to wire_recv, wire_send, ... (mhd_tap.cmake checks it
 * calls nothing else that moves a socket's bytes); the log writer, libcurl
 * and the rest of the process call libc's, and the executable defines no
 * libc name. For a connection h1.c attached, the tap looks at the
 * bytes (plain) or moves them through the connection's SSL (TLS), and
 * counts what went; for any other descriptor it is the system call.
 *
 * Why a tap at all: libmicrohttpd 0.9.75 offers no hook that shows the
 * bytes of a request head, and what it stores is already cut (a value ends
 * at NUL), merged (obs-fold glued onto the name) or kept with a space
 * before the colon: framing must be judged on the bytes themselves. Its
 * only TLS is GnuTLS, inside; here TLS is the front's OpenSSL session, and
 * libmicrohttpd is a plain HTTP/1.1 daemon that never knows. And it does
 * not say what of a response went before a connection broke. A socketpair
 * between the front and libmicrohttpd would do all three without a tap, at
 * two more copies and system calls per read and write: measured in
 * bench/README.md ("The byte tap and its alternatives").
 *
 * TLS reads and libmicrohttpd's epoll: libmicrohttpd takes a short read
 * as "the socket is empty" and then waits for the next edge. An SSL reads
 * ahead and may hold a record or its plaintext that no edge will announce.
 * So a TLS read goes on (SSL_read after SSL_read) until the buffer is
 * full, or the socket was left empty by the last read (struct sock_io's
 * drained, front/sock_bio.h) with nothing held in the SSL: a short answer
 * is then true.
 *
 * TLS writes: each send becomes one SSL_write (with SSL_MODE_ENABLE_
 * PARTIAL_WRITE, counting whole records); sendmsg gathers its pieces first
 * and sendfile reads its range with pread, both into this thread's block,
 * so a 1 KiB reply with its headers is one record. After a write that the
 * socket could not take (EAGAIN), libmicrohttpd retries with the same
 * bytes, which is what OpenSSL requires of a retried SSL_write.
 *
 * Invariants: a descriptor not attached passes through unchanged; the
 * table entry of a connection is written only on the connection's own
 * thread (attach in NOTIFY_CONNECTION started, detach in closed), and
 * detach clears it only if it still points at the same state, so a
 * descriptor number reused by another worker is never cleared by the old
 * connection. Only the owning thread ever uses a connection's SSL.
 */
#include "transport/h1/wire.h"

#include "common/mono.h"
#include "transport/front/tls_front.h"

#include <errno.h>
#include <limits.h>
#include <openssl/err.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* Bytes gathered (sendmsg) or read (sendfile) per TLS write: four full
 * records. */
#define WIRE_BLOCK ((size_t)64 * 1024)

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

/* Whether @fd can be attached (below wire_init's @max_fd). */
static bool fits(int fd)
{
    return fd >= 0 && (size_t)fd < n_fd;
}

void wire_attach(int fd, struct wire_conn *w, SSL *ssl, struct sock_io *io)
{
    memset(w, 0, sizeof *w);
    framing_scan_init(&w->scan);
    w->ssl = ssl;
    w->io = io;
    if (fits(fd))
        atomic_store_explicit(&by_fd[fd], w, memory_order_release);
}

void wire_detach(int fd, struct wire_conn *w)
{
    struct wire_conn *want = w;

    if (fits(fd))
        atomic_compare_exchange_strong(&by_fd[fd], &want, NULL);
}

static struct wire_conn *lookup(int fd)
{
    if (!fits(fd))
        return NULL;
    return atomic_load_explicit(&by_fd[fd], memory_order_acquire);
}

/* ---- what went out ------------------------------------------------------- */

/* The request under way needs the long timeout (struct wire_conn). */
static void slow(struct wire_conn *w)
{
    if (w->slow && !w->slow_set) {
        w->slow_set = true;
        w->slow(w);
    }
}

uint64_t wire_body_sent(const struct wire_conn *w)
{
    return w->sent.head_done ? w->sent.bytes - w->sent.head : 0;
}

void wire_sent_reset(struct wire_conn *w)
{
    memset(&w->sent, 0, sizeof w->sent);
}

/*
 * One byte of the response head through the search for its final CR LF
 * CR LF (the only overlap of that with itself is a CR).
 */
/* what ends a response head */
static const char head_term[4] = "\r\n\r\n";

static void head_step(struct wire_sent *o, char c)
{
    o->head_end = c == head_term[o->head_end] ? o->head_end + 1 : c == '\r';
    o->head_done = o->head_end == sizeof head_term;
}

/*
 * A write of @asked bytes from the pieces @iov (@n_iov; NULL for a
 * sendfile, which comes after the head) returned @r: counted, and the
 * head's end looked for in what went (libmicrohttpd writes a response's
 * head first, whole, before any of its body).
 */
static void tally(struct wire_conn *w, const struct iovec *iov, size_t n_iov,
                  ssize_t r, size_t asked)
{
    struct wire_sent *o = &w->sent;
    size_t left = r > 0 ? (size_t)r : 0;

    o->short_write = r < 0 || (size_t)r < asked;
    if (!iov && !o->head_done) {
        o->head_done = true;
        o->head = o->bytes;
    }
    for (size_t i = 0; !o->head_done && left && i < n_iov; i++) {
        const char *p = iov[i].iov_base;
        size_t k = iov[i].iov_len < left ? iov[i].iov_len : left;
        size_t at = 0;
        /* a CR LF CR LF begun in the piece before is finished here */
        while (o->head_end && !o->head_done && at < k)
            head_step(o, p[at++]);
        if (!o->head_done && at < k) {
            const char *e = memmem(p + at, k - at, head_term, sizeof head_term);

            if (e) {
                at = (size_t)(e - p) + sizeof head_term;
                o->head_end = sizeof head_term;
                o->head_done = true;
            } else {
                /* none here: what the piece ends with may begin one */
                at = k - (k - at < sizeof head_term - 1 ? k - at
                                                        : sizeof head_term - 1);
                while (at < k)
                    head_step(o, p[at++]);
            }
        }
        o->head += at;
        left -= k;
    }
    o->bytes += r > 0 ? (size_t)r : 0;
}

/* ---- this thread's block ------------------------------------------------- */

static pthread_key_t block_key;
static pthread_once_t block_once = PTHREAD_ONCE_INIT;

static void block_key_make(void)
{
    (void)pthread_key_create(&block_key, free);
}

/* WIRE_BLOCK bytes of this thread's own (freed when it exits), or NULL. */
static char *block(void)
{
    static __thread char *b;

    if (!b) {
        pthread_once(&block_once, block_key_make);
        b = malloc(WIRE_BLOCK);
        if (b && pthread_setspecific(block_key, b) != 0) {
            free(b);
            b = NULL;
        }
    }
    return b;
}

/* ---- TLS reads and writes ------------------------------------------------ */

/* An SSL_read or SSL_write that returned @r <= 0: -1 with errno. */
static ssize_t tls_fail(struct wire_conn *w, int r)
{
    int e = SSL_get_error(w->ssl, r);

    tls_front_err_clear();
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        errno = EAGAIN;
        return -1;
    }
    if (e == SSL_ERROR_ZERO_RETURN)
        return 0;
    /* a bad record, a reset, an alert: the connection is over */
    errno = ECONNRESET;
    return -1;
}

static ssize_t tls_recv(struct wire_conn *w, char *buf, size_t n)
{
    size_t got = 0;
    ssize_t r = 0;

    tls_front_err_clear();
    while (got < n) {
        w->io->drained = false;
        int k = SSL_read(w->ssl, buf + got,
                         (int)(n - got < INT_MAX ? n - got : INT_MAX));
        if (k <= 0) {
            r = tls_fail(w, k);
            if (r == 0)
                w->eof = true;
            break;
        }
        got += (size_t)k;
        if (w->io->drained && !SSL_has_pending(w->ssl))
            break;
    }
    if (got == 0)
        return r;
    framing_scan_filter(&w->scan, buf, got);
    return (ssize_t)got;
}

/*
 * Write @n bytes of @buf as records until all are written or the socket is
 * full: libmicrohttpd takes a short count for "full" and waits for the
 * next writable edge, so a count short for any other reason would stall.
 * Returns the bytes written (those of a record only partly sent are not
 * counted: the next call starts with them, as OpenSSL wants), or -1.
 */
static ssize_t tls_send(struct wire_conn *w, const void *buf, size_t n)
{
    size_t done = 0;

    tls_front_err_clear();
    while (done < n) {
        size_t k = n - done < INT_MAX ? n - done : INT_MAX;
        int r = SSL_write(w->ssl, (const char *)buf + done, (int)k);
        if (r > 0) {
            done += (size_t)r;
            continue;
        }
        ssize_t e = tls_fail(w, r);
        if (done)
            break;
        if (e == 0)
            errno = EPIPE;
        return -1;
    }
    return (ssize_t)done;
}

/* tls_send of the pieces of @iov, gathered into this thread's block. */
static ssize_t tls_sendv(struct wire_conn *w, const struct iovec *iov, size_t n)
{
    char *b = block();
    size_t done = 0, i = 0, at = 0;

    if (!b) {
        errno = ENOMEM;
        return -1;
    }
    while (i < n) {
        size_t len = 0;
        /* one block of the pieces from piece i, byte at */
        while (i < n && len < WIRE_BLOCK) {
            size_t k = iov[i].iov_len - at;
            if (k > WIRE_BLOCK - len)
                k = WIRE_BLOCK - len;
            memcpy(b + len, (const char *)iov[i].iov_base + at, k);
            len += k;
            at += k;
            if (at == iov[i].iov_len) {
                i++;
                at = 0;
            }
        }
        if (len == 0)
            break;
        ssize_t r = tls_send(w, b, len);
        if (r < 0)
            return done ? (ssize_t)done : -1;
        done += (size_t)r;
        if ((size_t)r < len)
            break;
    }
    return (ssize_t)done;
}

/* ---- libmicrohttpd's calls ----------------------------------------------- */

/* Whether the client's end of stream already waits behind the data read. */
static bool eof_pending(int fd)
{
    char b;

    return recvfrom(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT, NULL, NULL) == 0;
}

/* A read of @r bytes on @w (scanned): what it says of the connection. */
static void after_read(struct wire_conn *w, ssize_t r)
{
    if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
        w->failed = true;
    if (r > 0) {
        w->park_at = 0; /* a request comes: no park */
        if (framing_scan_mid_head(&w->scan))
            slow(w);
    }
}

ssize_t wire_recv(int fd, void *buf, size_t n, int flags)
{
    struct wire_conn *w = (flags & MSG_PEEK) ? NULL : lookup(fd);

    if (w && w->ssl) {
        ssize_t t = tls_recv(w, buf, n);
        int e = errno;
        after_read(w, t);
        errno = e;
        return t;
    }
    ssize_t r = recv(fd, buf, n, flags);
    if (!w)
        return r;
    if (r <= 0) {
        int e = errno;
        after_read(w, r);
        errno = e;
        w->eof = w->eof || r == 0;
        return r;
    }
    unsigned heads = w->scan.heads;
    framing_scan_filter(&w->scan, buf, (size_t)r);
    after_read(w, r);
    /*
     * A short read (all there was): did the client's FIN come with it?
     * With epoll libmicrohttpd is not told again, and would hold the
     * connection until a timeout. Without a whole request in these bytes,
     * report end of stream now (libmicrohttpd closes at once: half a
     * request can never complete); with one, let it be answered and close
     * then (h1.c, on completion). Not when scanning stopped at a
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

ssize_t wire_send(int fd, const void *buf, size_t n, int flags)
{
    struct wire_conn *w = lookup(fd);
    ssize_t r;

    if (w && w->ssl)
        r = tls_send(w, buf, n);
    else
        r = send(fd, buf, n, flags);
    if (w) {
        int e = errno;
        const struct iovec one = {.iov_base = (void *)(uintptr_t)buf,
                                  .iov_len = n};
        tally(w, &one, 1, r, n);
        errno = e;
    }
    return r;
}

ssize_t wire_sendmsg(int fd, const struct msghdr *msg, int flags)
{
    struct wire_conn *w = lookup(fd);
    ssize_t r;

    if (!w)
        return sendmsg(fd, msg, flags);
    if (w->ssl) /* one record for the pieces (headers and a small body) */
        r = tls_sendv(w, msg->msg_iov, msg->msg_iovlen);
    else
        r = sendmsg(fd, msg, flags);
    int e = errno;
    size_t asked = 0;
    for (size_t i = 0; i < msg->msg_iovlen; i++)
        asked += msg->msg_iov[i].iov_len;
    tally(w, msg->msg_iov, msg->msg_iovlen, r, asked);
    errno = e;
    return r;
}

/*
 * libmicrohttpd's sendfile path treats a short count as "socket full" and
 * waits for a writable event that never comes when the real reason is the
 * file's end: a file truncated during the transfer held the connection
 * until the timeout. Zero bytes for a non-zero count is that end; report
 * EBADF, on which libmicrohttpd closes the connection at once.
 * Over TLS the range is read with pread into this thread's block and
 * written as records (no sendfile of plaintext under TLS).
 */
/* sendfile64 over TLS: @count bytes of @in_fd from *@offset as records. */
static ssize_t tls_sendfile(struct wire_conn *w, int in_fd, off64_t *offset,
                            size_t count)
{
    char *b = block();
    size_t done = 0;
    ssize_t r = 0;

    if (!b) {
        errno = ENOMEM;
        return -1;
    }
    /* all of @count, unless the socket fills (see tls_send) */
    while (done < count) {
        size_t k = count - done < WIRE_BLOCK ? count - done : WIRE_BLOCK;
        do
            r = pread(in_fd, b, k, *offset);
        while (r < 0 && errno == EINTR);
        if (r <= 0)
            break;
        ssize_t sent = tls_send(w, b, (size_t)r);
        if (sent < 0) {
            r = -1;
            break;
        }
        *offset += sent;
        done += (size_t)sent;
        if (sent < r)
            break;
    }
    return done ? (ssize_t)done : r;
}

ssize_t wire_sendfile64(int out_fd, int in_fd, off64_t *offset, size_t count)
{
    struct wire_conn *w = lookup(out_fd);
    ssize_t r;

    if (w && w->ssl && offset)
        r = tls_sendfile(w, in_fd, offset, count);
    else
        r = sendfile64(out_fd, in_fd, offset, count);
    if (r == 0 && count > 0) {
        if (w)
            w->short_file = true;
        errno = EBADF;
        r = -1;
    }
    if (w) {
        int e = errno;
        tally(w, NULL, 0, r, count);
        errno = e;
    }
    return r;
}

/* Whether a close of @w now is a park (struct wire_conn). */
static bool parks(const struct wire_conn *w)
{
    if (!w->park_at || w->eof || w->failed || framing_scan_mid_head(&w->scan) ||
        framing_scan_stopped(&w->scan))
        return false;
    return mono_coarse_ms() >= w->park_at;
}

/* @fd (of @w, or NULL) is shut down @how: over TLS, close_notify first
 * (once; not waiting for the client's). */
static int shut(int fd, struct wire_conn *w, int how)
{
    if (w && w->ssl && !w->closing && how != SHUT_RD) {
        w->closing = true;
        ERR_clear_error();
        (void)SSL_shutdown(w->ssl);
        ERR_clear_error();
    }
    return shutdown(fd, how);
}

/*
 * libmicrohttpd's shutdown after its last response; none when the close
 * is a park (struct wire_conn).
 */
int wire_shutdown(int fd, int how)
{
    struct wire_conn *w = lookup(fd);

    if (w && !w->parked && parks(w)) {
        w->parked = true;
        return 0;
    }
    return shut(fd, w, how);
}

void wire_unpark(int fd, struct wire_conn *w)
{
    w->parked = false;
    w->park_at = 0;
    (void)shut(fd, w, SHUT_WR);
}
