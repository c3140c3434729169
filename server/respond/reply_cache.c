// SPDX-License-Identifier: MIT
/*
 * reply_cache.c - ready 200 replies of small files, one cache per thread.
 *
 * Each worker thread keeps up to REPLY_CACHE_SLOTS complete replies (body in
 * memory, every field but the framing ones a transport adds) in a
 * direct-mapped table on (device, inode); no lock, since only the thread
 * that made a slot uses it. An entry is counted: a reply that borrows it
 * (and a transport's response still being sent) holds a reference, so an
 * entry outlives its slot, which is taken by another file, emptied when the
 * table outgrows REPLY_CACHE_BYTES, or freed when the thread ends. Beside
 * the entry, the slot keeps a transport's wire form of it (struct
 * reply_wire), released with the slot.
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

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* A kept reply: immutable once made, counted. */
struct reply_entry {
    atomic_uint refs;
    size_t n_fields;
    struct reply_field *field; /* into text[] below */
    uint64_t length;
    const char *body; /* into text[] */
    char etag[ETAG_LEN];
    char text[]; /* the field names and values, then the body */
};

struct slot {
    struct reply_entry *e; /* one reference, owned; NULL: empty */
    struct reply_wire wire;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime, ctime;
    uint64_t serial; /* the configuration generation it was made under */
    const char *type, *cache_control; /* into that generation */
};

struct cache {
    struct slot slot[REPLY_CACHE_SLOTS];
    uint64_t bytes;
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static bool key_ok;
static _Thread_local struct cache *mine;

struct reply_entry *reply_entry_get(struct reply_entry *e)
{
    atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed);
    return e;
}

void reply_entry_put(struct reply_entry *e)
{
    if (e && atomic_fetch_sub_explicit(&e->refs, 1, memory_order_acq_rel) == 1)
        free(e);
}

static void slot_empty(struct cache *c, struct slot *s)
{
    if (!s->e)
        return;
    if (s->wire.wire && s->wire.drop)
        s->wire.drop(s->wire.wire);
    s->wire = (struct reply_wire){0};
    c->bytes -= (uint64_t)s->size;
    reply_entry_put(s->e);
    s->e = NULL;
}

static void empty(struct cache *c)
{
    for (size_t i = 0; i < REPLY_CACHE_SLOTS; i++)
        slot_empty(c, &c->slot[i]);
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

bool reply_cache_find(uint64_t serial, const struct stat *st, const char *type,
                      const char *cache_control, struct reply_hit *hit)
{
    struct cache *c = mine;
    struct slot *s;

    if (!c)
        return false;
    s = &c->slot[slot_of(st)];
    /* the serial first: another generation's strings may be freed */
    if (!s->e || s->serial != serial || !same_file(s, st) ||
        !str_eq(s->type, type) || !str_eq(s->cache_control, cache_control))
        return false;
    hit->entry = reply_entry_get(s->e);
    hit->wire = &s->wire;
    hit->etag = s->e->etag;
    return true;
}

static void entry_put(void *e)
{
    reply_entry_put(e);
}

void reply_use_hit(struct reply *r, struct reply_hit *hit)
{
    struct reply_entry *e = hit->entry;

    for (size_t i = 0; i < e->n_fields; i++)
        reply_add(r, e->field[i].name, e->field[i].value);
    /* the body holds the hit's reference: its release puts it */
    reply_set_bytes(r, e->body, e->length, entry_put, e);
    r->cached = e;
    r->wire = hit->wire;
    *hit = (struct reply_hit){0};
}

void reply_hit_drop(struct reply_hit *hit)
{
    reply_entry_put(hit->entry);
    *hit = (struct reply_hit){0};
}

/*
 * A copy of @r's fields and body as one entry, or NULL. The field table
 * comes first in text[] (which follows the struct, so it is aligned), then
 * the names and values, then the body.
 */
static struct reply_entry *entry_of(const struct reply *r, const char *etag)
{
    size_t table = r->n_fields * sizeof(struct reply_field), strings = 0;
    struct reply_entry *e;
    char *at;

    for (size_t i = 0; i < r->n_fields; i++)
        strings += strlen(r->field[i].name) + strlen(r->field[i].value) + 2;
    e = malloc(sizeof *e + table + strings + (size_t)r->length);
    if (!e)
        return NULL;
    atomic_init(&e->refs, 1);
    e->n_fields = r->n_fields;
    e->field = (struct reply_field *)(void *)e->text;
    at = e->text + table;
    for (size_t i = 0; i < r->n_fields; i++) {
        size_t n = strlen(r->field[i].name) + 1, v;

        memcpy(at, r->field[i].name, n);
        e->field[i].name = at;
        at += n;
        v = strlen(r->field[i].value) + 1;
        memcpy(at, r->field[i].value, v);
        e->field[i].value = at;
        at += v;
    }
    memcpy(at, r->data, (size_t)r->length);
    e->body = at;
    e->length = r->length;
    memcpy(e->etag, etag, strlen(etag) + 1);
    return e;
}

bool reply_cache_keep(uint64_t serial, int fd, const struct stat *st,
                      const char *type, const char *cache_control,
                      const char *etag, struct reply *r)
{
    struct timespec now;
    struct stat again;
    struct reply_entry *e;
    struct cache *c;
    struct slot *s;
    uint64_t size = (uint64_t)st->st_size;

    if (size == 0 || size > REPLY_CACHE_BODY_MAX || strlen(etag) >= ETAG_LEN ||
        r->body != REPLY_BODY_BYTES || r->length != size)
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
    e = entry_of(r, etag);
    if (!e)
        return false;
    s = &c->slot[slot_of(st)];
    slot_empty(c, s);
    if (c->bytes + size > REPLY_CACHE_BYTES)
        empty(c);
    *s = (struct slot){
        .e = e,
        .dev = st->st_dev,
        .ino = st->st_ino,
        .size = st->st_size,
        .mtime = st->st_mtim,
        .ctime = st->st_ctim,
        .serial = serial,
        .type = type,
        .cache_control = cache_control,
    };
    c->bytes += size;
    /* the reply now borrows the entry's copy, as a hit would */
    struct reply_hit hit = {reply_entry_get(e), &s->wire, e->etag};
    if (r->release)
        r->release(r->release_arg); /* the entry's bytes are the same */
    r->release = NULL;
    r->n_fields = 0;
    reply_use_hit(r, &hit);
    return true;
}
