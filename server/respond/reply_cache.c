// SPDX-License-Identifier: MIT
/*
 * reply_cache.c - ready 200 responses of small files, one cache per thread.
 *
 * Each worker thread keeps up to REPLY_CACHE_SLOTS complete responses (body
 * in memory, every header but the ones libmicrohttpd adds; Date is renewed
 * once a second) in a direct-mapped table on (device, inode); no lock, since
 * only the thread that made an entry uses it, and libmicrohttpd serves each
 * connection on one thread. A response lives until its slot is taken by
 * another file, the table outgrows REPLY_CACHE_BYTES (then it is emptied),
 * or the thread ends; libmicrohttpd counts references, so one still being
 * sent outlives its slot.
 *
 * Why a changed file is never answered from the cache. Every request opens
 * its path through the confined resolver and fstat()s the fd it got; the
 * entry is used only when that stat has the entry's device, inode, size,
 * mtime and ctime, to the nanosecond. A rename or a new file is another
 * inode; a write, truncate, chmod or utimes sets ctime to the current time.
 * The one way left to change the bytes under an equal stat is a second
 * write within one tick of the timestamp clock (the kernel's timestamps are
 * coarse, a jiffy or, on FAT, two seconds) after the read that filled the
 * entry. So an entry is made only from a file whose ctime is at least
 * REPLY_CACHE_SETTLE_S seconds old at the time of its fill: any write after
 * the fill then gets a ctime that differs. The body is read after the fstat
 * of the request, and the fd is fstat()ed again after the read: the identity
 * must not have moved in between. A write through a shared mapping updates
 * the timestamps at its first fault, not at every store, so such writers
 * can go unseen until writeback; the ETag cache has the same limit.
 */
#include "respond/reply_cache.h"

#include "http/date.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct slot {
    struct MHD_Response *resp; /* one reference, owned; NULL: empty */
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime, ctime;
    uint64_t serial; /* the configuration generation it was made under */
    const char *type, *cache_control; /* into that generation */
    char etag[ETAG_LEN];
    time_t date; /* the second its Date header names, or 0 */
};

struct cache {
    struct slot slot[REPLY_CACHE_SLOTS];
    uint64_t bytes;
    time_t now; /* the second now_text names */
    char now_text[DATE_LEN];
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static bool key_ok;
static _Thread_local struct cache *mine;

static void empty(struct cache *c)
{
    for (size_t i = 0; i < REPLY_CACHE_SLOTS; i++) {
        if (c->slot[i].resp)
            MHD_destroy_response(c->slot[i].resp);
        c->slot[i].resp = NULL;
    }
    c->bytes = 0;
}

static void thread_end(void *p)
{
    struct cache *c = p;

    empty(c);
    free(c);
}

static void make_key(void)
{
    key_ok = pthread_key_create(&key, thread_end) == 0;
}

/* The calling thread's cache, made on first use; NULL without memory. */
static struct cache *cache(void)
{
    if (mine)
        return mine;
    pthread_once(&once, make_key);
    if (!key_ok)
        return NULL;
    struct cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (pthread_setspecific(key, c) != 0) {
        free(c);
        return NULL;
    }
    mine = c;
    return c;
}

static size_t slot_of(const struct stat *st)
{
    uint64_t h = ((uint64_t)st->st_ino ^ ((uint64_t)st->st_dev << 32)) *
                 0x9e3779b97f4a7c15u;

    return (size_t)(h >> 40) & (REPLY_CACHE_SLOTS - 1);
}

static bool ts_eq(struct timespec a, struct timespec b)
{
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

static bool str_eq(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static bool same_file(const struct slot *s, const struct stat *st)
{
    return s->dev == st->st_dev && s->ino == st->st_ino &&
           s->size == st->st_size && ts_eq(s->mtime, st->st_mtim) &&
           ts_eq(s->ctime, st->st_ctim);
}

static bool same_version(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
           a->st_size == b->st_size && ts_eq(a->st_mtim, b->st_mtim) &&
           ts_eq(a->st_ctim, b->st_ctim);
}

/*
 * Give the response of @s the Date of this second, formatted once a second
 * per thread (libmicrohttpd sends its own, formatted per response, only when
 * a response has none). Safe while the response waits queued on another
 * connection of this thread: libmicrohttpd copies the headers when it
 * sends them, on this thread.
 */
static void stamp(struct cache *c, struct slot *s)
{
    time_t now = time(NULL);

    if (s->date == now)
        return;
    if (c->now != now) {
        date_format(now, c->now_text);
        c->now = now;
    }
    /* It replaces the Date before (or, failing, leaves none). */
    s->date = MHD_add_response_header(s->resp, MHD_HTTP_HEADER_DATE,
                                      c->now_text) == MHD_YES
                  ? now
                  : 0;
}

bool reply_cache_find(uint64_t serial, const struct stat *st, const char *type,
                      const char *cache_control, struct reply_hit *hit)
{
    struct cache *c = mine;
    struct slot *s;

    if (!c)
        return false;
    s = &c->slot[slot_of(st)];
    /* the serial first: another generation's strings may be freed */
    if (!s->resp || s->serial != serial || !same_file(s, st) ||
        !str_eq(s->type, type) || !str_eq(s->cache_control, cache_control))
        return false;
    stamp(c, s);
    hit->resp = s->resp;
    hit->etag = s->etag;
    return true;
}

bool reply_cache_keep(uint64_t serial, int fd, const struct stat *st,
                      const char *type, const char *cache_control,
                      const char *etag, struct MHD_Response *resp)
{
    struct timespec now;
    struct stat again;
    struct cache *c;
    struct slot *s;
    uint64_t size = (uint64_t)st->st_size;

    if (size == 0 || size > REPLY_CACHE_BODY_MAX || strlen(etag) >= ETAG_LEN)
        return false;
    /* Settled: a later write gets another ctime (see the top). */
    if (clock_gettime(CLOCK_REALTIME, &now) != 0 ||
        now.tv_sec - st->st_ctim.tv_sec < REPLY_CACHE_SETTLE_S)
        return false;
    /* Unchanged between the request's fstat and the read of the body. */
    if (fstat(fd, &again) != 0 || !same_version(st, &again))
        return false;
    c = cache();
    if (!c)
        return false;
    s = &c->slot[slot_of(st)];
    if (s->resp) {
        c->bytes -= (uint64_t)s->size;
        MHD_destroy_response(s->resp);
        s->resp = NULL;
    }
    if (c->bytes + size > REPLY_CACHE_BYTES)
        empty(c);
    *s = (struct slot){
        .resp = resp,
        .dev = st->st_dev,
        .ino = st->st_ino,
        .size = st->st_size,
        .mtime = st->st_mtim,
        .ctime = st->st_ctim,
        .serial = serial,
        .type = type,
        .cache_control = cache_control,
    };
    memcpy(s->etag, etag, strlen(etag) + 1);
    c->bytes += size;
    stamp(c, s);
    return true;
}
