/* SPDX-License-Identifier: MIT */
/*
 * reply_mhd.h - a struct reply (respond/reply.h) as a libmicrohttpd
 * response, queued.
 */
#ifndef BENEATH_TRANSPORT_H1_REPLY_MHD_H
#define BENEATH_TRANSPORT_H1_REPLY_MHD_H

#include "respond/reply.h"

#include <microhttpd.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * Bodies up to this size (a GET's 200 or 206 from a file) are read into
 * memory and sent with the headers in one write; larger ones go by
 * sendfile.
 */
#define REPLY_MHD_SMALL_MAX ((uint64_t)64 * 1024)
/* Bytes of a body made while it is sent that libmicrohttpd asks for at
 * once: one chunk. */
#define REPLY_MHD_STREAM_BLOCK ((size_t)32 * 1024)

/*
 * reply_queue - queue @r on @mc: its status, fields and body (on HTTPS
 * too: the tap turns sendfile into TLS records, wire.h). What the body
 * holds moves into the response where it can (the fd, the bytes'
 * release); the caller still calls reply_release. A reply from the reply
 * cache is queued as the wire form kept beside its entry, made and kept
 * there the first time. @close: the connection ends after this reply
 * (Connection: close; never the kept wire form, which others share).
 *
 * Returns MHD_queue_response's result (MHD_NO when not even the response
 * could be made: libmicrohttpd then closes the connection).
 */
enum MHD_Result reply_queue(struct MHD_Connection *mc, struct reply *r,
                            bool close);

#endif
