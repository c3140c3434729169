// SPDX-License-Identifier: MIT
/*
 * lines.c - walk the lines of a buffer; collect capped FILE:LINE messages
 * (errors and warnings).
 */
#include "syntax/lines.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lines_init(struct lines *l, const char *text, size_t len)
{
    l->p = text;
    l->end = text + len;
    l->lineno = 0;
}

bool lines_next(struct lines *l, const char **line, size_t *len)
{
    const char *nl;
    size_t n;

    if (l->p >= l->end)
        return false;
    nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
    n = nl ? (size_t)(nl - l->p) : (size_t)(l->end - l->p);
    *line = l->p;
    l->p += n + (nl != NULL);
    if (n > 0 && (*line)[n - 1] == '\r')
        n--;
    *len = n;
    l->lineno++;
    return true;
}

size_t lines_count(const char *text, size_t len)
{
    size_t n = 1;

    for (size_t i = 0; i < len; i++)
        n += text[i] == '\n';
    return n;
}

bool lines_entry(struct lines *l, const struct lines_how *how,
                 const char **line, size_t *len, size_t *indent)
{
    const char *s;
    size_t n, skip;

    while (lines_next(l, &s, &n)) {
        skip = 0;
        while (skip < n && (s[skip] == ' ' || s[skip] == '\t'))
            skip++;
        if (skip == n || s[how->comment_col0 ? 0 : skip] == '#')
            continue;
        if (n > how->max) {
            lines_diag_add(how->d, how->name, l->lineno,
                           "line longer than %zu bytes", how->max);
            continue;
        }
        if (memchr(s, '\0', n)) {
            lines_diag_add(how->d, how->name, l->lineno, "NUL byte in line");
            continue;
        }
        *line = s;
        *len = n;
        *indent = skip;
        return true;
    }
    return false;
}

/*
 * Keep "@name:@line: " and the message in *@msgs (*@n kept, *@dropped past
 * LINES_DIAG_KEEP); false when out of memory.
 */
__attribute__((format(printf, 6, 0))) static bool
keep(char ***msgs, size_t *n, size_t *dropped, const char *name, unsigned line,
     const char *fmt, va_list ap)
{
    char msg[512], **nm;
    int head;

    if (*n >= LINES_DIAG_KEEP) {
        (*dropped)++;
        return true;
    }
    head = snprintf(msg, sizeof msg, "%s:%u: ", name, line);
    if (head < 0 || (size_t)head >= sizeof msg)
        head = 0;
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
    vsnprintf(msg + head, sizeof msg - (size_t)head, fmt, ap);
    nm = realloc(*msgs, (*n + 1) * sizeof *nm);
    if (!nm)
        return false;
    *msgs = nm;
    nm[*n] = strdup(msg);
    if (!nm[*n])
        return false;
    (*n)++;
    return true;
}

void lines_diag_add(struct lines_diag *d, const char *name, unsigned line,
                    const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    if (!keep(&d->msgs, &d->n, &d->dropped, name, line, fmt, ap))
        d->oom = true;
    va_end(ap);
}

void lines_diag_warn(struct lines_diag *d, const char *name, unsigned line,
                     const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    /* a warning that cannot be kept is counted as left out */
    if (!keep(&d->warnings, &d->n_warnings, &d->warnings_dropped, name, line,
              fmt, ap))
        d->warnings_dropped++;
    va_end(ap);
}

size_t lines_diag_count(const struct lines_diag *d)
{
    return d->n + d->dropped + (d->oom ? 1 : 0);
}

int lines_diag_verdict(const struct lines_diag *d, size_t before)
{
    if (lines_diag_count(d) == before)
        return 0;
    return d->oom ? -ENOMEM : -EINVAL;
}

void lines_diag_free(struct lines_diag *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n; i++)
        free(d->msgs[i]);
    free(d->msgs);
    for (size_t i = 0; i < d->n_warnings; i++)
        free(d->warnings[i]);
    free(d->warnings);
    memset(d, 0, sizeof *d);
}
