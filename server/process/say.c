// SPDX-License-Identifier: MIT
/*
 * say.c - the server's lines on stderr (say.h). The prefix goes in through
 * a stream of our own (fopencookie) put in the place of stderr: every
 * fprintf(stderr, ...) of any layer passes through it, unchanged but for
 * the prefix, one write(2) per call (the stream is unbuffered, as stderr).
 */
#include "process/say.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char head[] = "beneath: ";
#define HEAD_LEN (sizeof head - 1)

static const char *prefix = "";
static FILE *plain; /* stderr before the prefix, while it is in */
static bool at_line_start = true;

/* @buf's bytes with the prefix after each "beneath: " that starts a line,
 * in one write. */
static void put(const char *buf, size_t len)
{
    char *out = NULL;
    size_t olen = 0;
    FILE *f = prefix[0] ? open_memstream(&out, &olen) : NULL;

    if (f) {
        for (size_t i = 0; i < len;) {
            const char *nl = memchr(buf + i, '\n', len - i);
            size_t n = nl ? (size_t)(nl - (buf + i)) + 1 : len - i;

            if (at_line_start && n >= HEAD_LEN &&
                memcmp(buf + i, head, HEAD_LEN) == 0)
                fprintf(f, "%s%s%.*s", head, prefix, (int)(n - HEAD_LEN),
                        buf + i + HEAD_LEN);
            else
                fprintf(f, "%.*s", (int)n, buf + i);
            at_line_start = nl != NULL;
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

void say_block(const char *buf, size_t len)
{
    put(buf, len);
}

static ssize_t cookie_write(void *cookie, const char *buf, size_t len)
{
    (void)cookie;
    put(buf, len);
    return (ssize_t)len;
}

void say_prefix_begin(const char *p)
{
    cookie_io_functions_t io = {.write = cookie_write};
    FILE *f;

    prefix = p;
    if (plain || !p[0] || !(f = fopencookie(NULL, "w", io)))
        return;
    setvbuf(f, NULL, _IONBF, 0);
    plain = stderr;
    stderr = f;
}

void say_prefix_end(void)
{
    prefix = "";
    if (!plain)
        return;
    FILE *f = stderr;
    stderr = plain;
    plain = NULL;
    fclose(f);
}
