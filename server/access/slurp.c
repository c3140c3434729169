// SPDX-License-Identifier: MIT
/*
 * slurp.c - read a bounded regular file whole.
 *
 * The size comes from fstat and bounds the read: a file that grows while
 * it is read is cut at the size it had, never read without end.
 */
#include "access/slurp.h"

#include "common/handed.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int slurp_fd(int fd, size_t max, char **out, size_t *len)
{
    struct stat st;
    char *buf;
    size_t n = 0;

    if (fstat(fd, &st) != 0)
        return -errno;
    if (!S_ISREG(st.st_mode))
        return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
    if ((uint64_t)st.st_size > max)
        return -EFBIG;
    buf = malloc((size_t)st.st_size + 1);
    if (!buf)
        return -ENOMEM;
    while (n < (size_t)st.st_size) {
        ssize_t r = pread(fd, buf + n, (size_t)st.st_size - n, (off_t)n);

        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int err = -errno;
            free(buf);
            return err;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

int slurp_path(const char *path, size_t max, char **out, size_t *len)
{
    /* a regular file only: a FIFO must not hang the start-up */
    int fd = handed_open(path, O_RDONLY | O_CLOEXEC);
    int err;

    if (fd < 0)
        return -errno;
    err = slurp_fd(fd, max, out, len);
    close(fd);
    return err;
}

const char *slurp_error(int err, size_t max, char *buf, size_t size)
{
    if (err == -EFBIG) {
        snprintf(buf, size, "larger than %zu MiB", max >> 20);
        return buf;
    }
    return handed_strerror(-err);
}
