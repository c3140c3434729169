/* SPDX-License-Identifier: MIT */
/*
 * cases.h - the row types that several unit suites' loop tables share, and
 * the check of an accept/refuse row (cases.c, in the check_main library).
 *
 *     static const struct spec_case lists[] = {
 *         {"10.0.0.0/8", NULL},
 *         {"10.0.0.300", "'10.0.0.300' is not an IPv4 or IPv6 address"},
 *     };
 *
 *     START_TEST(list_case)
 *     {
 *         ... r = parse(lists[_i].spec, err, sizeof err);
 *         cases_check_spec(&lists[_i], r, err);
 *     }
 */
#ifndef BENEATH_TESTS_CASES_H
#define BENEATH_TESTS_CASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An input that is accepted, or refused with a message. */
struct spec_case {
    const char *spec;
    const char *err; /* NULL: accepted; else the message (or a word of it) */
};

/* An input and the one output it must give. */
struct text_case {
    const char *in;
    const char *want;
};

/* A number and the one text it must give. */
struct num_case {
    uint64_t in;
    const char *want;
};

/* An input and whether a predicate holds for it. */
struct pred_case {
    const char *in;
    bool want;
};

/* A list of rules, a subject, and whether the list matches it. */
struct match_case {
    const char *rules;
    const char *subject;
    int want; /* 1: matches, 0: does not */
};

/* A file name in a listing: how the page writes it, and its link. */
struct name_case {
    const char *name;
    const char *shown;
    const char *href;
};

/*
 * cases_check_spec - one row's outcome, given what the parser returned (@r)
 * and the message it wrote (@err): 0 when @c->err is NULL, else -EINVAL with
 * exactly @c->err as the message.
 */
void cases_check_spec(const struct spec_case *c, int r, const char *err);

/*
 * cases_check_refused - a row that must be refused: @r is -EINVAL and the
 * message @err holds @c->err somewhere in it.
 */
void cases_check_refused(const struct spec_case *c, int r, const char *err);

/*
 * cases_long_line - @head, @n bytes of @fill, then @tail, as one malloc'd
 * string (the caller frees): a line longer than a parser takes.
 */
char *cases_long_line(const char *head, char fill, size_t n, const char *tail);

/*
 * cases_mime_types - a part of a mime.types as Debian's media-types writes
 * it, with one extension on two lines (chemical/x-cif, then the last one):
 * the file the MIME suites give the server instead of the machine's.
 */
extern const char cases_mime_types[];

#endif
