/* SPDX-License-Identifier: MIT */
/*
 * field.h - the pieces of RFC 9110 field values every parser here shares:
 * optional whitespace, comma-separated lists of elements with parameters,
 * and weights (q-values). The characters themselves (tokens, blanks,
 * control bytes) are text.h's.
 */
#ifndef BENEATH_HTTP_FIELD_H
#define BENEATH_HTTP_FIELD_H

#include <stdbool.h>
#include <stddef.h>

/* field_ows - @p past optional whitespace (SP, HTAB). */
const char *field_ows(const char *p);

/*
 * field_qvalue - parse a weight ("0", "0.5", "1.000") at *@p into
 * thousandths (0..1000) and advance *@p past it.
 *
 * Returns false (nothing consumed) when there is no valid weight.
 */
bool field_qvalue(const char **p, int *q);

/*
 * One element of a comma-separated list: "token" or "type/subtype",
 * then parameters ";name=value" (value a token or quoted-string).
 */
struct field_elem {
    const char *tok; /* the element's token (may contain '/') */
    size_t len;
    int q;             /* weight in thousandths; 1000 without a q parameter */
    bool other_params; /* a parameter other than q was present */
    bool ok;           /* well formed */
};

/*
 * field_next - parse the list element starting at @p into @e.
 *
 * Returns the position after the element and its comma (the start of the
 * next element), or NULL when @p is at the end of the list. A malformed
 * element is skipped up to the next comma with @e->ok false; empty
 * elements (",,") come back with a zero @e->len.
 */
const char *field_next(const char *p, struct field_elem *e);

#endif
