/* SPDX-License-Identifier: MIT */
/*
 * internal.h - the backend interface shared by the resolver's sources.
 *
 * Every backend has the same signature: arguments already validated by the
 * front door (resolver.c), O_CLOEXEC already added to @open_flags. Each
 * returns a new fd or -errno and never prints.
 */
#ifndef RESOLVER_INTERNAL_H
#define RESOLVER_INTERNAL_H

#include "resolver.h"

#include <stdint.h>

/* Longest path accepted, including the terminating NUL (the kernel's). */
#define RESOLVER_PATH_MAX 4096

int backend_openat2_open(int root_fd, const char *path, int open_flags,
                         uint64_t resolve);
int backend_walk_open(int root_fd, const char *path, int open_flags,
                      uint64_t resolve);
int backend_lexical_open(int root_fd, const char *path, int open_flags,
                         uint64_t resolve);

/* One raw openat2 call, no retry: returns an fd or -errno. */
int backend_openat2_once(int root_fd, const char *path, int open_flags,
                         uint64_t resolve);

#endif
