/* SPDX-License-Identifier: MIT */
/*
 * pathpat.h - the path patterns of _redirects and _headers files (Netlify /
 * Cloudflare Pages), and an index that finds the first (or every) pattern
 * matching a path without trying them all.
 *
 * A pattern starts with '/' and is matched segment by segment against a
 * normalised URL path (urlpath_normalize): a literal segment matches
 * itself (case-sensitive, as file names are), ":name" matches any one
 * segment and captures it, and a last segment "*" matches the rest of the
 * path, zero or more segments, captured as "splat". A trailing '/' is
 * ignored on both sides ("/blog/" and "/blog" are one path), as Netlify
 * does. '*' elsewhere, an empty or repeated placeholder name, more than
 * PATHPAT_MAX_VARS placeholders, '?' and '#' are errors.
 *
 * The index: a pattern without placeholders or splat is exact and found by
 * a hash of its whole path; the others are bucketed by their first literal
 * segment and its position ("/blog/:slug" under (0, "blog"), "/:lang/docs"
 * under (1, "docs")), among the first PATHPAT_KEY_DEPTH segments, or kept
 * in one "wild" list when they have none (only placeholders, a splat). A
 * lookup tries the exact hit, the bucket of each of the path's segments
 * and the wild list, in pattern order, and stops at the first match: a
 * file of 10,000 rules costs a handful of hash lookups per request; only
 * wild patterns are tried one by one.
 */
#ifndef BENEATH_SYNTAX_PATHPAT_H
#define BENEATH_SYNTAX_PATHPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PATHPAT_MAX_VARS 8
/* Segment positions the index keys on. */
#define PATHPAT_KEY_DEPTH 8

struct pathpat {
    char **seg;   /* literal text, or ":name" */
    size_t n;     /* segments before the splat */
    bool splat;   /* a last "*" */
    char *joined; /* "/a/b" of the literal segments (the exact key) */
    unsigned n_vars;
};

struct pathpat_caps {
    size_t n;
    struct {
        const char *name; /* without ':'; "splat" for the splat */
        size_t name_len;
        const char *v; /* inside the matched path */
        size_t len;
    } c[PATHPAT_MAX_VARS + 1];
};

/*
 * pathpat_parse - parse the pattern of @len bytes at @s into @p.
 *
 * Returns 0, -EINVAL (a sentence in @err) or -ENOMEM.
 */
int pathpat_parse(struct pathpat *p, const char *s, size_t len, char *err,
                  size_t err_size);

/* pathpat_exact - whether @p has neither placeholders nor a splat. */
bool pathpat_exact(const struct pathpat *p);

/*
 * pathpat_match - match the normalised @path ("/a/b", a trailing '/'
 * ignored) against @p; captures go to @caps (may be NULL).
 */
bool pathpat_match(const struct pathpat *p, const char *path,
                   struct pathpat_caps *caps);

/*
 * pathpat_caps_find - the capture named @name (@len bytes), or NULL.
 */
const char *pathpat_caps_find(const struct pathpat_caps *caps, const char *name,
                              size_t len, size_t *vlen);

/* pathpat_has_var - whether @p defines the placeholder @name (@len bytes). */
bool pathpat_has_var(const struct pathpat *p, const char *name, size_t len);

/* pathpat_var_len - how many of the @len bytes at @s, from the first, may
 * make a placeholder's name (letters, digits and '_'). */
size_t pathpat_var_len(const char *s, size_t len);

/* pathpat_free - release what @p owns; @p may be zeroed or NULL. */
void pathpat_free(struct pathpat *p);

struct pathpat_slot;

struct pathpat_index {
    const struct pathpat **pats; /* in rule order (the patterns borrowed) */
    size_t n;
    struct pathpat_slot *exact, *first; /* open addressing, power of 2 */
    size_t exact_cap, first_cap;
    size_t *lists; /* pattern numbers, ascending per slot */
    size_t *wild;  /* patterns not starting with a literal segment */
    size_t n_wild;
};

/*
 * pathpat_index_build - index @n patterns into @ix: @first and those every
 * @stride bytes after it, the same member of each of an array of rules
 * (borrowed: they must outlive @ix).
 *
 * Returns 0 or -ENOMEM.
 */
int pathpat_index_build(struct pathpat_index *ix, const struct pathpat *first,
                        size_t stride, size_t n);

/*
 * pathpat_index_first - the number of the first pattern (in the order
 * given) matching @path, its captures in @caps; SIZE_MAX for none.
 */
size_t pathpat_index_first(const struct pathpat_index *ix, const char *path,
                           struct pathpat_caps *caps);

/*
 * pathpat_index_each - call @fn for every pattern matching @path, in the
 * order given.
 */
void pathpat_index_each(const struct pathpat_index *ix, const char *path,
                        void (*fn)(void *arg, size_t i,
                                   const struct pathpat_caps *caps),
                        void *arg);

/* pathpat_index_free - release what @ix owns (not the patterns). */
void pathpat_index_free(struct pathpat_index *ix);

#endif
