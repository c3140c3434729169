// SPDX-License-Identifier: MIT
/*
 * h1.c - libmicrohttpd glue (h1.h): its daemon, its logger, per-connection
 * state and the header watchdog; a request on a connection is
 * daemon_request.c's.
 *
 * Per connection (NOTIFY_CONNECTION) one struct conn is allocated; every
 * request on it reuses it.
 *
 * Between requests: a connection that has waited CONN_PARK_S for its next
 * request leaves libmicrohttpd (whose pool of --max-header-size + 4 KiB per
 * connection stays whole, zeroed, while it lives) for the front, which
 * keeps only its struct front_conn. libmicrohttpd's own timeout is
 * CONN_PARK_S, a waiting connection's; a request gets --timeout from its
 * complete head (the handler's first call; from its first bytes if its
 * head comes in pieces: the tap says so, slow) to its reply's end
 * (daemon_request.c). The close that CONN_PARK_S makes of a waiting
 * connection is a park (the tap leaves the socket as it is, wire.h), and
 * notify_connection hands a descriptor of the socket to the front
 * (front_park), which gives it back with its next request. So only
 * connections with a request under way have a timeout of their own, which
 * puts them in a list libmicrohttpd walks whole at each turn of its loop;
 * waiting ones are in its sorted list.
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
 *
 * Every connection comes from the front (front.c: accepted, admitted, and
 * over TLS handshaken; told from HTTP/2 by ALPN or its first bytes): one
 * that is HTTP/1.x comes to the one daemon without a listening socket
 * through MHD_add_connection, its struct front_conn (the SSL) with it, and
 * counts from its accept: the deadline of its first headers too.
 */
#include "transport/h1/h1.h"

#include "http/status.h"
#include "runtime/bgthread.h"
#include "transport/h1/daemon_internal.h"
#include "transport/h1/mhd_pool.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static atomic_bool serving;

void h1_started(void)
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

/*
 * @c's close was a park (wire.h): a descriptor of its socket and its
 * struct front_conn go to the front, which waits for the next request
 * until --timeout after the last reply. False: it closes after all.
 */
static bool park(struct h1 *h, struct conn *c)
{
    int64_t idle = atomic_load(&c->idle_since);
    int fd;

    if (!c->front || !idle)
        return false;
    fd = fcntl(c->fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        return false;
    if (front_park(*h->conf->front, c->front, fd,
                   h->conf->timeout ? idle + 1000 * (int64_t)h->conf->timeout
                                    : INT64_MAX) != 0) {
        close(fd);
        return false;
    }
    c->front = NULL; /* the front's again */
    atomic_fetch_add_explicit(h->conf->parks, 1, memory_order_relaxed);
    return true;
}

static void notify_connection(void *cls, struct MHD_Connection *mc,
                              void **socket_context,
                              enum MHD_ConnectionNotificationCode toe)
{
    struct h1 *h = cls;
    struct conn *c;

    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        c = calloc(1, sizeof *c);
        *socket_context = c;
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);
        int fd = ci ? ci->connect_fd : -1;
        /* from the TLS front: counted since its accept */
        struct front_conn *fc = front_take(*h->conf->front, fd);
        if (!c) {
            /* libmicrohttpd ends it (no state): the SSL is released now */
            front_conn_done(*h->conf->front, fc);
            return;
        }
        if (!fc) {
            /* every connection comes from the front, admitted and counted */
            free(c);
            *socket_context = NULL;
            return;
        }
        c->fd = fd;
        c->front = fc;
        c->mc = mc;
        c->h = h;
        conn_forget(c);
        snprintf(c->client, sizeof c->client, "%s", fc->client);
        wire_attach(c->fd, &c->wire, fc->ssl, &fc->io);
        if (conn_parking(h->conf)) {
            c->wire.slow = conn_slow;
            /* waiting for its first request's bytes (not yet read) */
            c->wire.park_at = now_ms() + CONN_PARK_AFTER_MS;
        }
        c->tls_version = fc->version;
        atomic_init(&c->deadline, fc->accepted_ms + 1 +
                                      1000 * (int64_t)h->conf->header_timeout);
        /* not idle before its first request: the header deadline's */
        atomic_init(&c->idle_since, 0);
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
        atomic_fetch_sub(h->conf->in_flight, 1);
    /* a park that cannot be: the shutdown it skipped, while the SSL is */
    if (c->wire.parked && !park(h, c))
        wire_unpark(c->fd, &c->wire);
    /* before libmicrohttpd closes the socket: the SSL is done with it */
    front_conn_done(*h->conf->front, c->front);
    arena_free(&c->arena);
    free(c);
    *socket_context = NULL;
}

/* Draining, a connection with no request under way FRONT_DRAIN_IDLE_MS
 * is closed: one whose request is on its way gets its reply, with
 * Connection: close. */

/* Parked connections leave this long (ms) between two trims at most. */
#define TRIM_EVERY_MS ((int64_t)1000)

/*
 * Each 250 ms: connections past their header deadline (0: none), and,
 * draining, idle ones, are shut down (not closed: the fd stays
 * libmicrohttpd's, which then sees end of stream and cleans up; not the
 * tap's shutdown: a TLS session is its worker's only). And once a second
 * at most, after parks: the heap gives back the pages of what parked
 * connections freed (their struct conn, its strings, libmicrohttpd's
 * connection; its pool is a mapping of its own, mhd_pool.h): the heap
 * keeps freed memory resident, so a burst of connections that then wait
 * would cost what they held while active.
 */
static void *watchdog(void *arg)
{
    struct h1 *h = arg;
    int64_t trimmed = 0;
    bool pending = false; /* parks since the last trim */

    pthread_mutex_lock(&h->lock);
    while (!h->stopping) {
        int64_t now = now_ms();
        /* once parks pause for a tick (what they free is freed by then),
         * or every few seconds while they go on */
        bool more =
            atomic_exchange_explicit(h->conf->parks, 0, memory_order_relaxed);
        pending = pending || more;
        if (pending && now - trimmed >= (more ? 5 : 1) * TRIM_EVERY_MS) {
            pthread_mutex_unlock(&h->lock);
            (void)malloc_trim(0);
            pthread_mutex_lock(&h->lock);
            trimmed = now;
            pending = false;
        }
        bool draining = atomic_load(h->conf->draining);
        for (struct conn *c = h->conns; c; c = c->next) {
            int64_t d =
                atomic_load_explicit(&c->deadline, memory_order_relaxed);
            int64_t idle =
                atomic_load_explicit(&c->idle_since, memory_order_relaxed);
            if (c->fd < 0)
                continue;
            if ((d && now > d && h->conf->header_timeout) ||
                (draining && idle && now - idle >= FRONT_DRAIN_IDLE_MS)) {
                shutdown(c->fd, SHUT_RDWR);
                atomic_store_explicit(&c->deadline, 0, memory_order_relaxed);
                atomic_store_explicit(&c->idle_since, 0, memory_order_relaxed);
            }
        }
        struct timespec ts = bgthread_deadline(250);
        pthread_cond_timedwait(&h->wake, &h->lock, &ts);
    }
    pthread_mutex_unlock(&h->lock);
    return NULL;
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

/* The daemon that serves the HTTP/1.x connections the front hands over. */
static struct MHD_Daemon *start_one(struct h1 *h)
{
    const struct h1_conf *conf = h->conf;
    struct MHD_OptionItem opts[16];
    size_t n = 0;

#define OPT(o, v, p)                                                           \
    opts[n++] = (struct MHD_OptionItem)                                        \
    {                                                                          \
        .option = (o), .value = (intptr_t)(v), .ptr_value = (p)                \
    }
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
    /* a connection waiting for a request: parked after CONN_PARK_S; one
     * with a request under way has --timeout (conn_slow) */
    OPT(MHD_OPTION_CONNECTION_TIMEOUT,
        conn_parking(conf) ? CONN_PARK_S : conf->timeout, NULL);
    /* The pool holds the request line and headers plus the reply headers;
     * its mapping (mhd_pool.h) is a whole number of pages with its header. */
    OPT(MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        conf->max_header_size + 4096 - MHD_POOL_HEAD, NULL);
    OPT(MHD_OPTION_URI_LOG_CALLBACK, (void *)conn_uri_log, h);
    OPT(MHD_OPTION_NOTIFY_COMPLETED, (void *)conn_completed, h);
    OPT(MHD_OPTION_NOTIFY_CONNECTION, (void *)notify_connection, h);
    OPT(MHD_OPTION_UNESCAPE_CALLBACK, (void *)unescape_none, NULL);
    /*
     * Not MHD_OPTION_STRICT_FOR_CLIENT: it resets "GET /a b HTTP/1.1"
     * without an answer and logs each missing Host on stderr. The target
     * decoder answers 400 to the space, the handler to Host problems.
     */
    OPT(MHD_OPTION_END, 0, NULL);
#undef OPT

    /* EXTERNAL_LOGGER first, so start-up messages go through it too. */
    return MHD_start_daemon(MHD_MODE_FLAGS | MHD_USE_ITC | MHD_USE_ERROR_LOG |
                                MHD_USE_NO_LISTEN_SOCKET,
                            0, NULL, NULL, conn_handler, h,
                            MHD_OPTION_EXTERNAL_LOGGER, logger, NULL,
                            MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
}

/* ---- the front's calls ----------------------------------------------------
 */

int h1_new(const struct h1_conf *conf, struct h1 **out)
{
    struct h1 *h = calloc(1, sizeof *h);
    struct rlimit rl;
    int err = -ENOMEM;

    if (!h)
        return -ENOMEM;
    h->conf = conf;
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->wake, NULL);
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur > (1u << 20))
        rl.rlim_cur = 1u << 20;
    if (wire_init((size_t)rl.rlim_cur) != 0)
        goto out_free;
    err = -pthread_create(&h->watchdog, NULL, watchdog, h);
    if (err) {
        fprintf(stderr, "beneath: cannot start the header watchdog: %s\n",
                strerror(-err));
        goto out_free;
    }
    h->watchdog_running = true;
    *out = h;
    return 0;
out_free:
    wire_free();
    pthread_cond_destroy(&h->wake);
    pthread_mutex_destroy(&h->lock);
    free(h);
    return err;
}

int h1_start(struct h1 *h)
{
    h->fronted = start_one(h);
    return h->fronted ? 0 : -EIO;
}

/* Plain HTTP on a TLS port, answered 400 before any request existed. */
void h1_plain(struct h1 *h, struct front_conn *fc, bool whole)
{
    const struct gen_conf *g = live_get(h->conf->gens);
    struct conn c = {.fd = -1};

    conn_forget(&c);
    snprintf(c.client, sizeof c.client, "%s", fc->client);
    if (g)
        conn_log_request(g, &c, STATUS_BAD_REQUEST,
                         whole ? sizeof FRONT_HTTPS_PORT_TEXT - 1 : 0, !whole);
    arena_free(&c.arena);
}

/* Draining too: it was accepted before, and gets its reply (closing). */
int h1_add(struct h1 *h, struct front_conn *fc)
{
    enum MHD_Result r = MHD_add_connection(
        h->fronted, fc->fd, (const struct sockaddr *)&fc->addr, fc->addrlen);

    /* refused: libmicrohttpd closed the socket */
    return r == MHD_YES ? 0 : -ECONNREFUSED;
}

void h1_wake(struct h1 *h)
{
    pthread_mutex_lock(&h->lock);
    pthread_cond_signal(&h->wake);
    pthread_mutex_unlock(&h->lock);
}

void h1_abort(struct h1 *h)
{
    pthread_mutex_lock(&h->lock);
    for (struct conn *c = h->conns; c; c = c->next)
        if (c->fd >= 0)
            front_abort_socket(c->fd);
    pthread_mutex_unlock(&h->lock);
}

void h1_stop(struct h1 *h)
{
    if (h && h->fronted)
        MHD_stop_daemon(h->fronted);
}

void h1_free(struct h1 *h)
{
    if (!h)
        return;
    if (h->watchdog_running) {
        pthread_mutex_lock(&h->lock);
        h->stopping = true;
        pthread_cond_signal(&h->wake);
        pthread_mutex_unlock(&h->lock);
        pthread_join(h->watchdog, NULL);
    }
    wire_free();
    pthread_cond_destroy(&h->wake);
    pthread_mutex_destroy(&h->lock);
    free(h);
}
