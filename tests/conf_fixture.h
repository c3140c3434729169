/* SPDX-License-Identifier: MIT */
/*
 * conf_fixture.h - what the configuration suites (test_conf.c,
 * test_conf_file.c, test_conf_values.c) share: parse a string, load an
 * argument list, and turn messages and a printed configuration into one
 * string to compare.
 */
#ifndef BENEATH_TESTS_CONF_FIXTURE_H
#define BENEATH_TESTS_CONF_FIXTURE_H

#include "conf.h"

#include <stddef.h>
#include <sys/types.h>

/* Arguments conf_load_args passes at the most (argv[0] is added). */
#define CONF_FIXTURE_MAX_ARGS 10

/* @n messages at @v, one per line (malloc'd, the caller frees). */
char *msgs_joined(char *const *v, size_t n);

/* conf_print of @c (malloc'd, the caller frees). */
char *conf_printed(const struct conf *c);

/*
 * conf_parse_string - conf_parse of @text (@len bytes, -1 for strlen) as
 * the file "t.conf", onto the defaults.
 */
int conf_parse_string(const char *text, ssize_t len, struct conf *c,
                      struct conf_diag *d);

/* conf_load with the NULL-terminated @args (and "beneath" as argv[0]) and
 * the NULL-terminated environment @env (may be NULL). */
int conf_load_args(const char *const *args, const char *const *env,
                   struct conf *c, struct conf_diag *d);

/*
 * conf_file_refused - conf_parse_string of @text (@len bytes, -1 for strlen)
 * fails with exactly the messages @want, one per line. Returns the number
 * of warnings it gave besides.
 */
size_t conf_file_refused(const char *text, ssize_t len, const char *want);

/*
 * conf_file_prints - conf_parse_string of @text succeeds with no message,
 * and conf_print of the result holds @want (one line or several in order).
 */
void conf_file_prints(const char *text, const char *want);

/*
 * conf_args_prints - conf_load_args of the NULL-terminated @args (no
 * environment) succeeds with no message, and conf_print holds @want.
 */
void conf_args_prints(const char *const *args, const char *want);

/*
 * conf_file_warns - conf_parse_string of @text succeeds with no message and
 * with exactly the warnings @want, one per line.
 */
void conf_file_warns(const char *text, const char *want);

/*
 * conf_reprinted - conf_print of @a parsed back (as the file "printed", onto
 * the defaults) into @b with no message in @d, and @b prints the same text.
 */
void conf_reprinted(const struct conf *a, struct conf *b, struct conf_diag *d);

/* conf_args_refused - conf_load_args of @args and @env fails with exactly
 * the messages @want, one per line. */
void conf_args_refused(const char *const *args, const char *const *env,
                       const char *want);

#endif
