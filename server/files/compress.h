/* SPDX-License-Identifier: MIT */
/*
 * compress.h - compression on the fly: gzip (zlib), br (libbrotli) and zstd
 * (libzstd) encoders over a file descriptor, and a bounded memory cache of
 * compressed bodies shared by every worker thread.
 *
 * A body is compressed once per version of a file: the cache is keyed by a
 * string the caller makes from the file's content ETag, its identity and the
 * coding. Small files are compressed on the calling thread (a bounded stall,
 * docs/compression.md has the figure); larger ones as they are sent
 * (compress_stream), the first stream making the body to keep, or by one
 * background thread; files above a maximum are never compressed, so memory
 * stays within the byte budget, the makers' output (bounded by the budget
 * too) and the bodies that responses in flight still hold.
 */
#ifndef BENEATH_FILES_COMPRESS_H
#define BENEATH_FILES_COMPRESS_H

#include "syntax/coding.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Files smaller than this are not worth a coding (headers cost more). */
#define COMPRESS_MIN_SIZE ((uint64_t)1024)
/* Files up to this size are compressed on the request's thread. */
#define COMPRESS_SYNC_MAX ((uint64_t)32 * 1024)
/* Files above this size are never compressed on the fly (sidecars are). */
#define COMPRESS_MAX_SIZE ((uint64_t)16 * 1024 * 1024)
/* Bodies compressed while they are sent (compress_stream), open at once. */
#define COMPRESS_STREAMS_MAX 32
/* A cache key: "<etag> <coding> <dev>:<ino>" fits. */
#define COMPRESS_KEY_LEN 128

enum compress_level {
    COMPRESS_FAST, /* on the fly: gzip 6, br 5, zstd 3 */
    COMPRESS_BEST, /* precompressing: gzip 9, br 11, zstd 19 */
};

/*
 * compress_fd - compress the first @size bytes of @fd (borrowed; read with
 * pread, so its offset is untouched) with @enc at @level into a malloc'd
 * buffer (*@out, the caller frees it) of *@out_len bytes.
 *
 * Returns 0; -EFBIG when the output would exceed @max_out; -ENODATA when
 * the file is shorter than @size; -ENOMEM; -EIO for an encoder failure; or
 * the -errno of pread.
 */
int compress_fd(enum coding enc, enum compress_level level, int fd,
                uint64_t size, size_t max_out, unsigned char **out,
                size_t *out_len);

/*
 * One compressed body, counted: the cache holds one reference while it
 * keeps the body, and each response that sends it holds one more.
 */
struct compress_body {
    atomic_uint refs;
    bool no_gain; /* compressing did not pay: serve the identity body */
    size_t len;
    char key[COMPRESS_KEY_LEN];
    struct compress_body *hnext, *prev, *next; /* cache's, under its lock */
    unsigned char data[];
};

/* compress_body_put - drop one reference; NULL is ignored. */
void compress_body_put(struct compress_body *b);

/* Zero fields take the defaults. */
struct compress_cache_config {
    uint64_t budget;    /* bytes of bodies kept (default 16 MiB) */
    unsigned queue_max; /* background jobs waiting (default 16) */
};

struct compress_cache_stats {
    uint64_t hits, misses, made, queued, queue_full, evicted, bytes, entries;
    uint64_t streamed; /* compress_streams opened */
};

struct compress_cache;

/* compress_cache_new - Returns 0 or -ENOMEM. */
int compress_cache_new(struct compress_cache **out,
                       const struct compress_cache_config *cfg);

/* compress_cache_free - stop the background thread, drop every body the
 * cache keeps (responses keep theirs); NULL is ignored. */
void compress_cache_free(struct compress_cache *c);

/*
 * compress_cache_get - the body kept under @key, else under @alt (NULL:
 * none), with a reference for the caller (compress_body_put it), or NULL;
 * one hit or miss in the counters.
 */
struct compress_body *compress_cache_get(struct compress_cache *c,
                                         const char *key, const char *alt);

/*
 * compress_cache_make - compress @fd (borrowed) whose fstat gave @st with
 * @enc now, on the calling thread, keep it under @key and return it with a
 * reference for the caller. A result is kept only when @fd still has the
 * identity of @st afterwards (a file written meanwhile is not cached).
 *
 * Returns the body (no_gain set when the coding did not make it smaller),
 * or NULL when the file could not be read or changed.
 */
struct compress_body *compress_cache_make(struct compress_cache *c,
                                          const char *key, enum coding enc,
                                          int fd, const struct stat *st);

/*
 * compress_cache_fits - whether the body of a file of @size bytes is worth
 * making to keep (not above the cache's budget: it would rarely stay).
 */
bool compress_cache_fits(const struct compress_cache *c, uint64_t size);

/*
 * compress_cache_queue - have the background thread compress @fd
 * (borrowed; a duplicate is queued) like compress_cache_make, once per @key
 * however many requests ask; not a file larger than the cache's budget
 * (compress_cache_fits). Returns true when queued or already queued.
 */
bool compress_cache_queue(struct compress_cache *c, const char *key,
                          enum coding enc, int fd, const struct stat *st);

/* compress_cache_stats - counters since creation. */
void compress_cache_stats(struct compress_cache *c,
                          struct compress_cache_stats *out);

/*
 * A body compressed while it is sent: a request for a file whose
 * compressed body is not kept yet gets it coded as it goes, and the first
 * such stream of a key makes the body to keep: its whole output goes into
 * the cache at its end (a no-gain mark when the coding did not pay; not
 * when the file changed meanwhile). The makers' output held meanwhile is
 * bounded by the cache's budget; a maker past it, or closed before its
 * end (the client left), leaves the body to the background thread
 * (compress_cache_queue). The bytes are the ones compress_fd makes of the
 * same file at COMPRESS_FAST (the same encoder fed the same blocks), so a
 * body made either way is the same representation under the same ETag.
 * The length is known only at the end.
 */
struct compress_stream;

/*
 * compress_stream_open - code the file @fd whose fstat gave @st with @enc
 * as it is read, for @key (the cache key its body is kept under). On
 * success the stream owns @fd (compress_stream_close closes it); on an
 * error the caller still does. At most COMPRESS_STREAMS_MAX are open in @c
 * at once; a stream makes the body to keep unless another stream or the
 * background thread makes @key, or the file is larger than the budget
 * (compress_cache_fits).
 *
 * Returns 0 and the stream in *@out; -EBUSY when that many are open;
 * -ENOMEM.
 */
int compress_stream_open(struct compress_cache *c, const char *key,
                         enum coding enc, int fd, const struct stat *st,
                         struct compress_stream **out);

/*
 * compress_stream_read - up to @n next bytes of the coded body into @buf.
 *
 * Returns the bytes written (0: the body is complete), or -errno: -ENODATA
 * when the file ended before its size (truncated meanwhile), -EIO for an
 * encoder failure, -ENOMEM, or the -errno of pread.
 */
ssize_t compress_stream_read(struct compress_stream *cs, char *buf, size_t n);

/* compress_stream_close - release @cs and its fd (a maker cut short queues
 * its key for the background thread first); NULL is ignored. The cache @cs
 * came from must still exist. */
void compress_stream_close(struct compress_stream *cs);

/*
 * compress_cache_wait_idle - wait up to @ms for the background queue to
 * empty (tests). Returns true when it did.
 */
bool compress_cache_wait_idle(struct compress_cache *c, int ms);

#endif
