/* SPDX-License-Identifier: MIT */
/*
 * log.h - the access log: one line per request, combined or JSON lines.
 */
#ifndef LOG_H
#define LOG_H

#include <stdint.h>
#include <time.h>

enum log_format {
    LOG_COMBINED,
    LOG_JSON,
};

/* What one request leaves in the log. Strings may be NULL ("-"). */
struct log_record {
    const char *client; /* address as text */
    const char *user;   /* the authenticated user (Basic), or NULL */
    time_t time;
    const char *method;
    const char *target; /* raw request-target */
    const char *version;
    unsigned status;
    uint64_t bytes; /* body bytes queued */
    const char *referer;
    const char *agent;
    const char *backend; /* resolver backend that answered, or NULL */
    int err;             /* errno of a refusal or failure, or 0 */
};

struct log;

/*
 * log_open - open the access log @where: a path (appended to, created 0640),
 * "-" for stdout, or "off".
 * @out receives the log, owned by the caller (release with log_close).
 *
 * Returns 0, -ENOMEM, or the -errno of open(2).
 */
int log_open(const char *where, enum log_format format, struct log **out);

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
 * log_reopen - reopen the log's path (after rotation). Lines being written
 * meanwhile go to the old or the new file, never get lost or mixed; on
 * failure the old file stays in use. No-op for stdout and off.
 *
 * Returns 0 or the -errno of open(2).
 */
int log_reopen(struct log *l);

/*
 * log_write - append @r as one line with one write(2), so lines from several
 * threads never interleave. Over-long fields are truncated.
 */
void log_write(struct log *l, const struct log_record *r);

/* log_dropped - lines dropped because the log's reader was full. */
unsigned long long log_dropped(struct log *l);

/* log_close - close and free @l (saying how many lines were dropped, if
 * any); NULL is accepted. */
void log_close(struct log *l);

#endif
