/* SPDX-License-Identifier: MIT */
/*
 * compress.h - compression on the fly: gzip (zlib), br (libbrotli) and zstd
 * (libzstd) encoders over a file descriptor, and a bounded memory cache of
 * compressed bodies shared by every worker thread.
 *
 * A body is compressed once per version of a file: the cache is keyed by a
 * string the caller makes from the file's content ETag, its identity and the
 * coding. Small files are compressed on the calling thread (a bounded stall,
 * docs/compression.md has the figure); larger ones by one background thread
 * while the caller serves the identity body; files above a maximum are never
 * compressed, so memory stays within the byte budget plus the bodies that
 * responses in flight still hold.
 */
#ifndef BENEATH_FILES_COMPRESS_H
#define BENEATH_FILES_COMPRESS_H

#include "http/negotiate.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* Files smaller than this are not worth a coding (headers cost more). */
#define COMPRESS_MIN_SIZE ((uint64_t)1024)
/* Files up to this size are compressed on the request's thread. */
#define COMPRESS_SYNC_MAX ((uint64_t)32 * 1024)
/* Files above this size are never compressed on the fly (sidecars are). */
#define COMPRESS_MAX_SIZE ((uint64_t)16 * 1024 * 1024)
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
int compress_fd(enum negotiate_encoding enc, enum compress_level level, int fd,
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
};

struct compress_cache;

/* compress_cache_new - Returns 0 or -ENOMEM. */
int compress_cache_new(struct compress_cache **out,
                       const struct compress_cache_config *cfg);

/* compress_cache_free - stop the background thread, drop every body the
 * cache keeps (responses keep theirs); NULL is ignored. */
void compress_cache_free(struct compress_cache *c);

/*
 * compress_cache_get - the body kept under @key, with a reference for the
 * caller (compress_body_put it), or NULL.
 */
struct compress_body *compress_cache_get(struct compress_cache *c,
                                         const char *key);

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
                                          const char *key,
                                          enum negotiate_encoding enc, int fd,
                                          const struct stat *st);

/*
 * compress_cache_queue - have the background thread compress @fd
 * (borrowed; a duplicate is queued) like compress_cache_make, once per @key
 * however many requests ask; not a file larger than the cache's budget
 * (its body would rarely be kept). Returns true when queued or already
 * queued.
 */
bool compress_cache_queue(struct compress_cache *c, const char *key,
                          enum negotiate_encoding enc, int fd,
                          const struct stat *st);

/* compress_cache_stats - counters since creation. */
void compress_cache_stats(struct compress_cache *c,
                          struct compress_cache_stats *out);

/*
 * compress_cache_wait_idle - wait up to @ms for the background queue to
 * empty (tests). Returns true when it did.
 */
bool compress_cache_wait_idle(struct compress_cache *c, int ms);

#endif
