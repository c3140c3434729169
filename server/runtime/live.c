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
 *
 * One pthread key serves every struct live: it holds the thread's table of
 * references, indexed by each live's slot number. So the number of roots
 * (--vhost, --mount) is not bounded by PTHREAD_KEYS_MAX (1024), as a key
 * per live was; a slot is given back by live_free, once no thread but the
 * caller can hold a reference in it.
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
    struct gen *cur; /* under lock */
    atomic_uint id;  /* cur->id, readable without the lock */
    unsigned slot;   /* index in each thread's table */
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

/* One thread's references, by slot (the value of the key). */
struct table {
    struct ref **v;
    unsigned n;
};

static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static int key_err;
/* Slots: the next never used, and those given back (a stack). */
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned slots_next;
static unsigned *slots_free;
static unsigned slots_n_free, slots_cap_free;

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

static void ref_drop(struct ref *r)
{
    leave(r);
    pthread_mutex_lock(&r->l->lock);
    unref(r->l, r->g);
    pthread_mutex_unlock(&r->l->lock);
    free(r);
}

/* The key's destructor: a thread exits, its references go. */
static void table_drop(void *p)
{
    struct table *t = p;

    for (unsigned i = 0; i < t->n; i++)
        if (t->v[i])
            ref_drop(t->v[i]);
    free(t->v);
    free(t);
}

static void key_make(void)
{
    key_err = pthread_key_create(&key, table_drop);
}

/* A slot for a new live: one given back, or the next never used. */
static unsigned slot_take(void)
{
    unsigned slot;

    pthread_mutex_lock(&slots_lock);
    slot = slots_n_free ? slots_free[--slots_n_free] : slots_next++;
    pthread_mutex_unlock(&slots_lock);
    return slot;
}

static void slot_give(unsigned slot)
{
    pthread_mutex_lock(&slots_lock);
    if (slots_n_free == slots_cap_free) {
        unsigned cap = slots_cap_free ? 2 * slots_cap_free : 16;
        unsigned *v = realloc(slots_free, cap * sizeof *v);

        if (!v) { /* the slot is not used again: a few bytes per thread */
            pthread_mutex_unlock(&slots_lock);
            return;
        }
        slots_free = v;
        slots_cap_free = cap;
    }
    slots_free[slots_n_free++] = slot;
    pthread_mutex_unlock(&slots_lock);
}

int live_new(void *first, void (*release)(void *), struct live **out)
{
    struct live *l;
    struct gen *g;

    if (pthread_once(&key_once, key_make) != 0 || key_err != 0)
        return -ENOMEM;
    l = calloc(1, sizeof *l);
    g = calloc(1, sizeof *g);
    if (!l || !g) {
        free(g);
        free(l);
        return -ENOMEM;
    }
    l->slot = slot_take();
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

/* The calling thread's table, grown to hold @slot; NULL: no memory. */
static struct table *table_for(unsigned slot)
{
    struct table *t = pthread_getspecific(key);

    if (!t) {
        t = calloc(1, sizeof *t);
        if (!t)
            return NULL;
        if (pthread_setspecific(key, t) != 0) {
            free(t);
            return NULL;
        }
    }
    if (slot >= t->n) {
        unsigned n = slot + 8;
        struct ref **v = realloc(t->v, n * sizeof(struct ref *));

        if (!v)
            return NULL;
        for (unsigned i = t->n; i < n; i++)
            v[i] = NULL;
        t->v = v;
        t->n = n;
    }
    return t;
}

/* The calling thread's reference to @l, or NULL. */
static struct ref *ref_of(const struct live *l)
{
    const struct table *t = pthread_getspecific(key);

    return t && l->slot < t->n ? t->v[l->slot] : NULL;
}

void *live_get(struct live *l)
{
    struct ref *r = ref_of(l);

    if (!r) {
        struct table *t = table_for(l->slot);

        r = t ? calloc(1, sizeof *r) : NULL;
        if (!r)
            return NULL;
        r->l = l;
        t->v[l->slot] = r;
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
    const struct ref *r = ref_of(l);

    return r ? r->local : NULL;
}

void live_free(struct live *l)
{
    if (!l)
        return;
    /* The caller's own reference, if it took one. */
    struct ref *r = ref_of(l);
    if (r) {
        ((struct table *)pthread_getspecific(key))->v[l->slot] = NULL;
        ref_drop(r);
    }
    slot_give(l->slot);
    unref(l, l->cur);
    pthread_mutex_destroy(&l->lock);
    free(l);
}
