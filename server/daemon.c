// SPDX-License-Identifier: MIT
/*
 * daemon.c - libmicrohttpd glue: daemons, per-connection state, the access log
 * hook and the header watchdog.
 *
 * Per connection (NOTIFY_CONNECTION) one struct conn is allocated; every
 * request on it reuses it, so a request costs no malloc unless its strings
 * outgrow the connection's buffer. The raw request-target is captured in
 * URI_LOG_CALLBACK (libmicrohttpd's url argument is unescaped and cut at
 * %00), and the handler runs in two phases: the first call only returns
 * MHD_YES, the second queues (queuing in the first call makes 0.9.75 close
 * every connection after one response).
 *
 * Header watchdog: libmicrohttpd's timeout restarts on every byte, so a
 * client trickling its headers holds a connection forever. Each connection
 * holds a deadline for the next request's headers: header-timeout after the
 * accept, or timeout + header-timeout after the previous response (an idle
 * keep-alive connection is libmicrohttpd's inactivity timeout's business; a
 * request that starts late still gets header-timeout). The handler's first
 * call clears it; a thread shutdown()s connections past their deadline.
 * shutdown, not close: the fd stays libmicrohttpd's, which then sees EOF
 * and cleans up.
 */
#include "daemon.h"

#include "framing.h"
#include "status.h"
#include "tls.h"
#include "wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define NO_STR SIZE_MAX

struct conn {
    struct conn *prev, *next; /* in http.conns, under http.lock */
    int fd;                   /* libmicrohttpd's: only ever shutdown() */
    _Atomic int64_t deadline; /* ms to have the headers by; 0: none */
    char client[INET6_ADDRSTRLEN];
    char forwarded[INET6_ADDRSTRLEN]; /* the request's client behind a
                                         trusted proxy, or "" */
    struct wire_conn wire;            /* the raw bytes' framing (wire.c) */
    unsigned heads;          /* request heads begun on this connection */
    gnutls_session_t tls;    /* HTTPS: the session, else NULL */
    const char *tls_version; /* its version's name, once known */

    /* the current request */
    bool started;  /* the handler's first call happened */
    bool logged;   /* the access log line is written */
    unsigned head; /* this request's index on the connection */
    unsigned bad;  /* a status decided from the headers (400), or 0 */
    enum http_method method;
    size_t target, meth, version, referer, agent, host; /* offsets in buf */
    uint64_t start_ns; /* headers complete (monotonic) */
    const char *vhost; /* the --vhost pattern that served, or NULL */
    struct respond_result res;
    char *buf;
    size_t cap, used;
};

struct daemon {
    const struct daemon_conf *conf;
    struct live *gens; /* of struct daemon_gen */
    struct root *root;
    struct MHD_Daemon **d;
    size_t n;
    atomic_uint in_flight;
    atomic_bool draining; /* new connections are closed at once */
    atomic_uint n_conns;  /* open connections, all daemons */

    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct conn *conns;
    bool stopping;
    bool watchdog_running;
    pthread_t watchdog;
};

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    /* never 0: a deadline of 0 means none */
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + 1;
}

/*
 * Reserve @n bytes in the connection buffer; their offset, or NO_STR.
 * The buffer may move: pointers into it are stale afterwards (offsets are
 * not).
 */
static size_t reserve(struct conn *c, size_t n)
{
    if (c->used + n > c->cap) {
        size_t cap = c->cap ? c->cap : 256;
        while (cap < c->used + n)
            cap *= 2;
        char *b = realloc(c->buf, cap);
        if (!b)
            return NO_STR;
        c->buf = b;
        c->cap = cap;
    }
    c->used += n;
    return c->used - n;
}

/* Copy @s (not inside the buffer) into it; the offset, or NO_STR. */
static size_t keep(struct conn *c, const char *s)
{
    if (!s)
        return NO_STR;
    size_t n = strlen(s) + 1;
    size_t off = reserve(c, n);
    if (off != NO_STR)
        memcpy(c->buf + off, s, n);
    return off;
}

static const char *str(const struct conn *c, size_t off)
{
    return off == NO_STR ? NULL : c->buf + off;
}

static atomic_bool serving;

void daemon_started(void)
{
    atomic_store(&serving, true);
}

/*
 * Whether a libmicrohttpd message is about the server (accept failing, out
 * of fds or memory, threads, epoll) rather than about one client's request
 * or connection, which the access log covers and with which a client must
 * not be able to flood stderr. Only the first kind is shown once serving.
 */
static bool about_server(const char *msg)
{
    static const char *const server[] = {
        "accept", "resource",         "thread",   "epoll", "memory", "ITC",
        "listen", "Failed to create", "internal", "PANIC", "Fatal",
    };
    static const char *const client[] = {
        "Error processing request", "closed by remote",
        "Connection reset",         "Client",
        "rejected by application",  "Request too big",
        "memory constraints",       "in pool",
        "error response",
    };
    bool hit = false;

    for (size_t i = 0; i < sizeof server / sizeof server[0]; i++)
        if (strstr(msg, server[i]))
            hit = true;
    for (size_t i = 0; hit && i < sizeof client / sizeof client[0]; i++)
        if (strstr(msg, client[i]))
            hit = false;
    return hit;
}

__attribute__((format(printf, 2, 0))) static void
logger(void *cls, const char *fmt, va_list ap)
{
    char msg[512];

    (void)cls;
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (atomic_load(&serving) && !about_server(msg))
        return;
    size_t n = strlen(msg);
    while (n && msg[n - 1] == '\n')
        msg[--n] = '\0';
    fprintf(stderr, "beneath: libmicrohttpd: %s\n", msg);
}

/* The target is decoded from the raw bytes: libmicrohttpd's copy is unused. */
static size_t unescape_none(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls;
    (void)c;
    return strlen(s);
}

static void *uri_log(void *cls, const char *uri, struct MHD_Connection *mc)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct conn *c = ci ? ci->socket_context : NULL;

    (void)cls;
    if (!c)
        return NULL;
    c->started = false;
    c->logged = false;
    c->head = c->heads++;
    c->bad = 0;
    c->used = 0;
    c->meth = c->version = c->referer = c->agent = c->host = NO_STR;
    c->vhost = NULL;
    c->start_ns = 0;
    memset(&c->res, 0, sizeof c->res);
    c->forwarded[0] = '\0';
    c->target = keep(c, uri);
    return c;
}

/*
 * The access log line, written when the response is queued: a client that
 * has its answer finds the line in the log, in the order it was answered.
 */
static void log_request(const struct daemon_gen *g, struct conn *c,
                        unsigned status)
{
    struct timespec now = {0};
    uint64_t ns = 0;

    /* the clocks are read only for a log or metrics that show them */
    c->logged = true;
    if (!log_active(g->log) && !g->respond.metrics)
        return;
    clock_gettime(CLOCK_REALTIME, &now);
    if (c->start_ns) {
        uint64_t end = metrics_now_ns();
        ns = end > c->start_ns ? end - c->start_ns : 0;
    }
    struct log_record r = {
        .client = c->forwarded[0] ? c->forwarded : c->client,
        .user = c->res.user[0] ? c->res.user : NULL,
        .time = now.tv_sec,
        .msec = (unsigned)(now.tv_nsec / 1000000),
        .duration_us = ns / 1000,
        .host = str(c, c->host),
        .vhost = c->vhost,
        .tls = c->tls_version,
        .encoding = c->res.encoding,
        .method = str(c, c->meth),
        .target = str(c, c->target),
        .version = str(c, c->version),
        .status = status,
        .bytes = c->res.bytes,
        .referer = str(c, c->referer),
        .agent = str(c, c->agent),
        .backend = c->res.backend == RESOLVER_BACKEND_DEFAULT
                       ? NULL
                       : resolver_backend_name(c->res.backend),
        .err = c->res.err,
    };

    log_write(g->log, &r);
    if (g->respond.metrics)
        metrics_count_request(g->respond.metrics, r.status, r.bytes,
                              c->res.backend, ns, r.encoding, c->res.err);
}

static enum MHD_Result count_host(void *cls, enum MHD_ValueKind kind,
                                  const char *key, const char *value)
{
    unsigned *n = cls;

    (void)kind;
    (void)value;
    if (strcasecmp(key, "Host") == 0)
        (*n)++;
    return MHD_YES;
}

/*
 * RFC 9112 3.2: 400 for an HTTP/1.1 request without Host, and for any with
 * more than one.
 */
static unsigned check_host(struct MHD_Connection *mc, const char *version)
{
    unsigned n = 0;

    MHD_get_connection_values(mc, MHD_HEADER_KIND, count_host, &n);
    if (n > 1 || (n == 0 && strcmp(version, "HTTP/1.1") == 0))
        return STATUS_BAD_REQUEST;
    return 0;
}

static enum MHD_Result add_field(void *cls, enum MHD_ValueKind kind,
                                 const char *key, size_t key_size,
                                 const char *value, size_t value_size)
{
    (void)kind;
    framing_fields_add(cls, key, key_size, value ? value : "",
                       value ? value_size : 0);
    return MHD_YES;
}

/*
 * The framing of this request (RFC 9112 5, 6): a violation the byte scanner
 * saw in this head, else the verdict over the stored fields. 0, 400 or
 * 501; *@body gets whether a body is announced.
 */
static unsigned check_framing(struct conn *c, struct MHD_Connection *mc,
                              const char *version, bool *body)
{
    struct framing_fields f;

    *body = false;
    if (c->wire.scan.why && c->wire.scan.bad_head <= c->head) {
        *body = true;
        return 400;
    }
    framing_fields_init(&f);
    MHD_get_connection_values_n(mc, MHD_HEADER_KIND, add_field, &f);
    return framing_fields_verdict(&f, version, body, NULL);
}

static enum MHD_Result respond(struct daemon *h, struct conn *c,
                               struct MHD_Connection *mc)
{
    /* this request's configuration, from here to its log line */
    const struct daemon_gen *g = live_get(h->gens);

    if (c->target == NO_STR || !g)
        return MHD_NO;
    if (c->bad) {
        enum MHD_Result ret =
            respond_status(mc, &g->respond, c->bad, c->method, &c->res);
        log_request(g, c, c->res.status);
        return ret;
    }
    /* Scratch for the decoded path: as long as the raw target. */
    size_t tlen = strlen(c->buf + c->target) + 1;
    size_t scratch = reserve(c, tlen);
    if (scratch == NO_STR)
        return MHD_NO;
    /* the Host picks the site: its root fd, cache and rules (access.c) */
    struct access_site site;
    unsigned st =
        access_site(h->conf->access, h->root, mc, c->buf + c->target, &site);
    if (st) {
        enum MHD_Result ret =
            respond_status(mc, &g->respond, st, c->method, &c->res);
        log_request(g, c, c->res.status);
        return ret;
    }
    c->vhost = site.vhost;
    /* the directory cache's hits and misses of this request, when shown */
    struct resolver_cache_stats before = {0}, after;
    if (g->respond.metrics && site.dir_cache)
        resolver_cache_get_stats(site.dir_cache, &before);
    enum MHD_Result ret =
        respond_request(mc, &g->respond, &site, c->method, c->buf + c->target,
                        c->buf + scratch, tlen, &c->res);
    if (g->respond.metrics && site.dir_cache) {
        resolver_cache_get_stats(site.dir_cache, &after);
        metrics_count_dir_cache(g->respond.metrics, after.hits - before.hits,
                                after.misses - before.misses);
    }
    if (c->res.status)
        log_request(g, c, c->res.status);
    return ret;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *mc,
                               const char *url, const char *method,
                               const char *version, const char *upload_data,
                               size_t *upload_data_size, void **con_cls)
{
    struct daemon *h = cls;
    struct conn *c = *con_cls;

    (void)url;
    (void)upload_data;
    if (!c)
        return MHD_NO; /* no per-connection state: out of memory */
    if (!c->started) {
        /* Phase one: headers are complete. Remember, don't queue. */
        c->started = true;
        c->start_ns = metrics_now_ns();
        atomic_store_explicit(&c->deadline, 0, memory_order_relaxed);
        atomic_fetch_add(&h->in_flight, 1);
        c->method = http_method_of(method);
        c->meth = keep(c, method);
        c->version = keep(c, version);
        c->referer = keep(
            c, MHD_lookup_connection_value(mc, MHD_HEADER_KIND, "Referer"));
        c->agent = keep(
            c, MHD_lookup_connection_value(mc, MHD_HEADER_KIND, "User-Agent"));
        c->host =
            keep(c, MHD_lookup_connection_value(mc, MHD_HEADER_KIND, "Host"));
        /* the handshake is done once a request arrives */
        if (c->tls && !c->tls_version)
            c->tls_version =
                gnutls_protocol_get_name(gnutls_protocol_get_version(c->tls));
        bool body;
        c->bad = check_framing(c, mc, version, &body);
        if (!c->bad)
            c->bad = check_host(mc, version);
        /* behind a trusted proxy: the forwarded client, and its rules */
        if (!c->bad)
            c->bad = access_client(h->conf->access, mc, c->forwarded,
                                   sizeof c->forwarded);
        /*
         * A framing error, or a request that announces a body: answer now.
         * Queued in the first call, libmicrohttpd sends Connection: close
         * and closes after the response instead of reading the body: a
         * static server needs none, and a body sent slowly can then hold
         * no connection.
         */
        if (c->bad || body)
            return respond(h, c, mc);
        return MHD_YES;
    }
    if (*upload_data_size) {
        /* Not reached (bodies are never read); drop it if it were. */
        *upload_data_size = 0;
        return MHD_YES;
    }
    return respond(h, c, mc);
}

static void completed(void *cls, struct MHD_Connection *mc, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
    struct daemon *h = cls;
    struct conn *c = *con_cls;

    (void)toe;
    if (!c)
        return;
    if (c->wire.short_file) {
        /* the operator's business (a file changed while served), not a
         * client's: one line */
        fprintf(stderr,
                "beneath: %s: the file ended before its size while being "
                "sent (truncated meanwhile?); connection closed\n",
                c->target == NO_STR ? "-" : c->buf + c->target);
        c->wire.short_file = false;
    }
    const struct daemon_gen *g = c->logged ? NULL : live_get(h->gens);
    if (g) {
        /* a reply libmicrohttpd made itself (400, 414, 431, ...) */
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(mc, MHD_CONNECTION_INFO_HTTP_STATUS);
        log_request(g, c, ci ? ci->http_status : 0);
    }
    if (c->started)
        atomic_fetch_sub(&h->in_flight, 1);
    c->started = false;
    /*
     * The client's end of stream arrived with this request: nothing more
     * can come, and with epoll libmicrohttpd would not notice it before the
     * timeout. The response is with the kernel: shutdown lets it go out,
     * then libmicrohttpd sees end of stream and closes.
     */
    if (c->wire.eof && c->fd >= 0)
        shutdown(c->fd, SHUT_RDWR);
    /* Idle keep-alive first (MHD's timeout), then the next headers. */
    atomic_store_explicit(
        &c->deadline,
        now_ms() + 1000 * ((int64_t)h->conf->timeout + h->conf->header_timeout),
        memory_order_relaxed);
    *con_cls = NULL;
}

static void client_text(struct MHD_Connection *mc, char *out, size_t size)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = ci ? ci->client_addr : NULL;

    snprintf(out, size, "-");
    if (!sa)
        return;
    if (sa->sa_family == AF_INET)
        inet_ntop(AF_INET,
                  &((const struct sockaddr_in *)(const void *)sa)->sin_addr,
                  out, (socklen_t)size);
    else if (sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6,
                  &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr,
                  out, (socklen_t)size);
    else if (sa->sa_family == AF_UNIX)
        snprintf(out, size, "unix");
}

/*
 * Whether @s finished its handshake without a request on it (one that got
 * a request did): the last handshake message a server receives, in a full,
 * resumed or TLS 1.3 handshake alike, is the client's Finished.
 */
static bool tls_handshake_done(gnutls_session_t s)
{
    return gnutls_handshake_get_last_in(s) == GNUTLS_HANDSHAKE_FINISHED;
}

static void notify_connection(void *cls, struct MHD_Connection *mc,
                              void **socket_context,
                              enum MHD_ConnectionNotificationCode toe)
{
    struct daemon *h = cls;
    struct conn *c;

    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        c = calloc(1, sizeof *c);
        *socket_context = c;
        if (!c)
            return;
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);
        c->fd = ci ? ci->connect_fd : -1;
        c->target = c->meth = c->version = c->referer = c->agent = c->host =
            NO_STR;
        client_text(mc, c->client, sizeof c->client);
        bool tls = tls_connection(mc);
        wire_attach(c->fd, &c->wire, tls);
        if (tls) {
            ci =
                MHD_get_connection_info(mc, MHD_CONNECTION_INFO_GNUTLS_SESSION);
            if (ci && ci->tls_session) {
                c->tls = ci->tls_session;
                tls_session_setup(ci->tls_session);
            }
        }
        atomic_fetch_add(&h->n_conns, 1);
        if (h->conf->metrics)
            metrics_count_connection(h->conf->metrics, true);
        atomic_init(&c->deadline,
                    now_ms() + 1000 * (int64_t)h->conf->header_timeout);
        pthread_mutex_lock(&h->lock);
        c->next = h->conns;
        if (h->conns)
            h->conns->prev = c;
        h->conns = c;
        pthread_mutex_unlock(&h->lock);
        return;
    }
    c = *socket_context;
    if (!c)
        return;
    wire_detach(c->fd, &c->wire);
    if (c->wire.plain_on_tls) {
        /* answered by wire.c before any request existed */
        c->used = 0;
        c->target = c->meth = c->version = c->referer = c->agent = c->host =
            NO_STR;
        c->start_ns = 0;
        memset(&c->res, 0, sizeof c->res);
        const struct daemon_gen *g = live_get(h->gens);
        if (g)
            log_request(g, c, STATUS_BAD_REQUEST);
    }
    atomic_fetch_sub(&h->n_conns, 1);
    if (h->conf->metrics) {
        metrics_count_connection(h->conf->metrics, false);
        /* the session is still there: libmicrohttpd frees it after this */
        if (c->tls)
            metrics_count_tls(h->conf->metrics,
                              c->tls_version || tls_handshake_done(c->tls));
    }
    pthread_mutex_lock(&h->lock);
    if (c->prev)
        c->prev->next = c->next;
    else
        h->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    pthread_mutex_unlock(&h->lock);
    /* A request cut short without NOTIFY_COMPLETED must not stay counted. */
    if (c->started)
        atomic_fetch_sub(&h->in_flight, 1);
    free(c->buf);
    free(c);
    *socket_context = NULL;
}

static void *watchdog(void *arg)
{
    struct daemon *h = arg;

    pthread_mutex_lock(&h->lock);
    while (!h->stopping) {
        int64_t now = now_ms();
        for (struct conn *c = h->conns; c; c = c->next) {
            int64_t d =
                atomic_load_explicit(&c->deadline, memory_order_relaxed);
            if (d && now > d && c->fd >= 0) {
                shutdown(c->fd, SHUT_RDWR);
                atomic_store_explicit(&c->deadline, 0, memory_order_relaxed);
            }
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 250 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&h->wake, &h->lock, &ts);
    }
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr,
                                     socklen_t addrlen)
{
    struct daemon *h = cls;

    /* --allow/--deny on the peer; counted in the metrics when refused */
    if (!access_accept(h->conf->access, addr, addrlen))
        return MHD_NO;
    /*
     * Over the limit, the connection is closed at once: libmicrohttpd's own
     * limit would leave it waiting unanswered in the listen backlog.
     */
    if (atomic_load(&h->draining) ||
        atomic_load(&h->n_conns) >= h->conf->max_connections)
        return MHD_NO;
    return MHD_YES;
}

/* The threading mode (server/CMakeLists.txt BENEATH_MHD_MODE). */
#if defined(BENEATH_MHD_TPC)
#define MHD_MODE_FLAGS (MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL)
#elif defined(BENEATH_MHD_TURBO)
#define MHD_MODE_FLAGS                                                         \
    (MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_TURBO)
#else
#define MHD_MODE_FLAGS (MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL)
#endif

static struct MHD_Daemon *start_one(struct daemon *h, int fd, bool tls)
{
    const struct daemon_conf *conf = h->conf;
    struct MHD_OptionItem opts[16];
    size_t n = 0;

#define OPT(o, v, p)                                                           \
    opts[n++] = (struct MHD_OptionItem){                                       \
        .option = (o), .value = (intptr_t)(v), .ptr_value = (p)}
    OPT(MHD_OPTION_LISTEN_SOCKET, fd, NULL);
    /*
     * libmicrohttpd splits the connection limit between the workers: more
     * workers than connections would leave some with a limit of 0.
     */
    unsigned threads = conf->threads < conf->max_connections
                           ? conf->threads
                           : conf->max_connections;
#ifndef BENEATH_MHD_TPC
    if (threads > 1)
        OPT(MHD_OPTION_THREAD_POOL_SIZE, threads, NULL);
#endif
    /* The real limit is accept_policy's; this one only caps each worker,
     * and is split between them, so leave room above it. */
    OPT(MHD_OPTION_CONNECTION_LIMIT, conf->max_connections + threads, NULL);
    OPT(MHD_OPTION_PER_IP_CONNECTION_LIMIT, conf->max_connections_per_ip, NULL);
    OPT(MHD_OPTION_CONNECTION_TIMEOUT, conf->timeout, NULL);
    /* The pool holds the request line and headers plus the reply headers. */
    OPT(MHD_OPTION_CONNECTION_MEMORY_LIMIT, conf->max_header_size + 4096, NULL);
    OPT(MHD_OPTION_URI_LOG_CALLBACK, (void *)uri_log, h);
    OPT(MHD_OPTION_NOTIFY_COMPLETED, (void *)completed, h);
    OPT(MHD_OPTION_NOTIFY_CONNECTION, (void *)notify_connection, h);
    OPT(MHD_OPTION_UNESCAPE_CALLBACK, (void *)unescape_none, NULL);
    /*
     * Not MHD_OPTION_STRICT_FOR_CLIENT: it resets "GET /a b HTTP/1.1"
     * without an answer and logs each missing Host on stderr. The target
     * decoder answers 400 to the space, the handler to Host problems.
     */
    /* HTTPS: the certificate comes from tls.c, which reload swaps. */
    if (tls) {
        OPT(MHD_OPTION_HTTPS_CERT_CALLBACK, 0, (void *)tls_cert_callback);
        /* libmicrohttpd only reads it (gnutls_priority_init) */
        OPT(MHD_OPTION_HTTPS_PRIORITIES, 0,
            (void *)(uintptr_t)conf->tls_priority);
    }
    OPT(MHD_OPTION_END, 0, NULL);
#undef OPT

    /* EXTERNAL_LOGGER first, so start-up messages go through it too. */
    return MHD_start_daemon(MHD_MODE_FLAGS | MHD_USE_ITC | MHD_USE_ERROR_LOG |
                                (tls ? MHD_USE_TLS : 0),
                            0, accept_policy, h, handler, h,
                            MHD_OPTION_EXTERNAL_LOGGER, logger, NULL,
                            MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
}

int daemon_new(const struct daemon_conf *conf, struct live *gens,
               struct root *root, const int *fds, const bool *tls, size_t n_fds,
               struct daemon **out)
{
    struct daemon *h = calloc(1, sizeof *h);
    int err = -ENOMEM;

    if (!h)
        goto out_close_fds;
    h->conf = conf;
    h->gens = gens;
    h->root = root;
    atomic_init(&h->in_flight, 0);
    atomic_init(&h->draining, false);
    atomic_init(&h->n_conns, 0);
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->wake, NULL);
    h->d = calloc(n_fds, sizeof(struct MHD_Daemon *));
    if (!h->d)
        goto out_free;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur > (1u << 20))
        rl.rlim_cur = 1u << 20;
    if (wire_init((size_t)rl.rlim_cur) != 0)
        goto out_free;
    if (conf->header_timeout) {
        err = -pthread_create(&h->watchdog, NULL, watchdog, h);
        if (err) {
            fprintf(stderr, "beneath: cannot start the header watchdog: %s\n",
                    strerror(-err));
            goto out_free;
        }
        h->watchdog_running = true;
    }
    for (h->n = 0; h->n < n_fds; h->n++) {
        h->d[h->n] = start_one(h, fds[h->n], tls && tls[h->n]);
        if (!h->d[h->n]) {
            fprintf(stderr, "beneath: libmicrohttpd did not start a daemon\n");
            err = -EIO;
            /* this fd and the following ones are still ours */
            for (size_t i = h->n; i < n_fds; i++)
                close(fds[i]);
            daemon_free(h);
            return err;
        }
    }
    *out = h;
    return 0;
out_free:
    wire_free();
    free(h->d);
    pthread_cond_destroy(&h->wake);
    pthread_mutex_destroy(&h->lock);
    free(h);
out_close_fds:
    for (size_t i = 0; i < n_fds; i++)
        close(fds[i]);
    return err;
}

/*
 * Draining closes new connections as they are accepted instead of
 * MHD_quiesce_daemon: in 0.9.75, quiescing an epoll daemon with its own
 * threads races with the workers removing the listen fd from their epoll
 * sets, and the loser calls MHD_PANIC ("Failed to remove listen FD from
 * epoll set"), aborting the process (seen in the e2e drain tests).
 */
void daemon_quiesce(struct daemon *h)
{
    atomic_store(&h->draining, true);
}

unsigned daemon_in_flight(struct daemon *h)
{
    return atomic_load(&h->in_flight);
}

void daemon_free(struct daemon *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->n; i++)
        MHD_stop_daemon(h->d[i]);
    if (h->watchdog_running) {
        pthread_mutex_lock(&h->lock);
        h->stopping = true;
        pthread_cond_signal(&h->wake);
        pthread_mutex_unlock(&h->lock);
        pthread_join(h->watchdog, NULL);
    }
    wire_free();
    free(h->d);
    pthread_cond_destroy(&h->wake);
    pthread_mutex_destroy(&h->lock);
    free(h);
}
