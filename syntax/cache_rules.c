/* SPDX-License-Identifier: MIT */
/*
 * cache_rules.c - parse and match Cache-Control rules.
 *
 * The globs are glob.c's (compiled once, when the rule is added). Nothing
 * here touches the file system.
 */
#include "syntax/cache_rules.h"

#include "syntax/errbuf.h"
#include "syntax/glob.h"

#include <errno.h>
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

static void free_rule(struct cache_rule *rule)
{
    for (size_t i = 0; i < rule->n_globs; i++)
        glob_free(rule->globs[i]);
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
        ret = glob_compile(p, (size_t)(end - p), &rule.globs[rule.n_globs], err,
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

const char *cache_rules_match(const struct cache_rules *r, const char *path)
{
    for (size_t i = 0; i < r->n; i++)
        for (size_t j = 0; j < r->v[i].n_globs; j++)
            if (glob_match(r->v[i].globs[j], path))
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
