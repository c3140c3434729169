/* SPDX-License-Identifier: MIT */
/*
 * body.h - a reply's file body read into memory, the same for every
 * transport that copies it (HTTP/2's DATA frames, libmicrohttpd's
 * multipart callback and its small bodies sent with the headers). A body
 * sent by sendfile is not read here: the kernel, or the byte tap over TLS
 * (h1/wire.c), copies it.
 */
#ifndef BENEATH_TRANSPORT_CONN_BODY_H
#define BENEATH_TRANSPORT_CONN_BODY_H

#include "http/multipart.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * body_pread - @n bytes of a body from its offset @pos into @dst: the bytes
 * of file @fd from @offset, or, with @mp, the multipart/byteranges body it
 * plans over @fd (@offset unused).
 *
 * Returns the bytes read: @n, or fewer only where a multipart body ends;
 * or -1 when the file ended before its size (*@short_file set: changed
 * while served) or a read failed.
 */
ssize_t body_pread(int fd, uint64_t offset, const struct multipart *mp,
                   uint64_t pos, char *dst, size_t n, bool *short_file);

#endif
