// SPDX-License-Identifier: MIT
/*
 * errbuf.c - format an error message into a caller's buffer.
 */
#include "syntax/errbuf.h"

#include <stdarg.h>
#include <stdio.h>

void errbuf_say(char *err, size_t size, const char *fmt, ...)
{
    va_list ap;

    if (size == 0)
        return;
    va_start(ap, fmt);
    /* The analyzer does not model va_start in an inlined variadic call. */
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
}
