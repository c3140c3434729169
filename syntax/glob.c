// SPDX-License-Identifier: MIT
/*
 * glob.c - compile and match path globs (semantics in glob.h).
 *
 * Paths and globs are bytes; nothing here touches the file system.
 */
#include "syntax/glob.h"

#include "syntax/errbuf.h"
#include "syntax/text.h"

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

void glob_free(char **g)
{
    if (g == NULL)
        return;
    for (char **c = g; *c != NULL; c++)
        free(*c);
    free(g);
}

/* Check one glob component: "**" alone, else no "**", and '[' closed. */
static int check_component(const char *c)
{
    if (strcmp(c, "**") == 0)
        return 0;
    if (strstr(c, "**") != NULL)
        return -EINVAL;
    for (const char *p = c; *p; p++) {
        if (*p == '\\' && p[1] != '\0') {
            p++;
        } else if (*p == '[') {
            const char *q = p + 1;

            if (*q == '!' || *q == '^')
                q++;
            if (*q == ']')
                q++;
            q = strchr(q, ']');
            if (q == NULL)
                return -EINVAL;
            p = q;
        }
    }
    return 0;
}

/* A glob without '/' becomes { "**", glob }: "any directories, then this". */
int glob_compile(const char *glob, size_t len, char ***out, char *err,
                 size_t err_size)
{
    char *copy = NULL, **comps = NULL;
    size_t n = 0, cap;
    int ret = -ENOMEM;
    bool anywhere = memchr(glob, '/', len) == NULL;

    while (len > 0 && *glob == '/') {
        glob++;
        len--;
    }
    copy = strndup(glob, len);
    if (copy == NULL)
        goto out_free;
    cap = 2;
    for (size_t i = 0; i < len; i++)
        cap += copy[i] == '/';
    comps = calloc(cap + 1, sizeof(*comps));
    if (comps == NULL)
        goto out_free;
    if (anywhere) {
        comps[n] = strdup("**");
        if (comps[n++] == NULL)
            goto out_free;
    }
    for (char *save = NULL, *c = strtok_r(copy, "/", &save); c != NULL;
         c = strtok_r(NULL, "/", &save)) {
        if (check_component(c) < 0) {
            errbuf_say(err, err_size,
                       "bad glob component \"%s\" (\"**\" must be a whole "
                       "component; '[' needs a ']')",
                       c);
            ret = -EINVAL;
            goto out_free;
        }
        comps[n] = strdup(c);
        if (comps[n++] == NULL)
            goto out_free;
    }
    if (n == (anywhere ? 1u : 0u)) {
        errbuf_say(err, err_size, "%s", "empty glob");
        ret = -EINVAL;
        goto out_free;
    }
    free(copy);
    *out = comps;
    return 0;

out_free:
    glob_free(comps);
    free(copy);
    return ret;
}

/*
 * Each path component is copied into a NAME_MAX buffer for fnmatch; a
 * longer one cannot name a file and never matches.
 */
bool glob_match(char *const *g, const char *path)
{
    char name[NAME_MAX + 1];
    size_t len;

    while (*path == '/')
        path++;
    if (*g == NULL)
        return *path == '\0';
    if (strcmp(*g, "**") == 0) {
        for (;;) {
            if (glob_match(g + 1, path))
                return true;
            if (*path == '\0')
                return false;
            path += strcspn(path, "/");
            while (*path == '/')
                path++;
        }
    }
    if (*path == '\0')
        return false;
    len = strcspn(path, "/");
    if (len > NAME_MAX)
        return false;
    memcpy(name, path, len);
    name[len] = '\0';
    if (fnmatch(*g, name, 0) != 0)
        return false;
    return glob_match(g + 1, path + len);
}

int glob_set_parse(struct glob_set *s, const char *list, size_t len, char *err,
                   size_t err_size)
{
    const char *p = list, *end = list + len;
    size_t cap = 1;
    int ret;

    s->v = NULL;
    s->n = 0;
    for (size_t i = 0; i < len; i++)
        cap += list[i] == ',';
    s->v = calloc(cap, sizeof(*s->v));
    if (!s->v)
        return -ENOMEM;
    while (p <= end) {
        const char *e = memchr(p, ',', (size_t)(end - p));
        const char *stop = e ? e : end;

        /* "*.pdf, a/b" reads naturally: spaces are not part of a glob */
        text_trim(&p, &stop);
        if (stop == p) {
            errbuf_say(err, err_size, "%s", "empty glob");
            ret = -EINVAL;
            goto out_free;
        }
        ret = glob_compile(p, (size_t)(stop - p), &s->v[s->n], err, err_size);
        if (ret < 0)
            goto out_free;
        s->n++;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
out_free:
    glob_set_free(s);
    return ret;
}

bool glob_set_match(const struct glob_set *s, const char *path)
{
    for (size_t i = 0; i < s->n; i++)
        if (glob_match(s->v[i], path))
            return true;
    return false;
}

void glob_set_free(struct glob_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        glob_free(s->v[i]);
    free(s->v);
    s->v = NULL;
    s->n = 0;
}
