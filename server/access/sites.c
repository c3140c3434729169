// SPDX-License-Identifier: MIT
/*
 * sites.c - --sites DIR: the site directory a Host names, found again on
 * every request, and the bounded cache of the site directories in use.
 *
 * Security decisions:
 * - A name is a DNS name (host_site_name: labels of [a-z0-9-], none
 *   empty), so it is one path component: no '/', never "." or "..".
 * - DIR/NAME is opened by the resolver from DIR's fd with BENEATH and
 *   NO_MAGICLINKS, and --confine's NO_XDEV and NO_SYMLINKS: a site
 *   directory that is a symlink is followed only while it stays beneath
 *   DIR (so a symlink flip, DIR/a.example -> .releases/a.example-42,
 *   deploys a site atomically, and a link out of DIR is refused by the
 *   kernel, EXDEV). Whoever can write DIR itself chooses what each name
 *   serves; a tenant writes below its own site directory only.
 * - The name is looked up again on every request, so a site created,
 *   removed, renamed away or flipped is seen by the very next request,
 *   with no reload. What is kept per site (an O_PATH fd the resolver
 *   opened, its _redirects and _headers) serves a request only when DIR/NAME
 *   names that same directory now (st_dev and st_ino): the kept fd pins
 *   the inode, so no new directory can be given its number while the entry
 *   exists, and equal numbers are the same directory. The common case is
 *   one fstatat(DIR, NAME, AT_SYMLINK_NOFOLLOW): NAME is one component, so
 *   that looks at DIR's own entry and follows nothing, and it answers only
 *   "is this still the directory kept". A name that is a link, changed, or
 *   not kept is opened by the resolver as above (one openat2 and an
 *   fstat): a link's target can change while the link does not, so a site
 *   directory that is a link is resolved on every request.
 * - A request's paths are resolved beneath the site's own fd, never
 *   DIR's: a link from one site into another is refused like one to /etc.
 * - A site's _redirects and _headers are read through the resolver
 *   beneath its fd with --confine. A site whose files are refused (a bad
 *   line, a link out) answers 500 until they are mended, never served
 *   without them: a _headers may carry the site's security headers. They
 *   are looked at again (an O_PATH open and fstat each) when an entry is
 *   used a second or more after its last look: an edit in place is seen
 *   within a second, a deploy by rename or flip at once (a new directory).
 *
 * Bounds: at most conf.cache entries, one fd each; the least recently
 * used is let go when a new one comes (a request that holds it keeps it
 * until its reply is released). With the emulated backend each thread has
 * one resolver directory cache, for the site it served last (a reference
 * to its entry): the number of sites divides nothing.
 */
#include "access/sites.h"

#include "access/access_internal.h"
#include "common/mono.h"
#include "resolver.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Rule files are looked at again after this long (milliseconds). */
#define SITES_RECHECK_MS 1000

/* What a rule file was when it was read: changed if any of it differs. */
struct file_id {
    bool there;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime, ctime;
};

struct sites_entry {
    char *name;
    int fd; /* O_PATH|O_DIRECTORY, pins the directory */
    dev_t dev;
    ino_t ino;
    struct access_rules *rules; /* NULL: none (or not read) */
    bool broken;                /* its rule files are refused: 500 */
    struct file_id ids[2];      /* _redirects, _headers */
    atomic_llong checked_ms;    /* when ids were last compared */
    atomic_bool stale;          /* a rule file changed: make a new entry */
    atomic_uint refs;           /* the table's, each holder's */
    /* under sites.lock */
    struct sites_entry *chain; /* hash bucket */
    struct sites_entry *newer, *older;
};

struct sites {
    int dir_fd;
    char *dir;
    uint64_t confine;
    uint64_t open_resolve; /* how DIR/NAME is opened */
    unsigned max, n;
    bool site_files;
    unsigned dir_cache;
    bool has_key;
    pthread_key_t key; /* -> struct binding */
    pthread_mutex_t lock;
    struct sites_entry **bucket;
    unsigned n_buckets; /* a power of two */
    struct sites_entry *newest, *oldest;
    atomic_uint_fast64_t hits, misses;
};

/* A thread's resolver cache for the site it served last. */
struct binding {
    struct sites_entry *e; /* a reference */
    struct resolver_cache *cache;
};

static const char *const rule_names[2] = {"_redirects", "_headers"};

static uint32_t hash_name(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void entry_free(struct sites_entry *e)
{
    access_rules_free(e->rules);
    if (e->fd >= 0)
        close(e->fd);
    free(e->name);
    free(e);
}

void sites_put(struct sites_entry *e)
{
    if (e && atomic_fetch_sub(&e->refs, 1) == 1)
        entry_free(e);
}

static void binding_drop(void *p)
{
    struct binding *b = p;

    resolver_cache_free(b->cache);
    sites_put(b->e);
    free(b);
}

int sites_open(const struct sites_conf *sc, struct sites **out)
{
    struct sites *s = calloc(1, sizeof *s);
    unsigned nb = 16;
    int err = -ENOMEM;

    if (!s)
        return -ENOMEM;
    s->dir_fd = -1;
    s->max = sc->cache ? sc->cache : 1;
    while (nb < 2 * s->max)
        nb *= 2;
    s->n_buckets = nb;
    s->bucket = calloc(nb, sizeof(struct sites_entry *));
    s->dir = strdup(sc->dir);
    if (!s->bucket || !s->dir)
        goto out_free;
    s->dir_fd = open(sc->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (s->dir_fd < 0) {
        err = -errno;
        goto out_free;
    }
    s->confine = sc->confine;
    /* BENEATH always (IN_ROOT would turn a link out into another name),
     * and the --confine flags that forbid more */
    s->open_resolve = RESOLVER_BENEATH | RESOLVER_NO_MAGICLINKS |
                      (sc->confine & (RESOLVER_NO_XDEV | RESOLVER_NO_SYMLINKS));
    s->site_files = sc->site_files;
    s->dir_cache = sc->dir_cache;
    if (s->dir_cache) {
        if (pthread_key_create(&s->key, binding_drop) != 0)
            goto out_close;
        s->has_key = true;
    }
    pthread_mutex_init(&s->lock, NULL);
    *out = s;
    return 0;
out_close:
    close(s->dir_fd);
out_free:
    free(s->dir);
    free(s->bucket);
    free(s);
    return err;
}

void sites_free(struct sites *s)
{
    if (!s)
        return;
    if (s->has_key) {
        /* the caller's own binding (worker threads have exited) */
        struct binding *b = pthread_getspecific(s->key);

        if (b) {
            pthread_setspecific(s->key, NULL);
            binding_drop(b);
        }
        pthread_key_delete(s->key);
    }
    for (struct sites_entry *e = s->newest, *next; e; e = next) {
        next = e->older;
        sites_put(e);
    }
    pthread_mutex_destroy(&s->lock);
    close(s->dir_fd);
    free(s->bucket);
    free(s->dir);
    free(s);
}

/* ---- the table, under s->lock ---- */

static struct sites_entry **slot_of(struct sites *s, const char *name)
{
    struct sites_entry **p = &s->bucket[hash_name(name) & (s->n_buckets - 1)];

    while (*p && strcmp((*p)->name, name) != 0)
        p = &(*p)->chain;
    return p;
}

static void lru_unlink(struct sites *s, struct sites_entry *e)
{
    if (e->newer)
        e->newer->older = e->older;
    else
        s->newest = e->older;
    if (e->older)
        e->older->newer = e->newer;
    else
        s->oldest = e->newer;
    e->newer = e->older = NULL;
}

static void lru_front(struct sites *s, struct sites_entry *e)
{
    e->older = s->newest;
    e->newer = NULL;
    if (s->newest)
        s->newest->newer = e;
    s->newest = e;
    if (!s->oldest)
        s->oldest = e;
}

/* Take @e out of the table; its reference goes to *@gone (put later,
 * outside the lock: that may close an fd). */
static void table_remove(struct sites *s, struct sites_entry *e,
                         struct sites_entry **gone)
{
    struct sites_entry **p = slot_of(s, e->name);

    if (*p == e)
        *p = e->chain;
    e->chain = NULL;
    lru_unlink(s, e);
    s->n--;
    e->older = *gone; /* a list of entries to put */
    *gone = e;
}

/* ---- entries ---- */

/* The rule files' identities beneath @fd, as they are now. */
static void rule_ids(const struct sites *s, int fd, struct file_id ids[2])
{
    for (int k = 0; k < 2; k++) {
        int f = resolver_open(fd, rule_names[k], O_PATH, s->confine);
        struct stat st;

        memset(&ids[k], 0, sizeof ids[k]);
        if (f < 0)
            continue;
        if (fstat(f, &st) == 0)
            ids[k] = (struct file_id){.there = true,
                                      .dev = st.st_dev,
                                      .ino = st.st_ino,
                                      .size = st.st_size,
                                      .mtime = st.st_mtim,
                                      .ctime = st.st_ctim};
        close(f);
    }
}

static bool id_same(const struct file_id *a, const struct file_id *b)
{
    return a->there == b->there &&
           (!a->there ||
            (a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
             a->mtime.tv_sec == b->mtime.tv_sec &&
             a->mtime.tv_nsec == b->mtime.tv_nsec &&
             a->ctime.tv_sec == b->ctime.tv_sec &&
             a->ctime.tv_nsec == b->ctime.tv_nsec));
}

/*
 * Whether @e's rule files are still those it read: looked at once per
 * SITES_RECHECK_MS by whichever request comes (the others go on with the
 * entry meanwhile). False marks it stale.
 */
static bool rules_current(const struct sites *s, struct sites_entry *e)
{
    long long now, last;
    struct file_id ids[2];

    if (!s->site_files)
        return true;
    if (atomic_load(&e->stale))
        return false;
    now = mono_coarse_ms();
    last = atomic_load(&e->checked_ms);
    if (now - last < SITES_RECHECK_MS ||
        !atomic_compare_exchange_strong(&e->checked_ms, &last, now))
        return true;
    rule_ids(s, e->fd, ids);
    if (id_same(&ids[0], &e->ids[0]) && id_same(&ids[1], &e->ids[1]))
        return true;
    atomic_store(&e->stale, true);
    return false;
}

/* A new entry for @name, taking over @fd (closed on failure). */
static int entry_make(struct sites *s, const char *name, int fd,
                      const struct stat *st, struct sites_entry **out)
{
    struct sites_entry *e = calloc(1, sizeof *e);
    char shown[4200];
    int r;

    if (!e || !(e->name = strdup(name))) {
        free(e);
        close(fd);
        return -ENOMEM;
    }
    e->fd = fd;
    e->dev = st->st_dev;
    e->ino = st->st_ino;
    atomic_init(&e->refs, 1);
    atomic_init(&e->checked_ms, mono_coarse_ms());
    atomic_init(&e->stale, false);
    if (s->site_files) {
        /* identities first: a change during the read is seen a second on */
        rule_ids(s, fd, e->ids);
        snprintf(shown, sizeof shown, "%s%s%s", s->dir,
                 s->dir[strlen(s->dir) - 1] == '/' ? "" : "/", name);
        r = access_rules_load(s->confine, fd, shown, "sites: ", &e->rules);
        if (r < 0) {
            entry_free(e);
            return r;
        }
        e->broken = r > 0;
    }
    *out = e;
    return 0;
}

/*
 * Keep @e (one reference, the caller's) in the table unless another
 * thread put the same directory there meanwhile: then that one is the
 * caller's and @e goes. An entry of the same name for another directory is
 * replaced; the oldest go past the bound.
 */
static struct sites_entry *keep(struct sites *s, struct sites_entry *e)
{
    struct sites_entry *gone = NULL, *old, *use = e;

    pthread_mutex_lock(&s->lock);
    old = *slot_of(s, e->name);
    if (old && old->dev == e->dev && old->ino == e->ino &&
        !atomic_load(&old->stale)) {
        atomic_fetch_add(&old->refs, 1);
        use = old;
    } else {
        if (old)
            table_remove(s, old, &gone);
        while (s->n >= s->max && s->oldest)
            table_remove(s, s->oldest, &gone);
        atomic_fetch_add(&e->refs, 1); /* the table's */
        e->chain = NULL;
        *slot_of(s, e->name) = e;
        lru_front(s, e);
        s->n++;
    }
    pthread_mutex_unlock(&s->lock);
    while (gone) {
        struct sites_entry *next = gone->older;

        gone->older = NULL;
        sites_put(gone);
        gone = next;
    }
    if (use != e)
        sites_put(e);
    return use;
}

/* DIR/@name opened now: an O_PATH fd and its stat, or -errno. */
static int resolve(const struct sites *s, const char *name, struct stat *st)
{
    int fd =
        resolver_open(s->dir_fd, name, O_PATH | O_DIRECTORY, s->open_resolve);

    if (fd >= 0 && fstat(fd, st) != 0) {
        int err = -errno;

        close(fd);
        return err;
    }
    return fd;
}

/* The kept entry of @name if it is the directory @st names (a
 * reference), or NULL. */
static struct sites_entry *kept(struct sites *s, const char *name,
                                const struct stat *st)
{
    struct sites_entry *e;

    pthread_mutex_lock(&s->lock);
    e = *slot_of(s, name);
    if (e && (e->dev != st->st_dev || e->ino != st->st_ino))
        e = NULL;
    if (e) {
        atomic_fetch_add(&e->refs, 1);
        lru_unlink(s, e);
        lru_front(s, e);
    }
    pthread_mutex_unlock(&s->lock);
    if (e && !rules_current(s, e)) {
        sites_put(e);
        e = NULL;
    }
    if (e)
        atomic_fetch_add_explicit(&s->hits, 1, memory_order_relaxed);
    return e;
}

int sites_get(struct sites *s, const char *name, struct sites_entry **out)
{
    struct sites_entry *e = NULL;
    struct stat st;
    int fd, err;

    /*
     * The common case in one system call: DIR/name is a directory itself
     * (not a link: AT_SYMLINK_NOFOLLOW, and the name is one component),
     * and it is the very directory a kept entry's fd pins. A link, a
     * change or a name not kept is resolved by the confined resolver.
     */
    if (fstatat(s->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISDIR(st.st_mode))
        e = kept(s, name, &st);
    if (!e) {
        fd = resolve(s, name, &st);
        if (fd < 0)
            return fd;
        e = kept(s, name, &st);
        if (e) {
            close(fd); /* a site directory that is a link: kept as its
                          target */
        } else {
            atomic_fetch_add_explicit(&s->misses, 1, memory_order_relaxed);
            err = entry_make(s, name, fd, &st, &e);
            if (err)
                return err;
            e = keep(s, e);
        }
    }
    if (e->broken) {
        sites_put(e);
        return -EINVAL;
    }
    *out = e;
    return 0;
}

int sites_exists(struct sites *s, const char *name)
{
    int fd =
        resolver_open(s->dir_fd, name, O_PATH | O_DIRECTORY, s->open_resolve);

    if (fd == -ENOENT || fd == -ENOTDIR)
        return 0;
    if (fd < 0)
        return fd;
    close(fd);
    return 1;
}

struct resolver_cache *sites_thread_cache(struct sites *s,
                                          struct sites_entry *e)
{
    struct binding *b;

    if (!s->has_key)
        return NULL;
    b = pthread_getspecific(s->key);
    if (!b) {
        b = calloc(1, sizeof *b);
        if (!b)
            return NULL;
        if (pthread_setspecific(s->key, b) != 0) {
            free(b);
            return NULL;
        }
    }
    if (b->e != e) {
        /* the cache borrows the entry's fd: the reference keeps it open */
        resolver_cache_free(b->cache);
        b->cache = NULL;
        sites_put(b->e);
        atomic_fetch_add(&e->refs, 1);
        b->e = e;
        if (resolver_cache_new(e->fd, s->dir_cache, &b->cache) != 0)
            b->cache = NULL; /* no memory: walk without one */
    }
    return b->cache;
}

int sites_entry_fd(const struct sites_entry *e)
{
    return e->fd;
}

const char *sites_entry_name(const struct sites_entry *e)
{
    return e->name;
}

const struct access_rules *sites_entry_rules(const struct sites_entry *e)
{
    return e->rules;
}

void sites_counts(void *arg, uint64_t *hits, uint64_t *misses)
{
    struct sites *s = arg;

    *hits = atomic_load_explicit(&s->hits, memory_order_relaxed);
    *misses = atomic_load_explicit(&s->misses, memory_order_relaxed);
}

const char *sites_dir(const struct sites *s)
{
    return s->dir;
}
