// SPDX-License-Identifier: MIT
/*
 * byteranges.c - stream a multipart/byteranges body (byteranges.h): the
 * writer in http/multipart.c says what comes next, transport/conn/body.c
 * reads it, libmicrohttpd pulls it block by block.
 */
#include "transport/h1/byteranges.h"

#include "transport/conn/body.h"

#include <stdlib.h>
#include <unistd.h>

struct body {
    int fd;
    struct multipart m;
};

static ssize_t body_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct body *b = cls;
    bool short_file = false;
    ssize_t done = body_pread(b->fd, 0, &b->m, pos, buf, max, &short_file);

    /* Shorter than promised (truncated meanwhile): end the connection. */
    if (done < 0)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    return done > 0 ? done : MHD_CONTENT_READER_END_OF_STREAM;
}

static void body_free(void *cls)
{
    struct body *b = cls;

    close(b->fd);
    free(b);
}

struct MHD_Response *byteranges_response(int fd, const struct multipart *m)
{
    struct body *b = malloc(sizeof *b);
    struct MHD_Response *r;

    if (!b)
        return NULL;
    b->fd = fd;
    b->m = *m;
    r = MHD_create_response_from_callback(m->total, BYTERANGES_BLOCK, body_read,
                                          b, body_free);
    if (!r)
        free(b);
    return r;
}
