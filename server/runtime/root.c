// SPDX-License-Identifier: MIT
/*
 * root.c - document root generations, held by live.c: each worker thread
 * keeps the generation it last saw, and its resolver directory cache as the
 * thread's local data for it, so the cache (which borrows the generation's
 * fd) is freed before the thread lets go of the fd. The fast path (no
 * reload since the thread's last request) takes no lock: one atomic load.
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

int root_reload(struct root *r)
{
    return root_move(r, r->path);
}

int root_move(struct root *r, const char *path)
{
    char *copy = path == r->path ? r->path : strdup(path);
    int err = -ENOMEM;
    struct generation *g = copy ? generation_open(path, &err) : NULL;

    if (g) {
        err = live_publish(r->live, g);
        if (err)
            generation_close(g);
    }
    if (!g || err) {
        if (copy != r->path)
            free(copy);
        return err;
    }
    if (copy != r->path) {
        /* only the main thread reads the path: no lock needed */
        free(r->path);
        r->path = copy;
    }
    r->cur = g;
    return 0;
}

int root_fd(struct root *r)
{
    const struct generation *g = live_get(r->live);

    return g ? g->fd : -ENOMEM;
}

int root_dup(struct root *r)
{
    /* live holds r->cur open until the next root_move, on this thread */
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
