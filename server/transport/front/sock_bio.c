// SPDX-License-Identifier: MIT
/*
 * sock_bio.c - the socket BIO under the front's SSLs (sock_bio.h): one
 * BIO_METHOD for the process, made on first use.
 */
#include "transport/front/sock_bio.h"

#include <errno.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/types.h>

static BIO_METHOD *bio_method;
static pthread_once_t bio_once = PTHREAD_ONCE_INIT;

static int bio_read(BIO *b, char *buf, int len)
{
    struct sock_io *io = BIO_get_data(b);
    ssize_t n = recvfrom(io->fd, buf, (size_t)len, 0, NULL, NULL);

    BIO_clear_retry_flags(b);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
            BIO_set_retry_read(b);
            io->drained = true;
        }
        return -1;
    }
    if (n == 0)
        BIO_set_flags(b, BIO_FLAGS_IN_EOF);
    /* a stream socket that gave less than asked is empty now */
    if (n < len)
        io->drained = true;
    return (int)n;
}

static int bio_write(BIO *b, const char *buf, int len)
{
    struct sock_io *io = BIO_get_data(b);
    ssize_t n = sendto(io->fd, buf, (size_t)len, MSG_NOSIGNAL, NULL, 0);

    BIO_clear_retry_flags(b);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        BIO_set_retry_write(b);
    return (int)n;
}

static long bio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
    (void)num;
    (void)ptr;
    switch (cmd) {
    case BIO_CTRL_FLUSH:
        return 1;
    case BIO_CTRL_EOF:
        /* OpenSSL tells an end of stream from an error by it */
        return BIO_test_flags(b, BIO_FLAGS_IN_EOF) != 0;
    default:
        return 0;
    }
}

static int bio_create(BIO *b)
{
    BIO_set_init(b, 1);
    return 1;
}

static void bio_method_make(void)
{
    BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK |
                                     BIO_TYPE_DESCRIPTOR,
                                 "beneath socket");

    if (m && BIO_meth_set_read(m, bio_read) == 1 &&
        BIO_meth_set_write(m, bio_write) == 1 &&
        BIO_meth_set_ctrl(m, bio_ctrl) == 1 &&
        BIO_meth_set_create(m, bio_create) == 1) {
        bio_method = m;
        return;
    }
    BIO_meth_free(m);
}

BIO *sock_bio(struct sock_io *io)
{
    BIO *b;

    pthread_once(&bio_once, bio_method_make);
    if (!bio_method || !(b = BIO_new(bio_method)))
        return NULL;
    BIO_set_data(b, io);
    return b;
}
