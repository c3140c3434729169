/* SPDX-License-Identifier: MIT */
/*
 * cache_rules.h - Cache-Control values chosen by path glob.
 *
 * A rule is "GLOB[,GLOB...]=VALUE", split at the first '=' (examples below,
 * after this comment, as they hold the comment's closing characters).
 * Rules are tried in the order given; the first rule with a matching glob
 * wins; when none matches, the default (if set) applies.
 *
 * The globs are glob.h's: "*.css" matches the last component at any depth,
 * a glob with '/' the whole path, "**" any number of whole components.
 */
// --cache "*.css,*.js=max-age=31536000, immutable"
// --cache "assets/**=max-age=31536000, immutable"   (hashed-asset folder)
// --cache-default "no-cache"
// "assets/**" matches "assets/x.js", "assets/a/b/x.js" and "assets" itself;
// "docs/**/index.html" matches "docs/index.html" and "docs/a/b/index.html".
#ifndef BENEATH_SYNTAX_CACHE_RULES_H
#define BENEATH_SYNTAX_CACHE_RULES_H

#include <stddef.h>

struct cache_rule {
    char ***globs; /* per glob, a NULL-terminated list of components */
    size_t n_globs;
    char *value; /* the Cache-Control value */
};

struct cache_rules {
    struct cache_rule *v;
    size_t n;
    char *dflt; /* default value, or NULL for no header */
};

/*
 * cache_rules_add - parse @spec and append it to @r.
 * On -EINVAL a sentence naming the problem is written to @err (@err_size
 * bytes, may be 0).
 *
 * Returns 0, -EINVAL (no '=', an empty glob or value, a misplaced "**", an
 * unterminated '[', a control byte in the value) or -ENOMEM.
 */
int cache_rules_add(struct cache_rules *r, const char *spec, char *err,
                    size_t err_size);

/*
 * cache_rules_set_default - set (replace) the default value; "" clears it.
 *
 * Returns 0, -EINVAL (a control byte; message in @err) or -ENOMEM.
 */
int cache_rules_set_default(struct cache_rules *r, const char *value, char *err,
                            size_t err_size);

/*
 * cache_rules_value_check - whether @value can be a Cache-Control value
 * (non-empty, printable ASCII or HTAB, no CR/LF). Returns 0 or -EINVAL.
 */
int cache_rules_value_check(const char *value);

/*
 * cache_rules_match - the Cache-Control value for @path, or NULL for none.
 * The result is borrowed from @r.
 */
const char *cache_rules_match(const struct cache_rules *r, const char *path);

/* cache_rules_free - release what @r owns; @r may be zeroed or NULL. */
void cache_rules_free(struct cache_rules *r);

#endif
