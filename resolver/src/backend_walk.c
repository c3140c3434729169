/* SPDX-License-Identifier: MIT */
/*
 * backend_walk.c - the userspace emulation of openat2's RESOLVE_* semantics.
 *
 * Placeholder until the emulation lands (issue 2): answers ENOSYS so nothing
 * can mistake it for a working backend.
 */
#include <errno.h>

#include "internal.h"

int backend_walk_open(int root_fd, const char *path, int open_flags,
                      uint64_t resolve)
{
    (void)root_fd;
    (void)path;
    (void)open_flags;
    (void)resolve;
    return -ENOSYS;
}
