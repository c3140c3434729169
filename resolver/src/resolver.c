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
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
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

static int open_auto(int root_fd, const char *path,
                     const struct resolver_how *how,
                     enum resolver_backend *served)
{
    if (resolver_auto_backend(NULL) == RESOLVER_BACKEND_KERNEL) {
        int fd = backend_openat2_open(root_fd, path, how);

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
    return backend_walk_open(root_fd, path, how);
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
    if (err < 0) {
        if (backend == RESOLVER_BACKEND_AUTO)
            *served = resolver_auto_backend(NULL);
        return err;
    }
    switch (backend) {
    case RESOLVER_BACKEND_AUTO:
        return open_auto(root_fd, path, &checked, served);
    case RESOLVER_BACKEND_KERNEL:
        return backend_openat2_open(root_fd, path, &checked);
    case RESOLVER_BACKEND_EMULATED:
        return backend_walk_open(root_fd, path, &checked);
    case RESOLVER_BACKEND_LEXICAL:
        return backend_lexical_open(root_fd, path, &checked);
    default:
        return -EINVAL;
    }
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
