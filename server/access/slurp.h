/* SPDX-License-Identifier: MIT */
/*
 * slurp.h - read a whole, bounded, regular file into memory: the
 * htpasswd, _redirects and _headers files.
 */
#ifndef BENEATH_ACCESS_SLURP_H
#define BENEATH_ACCESS_SLURP_H

#include <stddef.h>

/*
 * slurp_fd - read the regular file @fd (borrowed) whole into a new buffer
 * (*@out, NUL-terminated, owned by the caller; *@len bytes before the NUL).
 *
 * Returns 0, -EISDIR, -EINVAL (another file that is not regular),
 * -EFBIG (larger than @max), -ENOMEM or the -errno of fstat/read.
 */
int slurp_fd(int fd, size_t max, char **out, size_t *len);

/* slurp_path - slurp_fd of handed_open(@path) (common/handed.h), whose
 * -errno it also returns. */
int slurp_path(const char *path, size_t max, char **out, size_t *len);

/* slurp_error - a phrase for an error of slurp_*: "larger than 16 MiB" */
const char *slurp_error(int err, size_t max, char *buf, size_t size);

#endif
