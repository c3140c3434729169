/* SPDX-License-Identifier: MIT */
/*
 * range.h - the Range and If-Range request headers (RFC 9110 14.2, 13.1.5).
 *
 * Policy: one satisfiable byte range is served as 206 with Content-Range;
 * several become one multipart/byteranges 206 (multipart.h writes it).
 * Before that, the ranges are sorted and coalesced: ranges that overlap,
 * touch or lie less than RANGE_GAP bytes apart become one (RFC 9110
 * 15.3.7.2 allows it whatever the order they came in). The parts keep the
 * order in which the client first asked for them.
 *
 * The defences servers added after CVE-2011-3192 ("Apache Killer", many
 * overlapping ranges each costing a part): a Range field is ignored, and
 * the whole file sent with 200 (RFC 9110 14.2: a server may ignore Range),
 * when it holds more than RANGE_MAX_SPECS range-specs, when more than
 * RANGE_MAX_PARTS parts remain after coalescing, or when the satisfiable
 * ranges add up to more bytes than the file has (as nginx does). So a
 * multipart body is never larger than the file plus RANGE_MAX_PARTS part
 * headers, and parsing is linear in the field's length.
 */
#ifndef BENEATH_HTTP_RANGE_H
#define BENEATH_HTTP_RANGE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Range-specs read from one Range field; more: the field is ignored. */
#define RANGE_MAX_SPECS 128
/* Parts of one response after coalescing; more: the field is ignored. */
#define RANGE_MAX_PARTS 16
/* Ranges closer than this many bytes are merged into one part. */
#define RANGE_GAP 8

enum range_result {
    RANGE_NONE,          /* no usable Range: send the whole file, 200 */
    RANGE_SINGLE,        /* one satisfiable range: 206 */
    RANGE_UNSATISFIABLE, /* 416 with Content-Range: bytes * / SIZE */
    RANGE_MULTI,         /* 2..RANGE_MAX_PARTS parts: multipart 206 */
};

/* Bytes [start, start + len) of the file; len > 0. */
struct range_part {
    uint64_t start;
    uint64_t len;
};

struct range_set {
    size_t n;
    struct range_part v[RANGE_MAX_PARTS];
};

/*
 * range_plan - parse the Range field value @hdr for a file of @size bytes
 * into the parts to send, in @out (n parts on RANGE_SINGLE and RANGE_MULTI,
 * else n = 0). Specs are "A-B", "A-" and "-N" (suffix), comma-separated,
 * empty list elements and whitespace around elements allowed. A syntax
 * error anywhere, another unit or a bound above give RANGE_NONE; valid
 * specs of which none is satisfiable (all start at or past @size, or a
 * suffix of 0) give RANGE_UNSATISFIABLE; unsatisfiable specs beside
 * satisfiable ones are left out.
 */
enum range_result range_plan(const char *hdr, uint64_t size,
                             struct range_set *out);

/*
 * range_parse - range_plan for callers that send one range only: on
 * RANGE_SINGLE, @start and @len describe the bytes to send; a set that
 * needs several parts gives RANGE_NONE (the whole file).
 */
enum range_result range_parse(const char *hdr, uint64_t size, uint64_t *start,
                              uint64_t *len);

/*
 * range_if_range - whether a Range request may be honoured given the
 * If-Range field value @if_range (NULL: no If-Range), the file's @etag and
 * @mtime. An entity-tag must match strongly; a date must equal Last-Modified.
 */
int range_if_range(const char *if_range, const char *etag, time_t mtime);

/* range_if_range_any - range_if_range with @n current strong tags @etags. */
int range_if_range_any(const char *if_range, const char *const *etags, size_t n,
                       time_t mtime);

#endif
