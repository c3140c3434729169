/* SPDX-License-Identifier: MIT */
/*
 * log.h - the access log: one line per request, combined (optionally with
 * the duration), JSON lines, or a template of named fields
 * (log_template.h). Lines go into a bounded buffer that a writer thread of
 * the log's own writes out: a worker never waits on the disk or a reader.
 */
#ifndef BENEATH_OBSERVE_LOG_H
#define BENEATH_OBSERVE_LOG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* What one request leaves in the log. Strings may be NULL ("-"). */
struct log_record {
    const char *client; /* address as text */
    const char *user;   /* the authenticated user (Basic), or NULL */
    time_t time;
    unsigned msec;        /* milliseconds of @time, 0..999 */
    uint64_t duration_us; /* headers complete to the reply's last byte
                             written, or its abort */
    const char *host;     /* the Host header, or NULL */
    const char *vhost;    /* the --vhost pattern that served, or NULL */
    const char *tls;      /* TLS version ("TLS1.3"), NULL: plain HTTP */
    const char *encoding; /* content coding of the body, or NULL */
    const char *method;
    const char *target;  /* raw request-target */
    const char *version; /* as in the request line: "HTTP/1.1", "HTTP/2.0" */
    const char *proto;   /* as ALPN names it: "http/1.1", "h2" */
    unsigned status;
    uint64_t bytes; /* body bytes written to the connection */
    bool aborted;   /* the reply ended before its last byte */
    const char *referer;
    const char *agent;
    const char *backend; /* resolver backend that answered, or NULL */
    int err;             /* errno of a refusal or failure, or 0 */
    const char *symlink; /* a refusal's link that left: "LINK -> TARGET
                            (why)", or NULL */
};

struct log;

/* Bytes of lines the buffer holds before a worker drops its line. */
#define LOG_BUFFER_SIZE ((size_t)256 * 1024)
/* A batch is written LOG_FLUSH_MS after its first line at the latest, at
 * once when it reaches LOG_FLUSH_BYTES. */
#define LOG_FLUSH_MS 10
#define LOG_FLUSH_BYTES ((size_t)64 * 1024)
/* At close, how long lines still buffered may wait for a stalled reader. */
#define LOG_CLOSE_WAIT_MS 1000

/*
 * log_open - open the access log @where: a path (appended to, created 0640),
 * "-" for stdout, or "off", in @format (log_template_parse's syntax; the
 * log keeps its own copy), and start its writer thread.
 * @out receives the log, owned by the caller (release with log_close).
 *
 * Returns 0, -ENOMEM, -EINVAL for a bad @format, the -errno of open(2), or
 * that of pthread_create.
 */
int log_open(const char *where, const char *format, struct log **out);

/*
 * log_count_drops - also add each dropped line to @counter (the metrics';
 * borrowed, must outlive @l).
 */
void log_count_drops(struct log *l, _Atomic uint64_t *counter);

/*
 * log_check - whether log_open(@where) would succeed, without creating or
 * changing anything (for --check): an existing file is opened for writing
 * without O_CREAT and closed again; for one that does not exist yet, its
 * directory must be writable.
 *
 * Returns 0 (the file exists and is writable; also for "-" and "off"), 1 (it
 * does not exist yet and can be created), or the -errno that log_open would
 * meet (for a missing file, that of its directory).
 */
int log_check(const char *where);

/*
 * log_write - append @r as one line to the buffer; the writer thread
 * writes whole lines in order, so lines from several threads never
 * interleave. The caller waits at most for another worker's copy into the
 * buffer, never for the disk or a reader: when the buffer is full (the
 * disk or the reader did not keep up) the line is dropped and counted.
 * Over-long fields are truncated.
 */
void log_write(struct log *l, const struct log_record *r);

/* log_active - whether @l writes anywhere (not "off", not NULL). */
bool log_active(const struct log *l);

/* log_dropped - lines dropped because the log's reader was full. */
unsigned long long log_dropped(struct log *l);

/*
 * log_format_line - @r as one line (with its '\n') in @format's syntax into
 * @buf of @size bytes (LOG_LINE_MAX always fits); for tests.
 *
 * Returns the length, or -EINVAL for a bad @format.
 */
#define LOG_LINE_MAX 8192
int log_format_line(const char *format, const struct log_record *r, char *buf,
                    size_t size);

/* log_close - write out what is buffered (waiting LOG_CLOSE_WAIT_MS at most
 * for a stalled reader), close and free @l (saying how many lines were
 * dropped, if any); NULL is accepted. */
void log_close(struct log *l);

#endif
