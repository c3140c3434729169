/* SPDX-License-Identifier: MIT */
/*
 * cache_rules.c - parse and match Cache-Control rules.
 *
 * Globs are split into components once, when the rule is added, so matching
 * a request is a walk over two component lists with fnmatch(3) per component
 * and backtracking only at "**". Paths and globs are bytes; nothing here
 * touches the file system.
 */
#include "cache_rules.h"

#include "errbuf.h"

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cache_rules_value_check(const char *value)
{
    if (value == NULL || *value == '\0')
        return -EINVAL;
    for (const unsigned char *p = (const unsigned char *)value; *p; p++)
        if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
            return -EINVAL;
    return 0;
}

static void free_glob(char **comps)
{
    if (comps == NULL)
        return;
    for (char **c = comps; *c != NULL; c++)
        free(*c);
    free(comps);
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

/*
 * Split @glob (@len bytes) into components. A glob without '/' becomes
 * { "**", glob }: "any directories, then this name".
 */
static int split_glob(const char *glob, size_t len, char ***out, char *err,
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
    free_glob(comps);
    free(copy);
    return ret;
}

static void free_rule(struct cache_rule *rule)
{
    for (size_t i = 0; i < rule->n_globs; i++)
        free_glob(rule->globs[i]);
    free(rule->globs);
    free(rule->value);
}

int cache_rules_add(struct cache_rules *r, const char *spec, char *err,
                    size_t err_size)
{
    struct cache_rule rule = {0};
    struct cache_rule *grown;
    const char *eq = strchr(spec, '=');
    const char *value, *p;
    size_t cap = 1;
    int ret = -EINVAL;

    if (eq == NULL) {
        errbuf_say(err, err_size, "%s", "expected GLOB[,GLOB...]=VALUE");
        return -EINVAL;
    }
    value = eq + 1;
    while (*value == ' ' || *value == '\t')
        value++;
    if (cache_rules_value_check(value) < 0) {
        errbuf_say(err, err_size, "%s",
                   "the Cache-Control value is empty or has a control byte");
        return -EINVAL;
    }
    for (p = spec; p < eq; p++)
        cap += *p == ',';
    ret = -ENOMEM;
    rule.globs = calloc(cap, sizeof(*rule.globs));
    rule.value = strdup(value);
    if (rule.globs == NULL || rule.value == NULL)
        goto out_free_rule;
    for (p = spec; p <= eq;) {
        const char *end = p;

        while (end < eq && *end != ',')
            end++;
        /* Trim spaces around each glob: "*.css, *.js" reads naturally. */
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        for (const char *e = end; e > p && (e[-1] == ' ' || e[-1] == '\t');)
            end = --e;
        if (end == p) {
            errbuf_say(err, err_size, "%s", "empty glob");
            ret = -EINVAL;
            goto out_free_rule;
        }
        ret = split_glob(p, (size_t)(end - p), &rule.globs[rule.n_globs], err,
                         err_size);
        if (ret < 0)
            goto out_free_rule;
        rule.n_globs++;
        while (end < eq && *end != ',')
            end++;
        p = end + 1;
    }
    ret = -ENOMEM;
    grown = realloc(r->v, (r->n + 1) * sizeof(*r->v));
    if (grown == NULL)
        goto out_free_rule;
    r->v = grown;
    r->v[r->n++] = rule;
    return 0;

out_free_rule:
    free_rule(&rule);
    return ret;
}

int cache_rules_set_default(struct cache_rules *r, const char *value, char *err,
                            size_t err_size)
{
    char *copy = NULL;

    if (*value != '\0') {
        if (cache_rules_value_check(value) < 0) {
            errbuf_say(err, err_size, "%s",
                       "the Cache-Control value has a control byte");
            return -EINVAL;
        }
        copy = strdup(value);
        if (copy == NULL)
            return -ENOMEM;
    }
    free(r->dflt);
    r->dflt = copy;
    return 0;
}

/*
 * Match components @g against the path at @path. Each path component is
 * copied into a NAME_MAX buffer for fnmatch; a longer one cannot name a file
 * and never matches.
 */
static bool match_from(char *const *g, const char *path)
{
    char name[NAME_MAX + 1];
    size_t len;

    while (*path == '/')
        path++;
    if (*g == NULL)
        return *path == '\0';
    if (strcmp(*g, "**") == 0) {
        for (;;) {
            if (match_from(g + 1, path))
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
    return match_from(g + 1, path + len);
}

const char *cache_rules_match(const struct cache_rules *r, const char *path)
{
    for (size_t i = 0; i < r->n; i++)
        for (size_t j = 0; j < r->v[i].n_globs; j++)
            if (match_from(r->v[i].globs[j], path))
                return r->v[i].value;
    return r->dflt;
}

void cache_rules_free(struct cache_rules *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < r->n; i++)
        free_rule(&r->v[i]);
    free(r->v);
    free(r->dflt);
    r->v = NULL;
    r->n = 0;
    r->dflt = NULL;
}
