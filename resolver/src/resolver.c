/* SPDX-License-Identifier: MIT */
/*
 * resolver.c - the front door: validates arguments, picks the backend, and
 * decides the auto fallback.
 *
 * "auto" calls openat2. Only two answers mean openat2 is absent rather than
 * answering: ENOSYS (old kernel, or seccomp) and EPERM from a seccomp filter.
 * EPERM can also be a real answer about a file, so it switches the process to
 * the emulation only when a probe on "/" (where EPERM cannot be an answer)
 * fails the same way. The switch is remembered for the life of the process;
 * EXDEV, ELOOP and EAGAIN are answers and never switch.
 *
 * Following into the directories of resolver_how.into is done here, the
 * same way over every real backend: a resolution is a run of segments,
 * each one resolver call beneath one directory fd (the root, then each
 * directory a link led into). A segment answered -EXDEV is walked by the
 * emulation (which the emulated backend just did) to learn whether a link
 * left for one of those directories; if so, the next segment resolves the
 * rest beneath it.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Bits an O_PATH open may carry, as openat2 allows (O_PATH_FLAGS). */
#define PATH_OK_FLAGS (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define OPEN_OK_FLAGS                                                          \
    (O_RDONLY | O_PATH | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)

enum kernel_state {
    KERNEL_UNKNOWN = 0,
    KERNEL_USABLE,
    KERNEL_ENOSYS,
    KERNEL_EPERM,
};

static _Atomic enum resolver_backend process_backend = RESOLVER_BACKEND_AUTO;
static _Atomic enum kernel_state kernel_state = KERNEL_UNKNOWN;
/* Whether the fallback happened after openat2 had worked (late seccomp). */
static atomic_bool kernel_lost_late;

static int check_open_flags(int open_flags)
{
    if (open_flags & ~OPEN_OK_FLAGS)
        return -EINVAL;
    if ((open_flags & O_PATH) && (open_flags & ~PATH_OK_FLAGS))
        return -EINVAL;
    return 0;
}

int resolver_flags_check(uint64_t resolve)
{
    if (resolve & ~(uint64_t)RESOLVER_ALL_FLAGS)
        return -EINVAL;
    if ((resolve & RESOLVER_BENEATH) && (resolve & RESOLVER_IN_ROOT))
        return -EINVAL;
    return 0;
}

/* Is openat2 blocked for every call, not just refusing this one file? */
static enum kernel_state probe_kernel(void)
{
    int fd = backend_openat2_once(AT_FDCWD, "/", O_PATH | O_CLOEXEC, 0);

    if (fd >= 0) {
        close(fd);
        return KERNEL_USABLE;
    }
    if (fd == -ENOSYS)
        return KERNEL_ENOSYS;
    if (fd == -EPERM)
        return KERNEL_EPERM;
    /* Anything else (EMFILE...) says nothing about absence: keep trying. */
    return KERNEL_USABLE;
}

static void kernel_lost(enum kernel_state why)
{
    enum kernel_state was = atomic_exchange(&kernel_state, why);

    if (was == KERNEL_USABLE)
        atomic_store(&kernel_lost_late, true);
}

enum resolver_backend resolver_auto_backend(const char **why)
{
    enum kernel_state st = atomic_load(&kernel_state);

    if (st == KERNEL_UNKNOWN) {
        enum kernel_state probed = probe_kernel();

        /* Another thread may have decided meanwhile; keep the worse news. */
        if (!atomic_compare_exchange_strong(&kernel_state, &st, probed))
            probed = st;
        st = probed;
    }
    if (why) {
        bool late = atomic_load(&kernel_lost_late);

        switch (st) {
        case KERNEL_ENOSYS:
            *why = late ? "openat2 began to return ENOSYS after start-up "
                          "(a seccomp filter?): userspace emulation"
                        : "openat2 returned ENOSYS (kernel older than 5.6, "
                          "or a seccomp filter): userspace emulation";
            break;
        case KERNEL_EPERM:
            *why = late ? "openat2 began to return EPERM after start-up "
                          "(a seccomp filter): userspace emulation"
                        : "openat2 returned EPERM (a seccomp filter): "
                          "userspace emulation";
            break;
        default:
            *why = "openat2 available";
            break;
        }
    }
    return st == KERNEL_USABLE ? RESOLVER_BACKEND_KERNEL
                               : RESOLVER_BACKEND_EMULATED;
}

int resolver_auto_errno(void)
{
    switch (atomic_load(&kernel_state)) {
    case KERNEL_ENOSYS:
        return ENOSYS;
    case KERNEL_EPERM:
        return EPERM;
    default:
        return 0;
    }
}

/*
 * openat2, and with @hop (NULL: not asked) on its EXDEV the emulation's walk
 * of the same path, which says whether a link left for a directory of
 * @how->into. openat2's answer stands unless the walk answers another
 * error (a hop's rest too long: the emulation's answer too) or finds a hop.
 */
static int open_kernel(int root_fd, const char *path,
                       const struct resolver_how *how, struct walk_hop *hop)
{
    struct resolver_how find = *how;
    int fd = backend_openat2_open(root_fd, path, how);

    if (fd != -EXDEV || !hop)
        return fd;
    find.cache = NULL; /* the emulation's: walked as the kernel does, whole */
    fd = backend_walk_hop(root_fd, path, &find, hop);
    if (fd >= 0) {
        close(fd); /* the tree changed meanwhile: the kernel's answer */
        fd = -EXDEV;
    }
    return fd;
}

static int open_auto(int root_fd, const char *path,
                     const struct resolver_how *how,
                     enum resolver_backend *served, struct walk_hop *hop)
{
    if (resolver_auto_backend(NULL) == RESOLVER_BACKEND_KERNEL) {
        int fd = open_kernel(root_fd, path, how, hop);

        if (fd != -ENOSYS && fd != -EPERM) {
            *served = RESOLVER_BACKEND_KERNEL;
            return fd;
        }
        enum kernel_state st = probe_kernel();
        if (st == KERNEL_USABLE) {
            /* A real EPERM about this file, not a blocked syscall. */
            *served = RESOLVER_BACKEND_KERNEL;
            return fd;
        }
        kernel_lost(st);
    }
    *served = RESOLVER_BACKEND_EMULATED;
    return backend_walk_hop(root_fd, path, how, hop);
}

/* One resolution beneath @dir_fd by @backend (not DEFAULT). */
static int open_one(int dir_fd, const char *path,
                    const struct resolver_how *how,
                    enum resolver_backend backend,
                    enum resolver_backend *served, struct walk_hop *hop)
{
    switch (backend) {
    case RESOLVER_BACKEND_AUTO:
        return open_auto(dir_fd, path, how, served, hop);
    case RESOLVER_BACKEND_KERNEL:
        return open_kernel(dir_fd, path, how, hop);
    case RESOLVER_BACKEND_EMULATED:
        return backend_walk_hop(dir_fd, path, how, hop);
    case RESOLVER_BACKEND_LEXICAL:
        return backend_lexical_open(dir_fd, path, how);
    default:
        return -EINVAL;
    }
}

/* A link found beneath @d is named by its absolute path. */
static void escape_beneath(struct resolver_escape *e,
                           const struct resolver_into *d)
{
    char link[RESOLVER_ESCAPE_MAX];

    if (!e->link[0])
        return;
    memcpy(link, e->link, sizeof(link));
    escape_put(e->link, d->path, strcmp(d->path, "/") ? "/" : "", link,
               strlen(link));
}

/*
 * The segments of a BENEATH resolution with @how->into or @how->escape
 * (resolver.h, "Following into a directory"). @how->escape ends up saying
 * the last segment's own link, or else the link the last hop followed.
 */
static int open_into(int root_fd, const char *path,
                     const struct resolver_how *how,
                     enum resolver_backend backend,
                     enum resolver_backend *served)
{
    struct resolver_how seg = *how;
    struct resolver_escape hopped = {.into = -1};
    struct walk_hop hop = {.into = -1, .rest = NULL};
    const struct resolver_into *beneath = NULL;
    char *held = NULL; /* the path of the segment, after a hop */
    int fd;

    if (seg.escape)
        *seg.escape = (struct resolver_escape){.into = -1};
    for (size_t hops = 0;; hops++) {
        fd = open_one(beneath ? beneath->fd : root_fd, held ? held : path, &seg,
                      backend, served, &hop);
        if (fd != -EXDEV || hop.into < 0)
            break;
        if (hops == RESOLVER_MAX_HOPS) {
            fd = -ELOOP;
            break;
        }
        if (seg.escape) {
            hopped = *seg.escape;
            if (beneath)
                escape_beneath(&hopped, beneath);
            *seg.escape = (struct resolver_escape){.into = -1};
        }
        free(held);
        held = hop.rest;
        hop.rest = NULL;
        beneath = &how->into[hop.into];
        hop.into = -1;
        seg.cache = NULL; /* made for the root */
    }
    if (fd == -EXDEV && seg.escape) {
        if (seg.escape->link[0] && beneath)
            escape_beneath(seg.escape, beneath);
        else if (!seg.escape->link[0])
            *seg.escape = hopped;
    }
    free(hop.rest);
    free(held);
    return fd;
}

static int check_into(const struct resolver_how *how)
{
    if (how->n_into && !how->into)
        return -EINVAL;
    for (size_t i = 0; i < how->n_into; i++)
        if (how->into[i].fd < 0 || !how->into[i].path ||
            how->into[i].path[0] != '/' ||
            (how->into[i].alias && how->into[i].alias[0] != '/'))
            return -EINVAL;
    return 0;
}

int resolver_open_how(int root_fd, const char *path,
                      const struct resolver_how *how,
                      enum resolver_backend *served)
{
    enum resolver_backend dummy;
    enum resolver_backend backend = how->backend;
    /* What the backends get: the caller's how, with O_CLOEXEC added. */
    struct resolver_how checked = *how;
    int err;

    if (!served)
        served = &dummy;
    if (backend == RESOLVER_BACKEND_DEFAULT)
        backend = atomic_load(&process_backend);
    *served = backend;
    if (!path)
        return -EFAULT;
    checked.open_flags |= O_CLOEXEC;
    err = check_open_flags(checked.open_flags);
    if (err == 0)
        err = resolver_flags_check(checked.resolve);
    if (err == 0 && checked.cache && rcache_root_fd(checked.cache) != root_fd)
        err = -EINVAL;
    if (err == 0)
        err = check_into(&checked);
    if (err < 0) {
        if (backend == RESOLVER_BACKEND_AUTO)
            *served = resolver_auto_backend(NULL);
        return err;
    }
    if (backend != RESOLVER_BACKEND_LEXICAL &&
        (checked.resolve & RESOLVER_BENEATH) &&
        (checked.n_into || checked.escape))
        return open_into(root_fd, path, &checked, backend, served);
    return open_one(root_fd, path, &checked, backend, served, NULL);
}

int resolver_open(int root_fd, const char *path, int open_flags,
                  uint64_t resolve)
{
    struct resolver_how how = {
        .open_flags = open_flags,
        .resolve = resolve,
        .backend = RESOLVER_BACKEND_DEFAULT,
    };

    return resolver_open_how(root_fd, path, &how, NULL);
}

int resolver_set_backend(enum resolver_backend backend)
{
    switch (backend) {
    case RESOLVER_BACKEND_AUTO:
    case RESOLVER_BACKEND_KERNEL:
    case RESOLVER_BACKEND_EMULATED:
    case RESOLVER_BACKEND_LEXICAL:
        atomic_store(&process_backend, backend);
        return 0;
    default:
        return -EINVAL;
    }
}

enum resolver_backend resolver_get_backend(void)
{
    return atomic_load(&process_backend);
}

/*
 * @path without "//", "/." and a trailing '/', into @buf of @size bytes:
 * false when it holds ".." (not to be normalised by its text) or is long.
 */
static bool tidy_path(const char *path, char *buf, size_t size)
{
    size_t n = 0;

    for (const char *p = path; *p;) {
        const char *q;

        while (*p == '/')
            p++;
        for (q = p; *q && *q != '/'; q++)
            ;
        if (q - p == 2 && p[0] == '.' && p[1] == '.')
            return false;
        if (q > p && !(q - p == 1 && p[0] == '.')) {
            if (n + 1 + (size_t)(q - p) >= size)
                return false;
            buf[n++] = '/';
            memcpy(buf + n, p, (size_t)(q - p));
            n += (size_t)(q - p);
        }
        p = q;
    }
    if (n == 0)
        buf[n++] = '/';
    buf[n] = '\0';
    return true;
}

int resolver_into_open(const char *path, struct resolver_into *out)
{
    char real[RESOLVER_PATH_MAX];
    char tidy[RESOLVER_PATH_MAX];
    ssize_t n;
    int err = -ENOMEM;

    *out = (struct resolver_into){.fd = -1};
    if (!path || path[0] != '/')
        return -EINVAL;
    out->fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (out->fd < 0) {
        err = -errno;
        goto out_fail;
    }
    /* The kernel's name for it, as walks will read it; realpath without
     * /proc (links by absolute text still work then). */
    n = fsinfo_dir_path(out->fd, real);
    if (n == 0)
        memcpy(real, "/", 2);
    if (n < 0 && !realpath(path, real)) {
        err = -errno;
        goto out_fail;
    }
    out->path = strdup(real);
    if (!out->path)
        goto out_fail;
    if (tidy_path(path, tidy, sizeof(tidy)) && strcmp(tidy, real) != 0) {
        out->alias = strdup(tidy);
        if (!out->alias)
            goto out_fail;
    }
    return 0;
out_fail:
    resolver_into_close(out);
    return err;
}

void resolver_into_close(struct resolver_into *d)
{
    if (d->fd >= 0)
        close(d->fd);
    free(d->path);
    free(d->alias);
    *d = (struct resolver_into){.fd = -1};
}
