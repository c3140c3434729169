// SPDX-License-Identifier: MIT
/*
 * byteranges.c - stream a multipart/byteranges body (byteranges.h): the
 * writer in http/multipart.c says what comes next, this file reads the
 * file's part of it with pread.
 */
#include "transport/h1/byteranges.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct body {
    int fd;
    struct multipart m;
};

static ssize_t body_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct body *b = cls;
    size_t done = 0;

    while (done < max) {
        uint64_t off;
        size_t want;
        size_t n = multipart_step(&b->m, pos + done, buf + done, max - done,
                                  &off, &want);
        ssize_t got;

        if (n > 0) {
            done += n;
            continue;
        }
        if (want == 0)
            break; /* the end of the body */
        do
            got = pread(b->fd, buf + done, want, (off_t)off);
        while (got < 0 && errno == EINTR);
        /* Shorter than promised (truncated meanwhile): end the connection. */
        if (got <= 0)
            return MHD_CONTENT_READER_END_WITH_ERROR;
        done += (size_t)got;
    }
    return done > 0 ? (ssize_t)done : MHD_CONTENT_READER_END_OF_STREAM;
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
