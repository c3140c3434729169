/* SPDX-License-Identifier: MIT */
/*
 * diag.c - what conf says and how it names options: messages and warnings
 * collected in a struct conf_diag (never printed here), the worst-result rule,
 * lookup of a row by name or short name, "did you mean" by edit distance, and
 * the BENEATH_ variable name of a row.
 */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

__attribute__((format(printf, 3, 0))) static int
push(char ***v, size_t *n, const char *fmt, va_list ap)
{
    char *msg, **nv;

    if (vasprintf(&msg, fmt, ap) < 0)
        return -ENOMEM;
    nv = realloc(*v, (*n + 1) * sizeof(*nv));
    if (nv == NULL) {
        free(msg);
        return -ENOMEM;
    }
    *v = nv;
    (*v)[(*n)++] = msg;
    return 0;
}

int diag_add(struct conf_diag *d, const char *fmt, ...)
{
    va_list ap;
    int r;

    va_start(ap, fmt);
    r = push(&d->msgs, &d->n, fmt, ap);
    va_end(ap);
    return r < 0 ? r : -EINVAL;
}

int diag_warn(struct conf_diag *d, const char *fmt, ...)
{
    va_list ap;
    int r;

    va_start(ap, fmt);
    r = push(&d->warnings, &d->n_warnings, fmt, ap);
    va_end(ap);
    return r;
}

void worst(int *acc, int r)
{
    if (r == -ENOMEM || (r < 0 && *acc == 0))
        *acc = r;
}

void conf_diag_free(struct conf_diag *d)
{
    if (d == NULL)
        return;
    for (size_t i = 0; i < d->n; i++)
        free(d->msgs[i]);
    for (size_t i = 0; i < d->n_warnings; i++)
        free(d->warnings[i]);
    free(d->msgs);
    free(d->warnings);
    memset(d, 0, sizeof(*d));
}

const struct opt *opt_find(const char *name, size_t len)
{
    for (size_t i = 0; i < n_opts; i++) {
        if (strlen(opts[i].name) == len &&
            strncmp(opts[i].name, name, len) == 0)
            return &opts[i];
    }
    return NULL;
}

const struct opt *opt_find_short(char ch)
{
    for (size_t i = 0; ch && i < n_opts; i++) {
        if (opts[i].short_name == ch)
            return &opts[i];
    }
    return NULL;
}

size_t opt_slot(const struct opt *o)
{
    const struct opt *same =
        o->same_list ? opt_find(o->same_list, strlen(o->same_list)) : NULL;

    return (size_t)((same ? same : o) - opts);
}

/* Edit distance, for "did you mean"; long input is not worth a guess. */
static size_t distance(const char *a, size_t la, const char *b)
{
    size_t lb = strlen(b), row[64], i, j;

    if (la >= N_ELEMS(row) || lb >= N_ELEMS(row))
        return SIZE_MAX;
    for (j = 0; j <= lb; j++)
        row[j] = j;
    for (i = 1; i <= la; i++) {
        size_t diag = row[0];

        row[0] = i;
        for (j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);

            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            if (up + 1 < best)
                best = up + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const struct opt *opt_closest(const char *name, size_t len)
{
    const struct opt *best = NULL;
    size_t best_d = SIZE_MAX;

    for (size_t i = 0; i < n_opts; i++) {
        size_t d = distance(name, len, opts[i].name);

        if (d < best_d) {
            best_d = d;
            best = &opts[i];
        }
    }
    /* a guess at most a third wrong is a useful one */
    return best && best_d * 3 <= len + 2 ? best : NULL;
}

#define ENV_PREFIX "BENEATH_"

void opt_env_name(const struct opt *o, char *buf, size_t n)
{
    size_t i;

    snprintf(buf, n, "%s", ENV_PREFIX);
    i = strlen(buf);
    for (const char *p = o->name; *p && i + 1 < n; p++)
        buf[i++] = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
    buf[i] = '\0';
}
