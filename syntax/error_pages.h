/* SPDX-License-Identifier: MIT */
/*
 * error_pages.h - --error-page CODES=FILE: which file under the root is the
 * body of which error status.
 *
 * "403,404=/errors/4xx.html" and "500,502,503=/50x.html": codes 400-599,
 * each given one page at most; FILE is a path under the site root (a
 * leading '/' is dropped), opened through the resolver like any request
 * and sent with the original status. Without a page for 404, the root's
 * /404.html (when it exists) stays the default.
 */
#ifndef BENEATH_SYNTAX_ERROR_PAGES_H
#define BENEATH_SYNTAX_ERROR_PAGES_H

#include <stddef.h>

struct error_page {
    unsigned status;
    char *path; /* root-relative: no leading '/' */
};

struct error_pages {
    struct error_page *v;
    size_t n;
};

/*
 * error_pages_add - parse "CODES=FILE" and append its pages to @e.
 *
 * Returns 0, -EINVAL (no '=', a code that is not 400-599 or already has a
 * page, an empty FILE or one naming the root; a sentence in @err; @e
 * unchanged) or -ENOMEM.
 */
int error_pages_add(struct error_pages *e, const char *spec, char *err,
                    size_t err_size);

/* error_pages_find - the page of @status, or NULL. */
const char *error_pages_find(const struct error_pages *e, unsigned status);

/* error_pages_free - release what @e owns; @e may be zeroed or NULL. */
void error_pages_free(struct error_pages *e);

#endif
