// SPDX-License-Identifier: MIT
/*
 * fuzz_target.c - the request-target decoder (http/target.c) on any bytes,
 * with every flag set. Checks: a decoded path fits the buffer and holds no
 * control byte. (A path may start with '/': "//x" is passed on as "/x",
 * and the resolver refuses or clamps the absolute path, which is the
 * point of the project.)
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
        if (len >= n)
            abort();
        for (size_t i = 0; i < len; i++)
            if ((unsigned char)t.path[i] < 0x20 || t.path[i] == 0x7f)
                abort();
    }
    free(buf);
    free(raw);
    return 0;
}
