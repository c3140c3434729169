/* SPDX-License-Identifier: MIT */
/*
 * glob.h - path globs, as --cache and --auth write them.
 *
 * Matched against the request path relative to the root (no leading '/',
 * e.g. "assets/app.3f2a.js"):
 * - A glob without '/' matches the last component only, at any depth:
 *   "*.css" matches "site.css" and "a/b/site.css".
 * - A glob with '/' matches the whole path, component by component (a
 *   leading '/' is ignored). Within a component, '*', '?' and '[...]' are
 *   fnmatch(3) patterns (no FNM_PERIOD: dotfiles are the dotfile policy's
 *   business), so they never cross a '/'.
 * - A component "**" matches zero or more whole components (examples after
 *   this comment, which they would close); "**" elsewhere in a component
 *   ("a**b") is an error.
 * Globs are split into components once; matching walks two component lists
 * with fnmatch per component and backtracks only at "**".
 */
// "assets/**" matches "assets", "assets/x.js" and "assets/a/b/x.js";
// "/**" matches every path; "docs/**/index.html" matches "docs/index.html".
#ifndef BENEATH_SYNTAX_GLOB_H
#define BENEATH_SYNTAX_GLOB_H

#include <stdbool.h>
#include <stddef.h>

/* A comma list of globs ("*.pdf, docs/private"), any of which may match. */
struct glob_set {
    char ***v; /* per glob, a NULL-terminated list of components */
    size_t n;
};

/*
 * glob_compile - split the glob of @len bytes at @glob into components
 * (*@out, owned: glob_free).
 *
 * Returns 0, -EINVAL (an empty glob, a misplaced "**", an unterminated '[';
 * a sentence in @err) or -ENOMEM.
 */
int glob_compile(const char *glob, size_t len, char ***out, char *err,
                 size_t err_size);

/* glob_match - whether the components @g match @path. */
bool glob_match(char *const *g, const char *path);

/* glob_free - release components from glob_compile; NULL is accepted. */
void glob_free(char **g);

/*
 * glob_set_parse - compile the comma list of @len bytes at @list into @s
 * (empty before). Spaces around each glob are ignored.
 *
 * Returns 0, -EINVAL (an empty item or a bad glob; a sentence in @err) or
 * -ENOMEM; @s is empty on failure.
 */
int glob_set_parse(struct glob_set *s, const char *list, size_t len, char *err,
                   size_t err_size);

/* glob_set_match - whether any glob of @s matches @path. */
bool glob_set_match(const struct glob_set *s, const char *path);

/* glob_set_free - release what @s owns; @s may be zeroed or NULL. */
void glob_set_free(struct glob_set *s);

#endif
