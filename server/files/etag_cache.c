/* SPDX-License-Identifier: MIT */
/*
 * etag_cache.c - content ETags and Repr-Digest from a cached SHA-256 (OpenSSL
 * EVP). A fixed array of entries with a hash on (dev, ino) and an LRU list,
 * under one mutex that is never held while reading or hashing a file. Large
 * files go to one background thread through a bounded queue of duplicated
 * fds (the thread starts with the first such file, so a server that
 * confines itself after making the cache has no thread older than its
 * sandbox); a hash is kept only if the file's identity (size, mtime, ctime) is
 * the same after hashing as before, so a file written during the hash is never
 * given the ETag of a mixture of versions.
 */
#include "files/etag_cache.h"

#include "http/field.h"
#include "runtime/bgthread.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define SHA256_LEN 32
#define NIL UINT32_MAX
/* Bytes read per pread while hashing. */
#define HASH_BLOCK 65536
/* Entries are indexed by uint32_t; keep far from NIL. */
#define MAX_ENTRIES_LIMIT (1u << 28)

/* The identity of one version of a file. */
struct key {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    struct timespec ctime;
};

struct entry {
    struct key key;
    unsigned char sha[SHA256_LEN];
    bool pending; /* queued; sha not known yet */
    uint32_t hnext;
    uint32_t prev, next; /* LRU list, most recent at head */
};

struct job {
    int fd; /* owned: a duplicate of the caller's fd */
    struct key key;
};

struct etag_cache {
    pthread_mutex_t lock;
    pthread_cond_t work; /* a job was queued, or stop */
    pthread_cond_t idle; /* queue empty and worker not busy */
    pthread_t thread;
    bool started; /* the thread runs (under lock) */
    EVP_MD *md;
    struct etag_cache_config cfg;

    struct entry *entries;
    uint32_t cap;
    uint32_t used; /* entries handed out so far (grows to cap once) */
    uint32_t *buckets;
    uint32_t mask;
    uint32_t lru_head, lru_tail, free_head;

    struct job *queue;
    size_t q_head, q_len;
    bool busy;
    atomic_bool stop;

    struct etag_cache_stats stats;
};

static struct key key_of(const struct stat *st)
{
    struct key k;

    k.dev = st->st_dev;
    k.ino = st->st_ino;
    k.size = st->st_size;
    k.mtime = st->st_mtim;
    k.ctime = st->st_ctim;
    return k;
}

static bool key_eq(const struct key *a, const struct key *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime.tv_sec == b->mtime.tv_sec &&
           a->mtime.tv_nsec == b->mtime.tv_nsec &&
           a->ctime.tv_sec == b->ctime.tv_sec &&
           a->ctime.tv_nsec == b->ctime.tv_nsec;
}

static uint32_t bucket_of(const struct etag_cache *c, dev_t dev, ino_t ino)
{
    uint64_t h = (uint64_t)dev * 0x9e3779b97f4a7c15ULL ^ (uint64_t)ino;

    /* murmur3's finaliser: every input bit reaches the low bits. */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return (uint32_t)h & c->mask;
}

/* The entry for (dev, ino), or NIL. Lock held. */
static uint32_t find(const struct etag_cache *c, dev_t dev, ino_t ino)
{
    uint32_t i = c->buckets[bucket_of(c, dev, ino)];

    while (i != NIL &&
           (c->entries[i].key.dev != dev || c->entries[i].key.ino != ino))
        i = c->entries[i].hnext;
    return i;
}

static void lru_unlink(struct etag_cache *c, uint32_t i)
{
    struct entry *e = &c->entries[i];

    if (e->prev != NIL)
        c->entries[e->prev].next = e->next;
    else
        c->lru_head = e->next;
    if (e->next != NIL)
        c->entries[e->next].prev = e->prev;
    else
        c->lru_tail = e->prev;
    e->prev = e->next = NIL;
}

static void lru_push(struct etag_cache *c, uint32_t i)
{
    struct entry *e = &c->entries[i];

    e->prev = NIL;
    e->next = c->lru_head;
    if (c->lru_head != NIL)
        c->entries[c->lru_head].prev = i;
    c->lru_head = i;
    if (c->lru_tail == NIL)
        c->lru_tail = i;
}

static void touch(struct etag_cache *c, uint32_t i)
{
    if (c->lru_head != i) {
        lru_unlink(c, i);
        lru_push(c, i);
    }
}

/* remove - take entry @i out of its bucket and the LRU, onto the free list. */
static void remove_entry(struct etag_cache *c, uint32_t i)
{
    struct entry *e = &c->entries[i];
    uint32_t *p = &c->buckets[bucket_of(c, e->key.dev, e->key.ino)];

    while (*p != i)
        p = &c->entries[*p].hnext;
    *p = e->hnext;
    lru_unlink(c, i);
    e->hnext = c->free_head;
    c->free_head = i;
    c->stats.entries--;
}

/* insert - a new entry for @k at the LRU head, evicting the LRU tail if full.
 */
static uint32_t insert(struct etag_cache *c, const struct key *k)
{
    uint32_t i, b;

    if (c->free_head != NIL) {
        i = c->free_head;
        c->free_head = c->entries[i].hnext;
    } else if (c->used < c->cap) {
        i = c->used++;
    } else {
        i = c->lru_tail;
        remove_entry(c, i);
        c->free_head = c->entries[i].hnext;
        c->stats.evictions++;
    }
    memset(&c->entries[i], 0, sizeof(c->entries[i]));
    c->entries[i].key = *k;
    b = bucket_of(c, k->dev, k->ino);
    c->entries[i].hnext = c->buckets[b];
    c->buckets[b] = i;
    lru_push(c, i);
    c->stats.entries++;
    return i;
}

/* store - remember @sha for @k (lock held). */
static void store(struct etag_cache *c, const struct key *k,
                  const unsigned char sha[SHA256_LEN])
{
    uint32_t i = find(c, k->dev, k->ino);

    if (i == NIL)
        i = insert(c, k);
    c->entries[i].key = *k;
    c->entries[i].pending = false;
    memcpy(c->entries[i].sha, sha, SHA256_LEN);
    touch(c, i);
}

/*
 * hash_fd - SHA-256 of the first @size bytes of @fd, read with pread (the
 * file position is not ours). Stops early, -ECANCELED, when @stop is set.
 *
 * Returns 0, -ESTALE (the file is shorter than @size now), -ECANCELED, -EIO
 * or -ENOMEM.
 */
static int hash_fd(const EVP_MD *md, int fd, off_t size,
                   unsigned char sha[SHA256_LEN], atomic_bool *stop)
{
    unsigned char *buf = NULL;
    unsigned int len = 0;
    EVP_MD_CTX *ctx = NULL;
    off_t off = 0;
    int rc = -ENOMEM;

    buf = malloc(HASH_BLOCK);
    ctx = EVP_MD_CTX_new();
    if (buf == NULL || ctx == NULL)
        goto out_free;
    rc = -EIO;
    if (EVP_DigestInit_ex(ctx, md, NULL) != 1)
        goto out_free;
    while (off < size) {
        size_t want =
            size - off < HASH_BLOCK ? (size_t)(size - off) : (size_t)HASH_BLOCK;
        ssize_t n = pread(fd, buf, want, off);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = -EIO;
            goto out_free;
        }
        if (n == 0) {
            rc = -ESTALE;
            goto out_free;
        }
        if (EVP_DigestUpdate(ctx, buf, (size_t)n) != 1)
            goto out_free;
        off += n;
        if (stop != NULL && atomic_load_explicit(stop, memory_order_relaxed)) {
            rc = -ECANCELED;
            goto out_free;
        }
    }
    if (EVP_DigestFinal_ex(ctx, sha, &len) != 1 || len != SHA256_LEN)
        goto out_free;
    rc = 0;

out_free:
    EVP_MD_CTX_free(ctx);
    free(buf);
    return rc;
}

/* unchanged - whether @fd is still the version @k (after hashing it). */
static bool unchanged(int fd, const struct key *k)
{
    struct stat st;
    struct key now;

    if (fstat(fd, &st) < 0)
        return false;
    now = key_of(&st);
    return key_eq(&now, k);
}

/* base64 of @n bytes into @out (NUL-terminated); url: RFC 4648 §5, no '='. */
static void base64(const unsigned char *in, size_t n, bool url, char *out)
{
    size_t i, len = (size_t)EVP_EncodeBlock((unsigned char *)out, in, (int)n);

    if (!url)
        return;
    for (i = 0; i < len; i++) {
        if (out[i] == '+')
            out[i] = '-';
        else if (out[i] == '/')
            out[i] = '_';
        else if (out[i] == '=') {
            out[i] = '\0';
            break;
        }
    }
}

void etag_cache_mtime_etag(const struct stat *st, char buf[ETAG_LEN])
{
    uint64_t ns = (uint64_t)st->st_mtim.tv_sec * 1000000000u +
                  (uint64_t)st->st_mtim.tv_nsec;

    snprintf(buf, ETAG_LEN, "\"%" PRIx64 "-%" PRIx64 "\"", ns,
             (uint64_t)st->st_size);
}

bool etag_cache_want_digest(const char *field)
{
    static const char key[] = "sha-256";
    const char *p;

    if (field == NULL)
        return false;
    /* Members: key [ "=" value ] *( ";" param ), separated by ",". */
    for (p = field_ows(field); *p != '\0';) {
        size_t klen = strcspn(p, "=;, \t");
        bool match = klen == sizeof(key) - 1 && strncasecmp(p, key, klen) == 0;
        long pref = 1; /* a bare key is boolean true */

        p += klen;
        if (*p == '=') {
            char *end;
            pref = strtol(p + 1, &end, 10);
            if (end == p + 1)
                pref = 0; /* not an integer: not a valid preference */
            p = end;
        }
        if (match && pref > 0 && pref <= 10)
            return true;
        p += strcspn(p, ",");
        if (*p == ',')
            p = field_ows(p + 1);
    }
    return false;
}

/* answer - fill @out from a known hash (NULL: not known). */
static void answer(const struct etag_cache *c, const struct stat *st,
                   const unsigned char *sha, bool want_digest,
                   struct etag_value *out)
{
    /* 4 * ceil(32 / 3) = 44 characters and the NUL. */
    char b64[48];

    out->etag[0] = out->repr_digest[0] = '\0';
    out->pending = false;
    if (sha == NULL) {
        out->pending = c->cfg.mode == ETAG_MODE_CONTENT || want_digest;
        /*
         * Content mode without the hash: no ETag at all rather than a
         * provisional one, which would change under the client a moment
         * later (a 200 and a 206 of the same bytes with two tags).
         */
        if (c->cfg.mode == ETAG_MODE_MTIME)
            etag_cache_mtime_etag(st, out->etag);
        return;
    }
    if (c->cfg.mode == ETAG_MODE_CONTENT) {
        base64(sha, ETAG_CONTENT_BYTES, true, b64);
        snprintf(out->etag, sizeof(out->etag), "\"%.40s\"", b64);
    } else if (c->cfg.mode == ETAG_MODE_MTIME) {
        etag_cache_mtime_etag(st, out->etag);
    }
    if (want_digest) {
        base64(sha, SHA256_LEN, false, b64);
        snprintf(out->repr_digest, sizeof(out->repr_digest),
                 "sha-256=:%s:", b64);
    }
}

static void *worker(void *arg);

/*
 * The background thread, started with the first queued file (lock held).
 * Returns 0 or the -errno of pthread_create.
 */
static int start_worker(struct etag_cache *c)
{
    int rc = bgthread_start(&c->thread, worker, c);

    c->started = rc == 0;
    return rc;
}

/*
 * enqueue - queue @fd's version @k for the background thread, marking its
 * entry pending (lock held). False when the queue is full or fd duplication
 * failed; a later lookup tries again.
 */
static bool enqueue(struct etag_cache *c, int fd, const struct key *k,
                    uint32_t i)
{
    struct job *j;
    int dup;

    if (c->q_len == c->cfg.queue_max) {
        c->stats.queue_full++;
        return false;
    }
    if (!c->started && start_worker(c) != 0)
        return false;
    dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (dup < 0)
        return false;
    if (i == NIL)
        i = insert(c, k);
    c->entries[i].key = *k;
    c->entries[i].pending = true;
    touch(c, i);
    j = &c->queue[(c->q_head + c->q_len) % c->cfg.queue_max];
    j->fd = dup;
    j->key = *k;
    c->q_len++;
    pthread_cond_signal(&c->work);
    return true;
}

/* etag_cache_get and _get_now; @now: hash here whatever the size. */
static int get(struct etag_cache *c, int fd, const struct stat *st,
               bool want_digest, bool now, struct etag_value *out)
{
    unsigned char sha[SHA256_LEN];
    struct key k;
    uint32_t i;
    int rc;

    if (!S_ISREG(st->st_mode)) {
        answer(c, st, NULL, false, out);
        out->pending = false;
        return -EINVAL;
    }
    if (c->cfg.mode != ETAG_MODE_CONTENT && !want_digest) {
        answer(c, st, NULL, false, out);
        out->pending = false;
        return 0;
    }
    k = key_of(st);

    pthread_mutex_lock(&c->lock);
    i = find(c, k.dev, k.ino);
    if (i != NIL && key_eq(&c->entries[i].key, &k)) {
        if (!c->entries[i].pending) {
            memcpy(sha, c->entries[i].sha, SHA256_LEN);
            c->stats.hits++;
            touch(c, i);
            pthread_mutex_unlock(&c->lock);
            answer(c, st, sha, want_digest, out);
            return 0;
        }
        if (!now) {
            pthread_mutex_unlock(&c->lock);
            answer(c, st, NULL, want_digest, out);
            return 0;
        }
    } else {
        c->stats.misses++;
    }
    if (!now && (c->cfg.inline_max < 0 || st->st_size > c->cfg.inline_max)) {
        enqueue(c, fd, &k, i);
        pthread_mutex_unlock(&c->lock);
        answer(c, st, NULL, want_digest, out);
        return 0;
    }
    pthread_mutex_unlock(&c->lock);

    /* Small file: hash it here, outside the lock. */
    rc = hash_fd(c->md, fd, k.size, sha, NULL);
    if (rc == 0 && !unchanged(fd, &k))
        rc = -ESTALE;
    pthread_mutex_lock(&c->lock);
    if (rc == 0) {
        c->stats.hashed++;
        store(c, &k, sha);
    } else if (rc == -ESTALE) {
        c->stats.stale++;
    }
    pthread_mutex_unlock(&c->lock);
    if (rc == -ESTALE) {
        /* Changing under us: no content validator for this response. */
        answer(c, st, NULL, want_digest, out);
        return 0;
    }
    if (rc < 0) {
        answer(c, st, NULL, false, out);
        out->pending = false;
        return -EIO;
    }
    answer(c, st, sha, want_digest, out);
    return 0;
}

int etag_cache_get(struct etag_cache *c, int fd, const struct stat *st,
                   bool want_digest, struct etag_value *out)
{
    return get(c, fd, st, want_digest, false, out);
}

int etag_cache_get_now(struct etag_cache *c, int fd, const struct stat *st,
                       bool want_digest, struct etag_value *out)
{
    return get(c, fd, st, want_digest, true, out);
}

static void *worker(void *arg)
{
    struct etag_cache *c = arg;
    unsigned char sha[SHA256_LEN];

    pthread_mutex_lock(&c->lock);
    for (;;) {
        struct job j;
        int rc;

        while (c->q_len == 0 &&
               !atomic_load_explicit(&c->stop, memory_order_relaxed))
            pthread_cond_wait(&c->work, &c->lock);
        if (atomic_load_explicit(&c->stop, memory_order_relaxed))
            break;
        j = c->queue[c->q_head];
        c->q_head = (c->q_head + 1) % c->cfg.queue_max;
        c->q_len--;
        c->busy = true;
        pthread_mutex_unlock(&c->lock);

        rc = hash_fd(c->md, j.fd, j.key.size, sha, &c->stop);
        if (rc == 0 && !unchanged(j.fd, &j.key))
            rc = -ESTALE;
        close(j.fd);

        pthread_mutex_lock(&c->lock);
        c->busy = false;
        uint32_t i = find(c, j.key.dev, j.key.ino);
        if (rc == 0) {
            c->stats.hashed_async++;
            /* A newer version may have been queued since: keep its entry. */
            if (i == NIL || key_eq(&c->entries[i].key, &j.key))
                store(c, &j.key, sha);
        } else {
            if (rc == -ESTALE)
                c->stats.stale++;
            /* Let a later lookup queue it again. */
            if (i != NIL && c->entries[i].pending &&
                key_eq(&c->entries[i].key, &j.key))
                remove_entry(c, i);
        }
        if (c->q_len == 0)
            pthread_cond_broadcast(&c->idle);
    }
    c->busy = false;
    pthread_cond_broadcast(&c->idle);
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

int etag_cache_new(struct etag_cache **out, const struct etag_cache_config *cfg)
{
    struct etag_cache *c;
    uint32_t nb = 1;
    int rc = -ENOMEM;

    *out = NULL;
    if (cfg->mode != ETAG_MODE_CONTENT && cfg->mode != ETAG_MODE_MTIME &&
        cfg->mode != ETAG_MODE_OFF)
        return -EINVAL;
    c = calloc(1, sizeof(*c));
    if (c == NULL)
        return -ENOMEM;
    c->cfg = *cfg;
    if (c->cfg.max_entries == 0)
        c->cfg.max_entries = ETAG_CACHE_MAX_ENTRIES;
    if (c->cfg.max_entries > MAX_ENTRIES_LIMIT)
        c->cfg.max_entries = MAX_ENTRIES_LIMIT;
    if (c->cfg.inline_max == 0)
        c->cfg.inline_max = ETAG_CACHE_INLINE_MAX;
    if (c->cfg.queue_max == 0)
        c->cfg.queue_max = ETAG_CACHE_QUEUE_MAX;
    c->cap = (uint32_t)c->cfg.max_entries;
    /* Buckets: a power of two, at least twice the entries. */
    while (nb < 2 * c->cap)
        nb <<= 1;
    c->mask = nb - 1;
    c->entries = calloc(c->cap, sizeof(*c->entries));
    c->buckets = malloc(nb * sizeof(*c->buckets));
    c->queue = calloc(c->cfg.queue_max, sizeof(*c->queue));
    if (c->entries == NULL || c->buckets == NULL || c->queue == NULL)
        goto out_free;
    memset(c->buckets, 0xff, nb * sizeof(*c->buckets)); /* all NIL */
    c->lru_head = c->lru_tail = c->free_head = NIL;
    atomic_init(&c->stop, false);
    /* Fetch SHA-256 once: an implicit fetch per digest costs a lock. */
    c->md = EVP_MD_fetch(NULL, "SHA256", NULL);
    if (c->md == NULL) {
        rc = -EIO;
        goto out_free;
    }
    if (bgthread_sync_init(&c->lock, &c->work, &c->idle) != 0)
        goto out_free_md;
    *out = c;
    return 0;

out_free_md:
    EVP_MD_free(c->md);
out_free:
    free(c->queue);
    free(c->buckets);
    free(c->entries);
    free(c);
    return rc;
}

void etag_cache_free(struct etag_cache *c)
{
    if (c == NULL)
        return;
    pthread_mutex_lock(&c->lock);
    atomic_store(&c->stop, true);
    pthread_cond_signal(&c->work);
    bool started = c->started;
    pthread_mutex_unlock(&c->lock);
    if (started)
        pthread_join(c->thread, NULL);
    while (c->q_len > 0) {
        close(c->queue[c->q_head].fd);
        c->q_head = (c->q_head + 1) % c->cfg.queue_max;
        c->q_len--;
    }
    bgthread_sync_destroy(&c->lock, &c->work, &c->idle);
    EVP_MD_free(c->md);
    free(c->queue);
    free(c->buckets);
    free(c->entries);
    free(c);
}

void etag_cache_drain(struct etag_cache *c)
{
    pthread_mutex_lock(&c->lock);
    while ((c->q_len > 0 || c->busy) &&
           !atomic_load_explicit(&c->stop, memory_order_relaxed))
        pthread_cond_wait(&c->idle, &c->lock);
    pthread_mutex_unlock(&c->lock);
}

void etag_cache_stats(struct etag_cache *c, struct etag_cache_stats *out)
{
    pthread_mutex_lock(&c->lock);
    *out = c->stats;
    pthread_mutex_unlock(&c->lock);
}
