// SPDX-License-Identifier: MIT
/*
 * body.c - a reply's file body read with pread (body.h).
 */
#include "transport/conn/body.h"

#include <errno.h>
#include <unistd.h>

ssize_t body_pread(int fd, uint64_t offset, const struct multipart *mp,
                   uint64_t pos, char *dst, size_t n, bool *short_file)
{
    size_t done = 0;

    while (done < n) {
        uint64_t off = offset + pos + done;
        size_t len = n - done;
        ssize_t got;

        if (mp) {
            size_t text = multipart_step(mp, pos + done, dst + done, n - done,
                                         &off, &len);

            if (text > 0) {
                done += text;
                continue;
            }
            if (len == 0)
                break; /* the end of the multipart body */
        }
        do
            got = pread(fd, dst + done, len, (off_t)off);
        while (got < 0 && errno == EINTR);
        if (got <= 0) {
            *short_file = got == 0;
            return -1;
        }
        done += (size_t)got;
    }
    return (ssize_t)done;
}
