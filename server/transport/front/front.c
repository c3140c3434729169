// SPDX-License-Identifier: MIT
/*
 * front.c - the TLS front's loops: accept, the handshake state machine,
 * the hand-off (front.h says the way of a connection).
 *
 * Each loop owns the connections it accepted until they leave it: a list
 * in deadline order (accept order for handshakes, which share one limit; a
 * session's own deadline is put in its place), so the expired ones are at
 * its head and the next deadline is its first. The epoll wait sleeps until
 * that deadline; nothing else wakes a loop but its sockets and its stop
 * eventfd.
 *
 * Hand-off table: by descriptor, the struct front_conn given to
 * libmicrohttpd with the socket, taken back by its worker (front_take).
 * libmicrohttpd closes the socket of a connection it refuses, and in one
 * rare path (out of memory in its worker) without telling us: then the
 * entry is stale, and whoever next hands over that descriptor number (the
 * kernel gave it out again, so the old connection is gone) releases it.
 */
#include "transport/front/front.h"

#include "common/mono.h"
#include "transport/front/preface.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static const char https_port_reply[] =
    "HTTP/1.1 400 Bad Request\r\n"
    "Content-Type: text/plain; charset=utf-8\r\n"
    "Content-Length: 42\r\n"
    "Connection: close\r\n"
    "\r\n" FRONT_HTTPS_PORT_TEXT;
_Static_assert(sizeof FRONT_HTTPS_PORT_TEXT - 1 == 42,
               "Content-Length of the HTTPS-port reply");

/* Accepts per readiness event of a listener, so one busy port cannot
 * starve a loop's handshakes. */
#define ACCEPT_BATCH 64
/* A handshake waiting for its name's certificate (on demand) is tried
 * again this often (ms), within its own deadline. */
#define CERT_RETRY_MS 100
/* After EMFILE and the like: listeners rest this long (ms). */
#define ACCEPT_PAUSE_MS 100
/* A connection that ended with its last words (an HTTP/2 session after its
 * GOAWAY) reads to the client's end: LINGER_MS (ms) after the last bytes
 * it read, LINGER_MAX_MS in all at most (as nginx's lingering_timeout and
 * lingering_time). */
#define LINGER_MS 2000
#define LINGER_MAX_MS 30000
/* front_drain waits for the loops this long at most (s). */
#define FRONT_DRAIN_WAIT_S 2

enum state {
    ST_PEEK,      /* nothing read yet: TLS or plain HTTP? */
    ST_HANDSHAKE, /* SSL_do_handshake under way */
    ST_LINGER,    /* answered and shut down: reading to the client's end */
    ST_PARKED,    /* HTTP/1.1 between requests: libmicrohttpd let it go
                     (from front_park to its next bytes or its end: the
                     daemon is told both, struct front_ops' parked) */
    ST_HTTP1,     /* handed to libmicrohttpd */
    ST_SESSION,   /* a protocol served on the loop (h2: fc->session) */
    ST_PREFACE,   /* plain listener: HTTP/2's preface or HTTP/1.x? */
};

enum ev_kind { EV_LISTENER, EV_STOP, EV_MAIL };

struct ev_tag {
    enum ev_kind kind;
    int fd;
    bool tls; /* a listener's: https:// (else plain HTTP) */
};

struct front_loop {
    struct front *f;
    pthread_t thread;
    bool running;
    int ep;
    struct ev_tag stop; /* an eventfd: the front drains or stops */
    struct ev_tag mail; /* an eventfd: connections parked (front_park) */
    pthread_mutex_t mail_lock;
    bool mail_lock_made;
    bool mail_closed;              /* under mail_lock: no more parks */
    struct front_conn *mail_first; /* under mail_lock, by fc->next */
    struct front_conn *head, *tail;
    bool paused;  /* listeners out of the set (accept failed) */
    bool drained; /* listeners out of the set for good */
    int64_t pause_end;
};

enum phase { PHASE_RUN, PHASE_DRAIN, PHASE_STOP };

struct front {
    const struct front_conf *conf;
    const struct front_ops *ops;
    void *arg;
    struct ev_tag *listeners;
    size_t n_listeners;
    struct front_loop *loops;
    unsigned n_loops;
    _Atomic(struct front_conn *) *handoff;
    size_t n_handoff;
    _Atomic int phase; /* enum phase */
    atomic_bool abort; /* front_stop resets what it closes */
    pthread_mutex_t lock;
    pthread_cond_t all_drained;
    unsigned drained; /* loops that accept no more; under lock */
};

static bool is_listener(const struct front *f, const void *p)
{
    const struct ev_tag *t = p;

    return t >= f->listeners && t < f->listeners + f->n_listeners;
}

/* ---- connections --------------------------------------------------------- */

void front_conn_free(struct front_conn *fc)
{
    if (!fc)
        return;
    SSL_free(fc->ssl); /* and its BIO */
    free(fc);
}

void front_conn_done(struct front *f, struct front_conn *fc)
{
    if (!fc)
        return;
    f->ops->release(f->arg, (const struct sockaddr *)&fc->addr, fc->addrlen);
    front_conn_free(fc);
}

void front_abort_socket(int fd)
{
    struct linger now = {.l_onoff = 1, .l_linger = 0};

    /* the close resets it: what waits to be sent is dropped, not sent */
    (void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &now, sizeof now);
}

static void unlink_conn(struct front_loop *l, struct front_conn *fc)
{
    if (l->head == fc)
        l->head = fc->next;
    else if (fc->prev)
        fc->prev->next = fc->next;
    if (l->tail == fc)
        l->tail = fc->prev;
    else if (fc->next)
        fc->next->prev = fc->prev;
    fc->prev = fc->next = NULL;
}

/* The connection ends here: out of the loop, the socket closed. */
static void drop(struct front_loop *l, struct front_conn *fc)
{
    struct front *f = l->f;

    if (fc->prev || l->head == fc)
        unlink_conn(l, fc);
    if (fc->watched)
        (void)epoll_ctl(l->ep, EPOLL_CTL_DEL, fc->fd, NULL);
    if (fc->session)
        fc->session->end(fc);
    if (fc->state == ST_PARKED) {
        f->ops->parked(f->arg, false);
        if (fc->ssl) {
            /* its waiting ends: close_notify, as libmicrohttpd's close did */
            ERR_clear_error();
            (void)SSL_shutdown(fc->ssl);
            ERR_clear_error();
        }
    }
    if (atomic_load(&f->abort))
        front_abort_socket(fc->fd);
    close(fc->fd);
    f->ops->release(f->arg, (const struct sockaddr *)&fc->addr, fc->addrlen);
    front_conn_free(fc);
}

/* Wait for @events on @fc's socket. 0 or -1. */
static int want(struct front_loop *l, struct front_conn *fc, uint32_t events)
{
    struct epoll_event ev = {.events = events, .data.ptr = fc};

    if (fc->events == events)
        return 0;
    fc->events = events;
    return epoll_ctl(l->ep, EPOLL_CTL_MOD, fc->fd, &ev);
}

int front_conn_want(struct front_conn *fc, uint32_t events)
{
    return want(fc->loop, fc, events);
}

/* Put @fc (out of the list) back in deadline order, looked for from both
 * ends at once: a session's --timeout lands near the tail, a handshake's
 * limit or a waiting session's 1 s near the head, and neither walks past
 * the thousands of idle connections in between. */
static void link_sorted(struct front_loop *l, struct front_conn *fc)
{
    struct front_conn *after = l->tail, *before = l->head;

    while (after && after->deadline > fc->deadline) {
        if (before && before->deadline > fc->deadline) {
            after = before->prev; /* the first later one is @before */
            break;
        }
        /* (@before stays ahead of @after: never NULL here) */
        before = before ? before->next : NULL;
        after = after->prev;
    }
    fc->prev = after;
    fc->next = after ? after->next : l->head;
    if (fc->next)
        fc->next->prev = fc;
    else
        l->tail = fc;
    if (after)
        after->next = fc;
    else
        l->head = fc;
}

void front_conn_deadline(struct front_conn *fc, int64_t ms)
{
    unlink_conn(fc->loop, fc);
    fc->deadline = ms;
    link_sorted(fc->loop, fc);
}

static void client_text(struct front_conn *fc)
{
    const struct sockaddr *sa = (const struct sockaddr *)&fc->addr;

    snprintf(fc->client, sizeof fc->client, "-");
    if (sa->sa_family == AF_INET)
        inet_ntop(AF_INET,
                  &((const struct sockaddr_in *)(const void *)sa)->sin_addr,
                  fc->client, sizeof fc->client);
    else if (sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6,
                  &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr,
                  fc->client, sizeof fc->client);
    else if (sa->sa_family == AF_UNIX)
        snprintf(fc->client, sizeof fc->client, "unix");
}

/* Watch @fc (out of the loop so far) for @events, in deadline order. */
static int watch(struct front_loop *l, struct front_conn *fc, uint32_t events)
{
    struct epoll_event ev = {.events = events, .data.ptr = fc};

    if (epoll_ctl(l->ep, EPOLL_CTL_ADD, fc->fd, &ev) != 0)
        return -1;
    fc->events = events;
    fc->watched = true;
    link_sorted(l, fc);
    return 0;
}

/*
 * Whether the front can hold @fd: below its hand-off table's size
 * (RLIMIT_NOFILE at its start, 2^20 at most; the byte tap's table has the
 * same bound, wire_init). Beyond it a connection is refused.
 */
static bool fits(const struct front *f, int fd)
{
    return fd >= 0 && (size_t)fd < f->n_handoff;
}

static void preface(struct front_loop *l, struct front_conn *fc,
                    uint32_t events);
static void to_http1(struct front_loop *l, struct front_conn *fc);

/*
 * A new connection on @fd from @sa: admitted, then in the loop: with its
 * SSL (@tls), or (plain) waiting for the bytes that say HTTP/2 or not.
 */
static void adopt(struct front_loop *l, int fd,
                  const struct sockaddr_storage *sa, socklen_t len, bool tls)
{
    struct front *f = l->f;
    struct front_conn *fc = NULL;
    BIO *bio = NULL;

    if (!fits(f, fd) ||
        !f->ops->admit(f->arg, (const struct sockaddr *)sa, len)) {
        close(fd);
        return;
    }
    fc = calloc(1, sizeof *fc);
    if (!fc)
        goto out_refuse;
    fc->fd = fd;
    fc->io.fd = fd;
    fc->addr = *sa;
    fc->addrlen = len;
    fc->loop = l;
    fc->accepted_ms = mono_coarse_ms();
    client_text(fc);
    if (!tls && !f->ops->h2) {
        /* HTTP/1.x only: nothing to tell apart */
        to_http1(l, fc);
        return;
    }
    if (!tls) {
        /*
         * Most clients have sent their first bytes by the time they are
         * accepted: then the connection goes on without ever being in the
         * epoll set. A limit of 0: none (as libmicrohttpd's own).
         */
        fc->state = ST_PREFACE;
        fc->deadline =
            f->conf->peek_limit
                ? fc->accepted_ms + 1000 * (int64_t)f->conf->peek_limit
                : INT64_MAX;
        preface(l, fc, 0);
        return;
    }
    fc->state = ST_PEEK;
    fc->deadline = fc->accepted_ms + 1000 * (int64_t)f->conf->handshake_limit;
    fc->ssl = tls_store_new_ssl(f->conf->store);
    bio = fc->ssl ? sock_bio(&fc->io) : NULL;
    if (!bio)
        goto out_refuse;
    SSL_set_bio(fc->ssl, bio, bio); /* the SSL owns the BIO */
    SSL_set_accept_state(fc->ssl);
    if (watch(l, fc, EPOLLIN) != 0)
        goto out_refuse;
    return;
out_refuse:
    ERR_clear_error();
    close(fd);
    f->ops->release(f->arg, (const struct sockaddr *)sa, len);
    front_conn_free(fc);
}

/* ---- the hand-off table -------------------------------------------------- */

/* Hand @fc over with its socket; false if it is still the front's. */
static bool hand_over(struct front *f, struct front_conn *fc)
{
    struct front_conn *stale = atomic_exchange(&f->handoff[fc->fd], fc);
    if (stale) {
        /* its socket was closed without a take: the number is reused */
        f->ops->release(f->arg, (const struct sockaddr *)&stale->addr,
                        stale->addrlen);
        front_conn_free(stale);
    }
    if (f->ops->http1(f->arg, fc) == 0)
        return true;
    /* refused (the socket is closed): take it back unless already taken */
    struct front_conn *mine = fc;
    atomic_compare_exchange_strong(&f->handoff[fc->fd], &mine, NULL);
    return false;
}

struct front_conn *front_take(struct front *f, int fd)
{
    if (!f || fd < 0 || (size_t)fd >= f->n_handoff)
        return NULL;
    return atomic_exchange(&f->handoff[fd], NULL);
}

/* ---- the state machine --------------------------------------------------- */

/* Out of the loop, to libmicrohttpd. */
static void to_http1(struct front_loop *l, struct front_conn *fc)
{
    struct front *f = l->f;

    if (fc->watched) {
        unlink_conn(l, fc);
        (void)epoll_ctl(l->ep, EPOLL_CTL_DEL, fc->fd, NULL);
        fc->watched = false;
    }
    if (fc->state == ST_PARKED)
        f->ops->parked(f->arg, false);
    fc->state = ST_HTTP1;
    if (!hand_over(f, fc)) {
        f->ops->release(f->arg, (const struct sockaddr *)&fc->addr,
                        fc->addrlen);
        front_conn_free(fc);
    }
}

/*
 * A plain connection's first bytes, looked at and left in the socket: the
 * preface of HTTP/2 with prior knowledge (RFC 9113 3.3) starts a session
 * here; anything else is HTTP/1.x, libmicrohttpd's. The first byte decides
 * for every HTTP/1.x method but those starting with P (POST, PUT, PATCH,
 * PRI), which the second or third does. Until then the socket is watched
 * edge-triggered: the bytes peeked stay readable, and only new ones wake;
 * a client that stops sending (@events has EPOLLRDHUP) with half a preface
 * can never finish it.
 */
static void preface(struct front_loop *l, struct front_conn *fc,
                    uint32_t events)
{
    struct front *f = l->f;
    char b[PREFACE_H2_LEN];
    ssize_t n;

    do
        n = recvfrom(fc->fd, b, sizeof b, MSG_PEEK | MSG_DONTWAIT, NULL, NULL);
    while (n < 0 && errno == EINTR);
    if (n < 0 && errno == EAGAIN)
        goto wait;
    if (n <= 0) {
        drop(l, fc); /* closed or reset before a byte */
        return;
    }
    switch (preface_check(b, (size_t)n)) {
    case PREFACE_NO:
        to_http1(l, fc);
        return;
    case PREFACE_MORE:
        if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
            drop(l, fc);
            return;
        }
        goto wait;
    case PREFACE_YES:
        break;
    }
    if (!fc->watched && watch(l, fc, EPOLLIN) != 0) {
        drop(l, fc);
        return;
    }
    /* the session reads the preface itself and sets its own deadline */
    fc->state = ST_SESSION;
    if (f->ops->h2(f->arg, fc) == 0 && fc->session)
        return;
    drop(l, fc);
    return;
wait:
    if (!fc->watched && watch(l, fc, EPOLLIN | EPOLLRDHUP | EPOLLET) != 0)
        drop(l, fc);
}

/* The handshake is done: where the connection goes. */
static void established(struct front_loop *l, struct front_conn *fc)
{
    struct front *f = l->f;

    fc->cert_wait = false;
    fc->version = tls_front_version(fc->ssl);
    fc->proto = tls_front_proto_of(fc->ssl);
    f->ops->handshake(f->arg, true);
    if (fc->proto == TLS_FRONT_H2 && f->ops->h2) {
        /* served here: the session sets its own deadline */
        SSL_set_read_ahead(fc->ssl, 1);
        fc->state = ST_SESSION;
        if (f->ops->h2(f->arg, fc) == 0 && fc->session)
            return;
        drop(l, fc);
        return;
    }
    if (fc->proto != TLS_FRONT_HTTP1) {
        /* acme-tls/1 (RFC 8737 3: the handshake is the answer) */
        ERR_clear_error();
        (void)SSL_shutdown(fc->ssl);
        ERR_clear_error();
        drop(l, fc);
        return;
    }
    /*
     * Reading ahead from now on: fewer reads per request, and the tap
     * knows what the SSL holds (wire.c). Not during the handshake, so
     * that no request is held in the SSL unseen when libmicrohttpd starts
     * waiting on the socket.
     */
    SSL_set_read_ahead(fc->ssl, 1);
    to_http1(l, fc);
}

static void handshake(struct front_loop *l, struct front_conn *fc)
{
    ERR_clear_error();
    int r = SSL_do_handshake(fc->ssl);
    if (r == 1) {
        established(l, fc);
        return;
    }
    int e = SSL_get_error(fc->ssl, r);
    ERR_clear_error();
    if (e == SSL_ERROR_WANT_CLIENT_HELLO_CB) {
        /* its name's certificate is being got (on demand): asked again
         * soon, within the handshake's own bound (expire) */
        if (!fc->cert_wait)
            fc->hs_deadline = fc->deadline;
        fc->cert_wait = true;
        int64_t at = mono_coarse_ms() + CERT_RETRY_MS;
        front_conn_deadline(fc, at < fc->hs_deadline ? at : fc->hs_deadline);
        return;
    }
    if (e == SSL_ERROR_WANT_READ && want(l, fc, EPOLLIN) == 0)
        return;
    if (e == SSL_ERROR_WANT_WRITE && want(l, fc, EPOLLOUT) == 0)
        return;
    /* OpenSSL has sent the alert that names the failure */
    l->f->ops->handshake(l->f->arg, false);
    drop(l, fc);
}

/*
 * Plain HTTP on the TLS port: 400 in plain text, then read (and drop)
 * until the client's end of stream, so that closing cannot reset the
 * connection before the client read the answer.
 */
static void plain(struct front_loop *l, struct front_conn *fc)
{
    char b[4096];
    ssize_t n;

    while ((n = recvfrom(fc->fd, b, sizeof b, MSG_DONTWAIT, NULL, NULL)) > 0)
        ;
    ssize_t sent = sendto(fc->fd, https_port_reply, sizeof https_port_reply - 1,
                          MSG_NOSIGNAL | MSG_DONTWAIT, NULL, 0);
    (void)shutdown(fc->fd, SHUT_WR);
    l->f->ops->handshake(l->f->arg, false);
    l->f->ops->plain(l->f->arg, fc,
                     sent == (ssize_t)sizeof https_port_reply - 1);
    fc->state = ST_LINGER;
    fc->hs_deadline = fc->deadline; /* the handshake's: not moved */
    if (n == 0)
        drop(l, fc);
}

static void linger(struct front_loop *l, struct front_conn *fc)
{
    char b[4096];
    ssize_t n;
    bool some = false;

    while ((n = recvfrom(fc->fd, b, sizeof b, MSG_DONTWAIT, NULL, NULL)) > 0)
        some = true;
    if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        drop(l, fc);
        return;
    }
    /* the client is there: LINGER_MS more, within the linger's end */
    int64_t later = mono_coarse_ms() + LINGER_MS;
    if (some && fc->deadline < fc->hs_deadline)
        front_conn_deadline(fc,
                            later < fc->hs_deadline ? later : fc->hs_deadline);
}

/*
 * A session ended (its last words written: an HTTP/2 GOAWAY after the last
 * stream). Closing now, with client bytes unread (a WINDOW_UPDATE, a PING
 * or SETTINGS acknowledgement on their way), would reset the connection,
 * and a reset drops what the kernel still holds to send: the last replies
 * and the GOAWAY. So it is shut down for writing, and read (and dropped)
 * until the client's end of stream: LINGER_MS after the last bytes it
 * sent, LINGER_MAX_MS at most.
 */
static void finish(struct front_loop *l, struct front_conn *fc)
{
    fc->session->end(fc);
    fc->session = NULL;
    fc->state = ST_LINGER;
    if (shutdown(fc->fd, SHUT_WR) != 0 ||
        want(l, fc, EPOLLIN | EPOLLRDHUP) != 0) {
        drop(l, fc);
        return;
    }
    fc->hs_deadline = mono_coarse_ms() + LINGER_MAX_MS;
    front_conn_deadline(fc, mono_coarse_ms() + LINGER_MS);
    linger(l, fc);
}

/* ---- waiting connections ------------------------------------------------- */

int front_park(struct front *f, struct front_conn *fc, int fd, int64_t deadline)
{
    struct front_loop *l = fc->loop;
    uint64_t one = 1;
    int err = 0;

    pthread_mutex_lock(&l->mail_lock);
    if (l->mail_closed || atomic_load(&f->phase) == PHASE_STOP ||
        !fits(f, fd)) {
        err = -ESHUTDOWN;
    } else {
        fc->fd = fc->io.fd = fd;
        fc->deadline = deadline;
        fc->state = ST_PARKED;
        f->ops->parked(f->arg, true);
        fc->next = l->mail_first;
        l->mail_first = fc;
    }
    pthread_mutex_unlock(&l->mail_lock);
    if (!err)
        (void)!write(l->mail.fd, &one, sizeof one);
    return err;
}

/*
 * A connection parked: watched for its next request, or its end, until its
 * deadline. Over TLS the SSL's buffers are released meanwhile (OpenSSL
 * makes them again at the next record); one that holds bytes already goes
 * back at once.
 */
static void park_in(struct front_loop *l, struct front_conn *fc)
{
    fc->state = ST_PARKED;
    fc->prev = fc->next = NULL;
    fc->watched = false;
    fc->events = 0;
    if (fc->ssl && SSL_has_pending(fc->ssl)) {
        fc->accepted_ms = mono_coarse_ms();
        to_http1(l, fc);
        return;
    }
    if (fc->ssl)
        (void)SSL_free_buffers(fc->ssl);
    if (l->drained && fc->deadline > mono_coarse_ms() + FRONT_DRAIN_IDLE_MS)
        fc->deadline = mono_coarse_ms() + FRONT_DRAIN_IDLE_MS;
    if (watch(l, fc, EPOLLIN | EPOLLRDHUP) != 0)
        drop(l, fc);
}

/* The mail: connections libmicrohttpd parked for this loop. */
static void take_mail(struct front_loop *l)
{
    uint64_t v;
    struct front_conn *fc;

    (void)!read(l->mail.fd, &v, sizeof v);
    pthread_mutex_lock(&l->mail_lock);
    fc = l->mail_first;
    l->mail_first = NULL;
    pthread_mutex_unlock(&l->mail_lock);
    while (fc) {
        struct front_conn *next = fc->next;
        park_in(l, fc);
        fc = next;
    }
}

/* A parked connection is readable: its next request, or its end. */
static void parked(struct front_loop *l, struct front_conn *fc)
{
    char b;
    ssize_t n = recvfrom(fc->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT, NULL, NULL);

    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        drop(l, fc);
        return;
    }
    /* its next headers are due within --header-timeout from now */
    fc->accepted_ms = mono_coarse_ms();
    to_http1(l, fc);
}

static void conn_event(struct front_loop *l, struct front_conn *fc,
                       uint32_t events)
{
    unsigned char first;
    ssize_t n;

    switch (fc->state) {
    case ST_PEEK:
        /*
         * A TLS record starts with its content type (22, a handshake); a
         * letter is a plain HTTP method.
         */
        n = recvfrom(fc->fd, &first, 1, MSG_PEEK | MSG_DONTWAIT, NULL, NULL);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        if (n <= 0) {
            l->f->ops->handshake(l->f->arg, false);
            drop(l, fc);
            return;
        }
        if ((first >= 'A' && first <= 'Z') || (first >= 'a' && first <= 'z')) {
            plain(l, fc);
            return;
        }
        fc->state = ST_HANDSHAKE;
        handshake(l, fc);
        return;
    case ST_HANDSHAKE:
        handshake(l, fc);
        return;
    case ST_SESSION:
        if (!fc->session->event(fc, events))
            finish(l, fc);
        return;
    case ST_PREFACE:
        preface(l, fc, events);
        return;
    case ST_PARKED:
        parked(l, fc);
        return;
    default:
        linger(l, fc);
        return;
    }
}

/*
 * Past their deadline: closed (a handshake that never ends is bounded). A
 * session is asked first: its deadline may be a timer of its own (an
 * HTTP/2 stream to reset); it stays if it set a later one.
 */
static void expire(struct front_loop *l, int64_t now)
{
    struct front_conn *next;

    for (struct front_conn *fc = l->head; fc && fc->deadline <= now;
         fc = next) {
        next = fc->next;
        if (fc->session && fc->session->event(fc, 0) && fc->deadline > now)
            continue;
        if (fc->cert_wait && now < fc->hs_deadline) {
            /* has its certificate come? (the ClientHello again) */
            fc->cert_wait = false;
            front_conn_deadline(fc, fc->hs_deadline);
            handshake(l, fc);
            continue;
        }
        if (fc->state == ST_PEEK || fc->state == ST_HANDSHAKE)
            l->f->ops->handshake(l->f->arg, false);
        drop(l, fc);
    }
}

/* ---- accept -------------------------------------------------------------- */

static void listeners_set(struct front_loop *l, int op)
{
    struct front *f = l->f;

    if (l->drained)
        return;
    for (size_t i = 0; i < f->n_listeners; i++) {
        struct epoll_event ev = {.events = EPOLLIN | EPOLLEXCLUSIVE,
                                 .data.ptr = &f->listeners[i]};
        (void)epoll_ctl(l->ep, op, f->listeners[i].fd,
                        op == EPOLL_CTL_DEL ? NULL : &ev);
    }
}

static void accept_some(struct front_loop *l, const struct ev_tag *t)
{
    for (int i = 0; i < ACCEPT_BATCH; i++) {
        struct sockaddr_storage sa;
        socklen_t len = sizeof sa;
        int fd = accept4(t->fd, (struct sockaddr *)&sa, &len,
                         SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
            adopt(l, fd, &sa, len, t->tls);
            continue;
        }
        if (errno == EINVAL) {
            /* shut down (the server stops): no more from it here */
            (void)epoll_ctl(l->ep, EPOLL_CTL_DEL, t->fd, NULL);
            return;
        }
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
            errno == ENOMEM) {
            /* out of descriptors: leave the backlog for a moment rather
             * than spin on a listener that stays readable */
            listeners_set(l, EPOLL_CTL_DEL);
            l->paused = true;
            l->pause_end = mono_coarse_ms() + ACCEPT_PAUSE_MS;
        }
        return;
    }
}

/* ---- draining ------------------------------------------------------------ */

/*
 * The front drains (front_drain): this loop accepts no more, and each
 * session on it is told at once (HTTP/2: GOAWAY, then the streams begun
 * are answered); connections in their handshake or first bytes go on as
 * usual, to be told when they reach their protocol.
 */
static void drain_loop(struct front_loop *l)
{
    uint64_t v;
    size_t n = 0, i = 0;

    (void)!read(l->stop.fd, &v, sizeof v);
    if (l->drained)
        return;
    listeners_set(l, EPOLL_CTL_DEL);
    l->drained = true;
    /*
     * A connection whose wake-up (EPOLLEXCLUSIVE: one waiter of all the
     * processes') came here just before is taken now, or it would wait in
     * the backlog for the next one to wake a loop of the newer process.
     * From the removal on, no wake-up comes here.
     */
    for (size_t k = 0; k < l->f->n_listeners; k++)
        accept_some(l, &l->f->listeners[k]);
    /* front_drain returns once every loop is here */
    pthread_mutex_lock(&l->f->lock);
    l->f->drained++;
    pthread_cond_broadcast(&l->f->all_drained);
    pthread_mutex_unlock(&l->f->lock);
    for (struct front_conn *fc = l->head; fc; fc = fc->next)
        n += fc->state == ST_SESSION || fc->state == ST_PARKED;
    struct front_conn **sessions =
        n ? calloc(n, sizeof(struct front_conn *)) : NULL;
    if (!sessions)
        return; /* each session sees the drain at its next event */
    for (struct front_conn *fc = l->head; fc && i < n; fc = fc->next)
        if (fc->state == ST_SESSION || fc->state == ST_PARKED)
            sessions[i++] = fc;
    /*
     * A session's event moves it in the list, or ends it: from a copy. A
     * parked connection waits FRONT_DRAIN_IDLE_MS more at most, as an idle
     * one in libmicrohttpd does.
     */
    int64_t idle_end = mono_coarse_ms() + FRONT_DRAIN_IDLE_MS;
    for (i = 0; i < n; i++) {
        struct front_conn *fc = sessions[i];
        if (fc->state == ST_PARKED && fc->deadline > idle_end) {
            unlink_conn(l, fc);
            fc->deadline = idle_end;
            link_sorted(l, fc);
        } else if (fc->state == ST_SESSION && !fc->session->event(fc, 0)) {
            finish(l, fc);
        }
    }
    free(sessions);
}

void front_drain(struct front *f)
{
    uint64_t one = 1;
    struct timespec until;

    if (!f)
        return;
    atomic_store(&f->phase, PHASE_DRAIN);
    for (unsigned i = 0; i < f->n_loops; i++)
        (void)!write(f->loops[i].stop.fd, &one, sizeof one);
    /* bounded: a loop busy with a connection's event gets there soon */
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += FRONT_DRAIN_WAIT_S;
    pthread_mutex_lock(&f->lock);
    while (f->drained < f->n_loops &&
           pthread_cond_timedwait(&f->all_drained, &f->lock, &until) == 0)
        ;
    pthread_mutex_unlock(&f->lock);
}

/* ---- the loop ------------------------------------------------------------ */

static void *loop_run(void *arg)
{
    struct front_loop *l = arg;
    struct front *f = l->f;
    struct epoll_event evs[64];

    (void)prctl(PR_SET_NAME, "beneath-front");
    for (;;) {
        int64_t now = mono_coarse_ms();
        int64_t next = l->head ? l->head->deadline : -1;
        if (l->paused && (next < 0 || l->pause_end < next))
            next = l->pause_end;
        int timeout = next < 0 ? -1 : next <= now ? 0 : (int)(next - now);
        int n = epoll_wait(l->ep, evs, 64, timeout);
        if (n < 0 && errno != EINTR)
            break;
        bool drain = false;
        for (int i = 0; i < n; i++) {
            void *p = evs[i].data.ptr;
            if (p == &l->stop && atomic_load(&f->phase) == PHASE_STOP)
                return NULL;
            if (p == &l->stop) {
                drain = true;
                continue;
            }
            if (p == &l->mail) {
                take_mail(l);
                continue;
            }
            if (is_listener(f, p))
                accept_some(l, p);
            else
                conn_event(l, p, evs[i].events);
        }
        /* after the batch: it ends connections whose events may be in it */
        if (drain) {
            drain_loop(l);
            /* its read may have taken loop_close's word too */
            if (atomic_load(&f->phase) == PHASE_STOP)
                return NULL;
        }
        now = mono_coarse_ms();
        if (l->paused && now >= l->pause_end) {
            l->paused = false;
            listeners_set(l, EPOLL_CTL_ADD);
        }
        expire(l, now);
    }
    fprintf(stderr, "beneath: tls front: epoll_wait: %s\n", strerror(errno));
    return NULL;
}

static int loop_open(struct front *f, struct front_loop *l)
{
    l->f = f;
    l->ep = epoll_create1(EPOLL_CLOEXEC);
    l->stop.kind = EV_STOP;
    l->stop.fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    l->mail.kind = EV_MAIL;
    l->mail.fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (l->ep < 0 || l->stop.fd < 0 || l->mail.fd < 0)
        return -errno;
    int err = -pthread_mutex_init(&l->mail_lock, NULL);
    if (err)
        return err;
    l->mail_lock_made = true;
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &l->stop};
    if (epoll_ctl(l->ep, EPOLL_CTL_ADD, l->stop.fd, &ev) != 0)
        return -errno;
    ev.data.ptr = &l->mail;
    if (epoll_ctl(l->ep, EPOLL_CTL_ADD, l->mail.fd, &ev) != 0)
        return -errno;
    listeners_set(l, EPOLL_CTL_ADD);
    err = -pthread_create(&l->thread, NULL, loop_run, l);
    l->running = err == 0;
    return err;
}

static void loop_close(struct front_loop *l)
{
    if (l->running) {
        uint64_t one = 1;
        atomic_store(&l->f->phase, PHASE_STOP);
        (void)!write(l->stop.fd, &one, sizeof one);
        pthread_join(l->thread, NULL);
        l->running = false;
    }
    if (l->mail_lock_made) {
        /* parks from now on are refused; those in the mail are closed */
        pthread_mutex_lock(&l->mail_lock);
        l->mail_closed = true;
        struct front_conn *mail = l->mail_first;
        l->mail_first = NULL;
        pthread_mutex_unlock(&l->mail_lock);
        while (mail) {
            struct front_conn *next = mail->next;
            mail->prev = mail->next = NULL;
            mail->watched = false;
            mail->state = ST_PARKED;
            drop(l, mail);
            mail = next;
        }
    }
    for (struct front_conn *fc = l->head, *next; fc; fc = next) {
        next = fc->next;
        drop(l, fc);
    }
    if (l->stop.fd >= 0)
        close(l->stop.fd);
    if (l->mail.fd >= 0)
        close(l->mail.fd);
    if (l->ep >= 0)
        close(l->ep);
    l->stop.fd = l->mail.fd = l->ep = -1;
}

int front_start(const struct front_conf *conf, const struct front_ops *ops,
                void *arg, const int *fds, const bool *tls, size_t n,
                struct front **out)
{
    struct front *f = calloc(1, sizeof *f);
    struct rlimit rl;
    int err = -ENOMEM;

    *out = NULL;
    if (!f)
        goto out_close;
    f->conf = conf;
    f->ops = ops;
    f->arg = arg;
    pthread_mutex_init(&f->lock, NULL);
    pthread_cond_init(&f->all_drained, NULL);
    f->listeners = calloc(n ? n : 1, sizeof *f->listeners);
    f->loops = calloc(conf->threads, sizeof *f->loops);
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur > (1u << 20))
        rl.rlim_cur = 1u << 20;
    f->n_handoff = (size_t)rl.rlim_cur;
    f->handoff = calloc(f->n_handoff, sizeof *f->handoff);
    if (!f->listeners || !f->loops || !f->handoff)
        goto out_free;
    for (; f->n_listeners < n; f->n_listeners++) {
        f->listeners[f->n_listeners].kind = EV_LISTENER;
        f->listeners[f->n_listeners].fd = fds[f->n_listeners];
        f->listeners[f->n_listeners].tls = tls[f->n_listeners];
        /* accept4 must never block a loop */
        int fl = fcntl(fds[f->n_listeners], F_GETFL);
        if (fl < 0 ||
            fcntl(fds[f->n_listeners], F_SETFL, fl | O_NONBLOCK) < 0) {
            err = -errno;
            goto out_free;
        }
    }
    for (unsigned i = 0; i < conf->threads; i++)
        f->loops[i].ep = f->loops[i].stop.fd = f->loops[i].mail.fd = -1;
    /* before the first loop runs: what it hands over is looked up in it */
    *out = f;
    for (f->n_loops = 0; f->n_loops < conf->threads; f->n_loops++) {
        err = loop_open(f, &f->loops[f->n_loops]);
        if (err) {
            f->n_loops++;
            fprintf(stderr, "beneath: tls front: cannot start a loop: %s\n",
                    strerror(-err));
            front_stop(f);
            front_free(f);
            *out = NULL;
            return err;
        }
    }
    return 0;
out_free:
    pthread_cond_destroy(&f->all_drained);
    pthread_mutex_destroy(&f->lock);
    free(f->handoff);
    free(f->loops);
    free(f->listeners);
    free(f);
out_close:
    for (size_t i = 0; i < n; i++)
        close(fds[i]);
    fprintf(stderr, "beneath: tls front: %s\n", strerror(-err));
    return err;
}

void front_abort(struct front *f)
{
    if (f)
        atomic_store(&f->abort, true);
}

void front_stop(struct front *f)
{
    if (!f)
        return;
    for (unsigned i = 0; i < f->n_loops; i++)
        loop_close(&f->loops[i]);
    for (size_t i = 0; i < f->n_listeners; i++)
        if (f->listeners[i].fd >= 0) {
            close(f->listeners[i].fd);
            f->listeners[i].fd = -1;
        }
}

void front_free(struct front *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n_handoff; i++) {
        struct front_conn *stale = atomic_exchange(&f->handoff[i], NULL);
        if (stale) {
            f->ops->release(f->arg, (const struct sockaddr *)&stale->addr,
                            stale->addrlen);
            front_conn_free(stale);
        }
    }
    for (unsigned i = 0; i < f->n_loops; i++)
        if (f->loops[i].mail_lock_made)
            pthread_mutex_destroy(&f->loops[i].mail_lock);
    pthread_cond_destroy(&f->all_drained);
    pthread_mutex_destroy(&f->lock);
    free(f->handoff);
    free(f->loops);
    free(f->listeners);
    free(f);
}
