/* SPDX-License-Identifier: MIT */
/*
 * cond.h - conditional requests (RFC 9110 section 13) for GET and HEAD.
 */
#ifndef BENEATH_HTTP_COND_H
#define BENEATH_HTTP_COND_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* The request's precondition headers; NULL when absent. */
struct cond_request {
    const char *if_match;
    const char *if_none_match;
    const char *if_modified_since;
    const char *if_unmodified_since;
};

/*
 * cond_evaluate - evaluate the preconditions of a GET or HEAD in the order of
 * RFC 9110 13.2.2 against the representation's @etag (a quoted entity-tag,
 * '"..."') and @mtime (Last-Modified, in seconds).
 *
 * Returns 0 to go on (then Range), 304 (Not Modified) or 412 (Precondition
 * Failed).
 */
int cond_evaluate(const struct cond_request *r, const char *etag, time_t mtime);

/*
 * cond_evaluate_any - cond_evaluate for a representation with @n current
 * strong validators @etags (n >= 1; the first is the one sent): an
 * entity-tag in the request matches when it matches any of them. Used when
 * a file's content tag and the mtime-size tag earlier versions sent before
 * its hash was known both stand for the same unchanged bytes.
 */
int cond_evaluate_any(const struct cond_request *r, const char *const *etags,
                      size_t n, time_t mtime);

/*
 * cond_etag_match_any - cond_etag_match against any of @n tags @etags.
 */
bool cond_etag_match_any(const char *list, const char *const *etags, size_t n,
                         bool weak);

/*
 * cond_etag_match - whether the field value @list ("*" or a comma list of
 * entity-tags) matches @etag; @weak selects weak comparison (W/ prefixes
 * ignored), else strong (a weak tag never matches).
 * A malformed member ends the list: what was matched before it counts.
 */
bool cond_etag_match(const char *list, const char *etag, bool weak);

#endif
