/* SPDX-License-Identifier: MIT */
/*
 * backend_openat2.c - the kernel backend: openat2(2) with RESOLVE_* flags.
 *
 * The flags are passed through unchanged (RESOLVER_* == RESOLVE_*). The only
 * thing added here is the bounded retry of EAGAIN, which the kernel returns
 * for a scoped lookup when a rename or mount raced with "..".
 */
#include "internal.h"

#include <errno.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

_Static_assert(RESOLVER_NO_XDEV == RESOLVE_NO_XDEV, "flag value");
_Static_assert(RESOLVER_NO_MAGICLINKS == RESOLVE_NO_MAGICLINKS, "flag value");
_Static_assert(RESOLVER_NO_SYMLINKS == RESOLVE_NO_SYMLINKS, "flag value");
_Static_assert(RESOLVER_BENEATH == RESOLVE_BENEATH, "flag value");
_Static_assert(RESOLVER_IN_ROOT == RESOLVE_IN_ROOT, "flag value");

int backend_openat2_once(int root_fd, const char *path, int open_flags,
                         uint64_t resolve)
{
    struct open_how how = {
        .flags = (uint64_t)(unsigned)open_flags,
        .mode = 0,
        .resolve = resolve,
    };
    long fd = syscall(SYS_openat2, root_fd, path, &how, sizeof(how));

    return fd < 0 ? -errno : (int)fd;
}

int backend_openat2_open(int root_fd, const char *path,
                         const struct resolver_how *how)
{
    int fd = -EAGAIN;

    for (int i = 0; i <= RESOLVER_EAGAIN_RETRIES && fd == -EAGAIN; i++)
        fd = backend_openat2_once(root_fd, path, how->open_flags, how->resolve);
    return fd;
}
