// SPDX-License-Identifier: MIT
/*
 * status.c - the only errno -> HTTP status table, and reason phrases.
 *
 * A refusal by the confined resolver (EXDEV: the path leaves the root or
 * crosses a mount; ELOOP: a forbidden symlink) is a 403, as nginx answers for
 * disable_symlinks; the access log names the errno. Missing things are 404.
 * A socket (ENXIO) or driverless device (ENODEV) is not a file to serve: 403,
 * like a FIFO. EAGAIN means the resolver already retried a rename race: 503,
 * try again.
 */
#include "http/status.h"

#include <errno.h>
#include <stddef.h>

static const struct {
    int err;
    int status;
} errno_status[] = {
    /* clang-format off */
    {ENOENT,       STATUS_NOT_FOUND},
    {ENOTDIR,      STATUS_NOT_FOUND},
    {ENAMETOOLONG, STATUS_NOT_FOUND},
    {EACCES,       STATUS_FORBIDDEN},
    {EPERM,        STATUS_FORBIDDEN},
    {EXDEV,        STATUS_FORBIDDEN},  /* confinement: leaves root, mount */
    {ELOOP,        STATUS_FORBIDDEN},  /* confinement: forbidden symlink */
    {ENXIO,        STATUS_FORBIDDEN},  /* open(2) of a socket */
    {ENODEV,       STATUS_FORBIDDEN},  /* a device without a driver */
    {EAGAIN,       STATUS_SERVICE_UNAVAILABLE},
    /* clang-format on */
};

int status_from_errno(int err)
{
    if (err < 0)
        err = -err;
    for (size_t i = 0; i < sizeof errno_status / sizeof errno_status[0]; i++)
        if (errno_status[i].err == err)
            return errno_status[i].status;
    return STATUS_INTERNAL_SERVER_ERROR;
}

const char *status_reason(int code)
{
    switch (code) {
#define STATUS_CASE(num, name, reason)                                         \
    case num:                                                                  \
        return reason;
        HTTP_STATUS_MAP(STATUS_CASE)
#undef STATUS_CASE
    default:
        return "Unknown";
    }
}
