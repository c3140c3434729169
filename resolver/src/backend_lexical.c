/* SPDX-License-Identifier: MIT */
/*
 * backend_lexical.c - string normalisation then openat: the unsafe baseline.
 *
 * Placeholder until the emulation lands (issue 2): answers ENOSYS so nothing
 * can mistake it for a working backend.
 */
#include <errno.h>

#include "internal.h"

int backend_lexical_open(int root_fd, const char *path, int open_flags,
                      uint64_t resolve)
{
    (void)root_fd;
    (void)path;
    (void)open_flags;
    (void)resolve;
    return -ENOSYS;
}
