// SPDX-License-Identifier: MIT
/*
 * reply_mhd.c - a reply's wire form for HTTP/1.1: a libmicrohttpd
 * response by the body's source (bytes, a file's range by sendfile, which
 * the tap turns into TLS records on HTTPS, the parts of a
 * multipart/byteranges body), with the reply's fields; libmicrohttpd adds
 * the framing ones.
 *
 * A reply with no body to send (HEAD, 304) is queued with a response of
 * the body's length whose content is never read: libmicrohttpd sends the
 * response's size as Content-Length even for a 304 and a HEAD, and RFC 9110
 * 8.6 allows only the length a 200 would have had. A body made while it is
 * sent (a file compressed as it goes) has no length before its end: its
 * response has an unknown size, which libmicrohttpd sends chunked, and so
 * does its HEAD or 304, which then carries no Content-Length.
 */
#include "transport/h1/reply_mhd.h"

#include "respond/reply_cache.h"
#include "transport/conn/body.h"
#include "transport/conn/date_cache.h"
#include "transport/h1/byteranges.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Never called: the body of a HEAD or a 304 is not sent. */
static ssize_t no_body(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)cls;
    (void)pos;
    (void)buf;
    (void)max;
    return MHD_CONTENT_READER_END_WITH_ERROR;
}

/* A body made while it is sent: libmicrohttpd pulls it block by block. */
static ssize_t stream_body(void *cls, uint64_t pos, char *buf, size_t max)
{
    const struct reply_stream *st = cls;
    ssize_t n = st->read(st->arg, buf, max);

    (void)pos;
    if (n > 0)
        return n;
    return n == 0 ? MHD_CONTENT_READER_END_OF_STREAM
                  : MHD_CONTENT_READER_END_WITH_ERROR;
}

static void stream_done(void *cls)
{
    struct reply_stream *st = cls;

    st->close(st->arg);
    free(st);
}

/*
 * A small file's bytes from memory: the whole range read at once, so that
 * libmicrohttpd sends headers and body in one system call instead of a
 * header send plus a sendfile (each send wakes the client). NULL when the
 * read comes up short (the file changed since the fstat) or fails: the
 * caller then sends from the fd.
 */
static struct MHD_Response *small_body(int fd, uint64_t start, uint64_t len)
{
    struct MHD_Response *resp;
    char *buf = malloc((size_t)len);
    bool short_file = false;

    if (!buf)
        return NULL;
    if (body_pread(fd, start, NULL, 0, buf, (size_t)len, &short_file) !=
        (ssize_t)len) {
        free(buf);
        return NULL;
    }
    resp = MHD_create_response_from_buffer((size_t)len, buf,
                                           MHD_RESPMEM_MUST_FREE);
    if (!resp)
        free(buf);
    return resp;
}

/* The response of @r's body; what it takes over is cleared in @r. */
static struct MHD_Response *make(struct reply *r)
{
    struct MHD_Response *resp = NULL;

    switch (r->body) {
    case REPLY_BODY_NONE:
        if (r->length == 0)
            return MHD_create_response_from_buffer(0, NULL,
                                                   MHD_RESPMEM_PERSISTENT);
        if (r->length != REPLY_LENGTH_UNKNOWN)
            return MHD_create_response_from_callback(r->length, 4096, no_body,
                                                     NULL, NULL);
        /*
         * No length to say (a HEAD or 304 of a body made while sent):
         * 0.9.75 would frame it chunked and send the last chunk although
         * the body is not sent, which the client would read as the start
         * of the next response. Without chunking and with the connection
         * closed after it, there is neither a length nor a stray chunk.
         */
        resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096,
                                                 no_body, NULL, NULL);
        if (resp &&
            MHD_set_response_options(resp, MHD_RF_HTTP_1_0_COMPATIBLE_STRICT,
                                     MHD_RO_END) != MHD_YES) {
            MHD_destroy_response(resp);
            resp = NULL;
        }
        return resp;
    case REPLY_BODY_BYTES:
        if (!r->release)
            return MHD_create_response_from_buffer((size_t)r->length,
                                                   (void *)(uintptr_t)r->data,
                                                   MHD_RESPMEM_MUST_COPY);
        resp = MHD_create_response_from_buffer_with_free_callback_cls(
            (size_t)r->length, (void *)(uintptr_t)r->data, r->release,
            r->release_arg);
        if (resp)
            r->release = NULL; /* the response releases it now */
        return resp;
    case REPLY_BODY_FD:
        if (r->length == 0)
            return MHD_create_response_from_buffer(0, NULL,
                                                   MHD_RESPMEM_PERSISTENT);
        if (r->length <= REPLY_MHD_SMALL_MAX) {
            resp = small_body(r->fd, r->offset, r->length);
            if (resp)
                return resp;
        }
        /* on HTTPS too: the tap reads it into TLS records (wire.c) */
        resp = MHD_create_response_from_fd_at_offset64(r->length, r->fd,
                                                       (int64_t)r->offset);
        if (resp)
            r->fd = -1; /* the response owns it now */
        return resp;
    case REPLY_BODY_MULTIPART:
        resp = byteranges_response(r->fd, r->mp);
        if (resp)
            r->fd = -1;
        return resp;
    case REPLY_BODY_STREAM: {
        /* unknown size: chunked for HTTP/1.1, to the close for 1.0 */
        struct reply_stream *st = malloc(sizeof *st);

        if (!st)
            return NULL;
        *st = r->stream;
        resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN,
                                                 REPLY_MHD_STREAM_BLOCK,
                                                 stream_body, st, stream_done);
        if (!resp) {
            free(st);
            return NULL;
        }
        r->stream = (struct reply_stream){0}; /* the response closes it */
        return resp;
    }
    }
    return NULL;
}

/*
 * Give a kept response the Date of this second, formatted once a second
 * per thread (libmicrohttpd sends its own, formatted per response, only
 * when a response has none). Safe while the response waits queued on
 * another connection of this thread: libmicrohttpd copies the headers when
 * it sends them, on this thread.
 */
static void stamp(struct reply_wire *w)
{
    time_t now = time(NULL);

    if (w->date == now)
        return;
    /* It replaces the Date before (or, failing, leaves none). */
    w->date = MHD_add_response_header(w->wire, MHD_HTTP_HEADER_DATE,
                                      date_cache_text(now)) == MHD_YES
                  ? now
                  : 0;
}

static void wire_drop(void *resp)
{
    MHD_destroy_response(resp);
}

enum MHD_Result reply_queue(struct MHD_Connection *mc, struct reply *r,
                            bool close)
{
    struct MHD_Response *resp;
    enum MHD_Result ret;
    /* a whole kept 200: its response may be kept beside it (not one that
     * closes its connection) */
    bool keep = r->wire && r->cached && r->body == REPLY_BODY_BYTES &&
                !r->head && !close;

    if (r->wire && r->wire->wire && !close) {
        stamp(r->wire);
        return MHD_queue_response(mc, r->status, r->wire->wire);
    }
    resp = make(r);
    if (!resp)
        return MHD_NO;
    for (size_t i = 0; i < r->n_fields; i++)
        MHD_add_response_header(resp, r->field[i].name, r->field[i].value);
    if (close)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
    if (keep) {
        /* the slot holds our reference from now on */
        r->wire->wire = resp;
        r->wire->drop = wire_drop;
        stamp(r->wire);
    }
    ret = MHD_queue_response(mc, r->status, resp);
    if (!keep)
        MHD_destroy_response(resp);
    return ret;
}
