/* SPDX-License-Identifier: MIT */
/*
 * metrics.h - request and resolver counters, rendered as Prometheus text.
 *
 * Workers update the counters with relaxed C11 atomics (no lock, no
 * allocation on the request path); --metrics PATH renders them. A render is
 * not a snapshot across counters, but each histogram's _count is the sum of
 * its own buckets as read, so "+Inf" bucket == _count always holds.
 *
 * Families (all names prefixed beneath_):
 *   http_requests_total{class="2xx",code="200",proto="h2"}
 *                                                  counter; proto: http/1.0,
 *                                                  http/1.1, h2
 *   http_request_duration_seconds{class="2xx",backend="kernel"}
 *                                                  histogram: headers complete
 *                                                  to response queued; backend
 *                                                  "none" when no path was
 *                                                  resolved
 *   http_sent_bytes_total                          counter (body bytes)
 *   http_sent_coded_bytes_total{coding="br"}       counter: body bytes by
 *                                                  content coding (identity,
 *                                                  br, zstd, gzip, other)
 *   http_refusals_total{errno="EXDEV"}             counter: responses that
 *                                                  answer an errno (403, 404,
 *                                                  500 from the resolver)
 *   open_connections                               gauge
 *   parked_connections                             gauge: HTTP/1.1 keep-alive
 *                                                  connections waiting in the
 *                                                  front for their next request
 *                                                  (libmicrohttpd let them go
 *                                                  after 1 s)
 *   tls_handshakes_total{result="ok"|"failed"}     counter, counted when the
 *                                                  connection closes
 *   cache_requests_total{cache="etag",result="hit"} counter: each cache
 *                                                  metrics_add_cache names
 *                                                  (etag, directory, ...)
 *   access_log_dropped_total                       counter: lines the log's
 *                                                  buffer had no room for
 *   resolver_errors_total{errno="EXDEV"}           counter; EXDEV and ELOOP are
 *                                                  confinement refusals
 *   resolver_duration_seconds{backend="kernel"}    histogram, per backend
 *                                                  (kernel, emulated, lexical)
 *   refused_total{reason="address"}                counter: connections closed
 *                                                  at accept by --allow/--deny
 *   refused_total{reason="forwarded"}              counter: requests refused
 *                                                  for the client behind a
 *                                                  --trusted-proxy
 *   refused_total{reason="auth"}                   counter: 401 answers
 *   auth_failures_total                            counter: 401 answers to
 *                                                  wrong or missing credentials
 *   reply_cache_total{result="hit"}                counter; "kept": responses
 *                                                  put into the reply cache
 */
#ifndef BENEATH_OBSERVE_METRICS_H
#define BENEATH_OBSERVE_METRICS_H

#include "http/request.h"
#include "resolver.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Status codes 100..599 are counted one by one; anything else as code 0. */
#define METRICS_MAX_STATUS 600
/* errnos 1..METRICS_MAX_ERRNO-1 by name; larger ones together as "other". */
#define METRICS_MAX_ERRNO 134
/* Upper bounds, in ns; the last bucket is +Inf. */
#define METRICS_N_BUCKETS 16
#define METRICS_N_BACKENDS 3 /* kernel, emulated, lexical */
/* Request histograms: 1xx..5xx and other; the backends and "none". */
#define METRICS_N_CLASSES 6
#define METRICS_N_REQ_BACKENDS (METRICS_N_BACKENDS + 1)
/* Content codings of sent bytes: identity, br, zstd, gzip, other. */
#define METRICS_N_CODINGS 5
/* Caches that metrics_add_cache may register. */
#define METRICS_MAX_CACHES 6

/*
 * A cache's counters, read when metrics are rendered (from any thread: the
 * reader must be thread-safe). @arg is the one given to metrics_add_cache.
 */
typedef void metrics_cache_fn(void *arg, uint64_t *hits, uint64_t *misses);

/*
 * Certificate number @i's name and seconds left (negative: expired): true
 * with them, false when @i has none yet (no sample); *@more is false past
 * the last one. Called when metrics are rendered, from any thread.
 */
typedef bool metrics_expiry_fn(void *arg, size_t i, char *name, size_t size,
                               long long *seconds, bool *more);

struct metrics_histogram {
    _Atomic uint64_t bucket[METRICS_N_BUCKETS]; /* not cumulative */
    _Atomic uint64_t sum_ns;
};

struct metrics {
    _Atomic uint64_t status[HTTP_VERSION_N][METRICS_MAX_STATUS];
    _Atomic uint64_t sent_bytes;
    _Atomic uint64_t resolve_errors[METRICS_MAX_ERRNO + 1];
    struct metrics_histogram resolve[METRICS_N_BACKENDS];
    _Atomic uint64_t refused_address;   /* connections, at accept */
    _Atomic uint64_t refused_forwarded; /* requests via a trusted proxy */
    _Atomic uint64_t auth_failures;     /* 401 answers */
    _Atomic uint64_t reply_hits, reply_kept;
    struct metrics_histogram request[METRICS_N_CLASSES][METRICS_N_REQ_BACKENDS];
    _Atomic uint64_t coded_bytes[METRICS_N_CODINGS];
    _Atomic uint64_t refusals[METRICS_MAX_ERRNO + 1]; /* by res errno */
    _Atomic uint64_t open_connections;   /* up and down: wraps, read signed */
    _Atomic uint64_t parked_connections; /* the same */
    _Atomic uint64_t tls_ok, tls_failed;
    _Atomic uint64_t dir_hits, dir_misses; /* resolver directory caches */
    _Atomic uint64_t log_dropped;          /* access log lines */
    /* caches rendered as cache_requests_total; set before serving */
    struct {
        const char *name;
        metrics_cache_fn *read;
        void *arg;
    } caches[METRICS_MAX_CACHES];
    size_t n_caches;
    /* beneath_tls_certificate_expiry_seconds{name}; set before serving */
    metrics_expiry_fn *expiry;
    void *expiry_arg;
};

/* metrics_init - set every counter of @m to 0 (static storage is already). */
void metrics_init(struct metrics *m);

/* metrics_count_response - one response with @status and @bytes of body,
 * to a request in protocol @v. */
void metrics_count_response(struct metrics *m, enum http_version v,
                            unsigned status, uint64_t bytes);

/*
 * metrics_count_request - one response (metrics_count_response) that took
 * @ns from complete headers to its last byte written (or its abort),
 * answered by @backend (DEFAULT: no path resolved), with @bytes of its body
 * written in content coding @coding (NULL: identity) and, when it answers
 * an errno, @err (else 0).
 */
void metrics_count_request(struct metrics *m, enum http_version v,
                           unsigned status, uint64_t bytes,
                           enum resolver_backend backend, uint64_t ns,
                           const char *coding, int err);

/* metrics_count_connection - a connection opened (@open) or closed. */
void metrics_count_connection(struct metrics *m, bool open);

/* metrics_count_parked - a connection came to wait in the front (@in), or
 * left it. */
void metrics_count_parked(struct metrics *m, bool in);

/* metrics_count_tls - a TLS connection closed, its handshake @done or not. */
void metrics_count_tls(struct metrics *m, bool done);

/* metrics_count_dir_cache - directories a request found in, or had to open
 * past, the resolver's directory cache. */
void metrics_count_dir_cache(struct metrics *m, uint64_t hits, uint64_t misses);

/*
 * metrics_add_cache - render the counters @read gives for cache @name
 * (static string; "etag", "directory", "compress") as
 * beneath_cache_requests_total. Called before serving, from one thread.
 *
 * Returns 0, or -ENOSPC past METRICS_MAX_CACHES.
 */
int metrics_add_cache(struct metrics *m, const char *name,
                      metrics_cache_fn *read, void *arg);

/*
 * metrics_set_expiry - render what @fn gives for each certificate as
 * beneath_tls_certificate_expiry_seconds{name="..."}. Called before
 * serving, from one thread.
 */
void metrics_set_expiry(struct metrics *m, metrics_expiry_fn *fn, void *arg);

/*
 * metrics_count_resolve - one resolver_open_how call that took @ns and was
 * answered by @backend (KERNEL, EMULATED or LEXICAL; others are ignored),
 * with result @ret (an fd, or -errno: counted by name).
 */
void metrics_count_resolve(struct metrics *m, enum resolver_backend backend,
                           uint64_t ns, int ret);

/* metrics_count - add one to @counter (one of the access counters). */
void metrics_count(_Atomic uint64_t *counter);
/*
 * metrics_count_reply - a response answered from the reply cache (@hit), or
 * one put into it.
 */
void metrics_count_reply(struct metrics *m, bool hit);

/*
 * metrics_render - write the Prometheus text format (version 0.0.4) into
 * @buf of @size bytes, NUL-terminated when @size > 0.
 *
 * Returns the length the whole text needs (like snprintf).
 */
size_t metrics_render(const struct metrics *m, char *buf, size_t size);

/*
 * metrics_render_alloc - metrics_render into a new buffer owned by the
 * caller (free(3)); its length goes to @len.
 *
 * Returns the buffer, or NULL with errno ENOMEM.
 */
char *metrics_render_alloc(const struct metrics *m, size_t *len);

#endif
