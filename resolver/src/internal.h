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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/statfs.h>

/* Longest path accepted, including the terminating NUL (the kernel's). */
#define RESOLVER_PATH_MAX 4096

int backend_openat2_open(int root_fd, const char *path, int open_flags,
                         uint64_t resolve);
/* @cache may be NULL; when not, it was made for @root_fd. */
int backend_walk_open(struct resolver_cache *cache, int root_fd,
                      const char *path, int open_flags, uint64_t resolve);
int backend_lexical_open(int root_fd, const char *path, int open_flags,
                         uint64_t resolve);

/* One raw openat2 call, no retry: returns an fd or -errno. */
int backend_openat2_once(int root_fd, const char *path, int open_flags,
                         uint64_t resolve);

/* What is known about the filesystem a directory lives on. */
enum fs_info {
    FS_UNKNOWN = 0,
    FS_KNOWN = 1,
    FS_PROC = 2,
    FS_NOSYMFOLLOW = 4,
};

/*
 * Mount id of @fd (backend_walk.c): stx_mnt_id (Linux 5.8), or st_dev
 * before that, which cannot tell a bind mount of the same filesystem from
 * no mount at all. 0 or -errno.
 */
int fd_mount_id(int fd, uint64_t *out);

/* The fs_info bits of a statfs answer. */
int fs_info_of(const struct statfs *sfs);

/*
 * cache.c: the directory cache as the walk sees it. A cached directory is
 * named by its key, the plain components from the root joined by '/'.
 */
struct rcache_dir {
    int fd;       /* O_PATH fd, owned by the cache */
    int fs;       /* enum fs_info bits */
    uint64_t mnt; /* mount id */
};

/* Make @c ready for a walk (set up, or emptied when full). Whether it is. */
bool rcache_begin(struct resolver_cache *c);
/* The root's mount id (rcache_begin returned true). */
uint64_t rcache_root_mnt(const struct resolver_cache *c);
/* The fd @c was made for. */
int rcache_root_fd(const struct resolver_cache *c);
/* Look @key up; true and *@out when it is held. */
bool rcache_lookup(struct resolver_cache *c, const char *key, size_t len,
                   struct rcache_dir *out);
/*
 * Offer the directory @fd, just opened by name from a directory the cache
 * holds (or the root), under @key. @mnt: its mount id, or NULL if not known.
 * True: the cache owns @fd now and *@out describes it. False: the caller
 * still owns @fd (full, not a local filesystem, no watch).
 */
bool rcache_adopt(struct resolver_cache *c, const char *key, size_t len, int fd,
                  const uint64_t *mnt, struct rcache_dir *out);
/*
 * After a walk that used @c: whether anything changed since it was last
 * known good. True: @c has been emptied and the answer must be walked again.
 */
bool rcache_changed(struct resolver_cache *c);

#endif
