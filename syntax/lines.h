/* SPDX-License-Identifier: MIT */
/*
 * lines.h - line-oriented files (htpasswd, _redirects, _headers): walk the
 * lines of a buffer and collect "NAME:LINE: why" messages.
 *
 * The parsers read a whole file from memory (the caller reads it, from a
 * path or through the resolver) and never print: every problem becomes one
 * message here, and parsing goes on so one run shows them all. Only the
 * first LINES_DIAG_KEEP messages are kept; the rest are counted, so a file
 * of 100,000 bad lines costs no more memory than one of 20.
 */
#ifndef BENEATH_SYNTAX_LINES_H
#define BENEATH_SYNTAX_LINES_H

#include <stdbool.h>
#include <stddef.h>

/* Messages kept; further ones are only counted in .dropped. */
#define LINES_DIAG_KEEP 20

struct lines {
    const char *p, *end;
    unsigned lineno; /* of the line lines_next returned last */
};

struct lines_diag {
    char **msgs; /* "NAME:LINE: why", each owned */
    size_t n;
    size_t dropped; /* messages past LINES_DIAG_KEEP */
    bool oom;       /* a message could not be allocated */
    /* warnings: a line that is ignored, the file still used */
    char **warnings; /* "NAME:LINE: why", each owned */
    size_t n_warnings;
    size_t warnings_dropped; /* past LINES_DIAG_KEEP, or not allocated */
};

/* lines_init - walk @len bytes at @text (borrowed). */
void lines_init(struct lines *l, const char *text, size_t len);

/*
 * lines_next - the next line without its "\n" or "\r\n" in @line/@len (not
 * NUL-terminated; it may hold NUL bytes, which the caller refuses).
 *
 * Returns false after the last line.
 */
bool lines_next(struct lines *l, const char **line, size_t *len);

/* lines_count - lines in @len bytes at @text, plus one: a bound on the
 * entries of a file, for one allocation before parsing. */
size_t lines_count(const char *text, size_t len);

/* Which lines lines_entry passes over. */
struct lines_how {
    size_t max;           /* longer lines are reported */
    bool comment_col0;    /* only a '#' in column 0 starts a comment
                             (otherwise also one after blanks) */
    const char *name;     /* of the file, for the messages */
    struct lines_diag *d; /* where the messages go */
};

/*
 * lines_entry - lines_next, passing over blank lines (spaces and tabs) and
 * comments, and reporting to @how->d then passing over lines longer than
 * @how->max bytes or holding a NUL byte. *@indent gets the number of
 * leading blanks of the line returned.
 */
bool lines_entry(struct lines *l, const struct lines_how *how,
                 const char **line, size_t *len, size_t *indent);

/* lines_diag_add - add "@name:@line: " followed by the formatted message. */
__attribute__((format(printf, 4, 5))) void lines_diag_add(struct lines_diag *d,
                                                          const char *name,
                                                          unsigned line,
                                                          const char *fmt, ...);

/*
 * lines_diag_warn - add a warning, "@name:@line: " followed by the formatted
 * message: the file is used, that line is not. Warnings count in no verdict.
 */
__attribute__((format(printf, 4, 5))) void
lines_diag_warn(struct lines_diag *d, const char *name, unsigned line,
                const char *fmt, ...);

/* lines_diag_count - every message (not warning) added, kept or not. */
size_t lines_diag_count(const struct lines_diag *d);

/*
 * lines_diag_verdict - what a parser returns once it has read the whole
 * file, @before being lines_diag_count(@d) when it started: 0 when no
 * message was added since, -ENOMEM when one could not be allocated,
 * otherwise -EINVAL (the messages say why).
 */
int lines_diag_verdict(const struct lines_diag *d, size_t before);

/* lines_diag_free - release the messages and warnings; @d may be zeroed or
 * NULL. */
void lines_diag_free(struct lines_diag *d);

#endif
