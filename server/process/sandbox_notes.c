// SPDX-License-Identifier: MIT
/*
 * sandbox_notes.c - what both walls use to say what they did not apply:
 * the notes of the start-up line and errno names (the resolver's, so that
 * the sandbox and the access log name an errno alike). Below sandbox.c
 * and the walls, which call it.
 */
#include "process/sandbox_walls.h"
#include "resolver.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

__attribute__((format(printf, 2, 3))) void sandbox_note(struct walls *w,
                                                        const char *fmt, ...)
{
    va_list ap;
    size_t room = sizeof w->notes - w->notes_len;
    int n;

    if (room < 8)
        return;
    if (w->notes_len) {
        memcpy(w->notes + w->notes_len, "; ", 2);
        w->notes_len += 2;
        room -= 2;
    }
    va_start(ap, fmt);
    n = vsnprintf(w->notes + w->notes_len, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        w->notes_len += (size_t)n < room ? (size_t)n : room - 1;
}

const char *sandbox_errname(int err)
{
    /* the resolver's names first: the log says EXDEV the same way */
    const char *s = resolver_errno_name(err);

    if (!s)
        s = strerrorname_np(err);
    return s ? s : "?";
}
