// SPDX-License-Identifier: MIT
/*
 * arena.c - chunks of at least ARENA_CHUNK bytes, newest first; a request
 * larger than a chunk gets a chunk of its own size.
 */
#include "http/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK ((size_t)2048)

struct arena_chunk {
    struct arena_chunk *next;
    size_t size, used;
    alignas(max_align_t) char data[];
};

void *arena_alloc(struct arena *a, size_t n)
{
    struct arena_chunk *c = a->head;
    size_t align = alignof(max_align_t);
    size_t need = (n + align - 1) & ~(align - 1);

    if (need < n)
        return NULL;
    if (!c || c->size - c->used < need) {
        size_t size = need > ARENA_CHUNK ? need : ARENA_CHUNK;

        if (size > SIZE_MAX - sizeof *c)
            return NULL;
        c = malloc(sizeof *c + size);
        if (!c)
            return NULL;
        c->size = size;
        c->used = 0;
        c->next = a->head;
        a->head = c;
    }
    c->used += need;
    return c->data + c->used - need;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
    char *p = n < SIZE_MAX ? arena_alloc(a, n + 1) : NULL;

    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

void arena_reset(struct arena *a)
{
    struct arena_chunk *keep = NULL;

    /* keep the oldest chunk of the standard size: the one every request
     * fills first */
    while (a->head) {
        struct arena_chunk *c = a->head;

        a->head = c->next;
        if (!keep && c->size == ARENA_CHUNK && !a->head) {
            keep = c;
            continue;
        }
        free(c);
    }
    if (keep) {
        keep->used = 0;
        keep->next = NULL;
    }
    a->head = keep;
}

void arena_free(struct arena *a)
{
    while (a->head) {
        struct arena_chunk *c = a->head;

        a->head = c->next;
        free(c);
    }
}
