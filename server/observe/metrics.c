/* SPDX-License-Identifier: MIT */
/*
 * metrics.c - lock-free counters and their Prometheus rendering.
 *
 * The resolver's buckets are chosen for a path resolution, which takes
 * microseconds: Prometheus' default buckets (5 ms .. 10 s) would put every
 * resolution in the first one and show nothing. A request's buckets start
 * at 100 us (a small file from memory) and end at 5 s.
 */
#include "observe/metrics.h"

#include "common/elems.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "64-bit atomics must be lock-free");

/* Bucket upper bounds in ns, inclusive; the last is +Inf. */
static const uint64_t buckets[METRICS_N_BUCKETS] = {
    1000,     2500,     5000,      10000,      25000,   50000,
    100000,   250000,   500000,    1000000,    2500000, 5000000,
    10000000, 25000000, 100000000, UINT64_MAX,
};

static const uint64_t req_buckets[METRICS_N_BUCKETS] = {
    100000,     250000,     500000,     1000000,    2500000,   5000000,
    10000000,   25000000,   50000000,   100000000,  250000000, 500000000,
    1000000000, 2500000000, 5000000000, UINT64_MAX,
};

static const char *const classes[METRICS_N_CLASSES] = {"1xx", "2xx", "3xx",
                                                       "4xx", "5xx", "other"};

static const char *const codings[METRICS_N_CODINGS] = {"identity", "br", "zstd",
                                                       "gzip", "other"};

static const enum resolver_backend backends[METRICS_N_BACKENDS] = {
    RESOLVER_BACKEND_KERNEL,
    RESOLVER_BACKEND_EMULATED,
    RESOLVER_BACKEND_LEXICAL,
};

static void zero(_Atomic uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        atomic_init(&v[i], 0);
}

void metrics_init(struct metrics *m)
{
    for (size_t v = 0; v < HTTP_VERSION_N; v++)
        zero(m->status[v], N_ELEMS(m->status[v]));
    atomic_init(&m->sent_bytes, 0);
    zero(m->resolve_errors, N_ELEMS(m->resolve_errors));
    for (size_t b = 0; b < METRICS_N_BACKENDS; b++) {
        zero(m->resolve[b].bucket, METRICS_N_BUCKETS);
        atomic_init(&m->resolve[b].sum_ns, 0);
    }
    atomic_init(&m->refused_address, 0);
    atomic_init(&m->refused_forwarded, 0);
    atomic_init(&m->auth_failures, 0);
    atomic_init(&m->reply_hits, 0);
    atomic_init(&m->reply_kept, 0);
    for (size_t c = 0; c < METRICS_N_CLASSES; c++)
        for (size_t b = 0; b < METRICS_N_REQ_BACKENDS; b++) {
            zero(m->request[c][b].bucket, METRICS_N_BUCKETS);
            atomic_init(&m->request[c][b].sum_ns, 0);
        }
    zero(m->coded_bytes, N_ELEMS(m->coded_bytes));
    zero(m->refusals, N_ELEMS(m->refusals));
    atomic_init(&m->open_connections, 0);
    atomic_init(&m->parked_connections, 0);
    atomic_init(&m->tls_ok, 0);
    atomic_init(&m->tls_failed, 0);
    atomic_init(&m->dir_hits, 0);
    atomic_init(&m->dir_misses, 0);
    atomic_init(&m->log_dropped, 0);
    m->n_caches = 0;
}

static void add(_Atomic uint64_t *v, uint64_t n)
{
    atomic_fetch_add_explicit(v, n, memory_order_relaxed);
}

static uint64_t get(const _Atomic uint64_t *v)
{
    return atomic_load_explicit(v, memory_order_relaxed);
}

void metrics_count_response(struct metrics *m, enum http_version v,
                            unsigned status, uint64_t bytes)
{
    /*
     * Relaxed atomics order nothing across counters: a render may see a
     * response counted before its bytes. Bytes go first, which on x86-64
     * keeps the two consistent for a reader; nothing relies on it.
     */
    add(&m->sent_bytes, bytes);
    add(&m->status[v < HTTP_VERSION_N ? v : HTTP_VERSION_1_1]
                  [status >= 100 && status < METRICS_MAX_STATUS ? status : 0],
        1);
}

static size_t backend_index(enum resolver_backend backend)
{
    size_t b;

    for (b = 0; b < METRICS_N_BACKENDS && backends[b] != backend; b++)
        ;
    return b; /* METRICS_N_BACKENDS: none */
}

static size_t coding_index(const char *coding)
{
    if (!coding)
        return 0;
    for (size_t i = 1; i < METRICS_N_CODINGS - 1; i++)
        if (strcmp(coding, codings[i]) == 0)
            return i;
    return METRICS_N_CODINGS - 1;
}

void metrics_count_request(struct metrics *m, enum http_version v,
                           unsigned status, uint64_t bytes,
                           enum resolver_backend backend, uint64_t ns,
                           const char *coding, int err)
{
    size_t cls = status >= 100 && status < 600 ? status / 100 - 1
                                               : METRICS_N_CLASSES - 1;
    struct metrics_histogram *h = &m->request[cls][backend_index(backend)];
    size_t i;

    metrics_count_response(m, v, status, bytes);
    add(&m->coded_bytes[coding_index(coding)], bytes);
    for (i = 0; ns > req_buckets[i]; i++)
        ;
    add(&h->bucket[i], 1);
    add(&h->sum_ns, ns);
    if (err > 0)
        add(&m->refusals[err < METRICS_MAX_ERRNO ? err : 0], 1);
}

/* A gauge one up (@up) or down: it wraps below 0, and is read signed. */
static void gauge_step(_Atomic uint64_t *g, bool up)
{
    if (up)
        add(g, 1);
    else
        atomic_fetch_sub_explicit(g, 1, memory_order_relaxed);
}

void metrics_count_connection(struct metrics *m, bool open)
{
    gauge_step(&m->open_connections, open);
}

void metrics_count_parked(struct metrics *m, bool in)
{
    gauge_step(&m->parked_connections, in);
}

void metrics_count_tls(struct metrics *m, bool done)
{
    add(done ? &m->tls_ok : &m->tls_failed, 1);
}

void metrics_count_dir_cache(struct metrics *m, uint64_t hits, uint64_t misses)
{
    if (hits)
        add(&m->dir_hits, hits);
    if (misses)
        add(&m->dir_misses, misses);
}

int metrics_add_cache(struct metrics *m, const char *name,
                      metrics_cache_fn *read, void *arg)
{
    if (m->n_caches == METRICS_MAX_CACHES)
        return -ENOSPC;
    m->caches[m->n_caches].name = name;
    m->caches[m->n_caches].read = read;
    m->caches[m->n_caches].arg = arg;
    m->n_caches++;
    return 0;
}

void metrics_set_expiry(struct metrics *m, metrics_expiry_fn *fn, void *arg)
{
    m->expiry = fn;
    m->expiry_arg = arg;
}

void metrics_count_reply(struct metrics *m, bool hit)
{
    add(hit ? &m->reply_hits : &m->reply_kept, 1);
}

void metrics_count_resolve(struct metrics *m, enum resolver_backend backend,
                           uint64_t ns, int ret)
{
    size_t b = backend_index(backend), i;

    if (b < METRICS_N_BACKENDS) {
        for (i = 0; ns > buckets[i]; i++)
            ;
        add(&m->resolve[b].bucket[i], 1);
        add(&m->resolve[b].sum_ns, ns);
    }
    if (ret < 0) {
        unsigned e = (unsigned)-ret;

        add(&m->resolve_errors[e < METRICS_MAX_ERRNO ? e : 0], 1);
    }
}

void metrics_count(_Atomic uint64_t *counter)
{
    add(counter, 1);
}

/* An snprintf that keeps counting past the end of the buffer. */
struct out {
    char *buf;
    size_t size;
    size_t len;
};

__attribute__((format(printf, 2, 3))) static void put(struct out *o,
                                                      const char *fmt, ...)
{
    va_list ap;
    int n;
    char *dst = o->len < o->size ? o->buf + o->len : NULL;
    size_t room = o->len < o->size ? o->size - o->len : 0;

    va_start(ap, fmt);
    /* The analyzer does not model va_start in an inlined variadic call. */
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
    n = vsnprintf(dst, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n;
}

/* The # HELP and # TYPE lines of metric @name. */
static void head(struct out *o, const char *name, const char *type,
                 const char *help)
{
    put(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One series of a counter: @name{@labels} @v, or @name @v without labels. */
static void sample(struct out *o, const char *name, const char *labels,
                   uint64_t v)
{
    if (labels)
        put(o, "%s{%s} %llu\n", name, labels, (unsigned long long)v);
    else
        put(o, "%s %llu\n", name, (unsigned long long)v);
}

/* "E%d", the name, or "other" for errno slot @e of a by-errno table. */
static const char *errno_label(int e, char buf[16])
{
    const char *name = e > 0 ? resolver_errno_name(e) : NULL;

    if (name)
        return name;
    if (e > 0) {
        snprintf(buf, 16, "E%d", e);
        return buf;
    }
    return "other";
}

static void put_seconds(struct out *o, uint64_t ns)
{
    put(o, "%llu.%09llu", (unsigned long long)(ns / 1000000000u),
        (unsigned long long)(ns % 1000000000u));
}

/* One series of histogram @name: cumulative buckets, sum and count. */
static void put_histogram(struct out *o, const char *name, const char *labels,
                          const struct metrics_histogram *h, const uint64_t *le)
{
    uint64_t cum = 0, sum = get(&h->sum_ns);

    for (size_t i = 0; i < METRICS_N_BUCKETS; i++) {
        cum += get(&h->bucket[i]);
        put(o, "%s_bucket{%s,le=\"", name, labels);
        /* seconds as Prometheus writes them: 2.5e-06, 0.0001, 5, +Inf */
        if (le[i] == UINT64_MAX)
            put(o, "+Inf");
        else
            put(o, "%g", (double)le[i] / 1e9);
        put(o, "\"} %llu\n", (unsigned long long)cum);
    }
    put(o, "%s_sum{%s} ", name, labels);
    put_seconds(o, sum);
    put(o, "\n%s_count{%s} %llu\n", name, labels, (unsigned long long)cum);
}

static void render_requests(const struct metrics *m, struct out *o)
{
    head(o, "beneath_http_requests_total", "counter",
         "HTTP responses sent, by status class and code, and protocol.");
    for (unsigned code = 0; code < METRICS_MAX_STATUS; code++)
        for (size_t p = 0; p < HTTP_VERSION_N; p++) {
            uint64_t v = get(&m->status[p][code]);
            const char *proto = request_proto_name((enum http_version)p);

            if (v == 0)
                continue;
            if (code == 0)
                put(o,
                    "beneath_http_requests_total{class=\"other\","
                    "code=\"other\",proto=\"%s\"} %llu\n",
                    proto, (unsigned long long)v);
            else
                put(o,
                    "beneath_http_requests_total{class=\"%uxx\",code=\"%u\","
                    "proto=\"%s\"} %llu\n",
                    code / 100, code, proto, (unsigned long long)v);
        }
    head(o, "beneath_http_sent_bytes_total", "counter",
         "Response body bytes written to the connections.");
    sample(o, "beneath_http_sent_bytes_total", NULL, get(&m->sent_bytes));
}

static void render_reply(const struct metrics *m, struct out *o)
{
    static const char name[] = "beneath_reply_cache_total";

    head(o, name, "counter",
         "Responses of small unchanged files answered from the reply cache "
         "(hit), and put into it (kept).");
    sample(o, name, "result=\"hit\"", get(&m->reply_hits));
    sample(o, name, "result=\"kept\"", get(&m->reply_kept));
}

/* The series of a by-errno counter table, those that are not zero. */
static void render_by_errno(struct out *o, const char *name,
                            const _Atomic uint64_t *by_errno)
{
    char e[16];

    for (int i = 0; i < METRICS_MAX_ERRNO; i++) {
        uint64_t v = get(&by_errno[i]);

        if (v)
            put(o, "%s{errno=\"%s\"} %llu\n", name, errno_label(i, e),
                (unsigned long long)v);
    }
}

static void render_errors(const struct metrics *m, struct out *o)
{
    head(o, "beneath_resolver_errors_total", "counter",
         "Resolutions that failed, by errno; EXDEV and ELOOP are confinement "
         "refusals.");
    render_by_errno(o, "beneath_resolver_errors_total", m->resolve_errors);
}

static void render_histograms(const struct metrics *m, struct out *o)
{
    char labels[64];

    head(o, "beneath_resolver_duration_seconds", "histogram",
         "Time to resolve a request path beneath the root, by backend.");
    for (size_t b = 0; b < METRICS_N_BACKENDS; b++) {
        snprintf(labels, sizeof labels, "backend=\"%s\"",
                 resolver_backend_name(backends[b]));
        put_histogram(o, "beneath_resolver_duration_seconds", labels,
                      &m->resolve[b], buckets);
    }
}

static void render_request_histograms(const struct metrics *m, struct out *o)
{
    char labels[64];

    head(o, "beneath_http_request_duration_seconds", "histogram",
         "Time from a request's complete headers to its reply's last byte "
         "written (or its abort), by status class and resolver backend "
         "(none: no path resolved).");
    for (size_t c = 0; c < METRICS_N_CLASSES; c++)
        for (size_t b = 0; b < METRICS_N_REQ_BACKENDS; b++) {
            const struct metrics_histogram *h = &m->request[c][b];
            uint64_t n = 0;

            for (size_t i = 0; i < METRICS_N_BUCKETS; i++)
                n += get(&h->bucket[i]);
            if (n == 0)
                continue; /* series appear with their first request */
            snprintf(labels, sizeof labels, "class=\"%s\",backend=\"%s\"",
                     classes[c],
                     b < METRICS_N_BACKENDS ? resolver_backend_name(backends[b])
                                            : "none");
            put_histogram(o, "beneath_http_request_duration_seconds", labels, h,
                          req_buckets);
        }
}

static void render_traffic(const struct metrics *m, struct out *o)
{
    static const char tls[] = "beneath_tls_handshakes_total";

    head(o, "beneath_http_sent_coded_bytes_total", "counter",
         "Response body bytes written to the connections, by content coding.");
    for (size_t i = 0; i < METRICS_N_CODINGS; i++)
        put(o, "beneath_http_sent_coded_bytes_total{coding=\"%s\"} %llu\n",
            codings[i], (unsigned long long)get(&m->coded_bytes[i]));
    head(o, "beneath_http_refusals_total", "counter",
         "Responses that answer an errno (403 for EXDEV/ELOOP/EACCES, 404 for "
         "ENOENT, 500), by errno.");
    render_by_errno(o, "beneath_http_refusals_total", m->refusals);
    head(o, "beneath_open_connections", "gauge", "Connections open now.");
    put(o, "beneath_open_connections %lld\n",
        (long long)get(&m->open_connections));
    head(o, "beneath_parked_connections", "gauge",
         "HTTP/1.1 keep-alive connections waiting for their next request in "
         "the front (libmicrohttpd let them go after 1 s).");
    put(o, "beneath_parked_connections %lld\n",
        (long long)get(&m->parked_connections));
    head(o, tls, "counter",
         "TLS connections closed, by whether their handshake finished.");
    sample(o, tls, "result=\"ok\"", get(&m->tls_ok));
    sample(o, tls, "result=\"failed\"", get(&m->tls_failed));
    head(o, "beneath_access_log_dropped_total", "counter",
         "Access log lines dropped: the disk or the log's reader did not keep "
         "up.");
    sample(o, "beneath_access_log_dropped_total", NULL, get(&m->log_dropped));
}

/* The hit and miss series of one cache. */
static void put_cache(struct out *o, const char *name, uint64_t hits,
                      uint64_t misses)
{
    put(o,
        "beneath_cache_requests_total{cache=\"%s\",result=\"hit\"} %llu\n"
        "beneath_cache_requests_total{cache=\"%s\",result=\"miss\"} %llu\n",
        name, (unsigned long long)hits, name, (unsigned long long)misses);
}

static void render_caches(const struct metrics *m, struct out *o)
{
    head(o, "beneath_cache_requests_total", "counter",
         "Lookups of the server's caches: etag (content hashes), directory "
         "(the resolver's emulation), and any other registered.");
    put_cache(o, "directory", get(&m->dir_hits), get(&m->dir_misses));
    for (size_t i = 0; i < m->n_caches; i++) {
        uint64_t hits = 0, misses = 0;

        m->caches[i].read(m->caches[i].arg, &hits, &misses);
        put_cache(o, m->caches[i].name, hits, misses);
    }
}

static void render_expiry(const struct metrics *m, struct out *o)
{
    static const char name[] = "beneath_tls_certificate_expiry_seconds";
    char cert[256];
    long long left;
    bool more = true;

    if (!m->expiry)
        return;
    head(o, name, "gauge",
         "Seconds until each ACME certificate expires (negative: expired); "
         "a name without a certificate yet has no sample.");
    for (size_t i = 0; more; i++)
        if (m->expiry(m->expiry_arg, i, cert, sizeof cert, &left, &more))
            put(o, "%s{name=\"%s\"} %lld\n", name, cert, left);
}

static void render_access(const struct metrics *m, struct out *o)
{
    static const char refused[] = "beneath_refused_total";

    head(o, refused, "counter",
         "Connections closed at accept by --allow/--deny (address), requests "
         "refused for the client behind a trusted proxy (forwarded), requests "
         "answered 401 (auth).");
    sample(o, refused, "reason=\"address\"", get(&m->refused_address));
    sample(o, refused, "reason=\"forwarded\"", get(&m->refused_forwarded));
    sample(o, refused, "reason=\"auth\"", get(&m->auth_failures));
    head(o, "beneath_auth_failures_total", "counter",
         "Requests answered 401: missing or wrong credentials.");
    sample(o, "beneath_auth_failures_total", NULL, get(&m->auth_failures));
}

size_t metrics_render(const struct metrics *m, char *buf, size_t size)
{
    struct out o = {.buf = buf, .size = size, .len = 0};

    if (size > 0)
        buf[0] = '\0';
    render_requests(m, &o);
    render_errors(m, &o);
    render_histograms(m, &o);
    render_access(m, &o);
    render_reply(m, &o);
    render_request_histograms(m, &o);
    render_traffic(m, &o);
    render_caches(m, &o);
    render_expiry(m, &o);
    return o.len;
}

char *metrics_render_alloc(const struct metrics *m, size_t *len)
{
    size_t cap = 8192;

    /* Counters may grow new lines between two renders: retry until it fits. */
    for (;;) {
        char *buf = malloc(cap);
        size_t n;

        if (buf == NULL) {
            errno = ENOMEM;
            return NULL;
        }
        n = metrics_render(m, buf, cap);
        if (n < cap) {
            *len = n;
            return buf;
        }
        free(buf);
        cap = n + 1024;
    }
}
