/* SPDX-License-Identifier: MIT */
/*
 * root.h - a document root fd, opened by path once at the serving
 * process's start (a deploy that renames a new tree into place or flips a
 * symlink is served by the next serving process, which a SIGHUP starts),
 * and each worker thread's resolver directory cache for it.
 */
#ifndef BENEATH_RUNTIME_ROOT_H
#define BENEATH_RUNTIME_ROOT_H

struct root;

struct resolver_cache;

/*
 * root_open - open @path as an O_PATH|O_DIRECTORY fd (symlinks in @path are
 * followed: the configured root is trusted). @dir_cache: directories each
 * thread's resolver cache may hold for the emulated backend (0: no cache).
 * @out receives the root, owned by the caller.
 *
 * Returns 0, -ENOMEM, or the -errno of open(2) (-ENOTDIR, -ENOENT, ...).
 */
int root_open(const char *path, unsigned dir_cache, struct root **out);

/*
 * root_fd - the current root fd for the calling thread. It stays valid until
 * the same thread calls root_fd again (or exits).
 *
 * Returns an fd, or -ENOMEM.
 */
int root_fd(struct root *r);

/*
 * root_dir_cache - the calling thread's directory cache for the fd root_fd
 * last returned to it (valid as long as that fd), or NULL: no cache
 * configured, or no memory for one.
 */
struct resolver_cache *root_dir_cache(struct root *r);

/*
 * root_dup - a new fd (O_CLOEXEC, owned by the caller) for the current
 * root generation, without taking a thread reference: for reading files of
 * the site itself (_redirects, _headers) through the resolver at start-up
 * (the main thread).
 *
 * Returns an fd, or -errno of fcntl(F_DUPFD_CLOEXEC).
 */
int root_dup(struct root *r);

/*
 * root_close - release @r. Every thread that called root_fd must have exited
 * (MHD stopped). NULL is accepted.
 */
void root_close(struct root *r);

#endif
