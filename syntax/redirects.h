/* SPDX-License-Identifier: MIT */
/*
 * redirects.h - the _redirects file of Netlify and Cloudflare Pages (the
 * subset beneath serves) and the answer it gives to one path.
 *
 * One rule a line, fields separated by spaces: FROM TO [STATUS][!].
 * '#' starts a comment line; blank lines are skipped. FROM is a path
 * pattern (pathpat.h: exact, ":name" placeholders, a trailing "*"). TO is a
 * path on this site ("/blog/:slug", "/new/:splat", may carry "?a=b"), or an
 * absolute "https://" URL written as such: no other way out of the origin
 * is accepted ("http://", "//host", a relative path are errors).
 * Placeholders of FROM (and :splat) are substituted in TO,
 * percent-encoded. STATUS: 301 (default), 302, 303, 307, 308 redirect; 200
 * rewrites, i.e. serves TO's file (through the resolver, like any path)
 * under the requested URL. The request's query string is kept, appended to
 * TO's own.
 *
 * As on Netlify, a rule applies only when the path has nothing to serve
 * (the lookup would say 404): so the single-page-app rule (below) still
 * serves the assets. "!" after the status forces the rule even over an
 * existing file. The first matching rule wins.
 *
 * Ignored with a warning FILE:LINE (a site moved from Netlify still starts;
 * without the rule nobody sees less than with it): a FROM with a host (use
 * --vhost), query-parameter fields ("id=:id"), the conditions Country=,
 * Language= and Cookie=, the statuses 404, 410 and 451 (a page sent with
 * that status), and a 200 to another origin (that would be a proxy).
 *
 * Refused with FILE:LINE: a condition that decides who may see the target
 * (Role=, Signed=) or one unknown, other statuses, a TO naming a
 * placeholder FROM lacks, a TO leaving the origin other than by https://,
 * and loops: every redirect rule is followed, with "x" for each
 * placeholder, through the rules it leads to; coming back to itself is an error
 * (a rule whose path exists on disk would not fire, but a loop is refused even
 * so).
 */
// /news/*          /blog/:splat          301
// /docs/:ver/api   /api/:ver             302
// /*               /index.html           200   (single-page app)
// /old             https://example.org/  308!
#ifndef BENEATH_SYNTAX_REDIRECTS_H
#define BENEATH_SYNTAX_REDIRECTS_H

#include "syntax/lines.h"
#include "syntax/pathpat.h"

#include <stdbool.h>
#include <stddef.h>

/* Longest line accepted. */
#define REDIRECTS_LINE_MAX 8192

struct redirect_rule {
    struct pathpat from;
    char *to;        /* as written */
    unsigned status; /* 200, 301, 302, 303, 307 or 308 */
    bool force;      /* "!": even over an existing file */
    bool external;   /* TO is an https:// URL */
    unsigned line;
};

struct redirects {
    struct redirect_rule *v;
    size_t n;
    struct pathpat_index ix;
};

/*
 * redirects_parse - parse @len bytes at @text into @r (zeroed before).
 * Messages go to @d as "@name:LINE: why", the ignored lines' as warnings.
 *
 * Returns 0, -EINVAL (at least one message; @r left empty) or -ENOMEM.
 */
int redirects_parse(struct redirects *r, const char *text, size_t len,
                    const char *name, struct lines_diag *d);

/*
 * redirects_match - the first rule matching the normalised @path
 * (urlpath_normalize), its captures in @caps; NULL for none.
 */
const struct redirect_rule *redirects_match(const struct redirects *r,
                                            const char *path,
                                            struct pathpat_caps *caps);

/*
 * redirects_target - TO of @rule with the captures @caps substituted
 * (percent-encoded) and the request's @query (NULL: none) appended: the
 * Location of a redirect, or the raw path of a rewrite. Writes at most
 * @size bytes, NUL-terminated when @size > 0.
 *
 * Returns the length the whole target needs (like snprintf).
 */
size_t redirects_target(const struct redirect_rule *rule,
                        const struct pathpat_caps *caps, const char *query,
                        char *out, size_t size);

/* redirects_free - release what @r owns; @r may be zeroed or NULL. */
void redirects_free(struct redirects *r);

#endif
