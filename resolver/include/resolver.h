/* SPDX-License-Identifier: MIT */
/*
 * resolver.h - open a path beneath a root directory fd, confined.
 *
 * This is the only header of the resolver library that other code may
 * include. The library depends on libc only. It never prints and never exits:
 * every function reports failure as a negative errno.
 *
 * Semantics are those of openat2(2) with RESOLVE_* flags; the kernel is the
 * specification and the oracle. Two real backends implement them: "kernel"
 * (openat2 itself) and "emulated" (a userspace component walk that gives the
 * same result and the same errno). "auto" uses the kernel and falls back to the
 * emulation when openat2 is absent or blocked (ENOSYS, or EPERM from a seccomp
 * filter), also when that happens after start-up. "lexical" normalises the
 * string and calls plain openat(2): it follows symlinks anywhere, is NOT safe,
 * and exists only as a benchmark baseline.
 */
#ifndef BENEATH_RESOLVER_H
#define BENEATH_RESOLVER_H

#include <stddef.h>
#include <stdint.h>

/* Resolve flags: the kernel's RESOLVE_* values, passed to openat2 unchanged. */
#define RESOLVER_NO_XDEV 0x01       /* crossing any mount -> EXDEV */
#define RESOLVER_NO_MAGICLINKS 0x02 /* procfs-style magic links -> ELOOP */
#define RESOLVER_NO_SYMLINKS 0x04   /* any symlink -> ELOOP */
#define RESOLVER_BENEATH 0x08       /* escape or absolute path -> EXDEV */
#define RESOLVER_IN_ROOT 0x10       /* ".." and absolute links clamp at root */
/* The 2017 AT_NO_JUMPS proposal, as a preset. */
#define RESOLVER_NO_JUMPS                                                      \
    (RESOLVER_BENEATH | RESOLVER_NO_XDEV | RESOLVER_NO_MAGICLINKS)
#define RESOLVER_ALL_FLAGS                                                     \
    (RESOLVER_NO_XDEV | RESOLVER_NO_MAGICLINKS | RESOLVER_NO_SYMLINKS |        \
     RESOLVER_BENEATH | RESOLVER_IN_ROOT)

/* Symlinks followed in one resolution before ELOOP (MAXSYMLINKS). */
#define RESOLVER_MAX_SYMLINKS 40
/* Directories a resolution may go on beneath (struct resolver_into) before
 * ELOOP: a new one each time a link leads into one. */
#define RESOLVER_MAX_HOPS 40
/* Times the kernel backend retries openat2's EAGAIN (a ".." rename race). */
#define RESOLVER_EAGAIN_RETRIES 8

enum resolver_backend {
    RESOLVER_BACKEND_DEFAULT = 0, /* per call: use the process default */
    RESOLVER_BACKEND_AUTO,
    RESOLVER_BACKEND_KERNEL,
    RESOLVER_BACKEND_EMULATED,
    RESOLVER_BACKEND_LEXICAL,
};

struct resolver_cache;

/*
 * struct resolver_into - a directory that a symlink leaving the root may
 * lead into (resolver_how.into). Made by resolver_into_open.
 * @fd:    O_PATH|O_DIRECTORY fd of the directory.
 * @path:  its absolute path as the kernel names the fd (no symlink, no "."
 *         or ".." in it).
 * @alias: the absolute path it was named by, when that differs (a symlink
 *         on the way), or NULL.
 */
struct resolver_into {
    int fd;
    char *path;
    char *alias;
};

/* The longest link name or target an escape report holds (with its NUL). */
#define RESOLVER_ESCAPE_MAX 256

/*
 * struct resolver_escape - what a BENEATH resolution answered -EXDEV for,
 * when it was a symlink leaving (resolver_how.escape). Names too long are
 * cut, ending in "...".
 * @link:   the symlink: its path from the root ("_static/jquery.js"), or
 *          an absolute one beneath a directory of @how->into; "" when the
 *          refusal was no link's (the path's own "..", a mount crossing, a
 *          magic link).
 * @target: where it leads, made absolute ("/usr/share/javascript/x.js"),
 *          as far as the resolver could tell.
 * @into:   -1: the target lies in no directory of @how->into; else the
 *          index of the one it was followed into, which the rest of the
 *          path then left.
 */
struct resolver_escape {
    char link[RESOLVER_ESCAPE_MAX];
    char target[RESOLVER_ESCAPE_MAX];
    int into;
};

/*
 * struct resolver_how - how to resolve one path.
 * @open_flags: O_RDONLY, O_PATH, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK (and
 *              O_CLOEXEC, which is always set). Other bits -> EINVAL, and
 *              O_PATH takes only O_DIRECTORY|O_NOFOLLOW, as openat2 demands.
 * @resolve:    RESOLVER_* flags.
 * @backend:    RESOLVER_BACKEND_DEFAULT for the process default, or a backend.
 * @cache:      NULL, or a directory cache made for the same root fd (see
 *              resolver_cache_new); only the emulated backend uses it, and
 *              the answers are the same with or without it.
 * @into:       @n_into directories a symlink leaving the root may lead
 *              into, under RESOLVER_BENEATH (ignored otherwise: IN_ROOT
 *              keeps every link in, no scoping follows every link); NULL
 *              when @n_into is 0. Borrowed for the call.
 * @escape:     NULL, or where to say, on -EXDEV under RESOLVER_BENEATH,
 *              which symlink left and for where.
 *
 * Following into a directory (@into). A symlink that leaves the directory
 * being resolved beneath - an absolute one, or a relative one whose ".."
 * climbs above it - is followed only when its target lies in one of @into.
 * Which one is read from the link's text alone: made absolute from the
 * path the kernel gives for the directory it climbs out of
 * (/proc/self/fd), its components are taken in order - "." skipped, ".."
 * up one, names down - until the path they spell is a directory's @path
 * or @alias; a ".." after a name (which may be a symlink), or no match
 * before the text ends, refuses it (-EXDEV). The rest of the text and of
 * the path is then resolved beneath THAT directory's fd, with the same
 * flags and a budget of links of its own: a ".." of it that leaves the
 * directory, an absolute link, a mount crossing are refused as at the
 * root, while a link of the new directory's own that leaves it may lead
 * into a directory of @into again (at most RESOLVER_MAX_HOPS, then
 * -ELOOP). The path's own ".." never leads anywhere but -EXDEV: only a
 * link's text does. Both real backends give the same answer: the kernel
 * backend asks openat2 first and, on EXDEV, walks the path in userspace
 * to find the link, then asks openat2 again beneath the directory.
 */
struct resolver_how {
    int open_flags;
    uint64_t resolve;
    enum resolver_backend backend;
    struct resolver_cache *cache;
    const struct resolver_into *into;
    size_t n_into;
    struct resolver_escape *escape;
};

/* clang-format off: one errno a line, as written */
/*
 * resolver_open - open @path beneath @root_fd with the process default backend.
 * @root_fd is borrowed (an O_PATH|O_DIRECTORY fd is enough; AT_FDCWD works).
 *
 * Returns a new fd with O_CLOEXEC, owned by the caller, or:
 *   -EINVAL       unknown open or resolve bits, BENEATH together with IN_ROOT
 *   -ENOENT       a component does not exist, or @path is empty
 *   -ENOTDIR      a non-final component, or a final one with a trailing slash
 *                 or O_DIRECTORY, is not a directory
 *   -ENAMETOOLONG @path is 4096 bytes or longer, or a component is too long
 *   -EXDEV        BENEATH: escape via "..", an absolute path or link;
 *                 NO_XDEV: a mount crossing;
 *                 a magic link under BENEATH or IN_ROOT
 *   -ELOOP        NO_SYMLINKS: a symlink; NO_MAGICLINKS: a magic link;
 *                 more than RESOLVER_MAX_SYMLINKS links;
 *                 O_NOFOLLOW on a final link;
 *                 (resolver_open_how) more than RESOLVER_MAX_HOPS
 *                 directories of @how->into
 *   -EAGAIN       the kernel saw a rename or mount race on ".." more than
 *                 RESOLVER_EAGAIN_RETRIES times in a row; the emulation,
 *                 scoped without NO_XDEV: a ".." onto a mount stacked on
 *                 the root since @root_fd was opened (which the kernel
 *                 follows into the mount)
 *   -EACCES, -EPERM, -EMFILE, -ENFILE, -ENOMEM, -ENXIO, ...
 *                 as openat2 gives
 */
/* clang-format on */
int resolver_open(int root_fd, const char *path, int open_flags,
                  uint64_t resolve);

/*
 * resolver_open_how - like resolver_open, with the backend chosen per call.
 * @served, when not NULL, receives the backend that answered (KERNEL,
 * EMULATED or LEXICAL), also when the answer is an error.
 *
 * Returns what resolver_open returns.
 */
int resolver_open_how(int root_fd, const char *path,
                      const struct resolver_how *how,
                      enum resolver_backend *served);

/*
 * resolver_into_open - open the directory @path (symlinks in it followed:
 * it is configured, so trusted) for resolver_how.into: its fd, the path the
 * kernel names it by, and @path as its alias when that differs (with "//",
 * "/." and a trailing '/' dropped; not when it holds "..").
 * Release @out with resolver_into_close.
 *
 * Returns 0, -EINVAL for a relative @path, -ENOMEM, or the -errno of
 * open(2) (-ENOENT, -ENOTDIR, -EACCES, ...) or of reading its path.
 */
int resolver_into_open(const char *path, struct resolver_into *out);

/* resolver_into_close - close and free what @d holds; safe twice. */
void resolver_into_close(struct resolver_into *d);

/*
 * resolver_set_backend - set the process default backend (AUTO at start).
 *
 * Returns 0, or -EINVAL for RESOLVER_BACKEND_DEFAULT or an unknown value.
 */
int resolver_set_backend(enum resolver_backend backend);

/* resolver_get_backend - the process default backend as set. */
enum resolver_backend resolver_get_backend(void);

/*
 * resolver_auto_backend - the backend "auto" uses now: KERNEL or EMULATED.
 * Probes openat2 on the first call. @why, when not NULL, receives a static
 * sentence saying why ("openat2 available", "openat2 returned ENOSYS ...").
 * The answer changes from KERNEL to EMULATED if openat2 later starts failing
 * with ENOSYS or EPERM (a seccomp filter installed after start-up).
 */
enum resolver_backend resolver_auto_backend(const char **why);

/*
 * resolver_auto_errno - what openat2 answered that made "auto" leave the
 * kernel backend: ENOSYS or EPERM; 0 while the kernel backend serves (or
 * before the first probe).
 */
int resolver_auto_errno(void);

/*
 * resolver_backend_name - "auto", "kernel", "emulated", "lexical", "default".
 * Returns "?" for an unknown value.
 */
const char *resolver_backend_name(enum resolver_backend backend);

/*
 * resolver_backend_parse - parse a backend name (not "default").
 *
 * Returns 0, or -EINVAL for an unknown name.
 */
int resolver_backend_parse(const char *name, enum resolver_backend *out);

/*
 * resolver_flags_parse - parse a comma list of flag names:
 * beneath, in-root, no-xdev, no-symlinks, no-magiclinks, no-jumps.
 * An empty list is 0 (unconfined). The result is not validated: call
 * resolver_flags_check for that.
 *
 * Returns 0, or -EINVAL for an unknown or empty name; then @bad, when not
 * NULL, points at the offending token inside @list (its length in @bad_len).
 */
int resolver_flags_parse(const char *list, uint64_t *out, const char **bad,
                         size_t *bad_len);

/*
 * resolver_flags_check - whether @resolve is a valid flag set.
 *
 * Returns 0, or -EINVAL for unknown bits or BENEATH together with IN_ROOT.
 */
int resolver_flags_check(uint64_t resolve);

/*
 * resolver_flags_format - write @resolve as a comma list ("beneath,no-xdev")
 * into @buf of @size bytes, NUL-terminated; "none" for 0.
 *
 * Returns the length the full string needs (like snprintf).
 */
size_t resolver_flags_format(uint64_t resolve, char *buf, size_t size);

/*
 * resolver_errno_name - "EXDEV", "ELOOP", "ENOENT", ... for a positive errno,
 * or NULL when the library does not know it.
 */
const char *resolver_errno_name(int err);

/*
 * The emulated backend's directory cache.
 *
 * The emulation pays one openat per directory on the path. A cache keeps the
 * directories it has walked down to from the root by plain names (no "..",
 * no symlink) as O_PATH fds, so the next walk starts from the deepest one it
 * holds. Every answer given with the help of the cache is checked afterwards
 * against the kernel's own change reports: an inotify watch on each cached
 * directory and on the root (a directory moved, deleted or its attributes
 * changed, a child directory moved or deleted) and a poll of the mount table
 * (/proc/self/mountinfo: any mount or unmount). One epoll_wait with a zero
 * timeout says whether anything happened since the cache was last known
 * good; if anything did, the cache is emptied and the path walked again
 * without it. So once a rename(2) (rmdir, chmod, mount...) has returned, no
 * answer uses a directory it moved: the answer is the one a walk from the
 * root gives. A change still in progress may be visible to other lookups a
 * moment before its event is queued; an answer given in that moment may
 * come from just before the change, as a walk that overlaps it can.
 * Only directories on local filesystems whose changes the kernel sees (tmpfs,
 * ramfs, ext2/3/4, xfs, btrfs, f2fs, overlayfs, and the read-only squashfs,
 * erofs and iso9660) are kept: on NFS, FUSE or 9p another machine can change
 * the tree without an event here. Without inotify, epoll or /proc the cache
 * stays empty and every walk is the plain one.
 *
 * Only directories on the root's own mount are kept (so the cache never
 * keeps a mount busy); below a mount point the walk goes on uncached.
 *
 * The directories kept were opened with the credentials in force then, and
 * a walk that starts from one of them is not searched again through its
 * ancestors. So the process's credentials (uid, gids, capabilities: a
 * privilege drop) must not change while a cache holds directories: free
 * every cache before such a change, or make them after it.
 *
 * A cache belongs to one thread at a time (give each thread its own). It
 * holds one fd per directory kept, plus three (inotify, mountinfo, epoll)
 * once used.
 */
struct resolver_cache_stats {
    uint64_t hits;    /* directories taken from the cache */
    uint64_t misses;  /* directories opened and offered to it */
    uint64_t adds;    /* of those, kept */
    uint64_t flushes; /* times emptied: a change seen, or full */
    uint64_t rewalks; /* answers thrown away and walked again */
    unsigned dirs;    /* directories held now */
    int off_errno;    /* why the cache is off (0: it is not) */
};

/*
 * resolver_cache_new - a cache for walks beneath @root_fd, holding at most
 * @max_dirs directories (when full it is emptied and fills again).
 * @root_fd is borrowed: it must stay open, naming the same directory, until
 * resolver_cache_free; resolver_open_how refuses (-EINVAL) a cache made for
 * another fd. Nothing is opened before the first emulated walk.
 * Returns 0 and *@out, -EBADF for a negative @root_fd, -EINVAL for
 * @max_dirs 0, or -ENOMEM.
 */
int resolver_cache_new(int root_fd, unsigned max_dirs,
                       struct resolver_cache **out);

/* resolver_cache_free - close every fd @c holds, free it; NULL: no-op. */
void resolver_cache_free(struct resolver_cache *c);

/* resolver_cache_get_stats - counters of @c since resolver_cache_new. */
void resolver_cache_get_stats(const struct resolver_cache *c,
                              struct resolver_cache_stats *out);

#endif
