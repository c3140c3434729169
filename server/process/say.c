// SPDX-License-Identifier: MIT
/*
 * say.c - blocks of start-up lines on stderr (say.h).
 */
#include "process/say.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void say_block(const char *buf, size_t len, const char *prefix)
{
    static const char head[] = "beneath: ";
    const size_t hl = sizeof head - 1;
    char *out = NULL;
    size_t olen = 0;
    FILE *f = prefix[0] ? open_memstream(&out, &olen) : NULL;

    if (f) {
        for (size_t i = 0; i < len;) {
            const char *nl = memchr(buf + i, '\n', len - i);
            size_t n = nl ? (size_t)(nl - (buf + i)) + 1 : len - i;

            if (n >= hl && memcmp(buf + i, head, hl) == 0)
                fprintf(f, "%s%s%.*s", head, prefix, (int)(n - hl),
                        buf + i + hl);
            else
                fprintf(f, "%.*s", (int)n, buf + i);
            i += n;
        }
        if (fclose(f) == 0) {
            buf = out;
            len = olen;
        }
    }
    ssize_t w = write(STDERR_FILENO, buf, len);
    (void)w;
    free(out);
}
