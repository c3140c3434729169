/* SPDX-License-Identifier: MIT */
/*
 * compress.c - the three encoders behind one streaming loop, and the cache
 * of compressed bodies: a chained hash on the key string and an LRU list
 * under one mutex that is never held while reading or compressing. Bodies
 * are counted (struct compress_body): eviction drops the cache's reference,
 * a response still sending the body keeps it alive until it is done. One
 * background thread, started with the first queued file (so a server that
 * confines itself after making the cache has no thread older than its
 * sandbox), works through a bounded queue of duplicated fds; a queued key
 * is never queued twice, so fifty clients of one large file cost one job.
 */
#include "files/compress.h"

#include "runtime/bgthread.h"

#include <brotli/encode.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

/* Bytes read per pread. */
#define READ_BLOCK 65536
#define N_BUCKETS 1024u

/* ---- encoders ------------------------------------------------------- */

/* A growing output buffer, bounded by max. */
struct out {
    unsigned char *p;
    size_t len, cap, max;
};

/* Room for at least @want more bytes. Returns 0, -EFBIG or -ENOMEM. */
static int reserve(struct out *o, size_t want)
{
    size_t cap = o->cap ? o->cap : 16384;
    unsigned char *p;

    if (o->len + want <= o->cap)
        return 0;
    if (o->len + want > o->max + 1)
        want = o->max + 1 - o->len; /* one past max shows it overflowed */
    while (cap < o->len + want)
        cap *= 2;
    if (cap > o->max + 1)
        cap = o->max + 1;
    p = realloc(o->p, cap);
    if (!p)
        return -ENOMEM;
    o->p = p;
    o->cap = cap;
    return 0;
}

struct enc {
    enum coding e;
    z_stream z;
    BrotliEncoderState *br;
    ZSTD_CCtx *zs;
};

static int enc_init(struct enc *s, enum coding e, enum compress_level level,
                    uint64_t size)
{
    bool best = level == COMPRESS_BEST;

    memset(s, 0, sizeof *s);
    s->e = e;
    switch (e) {
    case CODING_GZIP:
        /* 15 + 16: a gzip wrapper around a 32 KiB-window deflate stream */
        return deflateInit2(&s->z, best ? 9 : 6, Z_DEFLATED, 15 + 16, 8,
                            Z_DEFAULT_STRATEGY) == Z_OK
                   ? 0
                   : -ENOMEM;
    case CODING_BR:
        s->br = BrotliEncoderCreateInstance(NULL, NULL, NULL);
        if (!s->br)
            return -ENOMEM;
        BrotliEncoderSetParameter(s->br, BROTLI_PARAM_QUALITY, best ? 11 : 5);
        BrotliEncoderSetParameter(s->br, BROTLI_PARAM_MODE, BROTLI_MODE_TEXT);
        if (size <= UINT32_MAX)
            BrotliEncoderSetParameter(s->br, BROTLI_PARAM_SIZE_HINT,
                                      (uint32_t)size);
        return 0;
    case CODING_ZSTD:
        s->zs = ZSTD_createCCtx();
        if (!s->zs)
            return -ENOMEM;
        ZSTD_CCtx_setParameter(s->zs, ZSTD_c_compressionLevel, best ? 19 : 3);
        ZSTD_CCtx_setPledgedSrcSize(s->zs, size);
        return 0;
    case CODING_N:
        break;
    }
    return -EINVAL;
}

static void enc_end(struct enc *s)
{
    if (s->e == CODING_GZIP)
        deflateEnd(&s->z);
    BrotliEncoderDestroyInstance(s->br);
    ZSTD_freeCCtx(s->zs);
}

/* Feed @n bytes of @in (@last: the end of the input) into @o. */
static int enc_feed(struct enc *s, const unsigned char *in, size_t n, bool last,
                    struct out *o)
{
    for (;;) {
        int err = reserve(o, 16384);
        size_t room;

        if (err)
            return err;
        room = o->cap - o->len;
        if (o->len >= o->max + 1 || room == 0)
            return -EFBIG;
        if (s->e == CODING_GZIP) {
            int rc;

            s->z.next_in = (unsigned char *)(uintptr_t)in;
            s->z.avail_in = (uInt)n;
            s->z.next_out = o->p + o->len;
            s->z.avail_out = (uInt)(room > UINT32_MAX ? UINT32_MAX : room);
            rc = deflate(&s->z, last ? Z_FINISH : Z_NO_FLUSH);
            o->len = (size_t)(s->z.next_out - o->p);
            in = s->z.next_in;
            n = s->z.avail_in;
            if (rc == Z_STREAM_END)
                return 0;
            if (rc != Z_OK && rc != Z_BUF_ERROR)
                return -EIO;
            if (!last && n == 0 && s->z.avail_out > 0)
                return 0;
        } else if (s->e == CODING_BR) {
            size_t avail_in = n, avail_out = room;
            const uint8_t *next_in = in;
            uint8_t *next_out = o->p + o->len;

            if (!BrotliEncoderCompressStream(
                    s->br,
                    last ? BROTLI_OPERATION_FINISH : BROTLI_OPERATION_PROCESS,
                    &avail_in, &next_in, &avail_out, &next_out, NULL))
                return -EIO;
            o->len = (size_t)(next_out - o->p);
            in = next_in;
            n = avail_in;
            if (last && BrotliEncoderIsFinished(s->br))
                return 0;
            if (!last && n == 0 && !BrotliEncoderHasMoreOutput(s->br))
                return 0;
        } else {
            ZSTD_inBuffer ib = {in, n, 0};
            ZSTD_outBuffer ob = {o->p + o->len, room, 0};
            size_t rc = ZSTD_compressStream2(
                s->zs, &ob, &ib, last ? ZSTD_e_end : ZSTD_e_continue);

            if (ZSTD_isError(rc))
                return -EIO;
            o->len += ob.pos;
            in += ib.pos;
            n -= ib.pos;
            if (last && rc == 0)
                return 0;
            if (!last && n == 0 && ob.pos < ob.size)
                return 0;
        }
    }
}

/*
 * The reading side both compress_fd and a compress_stream share, so that
 * the bytes a stream sends are the bytes of the body compress_fd makes of
 * the same file: the same encoder, level and size hint, fed the same
 * READ_BLOCK blocks at the same offsets.
 */
struct feed {
    struct enc s;
    int fd; /* borrowed here; a compress_stream owns it */
    uint64_t size, off;
    unsigned char *in;
    struct out o;
    bool done;
};

static int feed_init(struct feed *f, enum coding enc, enum compress_level level,
                     int fd, uint64_t size, size_t max_out)
{
    int err;

    memset(f, 0, sizeof *f);
    f->fd = fd;
    f->size = size;
    f->o.max = max_out;
    f->in = malloc(READ_BLOCK);
    if (!f->in)
        return -ENOMEM;
    err = enc_init(&f->s, enc, level, size);
    if (err) {
        free(f->in);
        f->in = NULL;
    }
    return err;
}

static void feed_end(struct feed *f)
{
    if (f->in)
        enc_end(&f->s);
    free(f->in);
    f->in = NULL;
}

/* The next block of the file into the encoder, its output appended to
 * f->o; the last one finishes the coding. Returns 0 or -errno (ENODATA:
 * the file ended before its size). */
static int feed_step(struct feed *f)
{
    size_t want =
        f->size - f->off < READ_BLOCK ? (size_t)(f->size - f->off) : READ_BLOCK;
    ssize_t got = 0;
    int err;

    if (want > 0) {
        do
            got = pread(f->fd, f->in, want, (off_t)f->off);
        while (got < 0 && errno == EINTR);
        if (got < 0)
            return -errno;
        if (got == 0)
            return -ENODATA;
    }
    f->off += (uint64_t)got;
    err = enc_feed(&f->s, f->in, (size_t)got, f->off == f->size, &f->o);
    if (!err && f->off == f->size)
        f->done = true;
    return err;
}

int compress_fd(enum coding enc, enum compress_level level, int fd,
                uint64_t size, size_t max_out, unsigned char **out,
                size_t *out_len)
{
    struct feed f;
    int err = feed_init(&f, enc, level, fd, size, max_out);

    *out = NULL;
    *out_len = 0;
    while (!err && !f.done)
        err = feed_step(&f);
    if (!err && f.o.len > max_out)
        err = -EFBIG;
    feed_end(&f);
    if (err) {
        free(f.o.p);
        return err;
    }
    *out = f.o.p;
    *out_len = f.o.len;
    return 0;
}

/* ---- bodies and the cache ------------------------------------------- */

void compress_body_put(struct compress_body *b)
{
    if (b && atomic_fetch_sub(&b->refs, 1) == 1)
        free(b);
}

struct job {
    int fd; /* owned: a duplicate of the caller's fd */
    enum coding enc;
    struct stat st;
    char key[COMPRESS_KEY_LEN];
};

struct compress_cache {
    pthread_mutex_t lock;
    pthread_cond_t work, idle;
    struct compress_cache_config cfg;
    struct compress_body *buckets[N_BUCKETS];
    struct compress_body *head, *tail; /* LRU, most recent at head */
    struct compress_cache_stats stats;
    struct job *queue;
    unsigned q_head, q_len;
    char busy_key[COMPRESS_KEY_LEN]; /* the job being worked on, or "" */
    atomic_uint streams;             /* compress_streams open */
    /* the keys compress_streams make, and the output they hold for them */
    char making[COMPRESS_STREAMS_MAX][COMPRESS_KEY_LEN];
    unsigned n_making;
    uint64_t tee_bytes;
    bool started, stop;
    pthread_t thread;
};

static unsigned bucket(const char *key)
{
    uint32_t h = 2166136261u; /* FNV-1a */

    for (; *key; key++)
        h = (h ^ (unsigned char)*key) * 16777619u;
    return h % N_BUCKETS;
}

/* The cost of a body against the budget: its bytes and its bookkeeping. */
static uint64_t cost(const struct compress_body *b)
{
    return sizeof *b + b->len;
}

static void lru_unlink(struct compress_cache *c, struct compress_body *b)
{
    if (c->head == b)
        c->head = b->next;
    else if (b->prev)
        b->prev->next = b->next;
    if (c->tail == b)
        c->tail = b->prev;
    else if (b->next)
        b->next->prev = b->prev;
    b->prev = b->next = NULL;
}

static void lru_push(struct compress_cache *c, struct compress_body *b)
{
    b->prev = NULL;
    b->next = c->head;
    if (c->head)
        c->head->prev = b;
    c->head = b;
    if (!c->tail)
        c->tail = b;
}

static struct compress_body *find(struct compress_cache *c, const char *key)
{
    for (struct compress_body *b = c->buckets[bucket(key)]; b; b = b->hnext)
        if (strcmp(b->key, key) == 0)
            return b;
    return NULL;
}

/* Drop @b from the cache (lock held) and its reference. */
static void drop(struct compress_cache *c, struct compress_body *b)
{
    struct compress_body **pp = &c->buckets[bucket(b->key)];

    while (*pp && *pp != b)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = b->hnext;
    lru_unlink(c, b);
    c->stats.bytes -= cost(b);
    c->stats.entries--;
    compress_body_put(b);
}

/* Keep @b (one reference moves to the cache), evicting the least recently
 * used bodies to stay within the budget (lock held). */
static void keep(struct compress_cache *c, struct compress_body *b)
{
    struct compress_body *old = find(c, b->key);

    if (old)
        drop(c, old);
    if (cost(b) > c->cfg.budget) {
        compress_body_put(b);
        return;
    }
    while (c->stats.bytes + cost(b) > c->cfg.budget) {
        struct compress_body *lru = c->tail;

        if (!lru)
            break;
        drop(c, lru);
        c->stats.evicted++;
    }
    unsigned i = bucket(b->key);
    b->hnext = c->buckets[i];
    c->buckets[i] = b;
    lru_push(c, b);
    c->stats.bytes += cost(b);
    c->stats.entries++;
}

int compress_cache_new(struct compress_cache **out,
                       const struct compress_cache_config *cfg)
{
    struct compress_cache *c = calloc(1, sizeof *c);

    *out = NULL;
    if (!c)
        return -ENOMEM;
    if (cfg)
        c->cfg = *cfg;
    if (!c->cfg.budget)
        c->cfg.budget = (uint64_t)16 * 1024 * 1024;
    if (!c->cfg.queue_max)
        c->cfg.queue_max = 16;
    c->queue = calloc(c->cfg.queue_max, sizeof *c->queue);
    if (!c->queue || bgthread_sync_init(&c->lock, &c->work, &c->idle) != 0)
        goto out_free;
    *out = c;
    return 0;
out_free:
    free(c->queue);
    free(c);
    return -ENOMEM;
}

void compress_cache_free(struct compress_cache *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->lock);
    c->stop = true;
    pthread_cond_broadcast(&c->work);
    pthread_mutex_unlock(&c->lock);
    if (c->started)
        pthread_join(c->thread, NULL);
    while (c->q_len) {
        close(c->queue[c->q_head].fd);
        c->q_head = (c->q_head + 1) % c->cfg.queue_max;
        c->q_len--;
    }
    while (c->head)
        drop(c, c->head);
    bgthread_sync_destroy(&c->lock, &c->work, &c->idle);
    free(c->queue);
    free(c);
}

struct compress_body *compress_cache_get(struct compress_cache *c,
                                         const char *key, const char *alt)
{
    struct compress_body *b;

    pthread_mutex_lock(&c->lock);
    b = find(c, key);
    if (!b && alt)
        b = find(c, alt);
    if (b) {
        atomic_fetch_add(&b->refs, 1);
        lru_unlink(c, b);
        lru_push(c, b);
        c->stats.hits++;
    } else {
        c->stats.misses++;
    }
    pthread_mutex_unlock(&c->lock);
    return b;
}

/* Whether @fd still is the version @st describes. */
static bool unchanged(int fd, const struct stat *st)
{
    struct stat now;

    return fstat(fd, &now) == 0 && now.st_ino == st->st_ino &&
           now.st_dev == st->st_dev && now.st_size == st->st_size &&
           now.st_mtim.tv_sec == st->st_mtim.tv_sec &&
           now.st_mtim.tv_nsec == st->st_mtim.tv_nsec &&
           now.st_ctim.tv_sec == st->st_ctim.tv_sec &&
           now.st_ctim.tv_nsec == st->st_ctim.tv_nsec;
}

/*
 * Compress @fd into a new body with one reference (or two, @kept: one of
 * them for the cache), without the lock. NULL when it cannot be read or
 * changed meanwhile.
 */
static struct compress_body *make(const char *key, enum coding enc, int fd,
                                  const struct stat *st)
{
    uint64_t size = (uint64_t)st->st_size;
    /* A coding that does not save a twentieth is not worth a variant. */
    size_t max_out = (size_t)(size - size / 20);
    unsigned char *data = NULL;
    size_t len = 0;
    struct compress_body *b;
    int err = compress_fd(enc, COMPRESS_FAST, fd, size, max_out, &data, &len);

    if (err && err != -EFBIG)
        return NULL;
    if (!unchanged(fd, st)) {
        free(data);
        return NULL;
    }
    b = malloc(sizeof *b + (err ? 0 : len));
    if (!b) {
        free(data);
        return NULL;
    }
    memset(b, 0, sizeof *b);
    atomic_init(&b->refs, 1);
    b->no_gain = err == -EFBIG;
    b->len = err ? 0 : len;
    snprintf(b->key, sizeof b->key, "%s", key);
    if (!err && data)
        memcpy(b->data, data, len);
    free(data);
    return b;
}

struct compress_body *compress_cache_make(struct compress_cache *c,
                                          const char *key, enum coding enc,
                                          int fd, const struct stat *st)
{
    struct compress_body *b = make(key, enc, fd, st);

    if (!b)
        return NULL;
    atomic_fetch_add(&b->refs, 1); /* the cache's */
    pthread_mutex_lock(&c->lock);
    c->stats.made++;
    keep(c, b);
    pthread_mutex_unlock(&c->lock);
    return b;
}

static void *worker(void *arg)
{
    struct compress_cache *c = arg;

    pthread_mutex_lock(&c->lock);
    for (;;) {
        struct job j;
        struct compress_body *b;

        while (c->q_len == 0 && !c->stop) {
            pthread_cond_broadcast(&c->idle);
            pthread_cond_wait(&c->work, &c->lock);
        }
        if (c->stop)
            break;
        j = c->queue[c->q_head];
        c->q_head = (c->q_head + 1) % c->cfg.queue_max;
        c->q_len--;
        memcpy(c->busy_key, j.key, sizeof c->busy_key);
        pthread_mutex_unlock(&c->lock);

        b = make(j.key, j.enc, j.fd, &j.st);
        close(j.fd);

        pthread_mutex_lock(&c->lock);
        c->busy_key[0] = '\0';
        if (b) {
            c->stats.made++;
            keep(c, b);
        }
    }
    pthread_cond_broadcast(&c->idle);
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* Start the background thread. Returns whether it runs. */
static bool start_worker(struct compress_cache *c)
{
    c->started = bgthread_start(&c->thread, worker, c) == 0;
    return c->started;
}

static bool queued(struct compress_cache *c, const char *key)
{
    if (strcmp(c->busy_key, key) == 0)
        return true;
    for (unsigned i = 0; i < c->q_len; i++)
        if (strcmp(c->queue[(c->q_head + i) % c->cfg.queue_max].key, key) == 0)
            return true;
    return false;
}

bool compress_cache_fits(const struct compress_cache *c, uint64_t size)
{
    /* a larger file's body would rarely be kept: made again and again */
    return size <= c->cfg.budget;
}

bool compress_cache_queue(struct compress_cache *c, const char *key,
                          enum coding enc, int fd, const struct stat *st)
{
    bool ok = false;

    pthread_mutex_lock(&c->lock);
    if (queued(c, key)) {
        ok = true;
    } else if (!compress_cache_fits(c, (uint64_t)st->st_size)) {
        ok = false;
    } else if (c->q_len == c->cfg.queue_max) {
        c->stats.queue_full++;
    } else if ((c->started || start_worker(c))) {
        int dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);

        if (dup >= 0) {
            struct job *j =
                &c->queue[(c->q_head + c->q_len) % c->cfg.queue_max];

            j->fd = dup;
            j->enc = enc;
            j->st = *st;
            snprintf(j->key, sizeof j->key, "%s", key);
            c->q_len++;
            c->stats.queued++;
            pthread_cond_signal(&c->work);
            ok = true;
        }
    }
    pthread_mutex_unlock(&c->lock);
    return ok;
}

void compress_cache_stats(struct compress_cache *c,
                          struct compress_cache_stats *out)
{
    pthread_mutex_lock(&c->lock);
    *out = c->stats;
    pthread_mutex_unlock(&c->lock);
}

bool compress_cache_wait_idle(struct compress_cache *c, int ms)
{
    struct timespec until = bgthread_deadline(ms);
    bool idle;

    pthread_mutex_lock(&c->lock);
    while ((c->q_len || c->busy_key[0]) &&
           pthread_cond_timedwait(&c->idle, &c->lock, &until) == 0)
        ;
    idle = !c->q_len && !c->busy_key[0];
    pthread_mutex_unlock(&c->lock);
    return idle;
}

/* ---- a body compressed while it is sent --------------------------------- */

struct compress_stream {
    struct feed f;
    size_t pos; /* of f.o, sent so far */
    struct compress_cache *c;
    /*
     * The maker of its key: at the end the stream keeps the body under
     * @key (or a no-gain mark). While @tee, f.o holds the whole output
     * (counted in c->tee_bytes); any other stream sends its output and
     * forgets it.
     */
    bool maker, tee, no_gain;
    bool claimed;   /* was the maker once */
    bool kept;      /* the body (or mark) went into the cache */
    size_t counted; /* of f.o.len, in c->tee_bytes */
    enum coding enc;
    struct stat st;
    char key[COMPRESS_KEY_LEN];
};

/* Nothing bounds a stream's output but the coding: it is sent as made. */
#define STREAM_OUT_MAX (SIZE_MAX / 4)

/* Whether a stream makes @key now (lock held). */
static bool making(const struct compress_cache *c, const char *key)
{
    for (unsigned i = 0; i < c->n_making; i++)
        if (strcmp(c->making[i], key) == 0)
            return true;
    return false;
}

/* @cs holds no output for keeping any more (lock held). */
static void untee(struct compress_cache *c, struct compress_stream *cs)
{
    c->tee_bytes -= cs->counted;
    cs->counted = 0;
    cs->tee = false;
}

/* @cs stops being the maker of its key (lock held). */
static void unclaim(struct compress_cache *c, struct compress_stream *cs)
{
    for (unsigned i = 0; cs->maker && i < c->n_making; i++)
        if (strcmp(c->making[i], cs->key) == 0) {
            memcpy(c->making[i], c->making[--c->n_making], COMPRESS_KEY_LEN);
            break;
        }
    untee(c, cs);
    cs->maker = false;
}

int compress_stream_open(struct compress_cache *c, const char *key,
                         enum coding enc, int fd, const struct stat *st,
                         struct compress_stream **out)
{
    uint64_t size = (uint64_t)st->st_size;
    struct compress_stream *cs;
    int err;

    *out = NULL;
    if (atomic_fetch_add(&c->streams, 1) >= COMPRESS_STREAMS_MAX) {
        atomic_fetch_sub(&c->streams, 1);
        return -EBUSY;
    }
    cs = calloc(1, sizeof *cs);
    err = cs ? feed_init(&cs->f, enc, COMPRESS_FAST, fd, size, STREAM_OUT_MAX)
             : -ENOMEM;
    if (err) {
        free(cs);
        atomic_fetch_sub(&c->streams, 1);
        return err;
    }
    cs->c = c;
    cs->enc = enc;
    cs->st = *st;
    snprintf(cs->key, sizeof cs->key, "%s", key);
    pthread_mutex_lock(&c->lock);
    c->stats.streamed++;
    /* one maker a key: not while the background thread or another stream
     * makes it, nor a file whose body would not be kept */
    if (compress_cache_fits(c, size) && !queued(c, key) && !making(c, key) &&
        c->n_making < COMPRESS_STREAMS_MAX) {
        memcpy(c->making[c->n_making++], cs->key, COMPRESS_KEY_LEN);
        cs->maker = cs->tee = cs->claimed = true;
    }
    pthread_mutex_unlock(&c->lock);
    *out = cs;
    return 0;
}

/*
 * The maker's output grew: count it. Past 95% of the file the coding does
 * not pay (the end keeps a no-gain mark, not the bytes); past the cache's
 * budget for all makers together, this one stops making (the background
 * thread makes the body when the stream is closed). Output not kept is
 * dropped once sent.
 */
static void tee_count(struct compress_stream *cs)
{
    struct compress_cache *c = cs->c;
    size_t max_keep = (size_t)(cs->f.size - cs->f.size / 20);

    pthread_mutex_lock(&c->lock);
    if (cs->tee) {
        c->tee_bytes += cs->f.o.len - cs->counted;
        cs->counted = cs->f.o.len;
        if (cs->f.o.len > max_keep) {
            cs->no_gain = true;
            untee(c, cs);
        } else if (c->tee_bytes > c->cfg.budget) {
            unclaim(c, cs);
        }
    }
    pthread_mutex_unlock(&c->lock);
    if (!cs->tee && cs->pos > 0) {
        memmove(cs->f.o.p, cs->f.o.p + cs->pos, cs->f.o.len - cs->pos);
        cs->f.o.len -= cs->pos;
        cs->pos = 0;
    }
}

/* At the end of the coding: the maker's whole output becomes the kept
 * body (a no-gain mark when it did not pay), if the file did not change
 * meanwhile. */
static void tee_keep(struct compress_stream *cs)
{
    struct compress_cache *c = cs->c;
    size_t len = cs->no_gain ? 0 : cs->f.o.len;
    struct compress_body *b =
        unchanged(cs->f.fd, &cs->st) ? malloc(sizeof *b + len) : NULL;

    if (b) {
        memset(b, 0, sizeof *b);
        atomic_init(&b->refs, 1); /* the cache's */
        b->no_gain = cs->no_gain;
        b->len = len;
        memcpy(b->key, cs->key, sizeof b->key);
        memcpy(b->data, cs->f.o.p, len);
    }
    pthread_mutex_lock(&c->lock);
    unclaim(c, cs);
    if (b) {
        c->stats.made++;
        keep(c, b);
    }
    pthread_mutex_unlock(&c->lock);
    cs->kept = true; /* or the file changed: nothing to make again */
}

ssize_t compress_stream_read(struct compress_stream *cs, char *buf, size_t n)
{
    size_t have;

    while (cs->pos == cs->f.o.len && !cs->f.done) {
        if (!cs->tee) /* what was made is sent: the buffer starts over */
            cs->f.o.len = cs->pos = 0;
        int err = feed_step(&cs->f);
        if (err)
            return err;
        if (cs->maker)
            tee_count(cs);
        if (cs->maker && cs->f.done)
            tee_keep(cs);
    }
    have = cs->f.o.len - cs->pos;
    if (n > have)
        n = have;
    memcpy(buf, cs->f.o.p + cs->pos, n);
    cs->pos += n;
    return (ssize_t)n;
}

void compress_stream_close(struct compress_stream *cs)
{
    if (!cs)
        return;
    struct compress_cache *c = cs->c;

    pthread_mutex_lock(&c->lock);
    unclaim(c, cs);
    pthread_mutex_unlock(&c->lock);
    /* it was to make the body and did not get to the end: the background
     * thread makes it */
    if (cs->claimed && !cs->kept)
        compress_cache_queue(c, cs->key, cs->enc, cs->f.fd, &cs->st);
    feed_end(&cs->f);
    free(cs->f.o.p);
    close(cs->f.fd);
    atomic_fetch_sub(&c->streams, 1);
    free(cs);
}
