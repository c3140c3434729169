// SPDX-License-Identifier: MIT
/*
 * root.c - document root generations with per-thread references.
 *
 * Invariant: a generation's fd is closed only when its reference count drops
 * to 0; the current generation holds one reference for itself and each
 * thread cache holds one for the generation it uses. A thread's resolver
 * directory cache borrows that generation's fd, so it is freed before the
 * reference is dropped. The fast path (no
 * reload since the thread's last request) takes no lock: one atomic load.
 */
#include "root.h"

#include "resolver.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct generation {
    int fd;
    unsigned refs; /* under root.lock */
    unsigned id;
};

struct root {
    pthread_mutex_t lock;
    struct generation *cur; /* under lock */
    atomic_uint gen;        /* cur->id, readable without the lock */
    pthread_key_t key;      /* -> struct cache */
    unsigned dir_cache;     /* directories per thread's resolver cache */
    char *path;
};

/* One thread's reference. */
struct cache {
    struct root *r;
    struct generation *g;
    struct resolver_cache *rc; /* for g->fd, or NULL */
};

static void unref(struct generation *g)
{
    if (g && --g->refs == 0) {
        close(g->fd);
        free(g);
    }
}

static void cache_drop(void *p)
{
    struct cache *c = p;

    resolver_cache_free(c->rc);
    pthread_mutex_lock(&c->r->lock);
    unref(c->g);
    pthread_mutex_unlock(&c->r->lock);
    free(c);
}

static int generation_open(const char *path, unsigned id,
                           struct generation **out)
{
    struct generation *g = malloc(sizeof *g);

    if (!g)
        return -ENOMEM;
    g->fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (g->fd < 0) {
        int err = -errno;
        free(g);
        return err;
    }
    g->refs = 1;
    g->id = id;
    *out = g;
    return 0;
}

int root_open(const char *path, unsigned dir_cache, struct root **out)
{
    struct root *r = calloc(1, sizeof *r);
    int err;

    if (!r)
        return -ENOMEM;
    r->path = strdup(path);
    if (!r->path) {
        err = -ENOMEM;
        goto out_free;
    }
    err = generation_open(path, 1, &r->cur);
    if (err)
        goto out_free_path;
    err = -pthread_key_create(&r->key, cache_drop);
    if (err)
        goto out_close_gen;
    pthread_mutex_init(&r->lock, NULL);
    atomic_init(&r->gen, 1);
    r->dir_cache = dir_cache;
    *out = r;
    return 0;
out_close_gen:
    unref(r->cur);
out_free_path:
    free(r->path);
out_free:
    free(r);
    return err;
}

int root_reload(struct root *r)
{
    return root_move(r, r->path);
}

int root_move(struct root *r, const char *path)
{
    struct generation *g = NULL;
    char *copy = path == r->path ? r->path : strdup(path);
    int err = copy ? generation_open(path, 0, &g) : -ENOMEM;

    if (err || !g) {
        if (copy != r->path)
            free(copy);
        return err ? err : -EIO;
    }
    if (copy != r->path) {
        /* only the main thread reads the path: no lock needed */
        free(r->path);
        r->path = copy;
    }
    pthread_mutex_lock(&r->lock);
    struct generation *old = r->cur;
    g->id = old->id + 1;
    r->cur = g;
    atomic_store_explicit(&r->gen, g->id, memory_order_release);
    unref(old);
    pthread_mutex_unlock(&r->lock);
    return 0;
}

int root_fd(struct root *r)
{
    struct cache *c = pthread_getspecific(r->key);

    if (!c) {
        c = calloc(1, sizeof *c);
        if (!c)
            return -ENOMEM;
        c->r = r;
        if (pthread_setspecific(r->key, c) != 0) {
            free(c);
            return -ENOMEM;
        }
    }
    if (!c->g ||
        c->g->id != atomic_load_explicit(&r->gen, memory_order_acquire)) {
        resolver_cache_free(c->rc);
        c->rc = NULL;
        pthread_mutex_lock(&r->lock);
        unref(c->g);
        c->g = r->cur;
        c->g->refs++;
        pthread_mutex_unlock(&r->lock);
        if (r->dir_cache &&
            resolver_cache_new(c->g->fd, r->dir_cache, &c->rc) < 0)
            c->rc = NULL; /* no memory: walk without one */
    }
    return c->g->fd;
}

int root_dup(struct root *r)
{
    pthread_mutex_lock(&r->lock);
    int fd = fcntl(r->cur->fd, F_DUPFD_CLOEXEC, 0);
    int err = fd < 0 ? -errno : 0;
    pthread_mutex_unlock(&r->lock);
    return fd < 0 ? err : fd;
}

struct resolver_cache *root_dir_cache(struct root *r)
{
    struct cache *c = pthread_getspecific(r->key);

    return c ? c->rc : NULL;
}

void root_close(struct root *r)
{
    if (!r)
        return;
    /* A thread that has not exited (the caller's own) is released here. */
    struct cache *c = pthread_getspecific(r->key);
    if (c) {
        pthread_setspecific(r->key, NULL);
        cache_drop(c);
    }
    pthread_key_delete(r->key);
    unref(r->cur);
    pthread_mutex_destroy(&r->lock);
    free(r->path);
    free(r);
}
