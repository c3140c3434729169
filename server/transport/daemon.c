// SPDX-License-Identifier: MIT
/*
 * daemon.c - libmicrohttpd glue: daemons, their logger, per-connection
 * state and the header watchdog; a request on a connection is
 * daemon_request.c's.
 *
 * Per connection (NOTIFY_CONNECTION) one struct conn is allocated; every
 * request on it reuses it.
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
 * HTTPS (and, with --http2 on, plain HTTP: the front tells HTTP/2 by its
 * preface from HTTP/1.x): the TLS front (front.c) accepts and handshakes; a
 * connection that chose HTTP/1.1 comes to the one daemon without a listening
 * socket through MHD_add_connection, its struct front_conn (the SSL) with it,
 * and counts from its accept: the deadline of its first headers too.
 */
#include "access/access.h"
#include "http/status.h"
#include "runtime/bgthread.h"
#include "transport/daemon_internal.h"
#include "transport/h2_front.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

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

static void front_release(void *arg, const struct sockaddr *sa, socklen_t len);

/* A connection from the front closes in libmicrohttpd (NULL: none). */
static void front_gone(struct daemon *h, struct front_conn *fc)
{
    if (!fc)
        return;
    front_release(h, (const struct sockaddr *)&fc->addr, fc->addrlen);
    front_conn_free(fc);
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
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);
        int fd = ci ? ci->connect_fd : -1;
        /* from the TLS front: counted since its accept */
        struct front_conn *fc = front_take(h->front, fd);
        if (!c) {
            /* libmicrohttpd ends it (no state): the SSL is released now */
            front_gone(h, fc);
            return;
        }
        c->fd = fd;
        c->front = fc;
        conn_forget(c);
        client_text(mc, c->client, sizeof c->client);
        wire_attach(c->fd, &c->wire, fc ? fc->ssl : NULL, fc ? &fc->io : NULL);
        int64_t start = now_ms();
        if (fc) {
            c->tls_version = fc->version;
            start = fc->accepted_ms + 1;
        } else {
            atomic_fetch_add(&h->n_conns, 1);
            if (h->conf->metrics)
                metrics_count_connection(h->conf->metrics, true);
        }
        atomic_init(&c->deadline,
                    start + 1000 * (int64_t)h->conf->header_timeout);
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
    if (!c->front) {
        atomic_fetch_sub(&h->n_conns, 1);
        if (h->conf->metrics)
            metrics_count_connection(h->conf->metrics, false);
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
    /* before libmicrohttpd closes the socket: the SSL is done with it */
    front_gone(h, c->front);
    arena_free(&c->arena);
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
                /* not the tap's: a TLS session is its worker's only */
                wire_shutdown_raw(c->fd, SHUT_RDWR);
                atomic_store_explicit(&c->deadline, 0, memory_order_relaxed);
            }
        }
        struct timespec ts = bgthread_deadline(250);
        pthread_cond_timedwait(&h->wake, &h->lock, &ts);
    }
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

/* Set while the front hands a connection over: admitted already. */
static __thread bool handing_over;

static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr,
                                     socklen_t addrlen)
{
    struct daemon *h = cls;

    if (handing_over)
        return MHD_YES;

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

/* A daemon for the listening socket @fd, or (-1) for the front's
 * connections. */
static struct MHD_Daemon *start_one(struct daemon *h, int fd)
{
    const struct daemon_conf *conf = h->conf;
    struct MHD_OptionItem opts[16];
    size_t n = 0;

#define OPT(o, v, p)                                                           \
    opts[n++] = (struct MHD_OptionItem)                                        \
    {                                                                          \
        .option = (o), .value = (intptr_t)(v), .ptr_value = (p)                \
    }
    if (fd >= 0)
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
                                (fd < 0 ? MHD_USE_NO_LISTEN_SOCKET : 0),
                            0, accept_policy, h, conn_handler, h,
                            MHD_OPTION_EXTERNAL_LOGGER, logger, NULL,
                            MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
}

/* ---- the TLS front's calls (front.h), on its loop threads ---------------- */

static bool front_admit(void *arg, const struct sockaddr *sa, socklen_t len)
{
    struct daemon *h = arg;

    if (accept_policy(h, sa, len) != MHD_YES ||
        !peer_count_take(h->peers, sa, len))
        return false;
    atomic_fetch_add(&h->n_conns, 1);
    if (h->conf->metrics)
        metrics_count_connection(h->conf->metrics, true);
    return true;
}

static void front_release(void *arg, const struct sockaddr *sa, socklen_t len)
{
    struct daemon *h = arg;

    peer_count_put(h->peers, sa, len);
    atomic_fetch_sub(&h->n_conns, 1);
    if (h->conf->metrics)
        metrics_count_connection(h->conf->metrics, false);
}

static void front_handshake(void *arg, bool ok)
{
    struct daemon *h = arg;

    if (h->conf->metrics)
        metrics_count_tls(h->conf->metrics, ok);
}

/* Plain HTTP on a TLS port, answered 400 before any request existed. */
static void front_plain(void *arg, struct front_conn *fc)
{
    struct daemon *h = arg;
    const struct daemon_gen *g = live_get(h->gens);
    struct conn c = {.fd = -1};

    conn_forget(&c);
    snprintf(c.client, sizeof c.client, "%s", fc->client);
    if (g)
        conn_log_request(g, &c, STATUS_BAD_REQUEST);
    arena_free(&c.arena);
}

static int front_http1(void *arg, struct front_conn *fc)
{
    struct daemon *h = arg;

    if (atomic_load(&h->draining))
        goto out_refuse;
    handing_over = true;
    enum MHD_Result r = MHD_add_connection(
        h->fronted, fc->fd, (const struct sockaddr *)&fc->addr, fc->addrlen);
    handing_over = false;
    /* refused: libmicrohttpd closed the socket */
    return r == MHD_YES ? 0 : -ECONNREFUSED;
out_refuse:
    close(fc->fd);
    return -ECONNREFUSED;
}

/* A connection that chose "h2": a session on the front's loop. */
static int front_h2(void *arg, struct front_conn *fc)
{
    struct daemon *h = arg;

    if (atomic_load(&h->draining))
        return -ECONNREFUSED;
    return h2_front_attach(&h->h2_conf, fc);
}

static const struct front_ops front_ops = {
    .admit = front_admit,
    .release = front_release,
    .handshake = front_handshake,
    .plain = front_plain,
    .http1 = front_http1,
    .h2 = front_h2,
};

/*
 * The sockets @fds (@n; ours to close; @tls[i]: https://, else plain with
 * --http2 on) to the front, after a daemon without a listening socket for
 * what it hands over. 0 or -errno.
 */
static int start_front(struct daemon *h, int *fds, const bool *tls, size_t n)
{
    const struct daemon_conf *conf = h->conf;
    bool any_tls = false;

    for (size_t i = 0; i < n; i++)
        any_tls = any_tls || tls[i];
    if ((any_tls && !conf->tls) ||
        peer_count_new(conf->max_connections_per_ip, &h->peers) != 0 ||
        !(h->d[h->n] = start_one(h, -1))) {
        fprintf(stderr, "beneath: libmicrohttpd did not start a daemon\n");
        for (size_t i = 0; i < n; i++)
            close(fds[i]);
        return -EIO;
    }
    h->fronted = h->d[h->n++];
    h->front_conf = (struct front_conf){
        .threads = conf->threads,
        /* a handshake is part of the first request's header time */
        .handshake_limit =
            conf->header_timeout ? conf->header_timeout : conf->timeout,
        .store = conf->tls,
    };
    /*
     * The first bytes of a plain connection are its first headers', and a
     * connection that sends nothing is idle too: the sooner of the two
     * bounds, as libmicrohttpd closes a silent connection at --timeout.
     */
    h->front_conf.peek_limit = h->front_conf.handshake_limit;
    if (conf->timeout &&
        (!h->front_conf.peek_limit || conf->timeout < h->front_conf.peek_limit))
        h->front_conf.peek_limit = conf->timeout;
    if (!h->front_conf.handshake_limit)
        h->front_conf.handshake_limit = 1;
    h->h2_conf = (struct h2_conf){
        .gens = h->gens,
        .max_streams = H2_MAX_STREAMS_DEFAULT,
        .max_header_list = conf->max_header_size,
        .header_timeout = conf->header_timeout,
        .timeout = conf->timeout,
        .in_flight = &h->in_flight,
        .draining = &h->draining,
        .files_used = &h->h2_files,
        .files_pool = conf->h2_files,
    };
    return front_start(&h->front_conf, &front_ops, h, fds, tls, n, &h->front);
}

int daemon_new(const struct daemon_conf *conf, struct live *gens,
               struct root *root, const int *fds, const bool *tls, size_t n_fds,
               struct daemon **out)
{
    struct daemon *h = calloc(1, sizeof *h);
    int *tls_fds = calloc(n_fds ? n_fds : 1, sizeof *tls_fds);
    bool *is_tls = calloc(n_fds ? n_fds : 1, sizeof *is_tls);
    size_t n_tls = 0, i = 0;
    int err = -ENOMEM;

    if (!h || !tls_fds || !is_tls)
        goto out_close_fds;
    h->conf = conf;
    h->gens = gens;
    h->root = root;
    atomic_init(&h->in_flight, 0);
    atomic_init(&h->h2_files, 0);
    atomic_init(&h->draining, false);
    atomic_init(&h->n_conns, 0);
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->wake, NULL);
    /* one per plain socket, one for the front's connections */
    h->d = calloc(n_fds + 1, sizeof(struct MHD_Daemon *));
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
    for (i = 0; i < n_fds; i++) {
        /*
         * The front's: https:// listeners, and with HTTP/2 on the plain
         * ones too (prior knowledge: the front tells the preface from
         * HTTP/1.x and hands the latter over).
         */
        if ((tls && tls[i]) || conf->http2) {
            is_tls[n_tls] = tls && tls[i];
            tls_fds[n_tls++] = fds[i];
            continue;
        }
        h->d[h->n] = start_one(h, fds[i]);
        if (!h->d[h->n]) {
            fprintf(stderr, "beneath: libmicrohttpd did not start a daemon\n");
            err = -EIO;
            goto out_stop;
        }
        h->n++;
    }
    err = n_tls ? start_front(h, tls_fds, is_tls, n_tls) : 0;
    n_tls = 0; /* the front's now, or closed */
    if (err)
        goto out_stop;
    free(tls_fds);
    free(is_tls);
    *out = h;
    return 0;
out_stop:
    /* this fd and the following ones are still ours, and those kept for
     * the front */
    for (size_t k = i; k < n_fds; k++)
        close(fds[k]);
    for (size_t k = 0; k < n_tls; k++)
        close(tls_fds[k]);
    free(tls_fds);
    free(is_tls);
    daemon_free(h);
    return err;
out_free:
    wire_free();
    free(h->d);
    pthread_cond_destroy(&h->wake);
    pthread_mutex_destroy(&h->lock);
out_close_fds:
    free(h);
    free(tls_fds);
    free(is_tls);
    for (size_t k = 0; k < n_fds; k++)
        close(fds[k]);
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
    /* no more hand-offs, then the daemons, then what was never taken */
    front_stop(h->front);
    for (size_t i = 0; i < h->n; i++)
        MHD_stop_daemon(h->d[i]);
    front_free(h->front);
    peer_count_free(h->peers);
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
