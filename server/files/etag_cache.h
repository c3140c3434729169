/* SPDX-License-Identifier: MIT */
/*
 * etag_cache.h - validators for regular files: a strong ETag from the SHA-256
 * of the content (the same on every replica that serves the same bytes), the
 * cheap nginx-style "mtime-size" ETag, or none; and the RFC 9530 Repr-Digest
 * from the same hash.
 *
 * Content hashes are cached in memory, keyed by device and inode and checked
 * against size, mtime and ctime (nanoseconds): a file is hashed once and again
 * only when it changes. The cache has a bounded number of entries (LRU). It is
 * thread-safe; hashing happens outside its lock. A file up to inline_max bytes
 * is hashed on the calling thread with pread on the caller's fd; a larger one
 * is queued to a background thread (bounded queue), and until its hash is
 * ready a lookup answers "pending" without an ETag, so hashing a big file
 * never stalls the request that found it, and the one tag a file is ever
 * sent with is its content tag (a provisional tag would change under the
 * client a moment later: bench/etag_first_byte.sh measures the choice).
 */
#ifndef BENEATH_FILES_ETAG_CACHE_H
#define BENEATH_FILES_ETAG_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

enum etag_mode {
    ETAG_MODE_CONTENT, /* SHA-256 of the bytes (the default) */
    ETAG_MODE_MTIME,   /* "mtime-size" in hex, as nginx does */
    ETAG_MODE_OFF,     /* no ETag */
};

/* Defaults for zero fields of struct etag_cache_config. */
#define ETAG_CACHE_MAX_ENTRIES 16384
#define ETAG_CACHE_INLINE_MAX ((off_t)256 * 1024)
#define ETAG_CACHE_QUEUE_MAX 64

/*
 * Bytes of the SHA-256 kept in a content ETag: 16 bytes (128 bits, 22
 * base64url characters). An ETag only has to tell versions of one URL apart;
 * 128 bits keep an accidental collision out of reach (birthday bound 2^64
 * versions) and a deliberate one beyond what a writer of the tree could
 * compute, while the header stays shorter than the full 43 characters.
 */
#define ETAG_CONTENT_BYTES 16

/* A quoted ETag ("\"...\"") with its NUL; both forms fit. */
#define ETAG_LEN 48
/* "sha-256=:" + 44 base64 characters + ":" and the NUL. */
#define ETAG_DIGEST_LEN 64

/*
 * struct etag_cache_config - zero fields take the defaults above.
 * @mode:        which ETag etag_cache_get gives.
 * @max_entries: content hashes kept (LRU beyond that).
 * @inline_max:  files up to this size are hashed by the caller's thread;
 *               larger ones by the background thread. Negative: every file
 *               goes to the background thread.
 * @queue_max:   files waiting for the background thread; when full, a lookup
 *               is answered "pending" without queueing and a later one tries
 *               again.
 */
struct etag_cache_config {
    enum etag_mode mode;
    size_t max_entries;
    off_t inline_max;
    size_t queue_max;
};

/*
 * struct etag_value - what etag_cache_get answers.
 * @etag:        the quoted ETag to send, "" when none (mode off, or the
 *               content hash not known yet).
 * @repr_digest: "sha-256=:BASE64:" when the content hash is known and was
 *               asked for, else "".
 * @pending:     the content hash was needed but is not known yet (queued or
 *               queue full): @etag is then "" in content mode.
 */
struct etag_value {
    char etag[ETAG_LEN];
    char repr_digest[ETAG_DIGEST_LEN];
    bool pending;
};

/* Counters since creation, for tests and benchmarks. */
struct etag_cache_stats {
    uint64_t hits;         /* content hash found and current */
    uint64_t misses;       /* not found, or found for an older version */
    uint64_t hashed;       /* files hashed inline */
    uint64_t hashed_async; /* files hashed by the background thread */
    uint64_t evictions;    /* entries dropped for room (LRU) */
    uint64_t stale;        /* hashes dropped: the file changed while hashed */
    uint64_t queue_full;   /* lookups that found the queue full */
    size_t entries;        /* entries now */
};

struct etag_cache;

/*
 * etag_cache_new - make a cache. Its background thread starts with the
 * first file queued to it, so a process that confines itself after this
 * call has no older thread; if it cannot start, that file gets no content
 * ETag until a later lookup tries again.
 *
 * Returns 0 with *@out set, -EINVAL (unknown mode), -ENOMEM or -EIO.
 */
int etag_cache_new(struct etag_cache **out,
                   const struct etag_cache_config *cfg);

/*
 * etag_cache_free - stop the background thread (a hash in progress is
 * finished first), drop queued work and release @c; @c may be NULL.
 */
void etag_cache_free(struct etag_cache *c);

/*
 * etag_cache_get - the validators of the regular file open as @fd (borrowed;
 * the background thread takes its own duplicate) whose fstat is @st.
 * @want_digest asks for @out->repr_digest as well (a Want-Repr-Digest request);
 * that needs the content hash in every mode.
 *
 * Returns 0, -EINVAL (@st is not a regular file), or -EIO (reading @fd
 * failed; @out then has no ETag in content mode and no digest).
 */
int etag_cache_get(struct etag_cache *c, int fd, const struct stat *st,
                   bool want_digest, struct etag_value *out);

/*
 * etag_cache_get_now - etag_cache_get, but a content hash that is not known
 * yet is computed here, on the calling thread, whatever the file's size
 * (and kept). For a request whose validators can only be compared with the
 * content tag (one handed out before a restart). Returns as etag_cache_get.
 */
int etag_cache_get_now(struct etag_cache *c, int fd, const struct stat *st,
                       bool want_digest, struct etag_value *out);

/*
 * etag_cache_mtime_etag - the nginx-style "\"MTIME-SIZE\"" of @st into @buf,
 * lower-case hex, the mtime in nanoseconds (nginx uses seconds, which misses
 * two same-size writes within one second).
 */
void etag_cache_mtime_etag(const struct stat *st, char buf[ETAG_LEN]);

/*
 * etag_cache_want_digest - whether the Want-Repr-Digest field value @field
 * (RFC 9530 section 4: a dictionary of algorithm = preference 0..10, 0
 * meaning "not acceptable") asks for sha-256. NULL: false.
 */
bool etag_cache_want_digest(const char *field);

/*
 * etag_cache_drain - wait until the queue is empty and the background thread
 * is idle (tests, benchmarks, and before taking stats).
 */
void etag_cache_drain(struct etag_cache *c);

/* etag_cache_stats - a snapshot of the counters. */
void etag_cache_stats(struct etag_cache *c, struct etag_cache_stats *out);

#endif
