/* SPDX-License-Identifier: MIT */
/*
 * h2.h - one HTTP/2 connection (RFC 9113) served by libnghttp2, whatever
 * carries its bytes: the TLS front's SSL after ALPN "h2", or a plain
 * socket whose client began with the prior-knowledge preface.
 *
 * The session is fed what its h2_io reads and writes what it has through
 * it; it never touches a socket or an SSL itself, and never blocks but on
 * a file's pread. Each stream's request head becomes a struct request
 * (http/request.h), gets respond() like an HTTP/1.1 request, and its reply
 * goes out as HEADERS, then DATA frames read from the reply's body as the
 * flow-control windows allow: no body is ever held whole in memory.
 *
 * Limits (docs/http2.md says each beside nginx's):
 * - SETTINGS_MAX_CONCURRENT_STREAMS @max_streams; SETTINGS_MAX_HEADER_LIST_SIZE
 *   @max_header_list (a larger request head gets 431, as over HTTP/1.1);
 *   at most H2_MAX_CONTINUATIONS CONTINUATION frames per head;
 * - the client's preface (its SETTINGS) within @header_timeout of the
 *   accept, and each request head within @header_timeout of its HEADERS;
 * - with no stream open, the connection ends @timeout after its last
 *   request (PING, SETTINGS and the like do not count);
 * - a stream's progress is its request answered, or H2_PROGRESS_BYTES of
 *   its body (or the rest of it) gone into DATA frames since its last
 *   progress: a window opened a byte at a time is none. A stream whose
 *   reply makes no progress for @timeout while the client's windows hold
 *   it back is reset (RST_STREAM CANCEL) and its file closed at once,
 *   however many WINDOW_UPDATEs arrive. The connection's progress is a
 *   stream's, a stream ended, or H2_PROGRESS_BYTES framed over all its
 *   streams together; without any for @timeout (every window held at
 *   zero, a socket that is never read or read too slowly) it ends;
 * - files: a reply read from a file holds it open until its last byte is
 *   framed. Every connection may have one such stream; up to
 *   H2_FILES_PER_CONN while the process-wide pool (@files_pool) has room.
 *   A request whose reply would need one more waits, unanswered, until a
 *   file stream of its connection ends (no error, no retry for a client
 *   that asked for many files at once): the descriptors a connection can
 *   hold are bounded whatever its windows do;
 * - budgets (token buckets): RST_STREAM frames received, streams refused
 *   and malformed requests (H2_RESET_*: rapid reset); PING, SETTINGS,
 *   PRIORITY and empty DATA frames (H2_CONTROL_*: floods); past one, the
 *   connection ends with GOAWAY ENHANCE_YOUR_CALM;
 * - no server push (a client's SETTINGS_ENABLE_PUSH is never acted on).
 *
 * A session belongs to one thread, which calls each function. The caller
 * owns the socket: on TCP it sets TCP_NODELAY, or the last frame of each
 * flow-control window waits for a delayed ACK (40 ms a window with a
 * 64 KiB window: 10 MiB took 7.5 s instead of 0.3 s through the front).
 */
#ifndef BENEATH_TRANSPORT_H2_H
#define BENEATH_TRANSPORT_H2_H

#include "common/mono.h"
#include "runtime/live.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#define H2_MAX_STREAMS_DEFAULT 100
#define H2_MAX_CONTINUATIONS 8
/* Streams of one connection holding a file at once (one of its own, the
 * rest from struct h2_conf's pool). */
#define H2_FILES_PER_CONN 8
/* Body bytes a stream must frame per --timeout to count as progressing. */
#define H2_PROGRESS_BYTES 16384
/* Rapid reset: resets (received, or refused streams) in a burst, then per s */
#define H2_RESET_BURST 200
#define H2_RESET_RATE 50
/*
 * A request body nobody reads (a POST answered 405) is read and dropped up
 * to this many bytes (nginx's default client_max_body_size), so that a
 * client that sends all of it before it reads the answer (curl) gets the
 * answer; past it, or announced larger by content-length, the stream ends
 * with RST_STREAM NO_ERROR once the reply is sent (RFC 9113 8.1). Reading
 * costs the server no more than the client's sending does: nothing is kept.
 */
#define H2_DISCARD_MAX ((uint64_t)1024 * 1024)
/* PING, SETTINGS, PRIORITY and empty DATA frames in a burst, then per s */
#define H2_CONTROL_BURST 1000
#define H2_CONTROL_RATE 100
/* Draining: the final GOAWAY at the latest this long (ms) after the
 * shutdown notice, if the PING sent with it is not answered first */
#define H2_NOTICE_MS 10000

/*
 * struct h2_conf - borrowed for the life of every session made with it.
 * @gens:            the current struct gen_conf (transport/conn/gen_conf.h)
 * @max_streams:     SETTINGS_MAX_CONCURRENT_STREAMS (>= 1)
 * @max_header_list: bytes of a request head, as RFC 9113 6.5.2 counts them
 * @header_timeout:  s for the preface and for each request head; 0: none
 * @timeout:         s of idleness, or of a stalled reply; 0: none
 * @in_flight:       requests answered whose stream is open, or NULL
 * @draining:        set when the server stops or drains: the shutdown
 *                   notice and a PING at the next event, the final GOAWAY
 *                   once the PING is answered (or H2_NOTICE_MS later)
 * @files_used:      file streams taken from the pool, by every session
 *                   (NULL: no pool, one file stream per connection)
 * @files_pool:      their limit
 * @idled:           counts sessions that gave back their buffers as they
 *                   began to wait (the heap's pages are then trimmed), or
 *                   NULL
 */
struct h2_conf {
    struct live *gens;
    unsigned max_streams;
    size_t max_header_list;
    unsigned header_timeout;
    unsigned timeout;
    atomic_uint *in_flight;
    const atomic_bool *draining;
    atomic_uint *files_used;
    unsigned files_pool;
    atomic_uint *idled;
};

/*
 * struct h2_io - how a session's bytes come and go.
 * @read:  up to @len bytes into @buf: their count, 0 at the peer's end of
 *         stream, -EAGAIN when none are there now, or another -errno
 * @write: @len bytes from @buf: the count written (> 0), -EAGAIN (then the
 *         same bytes are offered again, as SSL_write wants), or -errno
 */
struct h2_io {
    ssize_t (*read)(void *arg, void *buf, size_t len);
    ssize_t (*write)(void *arg, const void *buf, size_t len);
    void *arg;
};

/*
 * struct h2_peer - the connection, copied by h2_session_new.
 * @addr, @addr_len: the client's address (NULL: unknown)
 * @text:            that address as text (the access log), or NULL
 * @tls:             the TLS version ("TLS1.3"), NULL for cleartext
 * @start_ms:        when it was accepted, on h2_now_ms's clock
 */
struct h2_peer {
    const struct sockaddr *addr;
    socklen_t addr_len;
    const char *text;
    const char *tls;
    int64_t start_ms;
};

/* What a session waits for on its connection (h2_session_event). */
#define H2_WANT_READ 1u
#define H2_WANT_WRITE 2u

struct h2_session;

/* h2_now_ms - the clock of every deadline: the coarse monotonic ms the
 * front's loops read too. */
static inline int64_t h2_now_ms(void)
{
    return mono_coarse_ms();
}

/*
 * h2_session_new - a server session for one connection: its SETTINGS are
 * queued (written at the first h2_session_event).
 *
 * Returns 0 with *@out, or -ENOMEM.
 */
int h2_session_new(const struct h2_conf *conf, const struct h2_io *io,
                   const struct h2_peer *peer, struct h2_session **out);

/*
 * h2_session_event - the connection may be readable or writable: read what
 * is there (a bounded amount), answer the requests it completes, write
 * what the socket takes. Call it once right after h2_session_new (bytes
 * may already wait, in an SSL's buffer where no readiness shows them).
 *
 * Returns what to wait for next (H2_WANT_READ, H2_WANT_WRITE; WRITE alone
 * may mean "call again soon": the read budget was used up) with
 * *@deadline_ms, when to call again if nothing comes first (INT64_MAX:
 * never): a stream's reply may be due to be reset then, or the connection
 * to end; or 0: end it now (h2_session_close), also when what this call
 * read did not move the connection's own end past @now_ms.
 */
unsigned h2_session_event(struct h2_session *s, int64_t now_ms,
                          int64_t *deadline_ms);

/*
 * h2_session_close - the connection ends (its deadline passed, the peer
 * left, the server stops): a GOAWAY is written as the last frame if the
 * socket takes it at once, then everything is released, each stream's
 * reply included. NULL is allowed.
 */
void h2_session_close(struct h2_session *s);

#endif
