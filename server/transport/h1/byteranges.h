/* SPDX-License-Identifier: MIT */
/*
 * byteranges.h - a multipart/byteranges body as a libmicrohttpd response.
 *
 * The body is written by http/multipart.c in steps and the file's bytes are
 * read with pread into libmicrohttpd's response buffer, BYTERANGES_BLOCK
 * bytes at a time: memory per response is that buffer and a few hundred
 * bytes of state, whatever the file or range sizes. No sendfile (the parts
 * are interleaved with delimiter text), on HTTP and HTTPS alike.
 */
#ifndef BENEATH_TRANSPORT_H1_BYTERANGES_H
#define BENEATH_TRANSPORT_H1_BYTERANGES_H

#include "http/multipart.h"

#include <microhttpd.h>

#define BYTERANGES_BLOCK ((size_t)64 * 1024)

/*
 * byteranges_response - a response of @m->total bytes: the body @m plans,
 * with the file bytes read from @fd (opened for reading, blocking reads).
 * On success the response owns @fd and closes it when destroyed; on
 * failure (NULL, out of memory) @fd is untouched and still the caller's.
 * A file that comes up short while sent (truncated meanwhile) ends the
 * connection rather than send a wrong body.
 */
struct MHD_Response *byteranges_response(int fd, const struct multipart *m);

#endif
