// SPDX-License-Identifier: MIT
/*
 * daemon_request.c - one request on a connection, libmicrohttpd's callbacks
 * from its raw target to its access log line.
 *
 * Every request on a connection reuses its struct conn (h1.c), so a
 * request costs no malloc unless its strings outgrow the connection's
 * buffer. The raw request-target is captured in URI_LOG_CALLBACK
 * (libmicrohttpd's url argument is unescaped and cut at %00), and the
 * handler runs in two phases: the first call only returns MHD_YES, the
 * second queues (queuing in the first call makes 0.9.75 close every
 * connection after one response).
 */
#include "common/mono.h"
#include "http/framing.h"
#include "http/status.h"
#include "transport/conn/intake.h"
#include "transport/conn/served.h"
#include "transport/h1/daemon_internal.h"
#include "transport/h1/reply_mhd.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

void conn_forget(struct conn *c)
{
    arena_reset(&c->arena);
    memset(&c->rq, 0, sizeof c->rq);
    c->target = NULL;
    c->start_ns = 0;
    memset(&c->res, 0, sizeof c->res);
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
    c->head = c->heads++;
    c->wire.park_at = 0; /* under way (read ahead): its close is no park */
    c->bad = 0;
    c->target = uri ? arena_strndup(&c->arena, uri, strlen(uri)) : NULL;
    return c;
}

void conn_log_request(const struct gen_conf *g, struct conn *c, unsigned status,
                      uint64_t bytes, bool aborted)
{
    struct served s = {
        .rq = &c->rq,
        .res = &c->res,
        .client = c->client,
        .target = c->target,
        .tls = c->tls_version,
        .start_ns = c->start_ns,
        .status = status,
        .bytes = bytes,
        .aborted = aborted,
    };

    served_log(g, &s);
}

/* A request under way (a head in pieces, wire.h; or complete): --timeout
 * until its reply is over. On its worker. */
void conn_slow(struct wire_conn *w)
{
    struct conn *c = (struct conn *)((char *)w - offsetof(struct conn, wire));

    MHD_set_connection_option(c->mc, MHD_CONNECTION_OPTION_TIMEOUT,
                              c->h->conf->timeout);
}

/* @c has a request under way (its head complete): --timeout, not a
 * waiting connection's, until its reply is over (wait_next). */
static void under_way(struct conn *c)
{
    if (c->wire.slow && !c->wire.slow_set) {
        c->wire.slow_set = true;
        conn_slow(&c->wire);
    }
}
/*
 * @c (on @mc) waits for a request from now on: parked if it waits
 * CONN_PARK_S (libmicrohttpd's timeout for it, the daemon's own; a slow
 * request had --timeout, h1.c).
 */
static void wait_next(struct conn *c, struct MHD_Connection *mc)
{
    if (!c->front || !conn_parking(c->h->conf))
        return;
    /* a close before half of it is not the timeout's (Connection: close) */
    c->wire.park_at = now_ms() + CONN_PARK_AFTER_MS;
    if (c->wire.slow_set) {
        c->wire.slow_set = false;
        MHD_set_connection_option(mc, MHD_CONNECTION_OPTION_TIMEOUT,
                                  CONN_PARK_S);
    }
}

/* One field line: kept in the request if the server reads it, and given
 * to the framing verdict. */
struct collect {
    struct conn *c;
    struct framing_fields f;
    bool oom;
};

static enum MHD_Result collect_field(void *cls, enum MHD_ValueKind kind,
                                     const char *key, size_t key_size,
                                     const char *value, size_t value_size)
{
    struct collect *k = cls;

    (void)kind;
    framing_fields_add(&k->f, key, key_size, value ? value : "",
                       value ? value_size : 0);
    if (request_add_field(&k->c->rq, &k->c->arena, key, key_size,
                          value ? value : "", value ? value_size : 0,
                          true) != 0)
        k->oom = true;
    return MHD_YES;
}

/*
 * The request of this head, from libmicrohttpd's view of it, with the
 * framing of it (RFC 9112 5, 6): a violation the byte scanner saw in this
 * head, else the verdict over the stored fields; then RFC 9112 3.2: 400
 * for an HTTP/1.1 request without Host, and for any with more than one.
 * Returns 0, 400, 500 or 501; *@body gets whether a body is announced.
 */
static unsigned read_request(struct conn *c, struct MHD_Connection *mc,
                             const char *method, const char *version,
                             bool *body)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    struct collect k = {.c = c};
    unsigned st;

    intake_start(&c->rq, &(struct intake){
                             .method = method,
                             .target = c->target,
                             .version = strcmp(version, "HTTP/1.0") == 0
                                            ? HTTP_VERSION_1_0
                                            : HTTP_VERSION_1_1,
                             .version_name = version,
                             .peer = ci ? ci->client_addr : NULL,
                             .peer_text = c->client,
                             .tls = c->front && c->front->ssl,
                             .tls_version = c->tls_version,
                         });
    framing_fields_init(&k.f);
    MHD_get_connection_values_n(mc, MHD_HEADER_KIND, collect_field, &k);
    *body = false;
    if (c->wire.scan.why && c->wire.scan.bad_head <= c->head) {
        *body = true;
        return STATUS_BAD_REQUEST;
    }
    st = framing_fields_verdict(&k.f, version, body, NULL);
    if (!st)
        st = intake_host(&c->rq, NULL);
    if (!st && k.oom)
        st = STATUS_INTERNAL_SERVER_ERROR;
    return st;
}

/*
 * Answer the request on @c: respond() decides, the reply is queued; its
 * log line comes when it is over (conn_completed).
 */
static enum MHD_Result answer(struct h1 *h, struct conn *c,
                              struct MHD_Connection *mc)
{
    const struct gen_conf *g = live_get(h->conf->gens);
    struct reply rep;
    enum MHD_Result ret;

    if (!c->target || !g)
        return MHD_NO;
    if (c->bad)
        respond_error(&c->rq, &g->respond, c->bad, &rep);
    else
        respond(&c->rq, &g->respond, &rep);
    c->res = rep.res;
    ret = reply_queue(mc, &rep, atomic_load(h->conf->draining));
    if (ret == MHD_NO)
        c->res.status = 0; /* nothing went out: the connection closes */
    reply_release(&rep);
    return ret;
}

enum MHD_Result conn_handler(void *cls, struct MHD_Connection *mc,
                             const char *url, const char *method,
                             const char *version, const char *upload_data,
                             size_t *upload_data_size, void **con_cls)
{
    struct h1 *h = cls;
    struct conn *c = *con_cls;

    (void)url;
    (void)upload_data;
    if (!c)
        return MHD_NO; /* no per-connection state: out of memory */
    if (!c->started) {
        /* Phase one: headers are complete. Remember, don't queue. */
        c->started = true;
        /* a handler or disk slower than a waiting connection's timeout
           must not end it */
        under_way(c);
        atomic_store_explicit(&c->idle_since, 0, memory_order_relaxed);
        c->start_ns = mono_ns();
        atomic_store_explicit(&c->deadline, 0, memory_order_relaxed);
        atomic_fetch_add(h->conf->in_flight, 1);
        bool body;
        c->bad = read_request(c, mc, method, version, &body);
        /*
         * A framing error, or a request that announces a body: answer now.
         * Queued in the first call, libmicrohttpd sends Connection: close
         * and closes after the response instead of reading the body: a
         * static server needs none, and a body sent slowly can then hold
         * no connection.
         */
        if (c->bad || body)
            return answer(h, c, mc);
        return MHD_YES;
    }
    if (*upload_data_size) {
        /* Not reached (bodies are never read); drop it if it were. */
        *upload_data_size = 0;
        return MHD_YES;
    }
    return answer(h, c, mc);
}

/*
 * Whether the reply on @c went whole, ended as @toe says: libmicrohttpd
 * ends a complete reply COMPLETED_OK, but one it made itself (400, 414,
 * 431) WITH_ERROR, as it does a reply cut short by an error; that one is
 * whole when its head went and no write came up short.
 */
static bool reply_whole(const struct conn *c,
                        enum MHD_RequestTerminationCode toe)
{
    const struct wire_sent *o = &c->wire.sent;

    if (toe == MHD_REQUEST_TERMINATED_COMPLETED_OK)
        return true;
    return toe == MHD_REQUEST_TERMINATED_WITH_ERROR && !c->res.status &&
           o->head_done && !o->short_write;
}

/*
 * The request is over, its reply written whole or cut short (the client
 * left, a timeout, the server stopping): its access log line, with the
 * bytes that went and the time to its last one. So a client finds the
 * line of a request once it has the whole answer, a moment later (the
 * log's batch).
 */
void conn_completed(void *cls, struct MHD_Connection *mc, void **con_cls,
                    enum MHD_RequestTerminationCode toe)
{
    struct h1 *h = cls;
    struct conn *c = *con_cls;

    if (!c)
        return;
    if (c->wire.short_file) {
        served_short_file(c->target, "connection closed");
        c->wire.short_file = false;
    }
    const struct gen_conf *g = live_get(h->conf->gens);
    if (g) {
        unsigned status = c->res.status;
        if (!status) {
            /* a reply libmicrohttpd made itself (400, 414, 431, ...) */
            const union MHD_ConnectionInfo *ci =
                MHD_get_connection_info(mc, MHD_CONNECTION_INFO_HTTP_STATUS);
            status = ci ? ci->http_status : 0;
        }
        conn_log_request(g, c, status, wire_body_sent(&c->wire),
                         !reply_whole(c, toe));
    }
    wire_sent_reset(&c->wire);
    if (c->started)
        atomic_fetch_sub(h->conf->in_flight, 1);
    c->started = false;
    /*
     * The client's end of stream arrived with this request: nothing more
     * can come, and with epoll libmicrohttpd would not notice it before the
     * timeout. The response is with the kernel: shutdown lets it go out,
     * then libmicrohttpd sees end of stream and closes.
     */
    if (c->wire.eof && c->fd >= 0)
        wire_shutdown(c->fd, SHUT_RDWR);
    atomic_store_explicit(&c->idle_since, now_ms(), memory_order_relaxed);
    wait_next(c, mc); /* parked after CONN_PARK_S of waiting */
    /* Idle keep-alive first (MHD's timeout), then the next headers. */
    atomic_store_explicit(
        &c->deadline,
        now_ms() + 1000 * ((int64_t)h->conf->timeout + h->conf->header_timeout),
        memory_order_relaxed);
    *con_cls = NULL;
}
