// SPDX-License-Identifier: MIT
/*
 * fuzz_target.c - the request-target decoder (http/target.c) on any bytes,
 * with every flag set. Checks: a decoded path fits the buffer, holds no
 * control byte and never starts with '/' (every leading slash is an empty
 * component: the resolver is always handed a path relative to the root,
 * and confines what ".." and links make of it).
 */
#include "fuzz.h"
#include "http/target.h"

#include <stdbool.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *raw = fuzz_str(data, size);
    size_t n = strlen(raw) + 1;
    char *buf = malloc(n);

    if (!buf)
        abort();
    for (unsigned flags = 0; flags < 4; flags++) {
        struct target t;
        int rc = target_decode(raw, flags, buf, n, &t);
        if (rc != 0)
            continue;
        if (t.asterisk)
            continue;
        size_t len = strlen(t.path);
        if (len >= n || t.path[0] == '/')
            abort();
        for (size_t i = 0; i < len; i++)
            if ((unsigned char)t.path[i] < 0x20 || t.path[i] == 0x7f)
                abort();
    }
    free(buf);
    free(raw);
    return 0;
}
