/* SPDX-License-Identifier: MIT */
/*
 * backend_lexical.c - string normalisation then openat: the UNSAFE baseline.
 *
 * This is how many servers confine paths: drop "." and empty components, pop
 * ".." lexically, refuse (BENEATH) or clamp (IN_ROOT, unscoped) what would go
 * above the root, then one openat(root_fd, normalised, flags). The kernel then
 * follows every symlink on the way, wherever it points, so a symlink planted
 * in the tree ("ln -s /etc x") leads straight out of the root. It exists only
 * as the benchmark's baseline; NO_XDEV, NO_SYMLINKS and NO_MAGICLINKS are
 * ignored. Never serve with it.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int backend_lexical_open(int root_fd, const char *path,
                         const struct resolver_how *how)
{
    uint64_t resolve = how->resolve;
    char out[RESOLVER_PATH_MAX + 2];
    size_t len = strlen(path);
    size_t n = 0;
    const char *p = path;
    int fd;

    if (len == 0)
        return -ENOENT;
    if (len >= RESOLVER_PATH_MAX)
        return -ENAMETOOLONG;
    if (path[0] == '/' && (resolve & RESOLVER_BENEATH))
        return -EXDEV;
    while (*p) {
        size_t clen;

        while (*p == '/')
            p++;
        clen = strcspn(p, "/");
        if (clen == 0 || (clen == 1 && p[0] == '.')) {
            /* empty or ".": nothing */
        } else if (clen == 2 && p[0] == '.' && p[1] == '.') {
            if (n == 0) {
                if (resolve & RESOLVER_BENEATH)
                    return -EXDEV;
            } else {
                while (n > 0 && out[n - 1] != '/')
                    n--;
                if (n > 0)
                    n--; /* the separator */
            }
        } else {
            if (n > 0)
                out[n++] = '/';
            memcpy(out + n, p, clen);
            n += clen;
        }
        p += clen;
    }
    if (n == 0)
        out[n++] = '.';
    else if (path[len - 1] == '/')
        out[n++] = '/'; /* keep "must be a directory" */
    out[n] = '\0';
    fd = openat(root_fd, out, how->open_flags);
    return fd < 0 ? -errno : fd;
}
