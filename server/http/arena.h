/* SPDX-License-Identifier: MIT */
/*
 * arena.h - a bump allocator of stable chunks for the strings of one
 * request: what it hands out stays where it is until arena_reset, which
 * keeps the first chunk for the next request (no malloc per request in
 * the common case).
 */
#ifndef BENEATH_HTTP_ARENA_H
#define BENEATH_HTTP_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
    struct arena_chunk *head; /* the chunk being filled; older ones after */
};

/* arena_alloc - @n bytes (aligned for any type), or NULL (out of memory). */
void *arena_alloc(struct arena *a, size_t n);

/* arena_strndup - a NUL-terminated copy of @n bytes of @s, or NULL. */
char *arena_strndup(struct arena *a, const char *s, size_t n);

/* arena_reset - forget everything handed out; keep one chunk. */
void arena_reset(struct arena *a);

/* arena_free - release every chunk; the arena is empty and usable again. */
void arena_free(struct arena *a);

#endif
