/* SPDX-License-Identifier: MIT */
/*
 * range.h - the Range and If-Range request headers (RFC 9110 14.2, 13.1.5).
 *
 * Policy: one byte range is served as 206; a request for several ranges is
 * answered with 200 and the whole file (allowed by RFC 9110 14.2: a server
 * may ignore Range), which keeps every body on sendfile.
 */
#ifndef RANGE_H
#define RANGE_H

#include <stdint.h>
#include <time.h>

enum range_result {
    RANGE_NONE,          /* no usable Range: send the whole file, 200 */
    RANGE_SINGLE,        /* one satisfiable range: 206 */
    RANGE_UNSATISFIABLE, /* 416 with Content-Range: bytes * / SIZE */
};

/*
 * range_parse - parse the Range field value @hdr for a file of @size bytes.
 * "bytes=A-B", "bytes=A-" and "bytes=-N" (suffix); spaces around the range
 * are allowed. On RANGE_SINGLE, @start and @len describe the bytes to send
 * (@len > 0). A syntax error, another unit or several ranges give RANGE_NONE.
 */
enum range_result range_parse(const char *hdr, uint64_t size, uint64_t *start,
                              uint64_t *len);

/*
 * range_if_range - whether a Range request may be honoured given the
 * If-Range field value @if_range (NULL: no If-Range), the file's @etag and
 * @mtime. An entity-tag must match strongly; a date must equal Last-Modified.
 */
int range_if_range(const char *if_range, const char *etag, time_t mtime);

#endif
