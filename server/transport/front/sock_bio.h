/* SPDX-License-Identifier: MIT */
/*
 * sock_bio.h - the BIO under every SSL the front makes: a non-blocking
 * socket read with recvfrom and written with sendto, that says whether
 * its last read left the socket empty. The SSL keeps it when its
 * connection goes on: an HTTP/2 session on the front's loop (h2_io.c), or
 * libmicrohttpd through the byte tap (wire.c), whose TLS reads go on until
 * the socket is empty (struct sock_io's @drained).
 */
#ifndef BENEATH_TRANSPORT_FRONT_SOCK_BIO_H
#define BENEATH_TRANSPORT_FRONT_SOCK_BIO_H

#include <openssl/bio.h>
#include <stdbool.h>

/*
 * struct sock_io - the socket under an SSL (sock_bio): whether the last
 * read left the socket empty (a short read), so a reader knows when to
 * wait for the next readiness event.
 */
struct sock_io {
    int fd;
    bool drained;
};

/*
 * sock_bio - a BIO for an SSL over the socket of @io (borrowed: it must
 * outlive the BIO): plain recvfrom/sendto, recording in @io->drained
 * whether a read emptied the socket. NULL when out of memory.
 */
BIO *sock_bio(struct sock_io *io);

#endif
