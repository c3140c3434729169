// SPDX-License-Identifier: MIT
/*
 * daemon_request.c - one request on a connection, libmicrohttpd's callbacks
 * from its raw target to its access log line.
 *
 * Every request on a connection reuses its struct conn (daemon.c), so a
 * request costs no malloc unless its strings outgrow the connection's
 * buffer. The raw request-target is captured in URI_LOG_CALLBACK
 * (libmicrohttpd's url argument is unescaped and cut at %00), and the
 * handler runs in two phases: the first call only returns MHD_YES, the
 * second queues (queuing in the first call makes 0.9.75 close every
 * connection after one response).
 */
#include "http/framing.h"
#include "http/status.h"
#include "transport/daemon_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

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

void conn_forget(struct conn *c)
{
    c->used = 0;
    c->target = c->meth = c->version = c->referer = c->agent = c->host = NO_STR;
    c->vhost = NULL;
    c->start_ns = 0;
    memset(&c->res, 0, sizeof c->res);
    c->forwarded[0] = '\0';
}

void *conn_uri_log(void *cls, const char *uri, struct MHD_Connection *mc)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct conn *c = ci ? ci->socket_context : NULL;

    (void)cls;
    if (!c)
        return NULL;
    conn_forget(c);
    c->started = false;
    c->logged = false;
    c->head = c->heads++;
    c->bad = 0;
    c->target = keep(c, uri);
    return c;
}

/*
 * The access log line, written when the response is queued: a client that
 * has its answer finds the line in the log, in the order it was answered.
 */
void conn_log_request(const struct daemon_gen *g, struct conn *c,
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
        conn_log_request(g, c, c->res.status);
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
        conn_log_request(g, c, c->res.status);
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
        conn_log_request(g, c, c->res.status);
    return ret;
}

enum MHD_Result conn_handler(void *cls, struct MHD_Connection *mc,
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

void conn_completed(void *cls, struct MHD_Connection *mc, void **con_cls,
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
        conn_log_request(g, c, ci ? ci->http_status : 0);
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
