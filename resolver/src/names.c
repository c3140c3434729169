/* SPDX-License-Identifier: MIT */
/*
 * names.c - the one table of backend names, flag names and errno names,
 * shared by beneath-resolve, the configuration and the server's log.
 */
#include "common/elems.h"
#include "resolver.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    uint64_t bits;
} flag_names[] = {
    {"beneath", RESOLVER_BENEATH},
    {"in-root", RESOLVER_IN_ROOT},
    {"no-xdev", RESOLVER_NO_XDEV},
    {"no-symlinks", RESOLVER_NO_SYMLINKS},
    {"no-magiclinks", RESOLVER_NO_MAGICLINKS},
    {"no-jumps", RESOLVER_NO_JUMPS},
};

static const char *const backend_names[] = {
    [RESOLVER_BACKEND_DEFAULT] = "default",
    [RESOLVER_BACKEND_AUTO] = "auto",
    [RESOLVER_BACKEND_KERNEL] = "kernel",
    [RESOLVER_BACKEND_EMULATED] = "emulated",
    [RESOLVER_BACKEND_LEXICAL] = "lexical",
};

const char *resolver_backend_name(enum resolver_backend backend)
{
    if ((unsigned)backend >= N_ELEMS(backend_names))
        return "?";
    return backend_names[backend];
}

int resolver_backend_parse(const char *name, enum resolver_backend *out)
{
    for (size_t i = RESOLVER_BACKEND_AUTO; i < N_ELEMS(backend_names); i++) {
        if (strcmp(name, backend_names[i]) == 0) {
            *out = (enum resolver_backend)i;
            return 0;
        }
    }
    return -EINVAL;
}

int resolver_flags_parse(const char *list, uint64_t *out, const char **bad,
                         size_t *bad_len)
{
    uint64_t bits = 0;
    const char *p = list;

    if (*p == '\0') {
        *out = 0;
        return 0;
    }
    for (;;) {
        size_t len = strcspn(p, ",");
        size_t i;

        for (i = 0; i < N_ELEMS(flag_names); i++) {
            if (strlen(flag_names[i].name) == len &&
                strncmp(p, flag_names[i].name, len) == 0)
                break;
        }
        if (i == N_ELEMS(flag_names)) {
            if (bad)
                *bad = p;
            if (bad_len)
                *bad_len = len;
            return -EINVAL;
        }
        bits |= flag_names[i].bits;
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    *out = bits;
    return 0;
}

size_t resolver_flags_format(uint64_t resolve, char *buf, size_t size)
{
    size_t len = 0;

    if (size)
        buf[0] = '\0';
    if (resolve == 0)
        return (size_t)snprintf(buf, size, "none");
    /* Single flags only (skip the no-jumps preset), in table order. */
    for (size_t i = 0; i < N_ELEMS(flag_names); i++) {
        uint64_t b = flag_names[i].bits;

        if ((b & (b - 1)) != 0 || !(resolve & b))
            continue;
        int n =
            snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0,
                     "%s%s", len ? "," : "", flag_names[i].name);
        len += (size_t)n;
    }
    return len;
}

/* The errnos the resolver and the server name in answers and logs. */
#define E(x)                                                                   \
    {                                                                          \
        x, #x                                                                  \
    }
static const struct {
    int err;
    const char *name;
} errno_names[] = {
    E(EPERM),  E(ENOENT),    E(EIO),        E(ENXIO),        E(EBADF),
    E(EAGAIN), E(ENOMEM),    E(EACCES),     E(EFAULT),       E(EBUSY),
    E(EEXIST), E(EXDEV),     E(ENODEV),     E(ENOTDIR),      E(EISDIR),
    E(EINVAL), E(ENFILE),    E(EMFILE),     E(ETXTBSY),      E(EFBIG),
    E(ENOSPC), E(EROFS),     E(EMLINK),     E(ENAMETOOLONG), E(ENOSYS),
    E(ELOOP),  E(EOVERFLOW), E(EOPNOTSUPP), E(ESTALE),       E(EINTR),
};
#undef E

const char *resolver_errno_name(int err)
{
    for (size_t i = 0; i < N_ELEMS(errno_names); i++)
        if (errno_names[i].err == err)
            return errno_names[i].name;
    return NULL;
}
