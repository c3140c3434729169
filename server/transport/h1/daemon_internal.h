/* SPDX-License-Identifier: MIT */
/*
 * daemon_internal.h - what h1.c (libmicrohttpd's daemon, connections, the
 * header watchdog) and daemon_request.c (one request: the handler, its log
 * line) share: the per-connection state and the struct h1 it belongs to.
 */
#ifndef BENEATH_TRANSPORT_H1_DAEMON_INTERNAL_H
#define BENEATH_TRANSPORT_H1_DAEMON_INTERNAL_H

#include "common/mono.h"
#include "http/arena.h"
#include "http/request.h"
#include "transport/conn/gen_conf.h"
#include "transport/front/front.h"
#include "transport/h1/h1.h"
#include "transport/h1/wire.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct conn {
    struct conn *prev, *next;   /* in http.conns, under http.lock */
    struct MHD_Connection *mc;  /* libmicrohttpd's connection */
    struct h1 *h;               /* the daemon it belongs to */
    int fd;                     /* libmicrohttpd's: only ever shutdown() */
    _Atomic int64_t deadline;   /* ms to have the headers by; 0: none */
    _Atomic int64_t idle_since; /* ms: no request under way since; 0: one is */
    char client[INET6_ADDRSTRLEN];
    struct wire_conn wire;    /* the raw bytes' framing (wire.c) */
    unsigned heads;           /* request heads begun on this connection */
    struct front_conn *front; /* handed over by the TLS front, or NULL */
    const char *tls_version;  /* its TLS version's name, or NULL */

    /* the current request */
    bool started;       /* the handler's first call happened */
    unsigned head;      /* this request's index on the connection */
    unsigned bad;       /* a status decided from the headers (400), or 0 */
    struct request rq;  /* filled when its head is complete */
    const char *target; /* the raw target (in arena), or NULL */
    uint64_t start_ns;  /* headers complete (monotonic) */
    struct respond_result res;
    struct arena arena; /* the request's strings */
};

/*
 * A connection that waits for its next request is parked after this long
 * (s; libmicrohttpd's timeout, whole seconds): libmicrohttpd lets it go,
 * its pool and our struct conn freed, and the front waits (front_park).
 */
#define CONN_PARK_S 1
/* A close of a waiting connection this long (ms) after it began to wait is
 * its park; a sooner one ends it (Connection: close). */
#define CONN_PARK_AFTER_MS ((int64_t)500 * CONN_PARK_S)

/* conn_parking - whether waiting connections are parked: not when
 * --timeout ends them as soon. */
static inline bool conn_parking(const struct h1_conf *conf)
{
    return !conf->timeout || conf->timeout > CONN_PARK_S;
}

struct h1 {
    const struct h1_conf *conf;
    struct MHD_Daemon *fronted; /* takes the front's HTTP/1.x connections */

    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct conn *conns;
    bool stopping;
    bool watchdog_running;
    pthread_t watchdog;
};

/* A monotonic clock in ms for the deadlines; never 0 (a deadline of 0 is
 * none). */
static inline int64_t now_ms(void)
{
    return mono_coarse_ms() + 1;
}

/* conn_slow - struct wire_conn's slow: the request under way on the
 * connection of @w gets --timeout, not a waiting connection's. */
void conn_slow(struct wire_conn *w);

/* conn_forget - drop the previous request's strings and results. */
void conn_forget(struct conn *c);

/* conn_uri_log - MHD_OPTION_URI_LOG_CALLBACK: a request begins; keeps the
 * raw target. */
void *conn_uri_log(void *cls, const char *uri, struct MHD_Connection *mc);

/* conn_handler - the MHD_AccessHandlerCallback (@cls: struct h1). */
enum MHD_Result conn_handler(void *cls, struct MHD_Connection *mc,
                             const char *url, const char *method,
                             const char *version, const char *upload_data,
                             size_t *upload_data_size, void **con_cls);

/* conn_completed - MHD_OPTION_NOTIFY_COMPLETED: the request's reply is
 * over (whole or cut short): its log line; the next headers' deadline. */
void conn_completed(void *cls, struct MHD_Connection *mc, void **con_cls,
                    enum MHD_RequestTerminationCode toe);

/* conn_log_request - the access log line and the metrics of the request on
 * @c, answered with @status, @bytes of its body written, @aborted if it
 * ended before its last byte. */
void conn_log_request(const struct gen_conf *g, struct conn *c, unsigned status,
                      uint64_t bytes, bool aborted);

#endif
