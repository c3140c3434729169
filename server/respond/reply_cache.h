/* SPDX-License-Identifier: MIT */
/*
 * reply_cache.h - ready 200 replies of small files, one cache per thread.
 *
 * A hit saves the body's pread, the field formatting and, for a transport
 * that keeps its wire form beside the entry, the response's making; it
 * never saves the resolution: the caller has opened the file through the
 * confined resolver and fstat()ed that fd for this request, and a kept
 * reply is used only when that stat names the same version of the same
 * file (device, inode, size, mtime and ctime to the nanosecond) and the
 * same Content-Type and Cache-Control. See reply_cache.c for why a changed
 * file is never answered from the cache.
 *
 * What a kept reply may depend on, in one place: the file's version, its
 * Content-Type and Cache-Control, and the configuration generation
 * (headers, --header, HSTS, Server-Timing settings). A reply whose fields
 * depend on anything in the request besides the method (a variant chosen
 * by Accept-Encoding, Vary, Repr-Digest asked for, HSTS over TLS,
 * Server-Timing, a headers file's fields chosen by the request path, a
 * --cors list's Access-Control-Allow-Origin naming the request's Origin) is
 * never kept nor answered from the cache: respond_file.c's reusable()
 * excludes those requests.
 */
#ifndef BENEATH_RESPOND_REPLY_CACHE_H
#define BENEATH_RESPOND_REPLY_CACHE_H

#include "files/etag_cache.h"
#include "respond/reply.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

/* Bodies up to this size are kept; the cache of one thread holds at most
 * REPLY_CACHE_SLOTS replies and REPLY_CACHE_BYTES bytes of bodies. */
#define REPLY_CACHE_BODY_MAX ((uint64_t)64 * 1024)
#define REPLY_CACHE_SLOTS 512u
#define REPLY_CACHE_BYTES ((uint64_t)4 * 1024 * 1024)
/* A file changed less than this many seconds ago is not kept (see
 * reply_cache.c: timestamps have a granularity). */
#define REPLY_CACHE_SETTLE_S 2

/*
 * A transport's own form of a kept reply (a libmicrohttpd response ready
 * to queue), kept in the calling thread's slot beside the entry: @drop
 * releases @wire when the slot is emptied or taken by another file.
 * @date is the transport's to use (the second its Date field names).
 */
struct reply_wire {
    void *wire;
    void (*drop)(void *wire);
    time_t date;
};

/* A hit: the entry (a reference) and the thread's slot of it. */
struct reply_hit {
    struct reply_entry *entry;
    struct reply_wire *wire;
    const char *etag; /* as sent, possibly "" */
};

/*
 * reply_cache_find - the calling thread's reply for the file whose fd
 * this request opened and fstat()ed into @st, served as @type with
 * @cache_control (or NULL) under the configuration generation @serial
 * (respond_conf.serial): an entry made under another generation is never
 * used, so a SIGHUP that changes headers is seen at once, and @type and
 * @cache_control, which point into that generation, are compared only
 * while it is alive.
 *
 * Returns true with @hit filled (release it with reply_use_hit or
 * reply_hit_drop), or false (nothing kept for that version).
 */
bool reply_cache_find(uint64_t serial, const struct stat *st, const char *type,
                      const char *cache_control, struct reply_hit *hit);

/* reply_use_hit - make @r the entry's 200: its fields, its body; @r takes
 * the hit's reference. */
void reply_use_hit(struct reply *r, struct reply_hit *hit);

/* reply_hit_drop - forget @hit (unused); safe on an empty hit. */
void reply_hit_drop(struct reply_hit *hit);

/*
 * reply_cache_keep - keep the complete 200 @r (made under generation
 * @serial, a bytes body that is the whole file as read from @fd after the
 * fstat that gave @st) in the calling thread's cache, to be answered with
 * @etag. Kept only when the file is small, changed at least
 * REPLY_CACHE_SETTLE_S ago, and still has the same identity in a new fstat
 * of @fd (borrowed). When kept, @r is switched to the entry's copy (its own
 * body released) and to the new slot, so that its transport may keep its
 * wire form there.
 *
 * Returns true when kept.
 */
bool reply_cache_keep(uint64_t serial, int fd, const struct stat *st,
                      const char *type, const char *cache_control,
                      const char *etag, struct reply *r);

/* reply_entry_get - one more reference to @e; returns @e. */
struct reply_entry *reply_entry_get(struct reply_entry *e);

/* reply_entry_put - drop a reference to @e (NULL ok); the last frees it. */
void reply_entry_put(struct reply_entry *e);

#endif
