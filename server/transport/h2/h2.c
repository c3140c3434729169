// SPDX-License-Identifier: MIT
/*
 * h2.c - an HTTP/2 connection on libnghttp2 (h2.h): requests from each
 * stream's HEADERS, replies as HEADERS and DATA, the limits.
 *
 * Output: nghttp2 writes its frames through on_send into the session's
 * buffer, and DATA frames (NGHTTP2_DATA_FLAG_NO_COPY) through on_send_data,
 * which reads the body's bytes (a bytes body, or the reply's fd or the
 * multipart writer's steps through transport/conn/body.c) straight into
 * that buffer behind the frame header; the buffer is written to the
 * connection when full or when nghttp2 has nothing more. A frame goes
 * into the buffer whole or not at all, so what is written is always whole
 * frames. While the connection does not take the buffer, nothing more is
 * read from it (the client must read what it asked for), and no more
 * requests are answered.
 *
 * Invariant: a stream's struct h2_stream exists from its HEADERS to
 * nghttp2's on_stream_close, which releases its reply; the stream's
 * request strings live in its arena as long. A stream holds a file slot
 * (st->slot) exactly while its reply holds a file descriptor it has still
 * to read from; s->files counts them, s->own_busy says whether the
 * connection's own slot is one, the rest are the pool's (conf->files_used).
 * A stream waiting for a slot is on s->deferred and not answered; one whose
 * reply made no progress for --timeout is expired: its body is released at
 * once, a RST_STREAM is queued, and no callback reads its body again.
 */
#include "transport/h2/h2.h"

#include "common/mono.h"
#include "http/arena.h"
#include "http/multipart.h"
#include "http/request.h"
#include "http/status.h"
#include "observe/metrics.h"
#include "respond/respond.h"
#include "syntax/digits.h"
#include "transport/conn/body.h"
#include "transport/conn/date_cache.h"
#include "transport/conn/gen_conf.h"
#include "transport/conn/intake.h"
#include "transport/conn/served.h"
#include "transport/h2/h2_pages.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The output buffer: room for several whole DATA frames (16 KiB each). */
#define OUT_SIZE ((size_t)64 * 1024)
/* Bytes read per event before the session yields to the loop's others. */
#define READ_BUDGET ((size_t)256 * 1024)
/* Closed streams' structures kept for the next ones. */
#define SPARE_STREAMS 8
/* A session quiet this long (ms: nothing read or sent, no stream open)
 * gives back its nghttp2 pages (h2_pages.c), as HTTP/1.1 parks after 1 s. */
#define PAGES_IDLE_MS 1000

/* A token bucket: @burst tokens, refilled at @rate per second. */
struct bucket {
    double tokens;
    int64_t at_ms;
};

struct h2_stream {
    struct h2_session *s;
    int32_t id;
    struct h2_stream *prev, *next; /* the session's open streams */
    struct h2_stream *next_spare;
    struct arena arena; /* the request's strings */
    struct request rq;
    const char *path, *authority;
    size_t head_bytes; /* of the request head, as RFC 9113 6.5.2 counts */
    bool too_big;      /* head over max_header_list: 431 */
    bool oom;          /* a field could not be kept: 500 */
    bool answered;     /* respond() ran, the reply is submitted */
    bool counted;      /* in conf->in_flight */
    bool has_reply;    /* @rep holds something to release */
    bool submitted;    /* the reply went to nghttp2: logged at its end */
    struct reply rep;
    uint64_t sent;      /* body bytes in DATA frames so far */
    uint64_t start_ns;  /* its head complete (metrics_now_ns), or 0 */
    bool short_file;    /* the file ended before the reply's length */
    uint64_t dropped;   /* request body bytes read and dropped */
    bool big_body;      /* content-length over H2_DISCARD_MAX */
    bool replied;       /* the reply's END_STREAM went out */
    bool cut;           /* RST_STREAM NO_ERROR submitted for the body */
    bool body;          /* the reply has body bytes to send */
    bool expired;       /* no progress for --timeout: reset, body released */
    bool deferred;      /* on the session's deferred list */
    bool waited;        /* was on it */
    unsigned char slot; /* enum slot */
    struct h2_stream *next_defer; /* the deferred list */
    int64_t progress_ms;          /* answered, or its last progress */
    uint64_t mark;                /* @sent at that progress */
};

/* The file slot a stream holds. */
enum slot {
    SLOT_NONE,
    SLOT_OWN,  /* the one every connection has */
    SLOT_POOL, /* one of struct h2_conf's pool */
};

struct h2_session {
    const struct h2_conf *conf;
    nghttp2_session *ng;
    const char *tls;
    int64_t now; /* ms of the event being handled */
    int64_t start_ms;
    int64_t notice_ms;      /* when the drain notice went out */
    int64_t block_ms;       /* when the open request head began */
    int64_t active_ms;      /* the last request, or stream end */
    int64_t progress_ms;    /* the connection's last progress (h2.h) */
    int64_t quiet_ms;       /* the last byte read, or frame sent */
    uint64_t framed;        /* body bytes framed, all streams */
    uint64_t framed_mark;   /* @framed at the last progress they made */
    struct h2_stream *open; /* the open streams */
    struct h2_stream *deferred, *deferred_tail; /* waiting for a slot */
    struct h2_stream *spare;
    unsigned char *out; /* OUT_SIZE; NULL while idle */
    size_t out_off, out_len;
    struct bucket resets, control;
    struct h2_pages pages; /* nghttp2's large blocks */
    struct h2_io io;
    struct sockaddr_storage addr;
    socklen_t addr_len;
    unsigned streams; /* open (struct h2_stream alive) */
    unsigned files;   /* streams holding a file slot */
    unsigned n_spare;
    bool preface;     /* the client's SETTINGS arrived */
    bool eof;         /* the client closed its side */
    bool more;        /* the read budget ran out with bytes perhaps left */
    bool goaway;      /* a GOAWAY is queued or sent (draining, limits) */
    bool notice;      /* draining: the shutdown notice is out */
    bool notice_seen; /* the client answered the PING sent with it */
    bool calm;        /* ended for a budget: nothing more is answered */
    bool block;       /* a request head (HEADERS, CONTINUATION) is open */
    bool own_busy;    /* the connection's own slot is held */
    bool split;       /* a frame was once cut across two fills of @out */
    bool released;    /* @pages given back since @quiet_ms */
    char client[INET6_ADDRSTRLEN];
};

/* ---- budgets ------------------------------------------------------------- */

/* Take one token of @b (@burst, @rate per s); false when none is left. */
static bool spend(struct bucket *b, int64_t now, double burst, double rate)
{
    if (now > b->at_ms) {
        b->tokens += (double)(now - b->at_ms) * rate / 1000.0;
        if (b->tokens > burst)
            b->tokens = burst;
        b->at_ms = now;
    }
    if (b->tokens < 1.0)
        return false;
    b->tokens -= 1.0;
    return true;
}

/* A budget ran out: the connection ends, its open streams answered. */
static void calm_down(struct h2_session *s)
{
    if (s->goaway)
        return;
    s->goaway = s->calm = true;
    (void)nghttp2_session_terminate_session(s->ng, NGHTTP2_ENHANCE_YOUR_CALM);
}

static void charge_reset(struct h2_session *s)
{
    if (!spend(&s->resets, s->now, H2_RESET_BURST, H2_RESET_RATE))
        calm_down(s);
}

static void charge_control(struct h2_session *s)
{
    if (!spend(&s->control, s->now, H2_CONTROL_BURST, H2_CONTROL_RATE))
        calm_down(s);
}

/* ---- file slots ---------------------------------------------------------- */

/* One slot of the pool, if it has room. */
static bool pool_take(const struct h2_conf *conf)
{
    if (!conf->files_used)
        return false;
    unsigned n = atomic_load(conf->files_used);
    while (n < conf->files_pool)
        if (atomic_compare_exchange_weak(conf->files_used, &n, n + 1))
            return true;
    return false;
}

/* Whether a stream of @s could take a slot now. */
static bool slot_free(const struct h2_session *s)
{
    return !s->own_busy ||
           (s->files < H2_FILES_PER_CONN && s->conf->files_used &&
            atomic_load(s->conf->files_used) < s->conf->files_pool);
}

static bool slot_take(struct h2_session *s, struct h2_stream *st)
{
    if (!s->own_busy) {
        s->own_busy = true;
        st->slot = SLOT_OWN;
    } else if (s->files < H2_FILES_PER_CONN && pool_take(s->conf)) {
        st->slot = SLOT_POOL;
    } else {
        return false;
    }
    s->files++;
    return true;
}

static void slot_give(struct h2_session *s, struct h2_stream *st)
{
    if (st->slot == SLOT_NONE)
        return;
    if (st->slot == SLOT_OWN)
        s->own_busy = false;
    else
        atomic_fetch_sub(s->conf->files_used, 1);
    st->slot = SLOT_NONE;
    s->files--;
}

/* @st's body is done with (sent, expired): its file closed, its slot
 * given back. The fields stay (nghttp2 copied them already). */
static void body_done(struct h2_session *s, struct h2_stream *st)
{
    if (st->has_reply)
        reply_drop_body(&st->rep);
    slot_give(s, st);
}

static void defer(struct h2_session *s, struct h2_stream *st)
{
    st->deferred = true;
    st->next_defer = NULL;
    if (s->deferred_tail)
        s->deferred_tail->next_defer = st;
    else
        s->deferred = st;
    s->deferred_tail = st;
}

static void undefer(struct h2_session *s, struct h2_stream *st)
{
    struct h2_stream **p = &s->deferred, *prev = NULL;

    while (*p && *p != st) {
        prev = *p;
        p = &(*p)->next_defer;
    }
    if (*p)
        *p = st->next_defer;
    if (s->deferred_tail == st)
        s->deferred_tail = prev;
    st->deferred = false;
    st->next_defer = NULL;
}

/* ---- streams ------------------------------------------------------------- */

static struct h2_stream *stream_new(struct h2_session *s, int32_t id)
{
    struct h2_stream *st = s->spare;

    if (st) {
        s->spare = st->next_spare;
        s->n_spare--;
        struct arena a = st->arena;
        memset(st, 0, sizeof *st);
        st->arena = a;
    } else {
        st = calloc(1, sizeof *st);
        if (!st)
            return NULL;
    }
    st->s = s;
    st->id = id;
    reply_init(&st->rep);
    st->next = s->open;
    if (s->open)
        s->open->prev = st;
    s->open = st;
    s->streams++;
    return st;
}

static void stream_free(struct h2_session *s, struct h2_stream *st)
{
    if (st->deferred)
        undefer(s, st);
    slot_give(s, st);
    if (st->has_reply)
        reply_release(&st->rep);
    if (st->counted && s->conf->in_flight)
        atomic_fetch_sub(s->conf->in_flight, 1);
    if (st->short_file)
        served_short_file(st->rq.target, "stream reset");
    if (s->open == st)
        s->open = st->next;
    else if (st->prev)
        st->prev->next = st->next;
    if (st->next)
        st->next->prev = st->prev;
    st->prev = st->next = NULL;
    s->streams--;
    if (s->n_spare < SPARE_STREAMS) {
        arena_reset(&st->arena);
        st->next_spare = s->spare;
        s->spare = st;
        s->n_spare++;
        return;
    }
    arena_free(&st->arena);
    free(st);
}

static void spares_free(struct h2_session *s)
{
    while (s->spare) {
        struct h2_stream *st = s->spare;
        s->spare = st->next_spare;
        arena_free(&st->arena);
        free(st);
    }
    s->n_spare = 0;
}

static struct h2_stream *stream_of(struct h2_session *s, int32_t id)
{
    return nghttp2_session_get_stream_user_data(s->ng, id);
}

/* ---- the request --------------------------------------------------------- */

static int on_begin_headers(nghttp2_session *ng, const nghttp2_frame *frame,
                            void *arg)
{
    struct h2_session *s = arg;
    struct h2_stream *st;

    if (frame->hd.type != NGHTTP2_HEADERS)
        return 0;
    s->block = true;
    s->block_ms = s->now;
    if (frame->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0; /* trailers: read and dropped */
    st = stream_new(s, frame->hd.stream_id);
    if (!st)
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    if (nghttp2_session_set_stream_user_data(ng, st->id, st) != 0) {
        stream_free(s, st);
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    }
    return 0;
}

static const char *copy(struct h2_stream *st, const uint8_t *v, size_t n)
{
    const char *c = arena_strndup(&st->arena, (const char *)v, n);

    if (!c)
        st->oom = true;
    return c;
}

/*
 * One field of a request head, already checked by nghttp2 (RFC 9113 8.2,
 * 8.3: pseudo-fields known, once, first, with :method, :scheme and :path;
 * names in lower case; no connection-specific field; a field with a byte
 * not allowed resets the stream).
 */
static int on_header(nghttp2_session *ng, const nghttp2_frame *frame,
                     const uint8_t *name, size_t namelen, const uint8_t *value,
                     size_t valuelen, uint8_t flags, void *arg)
{
    struct h2_session *s = arg;
    struct h2_stream *st;

    (void)ng;
    (void)flags;
    if (frame->hd.type != NGHTTP2_HEADERS ||
        frame->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0;
    st = stream_of(s, frame->hd.stream_id);
    if (!st || st->too_big)
        return 0;
    st->head_bytes += namelen + valuelen + 32;
    if (st->head_bytes > s->conf->max_header_list) {
        /* the rest of the head is decoded (HPACK state) and dropped */
        st->too_big = true;
        return 0;
    }
    if (namelen && name[0] == ':') {
        if (namelen == 7 && memcmp(name, ":method", 7) == 0)
            st->rq.method_name = copy(st, value, valuelen);
        else if (namelen == 5 && memcmp(name, ":path", 5) == 0)
            st->path = copy(st, value, valuelen);
        else if (namelen == 10 && memcmp(name, ":authority", 10) == 0)
            st->authority = copy(st, value, valuelen);
        return 0;
    }
    if (namelen == 14 && memcmp(name, "content-length", 14) == 0)
        /* nghttp2 has checked it is digits and will check the DATA */
        st->big_body = valuelen > 19 ||
                       strtoull((const char *)value, NULL, 10) > H2_DISCARD_MAX;
    if (request_add_field(&st->rq, &st->arena, (const char *)name, namelen,
                          (const char *)value, valuelen, false) != 0)
        st->oom = true;
    return 0;
}

/* ---- the reply ----------------------------------------------------------- */

/* Copy @n bytes of @st's body from @st->sent into @dst. 0 or -1. */
static int body_fill(struct h2_stream *st, unsigned char *dst, size_t n)
{
    const struct reply *r = &st->rep;

    switch (r->body) {
    case REPLY_BODY_BYTES:
        memcpy(dst, r->data + st->sent, n);
        return 0;
    case REPLY_BODY_FD:
    case REPLY_BODY_MULTIPART:
        /* fewer than @n: the multipart plan ends before its length, a bug */
        return body_pread(r->fd, r->offset,
                          r->body == REPLY_BODY_MULTIPART ? r->mp : NULL,
                          st->sent, (char *)dst, n,
                          &st->short_file) == (ssize_t)n
                   ? 0
                   : -1;
    default:
        return -1;
    }
}

/*
 * A body made while it is sent: how much it yields is known only once it
 * is made, so its bytes go into nghttp2's own frame buffer @buf (no
 * NO_COPY), and the stream ends when it says so.
 */
static ssize_t stream_read(struct h2_stream *st, uint8_t *buf, size_t length,
                           uint32_t *flags)
{
    const struct reply_stream *rs = &st->rep.stream;
    ssize_t n = rs->read(rs->arg, (char *)buf, length);

    if (n < 0)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; /* RST_STREAM */
    if (n == 0)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    st->sent += (uint64_t)n;
    st->s->progress_ms = st->s->now;
    return n;
}

/* nghttp2 asks how much of the body the next DATA frame carries. */
static ssize_t body_read(nghttp2_session *ng, int32_t id, uint8_t *buf,
                         size_t length, uint32_t *flags,
                         nghttp2_data_source *src, void *arg)
{
    struct h2_stream *st = src->ptr;
    uint64_t left = st->rep.length - st->sent;

    (void)ng;
    (void)id;
    (void)arg;
    if (st->expired)
        return NGHTTP2_ERR_DEFERRED; /* its RST_STREAM is queued */
    if (st->rep.body == REPLY_BODY_STREAM)
        return stream_read(st, buf, length, flags);
    if (left <= length) {
        length = (size_t)left;
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    }
    *flags |= NGHTTP2_DATA_FLAG_NO_COPY;
    return (ssize_t)length;
}

/* A DATA frame whole into the output buffer: its header, then the body's
 * bytes read in place. */
static int on_send_data(nghttp2_session *ng, nghttp2_frame *frame,
                        const uint8_t *framehd, size_t length,
                        nghttp2_data_source *src, void *arg)
{
    struct h2_session *s = arg;
    struct h2_stream *st = src->ptr;
    size_t need = 9 + length;

    (void)ng;
    if (frame->data.padlen > 0)
        return NGHTTP2_ERR_CALLBACK_FAILURE; /* never asked for */
    if (st->expired)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; /* body released */
    if (OUT_SIZE - s->out_len < need)
        return NGHTTP2_ERR_WOULDBLOCK;
    if (body_fill(st, s->out + s->out_len + 9, length) != 0)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; /* RST_STREAM */
    memcpy(s->out + s->out_len, framehd, 9);
    s->out_len += need;
    st->sent += length;
    /*
     * Progress is body bytes, a frame's worth (or the rest) since the last:
     * PING ACKs, and windows opened a byte at a time, do not keep a
     * stalled reply alive.
     */
    uint64_t due = st->rep.length - st->mark;
    if (st->sent - st->mark >=
        (due < H2_PROGRESS_BYTES ? due : H2_PROGRESS_BYTES)) {
        st->mark = st->sent;
        st->progress_ms = s->progress_ms = s->now;
    }
    /* the connection's: that much of all its streams together */
    s->framed += length;
    if (s->framed - s->framed_mark >= H2_PROGRESS_BYTES) {
        s->framed_mark = s->framed;
        s->progress_ms = s->now;
    }
    if (st->sent == st->rep.length)
        body_done(s, st); /* the file closes with its last frame */
    return 0;
}

/* Every other frame, or what of it fits, into the output buffer. */
static ssize_t on_send(nghttp2_session *ng, const uint8_t *data, size_t len,
                       int flags, void *arg)
{
    struct h2_session *s = arg;
    size_t room = OUT_SIZE - s->out_len;

    (void)ng;
    (void)flags;
    if (len > room) {
        /* whole frames in each fill, so that what a broken connection
           left unwritten can be told (unsent); one larger than all of
           the buffer goes in pieces */
        if (s->out_len)
            return NGHTTP2_ERR_WOULDBLOCK;
        s->split = true;
        len = room;
    }
    memcpy(s->out + s->out_len, data, len);
    s->out_len += len;
    return (ssize_t)len;
}

/* Fields a reply never carries over HTTP/2 (RFC 9113 8.2.2): @lower, @len
 * bytes, in lower case. */
static bool connection_specific(const char *lower, size_t len)
{
    switch (len) {
    case 7:
        return memcmp(lower, "upgrade", 7) == 0;
    case 10:
        return memcmp(lower, "connection", 10) == 0 ||
               memcmp(lower, "keep-alive", 10) == 0;
    case 16:
        return memcmp(lower, "proxy-connection", 16) == 0;
    case 17:
        return memcmp(lower, "transfer-encoding", 17) == 0;
    default:
        return false;
    }
}

static nghttp2_nv nv(const char *name, size_t name_len, const char *value)
{
    return (nghttp2_nv){
        .name = (uint8_t *)(uintptr_t)name,
        .namelen = name_len,
        .value = (uint8_t *)(uintptr_t)value,
        .valuelen = strlen(value),
        .flags = NGHTTP2_NV_FLAG_NONE,
    };
}

/* Whether @r has body bytes to send (not HEAD, 304, 204, empty). */
static bool sends_body(const struct reply *r)
{
    return !r->head && r->body != REPLY_BODY_NONE && r->length > 0;
}

/*
 * The reply of @st as HEADERS (names in lower case; nghttp2 copies them),
 * then DATA unless there is no body to send (HEAD, 304, 204, empty): then
 * END_STREAM is on the HEADERS. Returns nghttp2's result.
 */
static int submit(struct h2_session *s, struct h2_stream *st)
{
    struct reply *r = &st->rep;
    nghttp2_nv small[REPLY_FIELDS_INLINE + 3];
    nghttp2_nv *nva = small;
    size_t n = 0;
    char status[4], length[DIGITS_U64_LEN];
    int rv = NGHTTP2_ERR_NOMEM;

    if (r->n_fields > REPLY_FIELDS_INLINE) {
        nva = malloc((r->n_fields + 3) * sizeof *nva);
        if (!nva)
            return rv;
    }
    unsigned code = r->status % 1000;
    status[0] = (char)('0' + code / 100);
    status[1] = (char)('0' + code / 10 % 10);
    status[2] = (char)('0' + code % 10);
    status[3] = '\0';
    nva[n++] = nv(":status", 7, status);
    for (size_t i = 0; i < r->n_fields; i++) {
        size_t len = strlen(r->field[i].name);
        char *lower = arena_alloc(&st->arena, len + 1);

        if (!lower)
            goto out;
        for (size_t k = 0; k <= len; k++)
            lower[k] = (char)tolower((unsigned char)r->field[i].name[k]);
        if (connection_specific(lower, len))
            continue;
        nva[n++] = nv(lower, len, r->field[i].value);
    }
    /* RFC 9110 8.6: none in 1xx and 204; a 304 says what a 200 would (and
       nothing when that is not known before the end) */
    if (r->status >= 200 && r->status != 204 &&
        r->length != REPLY_LENGTH_UNKNOWN) {
        (void)digits_u64(length, r->length);
        nva[n++] = nv("content-length", 14, length);
    }
    nva[n++] = nv("date", 4, date_cache_text(time(NULL)));
    nghttp2_data_provider prd = {.source.ptr = st, .read_callback = body_read};
    rv = nghttp2_submit_response(s->ng, st->id, nva, n, st->body ? &prd : NULL);
out:
    if (nva != small)
        free(nva);
    return rv;
}

/*
 * The request of @st is complete: respond() decides, the reply goes. A
 * reply answered (not one that waited for a file slot: a slot freed by a
 * stalled stream's reset is no progress) counts as the connection's
 * progress.
 */
static void answer(struct h2_session *s, struct h2_stream *st)
{
    const struct gen_conf *g = live_get(s->conf->gens);
    struct request *rq = &st->rq;
    unsigned bad = 0;

    st->answered = true;
    if (!g) {
        (void)nghttp2_submit_rst_stream(s->ng, NGHTTP2_FLAG_NONE, st->id,
                                        NGHTTP2_INTERNAL_ERROR);
        return;
    }
    if (g->respond.metrics || log_active(g->log))
        st->start_ns = mono_ns();
    intake_start(
        rq, &(struct intake){
                .method = rq->method_name,
                /* CONNECT has no :path (RFC 9113 8.5): its target is the
                   authority */
                .target = st->path        ? st->path
                          : st->authority ? st->authority
                                          : "",
                .version = HTTP_VERSION_2,
                .version_name = "HTTP/2.0",
                .peer = s->addr_len ? (const struct sockaddr *)&s->addr : NULL,
                .peer_len = s->addr_len,
                .peer_text = s->client,
                .tls = s->tls != NULL,
                .tls_version = s->tls,
            });
    if (st->too_big)
        bad = STATUS_REQUEST_HEADER_FIELDS_TOO_LARGE;
    else if (st->oom)
        bad = STATUS_INTERNAL_SERVER_ERROR;
    else
        bad = intake_host(rq, st->authority);
    st->has_reply = true;
    if (bad)
        respond_error(rq, &g->respond, bad, &st->rep);
    else
        respond(rq, &g->respond, &st->rep);
    st->body = sends_body(&st->rep);
    if (!st->body && st->rep.fd >= 0)
        reply_drop_body(&st->rep); /* HEAD, 304: no file to hold */
    if (st->rep.fd >= 0 && !slot_take(s, st)) {
        /* no file slot now: wait for one, unanswered (answer_deferred) */
        reply_release(&st->rep);
        reply_init(&st->rep);
        st->has_reply = false;
        st->answered = false;
        st->waited = true;
        defer(s, st);
        return;
    }
    st->progress_ms = s->now;
    if (!st->waited)
        s->active_ms = s->progress_ms = s->now;
    if (submit(s, st) != 0) {
        (void)nghttp2_submit_rst_stream(s->ng, NGHTTP2_FLAG_NONE, st->id,
                                        NGHTTP2_INTERNAL_ERROR);
        return;
    }
    st->submitted = true;
    if (s->conf->in_flight) {
        atomic_fetch_add(s->conf->in_flight, 1);
        st->counted = true;
    }
}

/*
 * The stream of @st ends, its reply @whole (its END_STREAM went) or cut
 * short: the log line, with the DATA bytes that went.
 */
static void stream_log(struct h2_session *s, struct h2_stream *st, bool whole)
{
    const struct gen_conf *g = live_get(s->conf->gens);

    if (!g || !st->submitted)
        return;
    struct served sv = {
        .rq = &st->rq,
        .res = &st->rep.res,
        .client = s->client,
        .target = st->rq.target,
        .tls = s->tls,
        .start_ns = st->start_ns,
        .status = st->rep.status,
        .bytes = st->sent,
        .aborted = !whole,
    };
    served_log(g, &sv);
}

/* ---- frames -------------------------------------------------------------- */

/* The PING sent with the shutdown notice: its ACK says the notice was
 * read (frames arrive in order). */
static const uint8_t drain_ping[8] = "drain\0\0\0";

/*
 * A request body past H2_DISCARD_MAX: once the reply is complete, the
 * stream ends with RST_STREAM NO_ERROR (RFC 9113 8.1) instead of reading
 * more of it.
 */
static void end_unread(nghttp2_session *ng, struct h2_stream *st)
{
    if (st->replied && !st->cut &&
        nghttp2_session_get_stream_remote_close(ng, st->id) == 0) {
        st->cut = true;
        (void)nghttp2_submit_rst_stream(ng, NGHTTP2_FLAG_NONE, st->id,
                                        NGHTTP2_NO_ERROR);
    }
}

static int on_frame_recv(nghttp2_session *ng, const nghttp2_frame *frame,
                         void *arg)
{
    struct h2_session *s = arg;
    struct h2_stream *st;

    (void)ng;
    s->block = false;
    switch (frame->hd.type) {
    case NGHTTP2_HEADERS:
        st = stream_of(s, frame->hd.stream_id);
        if (frame->headers.cat == NGHTTP2_HCAT_REQUEST && st && !st->answered &&
            !st->deferred)
            answer(s, st);
        break;
    case NGHTTP2_DATA:
        /* a request body is dropped; an empty frame asks for nothing */
        if (frame->hd.length == 0 &&
            !(frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
            charge_control(s);
        st = stream_of(s, frame->hd.stream_id);
        if (st && !(frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
            st->dropped += frame->hd.length;
            if (st->dropped > H2_DISCARD_MAX)
                end_unread(ng, st);
        }
        break;
    case NGHTTP2_SETTINGS:
        if (!(frame->hd.flags & NGHTTP2_FLAG_ACK)) {
            /* the idle clock starts at the preface; a later SETTINGS is
               no request and does not wind it back (one every second
               kept an idle connection open for ever) */
            if (s->preface)
                charge_control(s);
            else
                s->active_ms = s->now;
            s->preface = true;
        }
        break;
    case NGHTTP2_PING:
        if (!(frame->hd.flags & NGHTTP2_FLAG_ACK))
            charge_control(s);
        else if (s->notice &&
                 memcmp(frame->ping.opaque_data, drain_ping, 8) == 0)
            s->notice_seen = true; /* it has read the notice too */
        break;
    case NGHTTP2_PRIORITY:
        charge_control(s);
        break;
    case NGHTTP2_RST_STREAM:
        charge_reset(s);
        break;
    default:
        break;
    }
    return 0;
}

/* A frame nghttp2 refused as a stream error: a malformed request, a stream
 * over the limit. Each costs as a reset does. */
static int on_invalid_frame_recv(nghttp2_session *ng,
                                 const nghttp2_frame *frame, int error,
                                 void *arg)
{
    struct h2_session *s = arg;

    (void)ng;
    (void)frame;
    (void)error;
    s->block = false;
    charge_reset(s);
    return 0;
}

static int on_frame_send(nghttp2_session *ng, const nghttp2_frame *frame,
                         void *arg)
{
    struct h2_stream *st;

    /*
     * The reply is complete while the client still sends a body nobody
     * reads: a small one is read and dropped to its end (the client then
     * reads the answer it came for), a larger one ends the stream now.
     */
    if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) &&
        (st = stream_of(arg, frame->hd.stream_id)) != NULL) {
        st->replied = true;
        if (st->big_body || st->dropped > H2_DISCARD_MAX)
            end_unread(ng, st);
    }
    return 0;
}

static int on_stream_close(nghttp2_session *ng, int32_t id, uint32_t error,
                           void *arg)
{
    struct h2_session *s = arg;
    struct h2_stream *st = stream_of(s, id);

    if (!st)
        return 0;
    /* whole: its END_STREAM went (the stream is still there to ask) */
    stream_log(s, st,
               error == NGHTTP2_NO_ERROR &&
                   nghttp2_session_get_stream_local_close(ng, id) == 1);
    (void)nghttp2_session_set_stream_user_data(ng, id, NULL);
    /* a stream reset for making no progress is none */
    if (!st->expired)
        s->active_ms = s->progress_ms = s->now;
    stream_free(s, st);
    return 0;
}

/* ---- the session --------------------------------------------------------- */

static nghttp2_session_callbacks *callbacks(void)
{
    nghttp2_session_callbacks *cb;

    if (nghttp2_session_callbacks_new(&cb) != 0)
        return NULL;
    nghttp2_session_callbacks_set_send_callback(cb, on_send);
    nghttp2_session_callbacks_set_send_data_callback(cb, on_send_data);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cb,
                                                            on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
    nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(
        cb, on_invalid_frame_recv);
    nghttp2_session_callbacks_set_on_frame_send_callback(cb, on_frame_send);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_stream_close);
    return cb;
}

int h2_session_new(const struct h2_conf *conf, const struct h2_io *io,
                   const struct h2_peer *peer, struct h2_session **out)
{
    struct h2_session *s = calloc(1, sizeof *s);
    nghttp2_session_callbacks *cb = callbacks();
    nghttp2_option *opt = NULL;
    int err = -ENOMEM;

    *out = NULL;
    if (!s || !cb || nghttp2_option_new(&opt) != 0)
        goto out_free;
    s->conf = conf;
    s->io = *io;
    if (peer->addr && peer->addr_len <= sizeof s->addr) {
        memcpy(&s->addr, peer->addr, peer->addr_len);
        s->addr_len = peer->addr_len;
    }
    snprintf(s->client, sizeof s->client, "%s", peer->text ? peer->text : "-");
    s->tls = peer->tls;
    s->start_ms = s->active_ms = s->progress_ms = s->now = peer->start_ms;
    s->quiet_ms = peer->start_ms;
    s->resets = (struct bucket){H2_RESET_BURST, peer->start_ms};
    s->control = (struct bucket){H2_CONTROL_BURST, peer->start_ms};
    /* closed streams are not kept for a priority tree: memory per stream
       ends with it */
    nghttp2_option_set_no_closed_streams(opt, 1);
    nghttp2_option_set_max_continuations(opt, H2_MAX_CONTINUATIONS);
    /* our own budget is the stricter; nghttp2's stays as a backstop */
    nghttp2_option_set_stream_reset_rate_limit(
        opt, 2 * (uint64_t)H2_RESET_BURST, 2 * (uint64_t)H2_RESET_RATE);
    /* SETTINGS and PING ACKs queued while the client does not read */
    nghttp2_option_set_max_outbound_ack(opt, 100);
    nghttp2_option_set_max_settings(opt, 32);
    nghttp2_mem mem = h2_pages_mem(&s->pages);
    if (nghttp2_session_server_new3(&s->ng, cb, s, opt, &mem) != 0)
        goto out_free;
    h2_pages_found(&s->pages);
    nghttp2_settings_entry iv[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, conf->max_streams},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE,
         conf->max_header_list > UINT32_MAX ? UINT32_MAX
                                            : (uint32_t)conf->max_header_list},
    };
    if (nghttp2_submit_settings(s->ng, NGHTTP2_FLAG_NONE, iv,
                                sizeof iv / sizeof iv[0]) != 0)
        goto out_free;
    nghttp2_option_del(opt);
    nghttp2_session_callbacks_del(cb);
    *out = s;
    return 0;
out_free:
    nghttp2_option_del(opt);
    nghttp2_session_callbacks_del(cb);
    if (s)
        nghttp2_session_del(s->ng);
    free(s);
    return err;
}

/*
 * Write what is buffered, then what nghttp2 has, until it has nothing or
 * the connection takes no more. Returns 0 (done), 1 (blocked: bytes wait
 * in the buffer) or -1 (the connection failed).
 */
static int flush(struct h2_session *s)
{
    for (;;) {
        while (s->out_off < s->out_len) {
            ssize_t n = s->io.write(s->io.arg, s->out + s->out_off,
                                    s->out_len - s->out_off);
            if (n == -EAGAIN)
                return 1;
            if (n <= 0)
                return -1;
            s->out_off += (size_t)n;
        }
        s->out_off = s->out_len = 0;
        if (!nghttp2_session_want_write(s->ng))
            return 0;
        if (!s->out && !(s->out = malloc(OUT_SIZE)))
            return -1;
        s->quiet_ms = s->now;
        s->released = false;
        if (nghttp2_session_send(s->ng) != 0)
            return -1;
        if (s->out_len == 0)
            return 0; /* what is left waits for a window */
    }
}

/* Read and process, up to READ_BUDGET bytes. 0, or -1: end the session. */
static int input(struct h2_session *s)
{
    unsigned char buf[16384];
    size_t total = 0;

    s->more = false;
    while (!s->eof) {
        if (total >= READ_BUDGET) {
            s->more = true;
            return 0;
        }
        ssize_t n = s->io.read(s->io.arg, buf, sizeof buf);
        if (n == -EAGAIN)
            return 0;
        if (n < 0)
            return -1;
        if (n == 0) {
            s->eof = true;
            return 0;
        }
        total += (size_t)n;
        s->quiet_ms = s->now;
        s->released = false;
        ssize_t used = nghttp2_session_mem_recv(s->ng, buf, (size_t)n);
        if (used < 0) {
            /*
             * Fatal: not HTTP/2 (no preface), a flood nghttp2 saw (ACKs
             * the client does not read, too many CONTINUATIONs), out of
             * memory. The connection is dropped as it is, no GOAWAY: the
             * session can send nothing more.
             */
            s->goaway = true;
            return -1;
        }
        /* an output backlog stops the reading: the client reads first */
        if (s->out_off < s->out_len)
            return 0;
    }
    return 0;
}

/*
 * Draining (a newer serving process took over): GOAWAY in two steps, as
 * RFC 9113 6.8 advises. First the shutdown notice (last stream 2^31-1)
 * with a PING: a stream the client opens meanwhile is still answered.
 * When the PING's ACK arrives the client has read the notice and opens no
 * more streams; then (or after H2_NOTICE_MS) the GOAWAY naming the last
 * stream taken: the streams begun are answered, then the connection ends.
 */
static void drain(struct h2_session *s)
{
    const struct h2_conf *conf = s->conf;

    /* not before the client's preface: what follows it is answered too */
    if (s->goaway || !s->preface || !conf->draining ||
        !atomic_load(conf->draining))
        return;
    if (!s->notice && nghttp2_submit_shutdown_notice(s->ng) == 0 &&
        nghttp2_submit_ping(s->ng, NGHTTP2_FLAG_NONE, drain_ping) == 0) {
        s->notice = true;
        s->notice_ms = s->now;
        return;
    }
    if (s->notice && !s->notice_seen && s->now < s->notice_ms + H2_NOTICE_MS)
        return;
    s->goaway = true;
    (void)nghttp2_submit_goaway(s->ng, NGHTTP2_FLAG_NONE,
                                nghttp2_session_get_last_proc_stream_id(s->ng),
                                NGHTTP2_NO_ERROR, NULL, 0);
}

static int64_t at(int64_t since, unsigned seconds)
{
    return seconds ? since + 1000 * (int64_t)seconds : INT64_MAX;
}

/* When the connection ends unless something moves it (h2.h's limits);
 * @blocked: bytes wait for the socket. */
static int64_t end_of(const struct h2_session *s, bool blocked)
{
    const struct h2_conf *conf = s->conf;
    int64_t d;

    if (!s->preface)
        d = at(s->start_ms, conf->header_timeout);
    else if (s->streams == 0 && !blocked)
        d = at(s->active_ms, conf->timeout);
    else
        d = at(s->progress_ms, conf->timeout);
    if (s->block) {
        int64_t b = at(s->block_ms, conf->header_timeout);
        d = b < d ? b : d;
    }
    return d;
}

/* Whether @st has a reply whose body is still to be framed. */
static bool pending(const struct h2_stream *st)
{
    return st->answered && st->body && !st->expired &&
           st->sent < st->rep.length;
}

/*
 * Whether the client's window of @st keeps it from framing what progress
 * needs. A stream held back by the socket, by the connection's window (a
 * slow reader's bytes in flight fill it too) or by the others' share of
 * them is not: those are the connection's deadline's business, which a
 * client holding every window at zero meets as well.
 */
static bool window_stalled(const struct h2_session *s,
                           const struct h2_stream *st)
{
    int32_t w = nghttp2_session_get_stream_remote_window_size(s->ng, st->id);
    uint64_t due = st->rep.length - st->mark;
    uint64_t need = due < H2_PROGRESS_BYTES ? due : H2_PROGRESS_BYTES;

    return w < 0 || (uint64_t)w < need;
}

/*
 * Replies that made no progress for --timeout while the client's windows
 * held them: reset, their files closed now (the RST_STREAM goes when the
 * socket takes it). Returns the earliest time another one is due
 * (INT64_MAX: none).
 */
static int64_t expire(struct h2_session *s)
{
    int64_t next = INT64_MAX;

    for (struct h2_stream *st = s->open; st; st = st->next) {
        if (!pending(st))
            continue;
        int64_t due = at(st->progress_ms, s->conf->timeout);
        if (due > s->now || !window_stalled(s, st)) {
            next = due > s->now && due < next ? due : next;
            continue;
        }
        st->expired = true;
        body_done(s, st);
        (void)nghttp2_submit_rst_stream(s->ng, NGHTTP2_FLAG_NONE, st->id,
                                        NGHTTP2_CANCEL);
    }
    return next;
}

/* Answer the streams waiting for a file slot while one is free; whether
 * any was answered. */
static bool answer_deferred(struct h2_session *s)
{
    bool any = false;

    /* none for a connection whose time is up: it ends with this event */
    if (end_of(s, false) <= s->now)
        return false;
    while (s->deferred && slot_free(s) && !s->calm) {
        struct h2_stream *st = s->deferred;

        undefer(s, st);
        answer(s, st);
        if (st->deferred)
            break; /* the pool filled meanwhile: it waits again */
        any = true;
    }
    return any;
}

/*
 * A session that waits: once quiet for PAGES_IDLE_MS, nghttp2's pages that
 * hold nothing go back (h2_pages.c: the frame buffer only while no frame is
 * under way, which !want_write says, and before any GOAWAY). @w: flush's.
 * Returns when to look again (INT64_MAX: not before something moves).
 */
static int64_t pages_idle(struct h2_session *s, int w)
{
    if (w != 0 || s->streams != 0 || s->goaway || s->released ||
        nghttp2_session_want_write(s->ng))
        return INT64_MAX;
    if (s->now < s->quiet_ms + PAGES_IDLE_MS)
        return s->quiet_ms + PAGES_IDLE_MS;
    (void)h2_pages_release(&s->pages);
    s->released = true;
    return INT64_MAX;
}

unsigned h2_session_event(struct h2_session *s, int64_t now_ms,
                          int64_t *deadline_ms)
{
    const struct h2_conf *conf = s->conf;
    int64_t due;
    int w;

    s->now = now_ms;
    *deadline_ms = INT64_MAX;
    drain(s);
    due = expire(s);
    /* what waits in the buffer goes first: no reading while it cannot */
    w = flush(s);
    if (w < 0)
        return 0;
    if (w == 0) {
        if (input(s) != 0)
            return 0;
        drain(s); /* the preface may have come just now */
        w = flush(s);
        /* slots given back by streams that ended: the next in line */
        while (w == 0 && answer_deferred(s))
            w = flush(s);
        if (w < 0)
            return 0;
    }
    if (w == 0 && !nghttp2_session_want_read(s->ng) &&
        !nghttp2_session_want_write(s->ng))
        return 0; /* GOAWAY went out and every stream is done */
    if (w == 0 && s->eof)
        return 0; /* the client left and nothing more can go out */
    if (w == 0 && s->streams == 0 && s->out) {
        /* idle: the buffer and the spare streams come back with the next
           reply (a waiting connection costs little) */
        free(s->out);
        s->out = NULL;
        spares_free(s);
        if (conf->idled)
            atomic_fetch_add_explicit(conf->idled, 1, memory_order_relaxed);
    }
    int64_t quiet_end = pages_idle(s, w);
    unsigned want = w ? H2_WANT_WRITE : H2_WANT_READ;
    if (s->more && !w)
        want |= H2_WANT_WRITE; /* ready again at once: read the rest then */
    int64_t d = end_of(s, w);
    if (d <= now_ms)
        return 0; /* the connection's time is up (h2.h's limits) */
    if (s->notice && !s->goaway && s->notice_ms + H2_NOTICE_MS < d)
        d = s->notice_ms + H2_NOTICE_MS;
    /* a reply answered since expire() ran is due later than @due */
    d = due < d ? due : d;
    *deadline_ms = quiet_end < d ? quiet_end : d;
    return want;
}

/*
 * DATA payload bytes of stream @id still in the buffer, unwritten: the
 * frames are walked from the start of the fill (each fill begins with a
 * whole frame, unless one was ever split, then 0 is said).
 */
static uint64_t unsent(const struct h2_session *s, int32_t id)
{
    uint64_t n = 0;

    for (size_t at = 0; !s->split && at + 9 <= s->out_len;) {
        const unsigned char *h = s->out + at;
        size_t len = (size_t)h[0] << 16 | (size_t)h[1] << 8 | h[2];
        int32_t sid =
            (int32_t)((uint32_t)(h[5] & 0x7f) << 24 | (uint32_t)h[6] << 16 |
                      (uint32_t)h[7] << 8 | h[8]);
        size_t body = at + 9, end = body + len;
        if (h[3] == NGHTTP2_DATA && sid == id && end > s->out_off)
            n += end - (body > s->out_off ? body : s->out_off);
        at = end;
    }
    return n;
}

void h2_session_close(struct h2_session *s)
{
    if (!s)
        return;
    if (!s->goaway && s->preface) {
        /* last words, if the socket takes them now: nothing new is read */
        s->goaway = true;
        s->eof = true;
        if (nghttp2_submit_goaway(
                s->ng, NGHTTP2_FLAG_NONE,
                nghttp2_session_get_last_proc_stream_id(s->ng),
                NGHTTP2_NO_ERROR, NULL, 0) == 0)
            (void)flush(s);
    }
    /* nghttp2 frees its streams without on_stream_close: ours go here,
       each cut short, without the bytes left in the buffer */
    nghttp2_session_del(s->ng);
    while (s->open) {
        s->open->sent -= unsent(s, s->open->id);
        stream_log(s, s->open, false);
        stream_free(s, s->open);
    }
    spares_free(s);
    free(s->out);
    free(s);
}
