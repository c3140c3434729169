// SPDX-License-Identifier: MIT
/*
 * h2_io.c - an HTTP/2 session's bytes through a socket or an SSL
 * (h2_io.h).
 */
#include "transport/h2/h2_io.h"

#include "transport/front/tls_front.h"

#include <errno.h>
#include <limits.h>
#include <openssl/err.h>
#include <sys/socket.h>

static ssize_t socket_read(void *arg, void *buf, size_t len)
{
    ssize_t n;

    do
        n = recv(*(int *)arg, buf, len, MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    if (n >= 0)
        return n;
    return errno == EWOULDBLOCK ? -EAGAIN : -errno;
}

static ssize_t socket_write(void *arg, const void *buf, size_t len)
{
    ssize_t n;

    do
        n = send(*(int *)arg, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n >= 0)
        return n;
    return errno == EWOULDBLOCK ? -EAGAIN : -errno;
}

struct h2_io h2_io_socket(int *fd)
{
    return (struct h2_io){socket_read, socket_write, fd};
}

/* An SSL_read or SSL_write of @t that returned @r <= 0, as h2_io says. */
static ssize_t tls_fail(struct h2_tls *t, int r, bool reading)
{
    int e = SSL_get_error(t->ssl, r);

    tls_front_err_clear();
    if (e == SSL_ERROR_WANT_READ)
        return -EAGAIN;
    if (e == SSL_ERROR_WANT_WRITE) {
        if (reading)
            t->want_write = true;
        return -EAGAIN;
    }
    if (e == SSL_ERROR_ZERO_RETURN)
        return reading ? 0 : -EPIPE; /* the client's close_notify */
    /* a bad record, an alert, a reset: the connection is over */
    return -ECONNRESET;
}

static ssize_t tls_read(void *arg, void *buf, size_t len)
{
    struct h2_tls *t = arg;
    int k;

    t->want_write = false;
    tls_front_err_clear();
    k = SSL_read(t->ssl, buf, len < INT_MAX ? (int)len : INT_MAX);
    return k > 0 ? k : tls_fail(t, k, true);
}

/*
 * One SSL_write: with SSL_MODE_ENABLE_PARTIAL_WRITE (the front's contexts)
 * a count of whole records; after WANT_WRITE the session offers the same
 * bytes again, perhaps from a moved buffer
 * (SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER).
 */
static ssize_t tls_write(void *arg, const void *buf, size_t len)
{
    struct h2_tls *t = arg;
    int k;

    tls_front_err_clear();
    k = SSL_write(t->ssl, buf, len < INT_MAX ? (int)len : INT_MAX);
    return k > 0 ? k : tls_fail(t, k, false);
}

struct h2_io h2_io_tls(struct h2_tls *t)
{
    return (struct h2_io){tls_read, tls_write, t};
}
