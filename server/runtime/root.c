// SPDX-License-Identifier: MIT
/*
 * root.c - a root fd held by live.c, which keeps each worker thread's
 * resolver directory cache for it as the thread's local data, so the cache
 * (which borrows the fd) is freed before the fd is closed. The fast path
 * takes no lock: one atomic load.
 */
#include "runtime/root.h"

#include "resolver.h"
#include "runtime/live.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct generation {
    int fd;
};

struct root {
    struct live *live;      /* -> struct generation */
    struct generation *cur; /* the one published last; main thread only */
    unsigned dir_cache;     /* directories per thread's resolver cache */
    char *path;
};

static void generation_close(void *p)
{
    struct generation *g = p;

    close(g->fd);
    free(g);
}

/* @path opened as a new generation, or NULL and *@err. */
static struct generation *generation_open(const char *path, int *err)
{
    struct generation *g = malloc(sizeof *g);

    if (!g) {
        *err = -ENOMEM;
        return NULL;
    }
    g->fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (g->fd < 0) {
        *err = -errno;
        free(g);
        return NULL;
    }
    return g;
}

/* A thread's resolver cache for generation @value, or NULL. */
static void *cache_new(void *value, void *arg)
{
    const struct generation *g = value;
    const struct root *r = arg;
    struct resolver_cache *rc = NULL;

    if (r->dir_cache && resolver_cache_new(g->fd, r->dir_cache, &rc) < 0)
        return NULL; /* no memory: walk without one */
    return rc;
}

static void cache_free(void *rc)
{
    resolver_cache_free(rc);
}

int root_open(const char *path, unsigned dir_cache, struct root **out)
{
    struct root *r = calloc(1, sizeof *r);
    int err = -ENOMEM;

    if (!r)
        return -ENOMEM;
    r->dir_cache = dir_cache;
    r->path = strdup(path);
    if (r->path)
        r->cur = generation_open(path, &err);
    if (!r->cur)
        goto out_free;
    err = live_new(r->cur, generation_close, &r->live);
    if (err)
        goto out_close;
    live_set_local(r->live, cache_new, cache_free, r);
    *out = r;
    return 0;
out_close:
    generation_close(r->cur);
out_free:
    free(r->path);
    free(r);
    return err;
}

int root_fd(struct root *r)
{
    const struct generation *g = live_get(r->live);

    return g ? g->fd : -ENOMEM;
}

int root_dup(struct root *r)
{
    /* live holds r->cur open for the root's life */
    int fd = fcntl(r->cur->fd, F_DUPFD_CLOEXEC, 0);

    return fd < 0 ? -errno : fd;
}

struct resolver_cache *root_dir_cache(struct root *r)
{
    return live_local(r->live);
}

void root_close(struct root *r)
{
    if (!r)
        return;
    live_free(r->live);
    free(r->path);
    free(r);
}
