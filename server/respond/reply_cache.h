/* SPDX-License-Identifier: MIT */
/*
 * reply_cache.h - ready 200 responses of small files, one cache per thread.
 *
 * A hit saves the body's pread, the response's allocations and the header
 * formatting; it never saves the resolution: the caller has opened the file
 * through the confined resolver and fstat()ed that fd for this request, and
 * a cached response is used only when that stat names the same version of
 * the same file (device, inode, size, mtime and ctime to the nanosecond)
 * and the same Content-Type and Cache-Control. See reply_cache.c for why a
 * changed file is never answered from the cache.
 */
#ifndef REPLY_CACHE_H
#define REPLY_CACHE_H

#include "files/etag_cache.h"

#include <microhttpd.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

/* Bodies up to this size are kept; the cache of one thread holds at most
 * REPLY_CACHE_SLOTS responses and REPLY_CACHE_BYTES bytes of bodies. */
#define REPLY_CACHE_BODY_MAX ((uint64_t)64 * 1024)
#define REPLY_CACHE_SLOTS 512u
#define REPLY_CACHE_BYTES ((uint64_t)4 * 1024 * 1024)
/* A file changed less than this many seconds ago is not kept (see
 * reply_cache.c: timestamps have a granularity). */
#define REPLY_CACHE_SETTLE_S 2

/* What a hit gives back besides the response: the validators it was made
 * with, for the request's conditionals. */
struct reply_hit {
    struct MHD_Response *resp; /* borrowed: queue it, do not destroy it */
    const char *etag;          /* as sent, possibly "" */
};

/*
 * reply_cache_find - the calling thread's response for the file whose fd
 * this request opened and fstat()ed into @st, served as @type with
 * @cache_control (or NULL) under the configuration generation @serial
 * (respond_conf.serial): an entry made under another generation is never
 * used, so a SIGHUP that changes headers is seen at once, and @type and
 * @cache_control, which point into that generation, are compared only
 * while it is alive.
 *
 * Returns true with @hit filled, or false (nothing kept for that version).
 */
bool reply_cache_find(uint64_t serial, const struct stat *st, const char *type,
                      const char *cache_control, struct reply_hit *hit);

/*
 * reply_cache_keep - keep @resp (made under generation @serial: a complete
 * 200 response whose body is the
 * whole file as read from @fd after the fstat that gave @st) in the calling
 * thread's cache, to be sent with @etag. Kept only when the file is small,
 * changed at least REPLY_CACHE_SETTLE_S ago, and still has the same identity
 * in a new fstat of @fd (borrowed).
 *
 * Returns true when kept: the cache then owns the caller's reference of
 * @resp (the caller must not destroy it); false leaves it to the caller.
 */
bool reply_cache_keep(uint64_t serial, int fd, const struct stat *st,
                      const char *type, const char *cache_control,
                      const char *etag, struct MHD_Response *resp);

#endif
