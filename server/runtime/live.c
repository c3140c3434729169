// SPDX-License-Identifier: MIT
/*
 * live.c - a value worker threads read, with per-thread references and
 * per-thread local data (the configuration, the document root and its
 * directory caches).
 *
 * Invariant: the value is released only when its reference count drops to
 * 0; the holder keeps one reference and each thread one. A thread's local
 * data (live_set_local) is made for the value it holds and dropped before
 * that reference is. Counts change under the lock; the fast path (the
 * thread holds its reference already) takes no lock: one atomic load.
 */
#include "runtime/live.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct gen {
    void *value;
    unsigned refs; /* under live.lock */
    unsigned id;
};

struct live {
    pthread_mutex_t lock;
    struct gen *cur;   /* under lock */
    atomic_uint id;    /* cur->id, readable without the lock */
    pthread_key_t key; /* -> struct ref */
    void (*release)(void *);
    void *(*make)(void *value, void *arg); /* live_set_local, or NULL */
    void (*drop)(void *local);
    void *arg;
};

/* One thread's reference. */
struct ref {
    struct live *l;
    struct gen *g;
    void *local; /* made for g->value */
};

/* Drop one reference; under l->lock. */
static void unref(struct live *l, struct gen *g)
{
    if (g && --g->refs == 0) {
        l->release(g->value);
        free(g);
    }
}

/* Drop the thread's local data, made for the generation it still holds. */
static void leave(struct ref *r)
{
    if (r->local)
        r->l->drop(r->local);
    r->local = NULL;
}

static void ref_drop(void *p)
{
    struct ref *r = p;

    leave(r);
    pthread_mutex_lock(&r->l->lock);
    unref(r->l, r->g);
    pthread_mutex_unlock(&r->l->lock);
    free(r);
}

int live_new(void *first, void (*release)(void *), struct live **out)
{
    struct live *l = calloc(1, sizeof *l);
    struct gen *g = calloc(1, sizeof *g);

    if (!l || !g || pthread_key_create(&l->key, ref_drop) != 0) {
        free(g);
        free(l);
        return -ENOMEM;
    }
    g->value = first;
    g->refs = 1;
    g->id = 1;
    pthread_mutex_init(&l->lock, NULL);
    l->cur = g;
    atomic_init(&l->id, 1);
    l->release = release;
    *out = l;
    return 0;
}

void live_set_local(struct live *l, void *(*make)(void *value, void *arg),
                    void (*drop)(void *local), void *arg)
{
    l->make = make;
    l->drop = drop;
    l->arg = arg;
}

void *live_get(struct live *l)
{
    struct ref *r = pthread_getspecific(l->key);

    if (!r) {
        r = calloc(1, sizeof *r);
        if (!r)
            return NULL;
        r->l = l;
        if (pthread_setspecific(l->key, r) != 0) {
            free(r);
            return NULL;
        }
    }
    if (!r->g ||
        r->g->id != atomic_load_explicit(&l->id, memory_order_acquire)) {
        leave(r);
        pthread_mutex_lock(&l->lock);
        unref(l, r->g);
        r->g = l->cur;
        r->g->refs++;
        pthread_mutex_unlock(&l->lock);
        if (l->make)
            r->local = l->make(r->g->value, l->arg);
    }
    return r->g->value;
}

void *live_local(struct live *l)
{
    struct ref *r = pthread_getspecific(l->key);

    return r ? r->local : NULL;
}

void live_free(struct live *l)
{
    if (!l)
        return;
    /* The caller's own reference, if it took one. */
    struct ref *r = pthread_getspecific(l->key);
    if (r) {
        pthread_setspecific(l->key, NULL);
        ref_drop(r);
    }
    pthread_key_delete(l->key);
    unref(l, l->cur);
    pthread_mutex_destroy(&l->lock);
    free(l);
}
