// SPDX-License-Identifier: MIT
/*
 * error_pages.c - parse --error-page values and find a status's page.
 */
#include "syntax/error_pages.h"

#include "syntax/errbuf.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

const char *error_pages_find(const struct error_pages *e, unsigned status)
{
    for (size_t i = 0; e && i < e->n; i++)
        if (e->v[i].status == status)
            return e->v[i].path;
    return NULL;
}

int error_pages_add(struct error_pages *e, const char *spec, char *err,
                    size_t err_size)
{
    const char *eq = strchr(spec, '='), *p = spec, *file;
    unsigned codes[200];
    size_t n = 0;
    struct error_page *grown;

    if (!eq) {
        errbuf_say(err, err_size, "%s",
                   "expected CODES=FILE, as in 404=/errors/404.html");
        return -EINVAL;
    }
    file = eq + 1;
    while (*file == '/')
        file++;
    if (*file == '\0') {
        errbuf_say(err, err_size, "%s", "FILE names no file under the root");
        return -EINVAL;
    }
    while (p < eq) {
        unsigned v = 0;
        size_t digits = 0;

        while (p < eq && (*p == ' ' || *p == '\t'))
            p++;
        while (p < eq && *p >= '0' && *p <= '9' && digits < 4) {
            v = v * 10 + (unsigned)(*p++ - '0');
            digits++;
        }
        while (p < eq && (*p == ' ' || *p == '\t'))
            p++;
        if (digits != 3 || (p < eq && *p != ',') || v < 400 || v > 599) {
            errbuf_say(err, err_size,
                       "'%.*s': CODES is a comma list of statuses 400-599",
                       (int)(eq - spec > 64 ? 64 : eq - spec), spec);
            return -EINVAL;
        }
        bool dup = error_pages_find(e, v) != NULL;
        for (size_t i = 0; i < n; i++)
            dup = dup || codes[i] == v;
        if (dup) {
            errbuf_say(err, err_size, "status %u has an error page already", v);
            return -EINVAL;
        }
        if (n < sizeof codes / sizeof codes[0])
            codes[n++] = v;
        if (p < eq)
            p++; /* the comma */
        if (p == eq && eq[-1] == ',') {
            errbuf_say(err, err_size, "%s", "empty item in CODES");
            return -EINVAL;
        }
    }
    if (n == 0) {
        errbuf_say(err, err_size, "%s", "no status before '='");
        return -EINVAL;
    }
    grown = realloc(e->v, (e->n + n) * sizeof *grown);
    if (!grown)
        return -ENOMEM;
    e->v = grown;
    for (size_t i = 0; i < n; i++) {
        e->v[e->n].status = codes[i];
        e->v[e->n].path = strdup(file);
        if (!e->v[e->n].path)
            return -ENOMEM;
        e->n++;
    }
    return 0;
}

void error_pages_free(struct error_pages *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->n; i++)
        free(e->v[i].path);
    free(e->v);
    e->v = NULL;
    e->n = 0;
}
