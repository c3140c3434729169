/* SPDX-License-Identifier: MIT */
/*
 * internal.h - what the resolver's sources share: the one backend signature,
 * the filesystem facts (fsinfo.c) and the directory cache as the walk sees it
 * (cache.c). Nothing here is visible outside the library.
 */
#ifndef BENEATH_RESOLVER_INTERNAL_H
#define BENEATH_RESOLVER_INTERNAL_H

#include "resolver.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/statfs.h>
#include <sys/types.h>

/* Longest path accepted, including the terminating NUL (the kernel's). */
#define RESOLVER_PATH_MAX 4096

/*
 * The backends. All have this one signature. The front door (resolver.c)
 * has validated the arguments: @how->open_flags and @how->resolve are
 * allowed bits with O_CLOEXEC already added, and @how->cache is NULL or was
 * made for @root_fd. @how->backend is not read. Each returns a new fd or
 * -errno and never prints. Only the emulation reads @how->cache.
 */
int backend_openat2_open(int root_fd, const char *path,
                         const struct resolver_how *how);
int backend_walk_open(int root_fd, const char *path,
                      const struct resolver_how *how);
int backend_lexical_open(int root_fd, const char *path,
                         const struct resolver_how *how);

/*
 * A walk that meets a symlink leaving the root under BENEATH (resolver.h,
 * "Following into a directory"): with a struct walk_hop, the walk works out
 * the link's target, fills @how->escape (when set), and when the target
 * lies in a directory of @how->into answers -EXDEV with @into its index
 * and @rest the path to resolve beneath it next; @into is -1 otherwise.
 * The front door (resolver.c) starts that next resolution.
 */
struct walk_hop {
    int into;
    char *rest; /* malloc'd; the caller frees it */
};
int backend_walk_hop(int root_fd, const char *path,
                     const struct resolver_how *how, struct walk_hop *hop);

/* @dst (RESOLVER_ESCAPE_MAX bytes) = @a @sep @b, cut with "..." if long. */
void escape_put(char *dst, const char *a, const char *sep, const char *b,
                size_t blen);

/* One raw openat2 call, no retry: returns an fd or -errno (the probe's). */
int backend_openat2_once(int root_fd, const char *path, int open_flags,
                         uint64_t resolve);

/* fsinfo.c: what is known about the filesystem a directory lives on. */
enum fs_info {
    FS_UNKNOWN = 0,
    FS_KNOWN = 1,
    FS_PROC = 2,
    FS_NOSYMFOLLOW = 4,
    FS_LOCAL = 8, /* every change goes through this kernel (tmpfs, ext4...) */
};

/* Mount id of @fd (stx_mnt_id, or st_dev on old kernels): 0 or -errno. */
int fsinfo_mount_id(int fd, uint64_t *out);
/* File type and, when @want_mnt, mount id of @fd in one statx: 0 or -errno. */
int fsinfo_type_mount(int fd, bool want_mnt, mode_t *type, uint64_t *mnt);
/* The enum fs_info bits of a statfs answer (FS_KNOWN always set). */
int fsinfo_of(const struct statfs *sfs);
/*
 * The path the kernel names directory @fd by (AT_FDCWD: the working
 * directory), into @buf of RESOLVER_PATH_MAX bytes, "/" written as "": its
 * length, or -errno (no /proc; -ENOENT: not reachable from this process's
 * root).
 */
ssize_t fsinfo_dir_path(int fd, char *buf);
/*
 * Mount id of what @path names from @fd (not following a final symlink; ""
 * names @fd itself), in one statx without opening it: 0 or -errno.
 */
int fsinfo_mount_id_at(int fd, const char *path, uint64_t *out);

/*
 * cache.c: the directory cache (struct resolver_cache) as the walk sees it.
 * Its internal functions carry the prefix rcache_. A cached directory is
 * named by its key: the plain components from the root joined by '/'.
 */
struct rcache_dir {
    int fd;       /* O_PATH fd, owned by the directory cache */
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
 * known good (cache.c's header says exactly what a false answer proves).
 * True: @c has been emptied and the answer must be walked again.
 */
bool rcache_changed(struct resolver_cache *c);

#endif
