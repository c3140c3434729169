/* SPDX-License-Identifier: MIT */
/*
 * e2e_docs.h - what the suites of test_e2e_docs share (test_e2e_docs.c
 * defines it): the fixture site, made once per tcase, and a GET with an
 * Accept-Encoding.
 */
#ifndef BENEATH_TESTS_DOCS_E2E_DOCS_H
#define BENEATH_TESTS_DOCS_E2E_DOCS_H

#include "harness.h"

/* The fixture site's root: every file at one old mtime, with sidecars. */
extern char *www;

/*
 * Unchecked: make the site (after harness_suite_setup). Checked: the
 * harness's, and no reply may carry the secret kept outside the root.
 */
void docs_suite_setup(void);
void docs_test_setup(void);

/* Those, and 120 s per test: the fixture of every tcase of the suites. */
#define DOCS_FIXTURE                                                           \
    {                                                                          \
        .setup = docs_test_setup, .teardown = harness_test_teardown,           \
        .unchecked_setup = docs_suite_setup,                                   \
        .unchecked_teardown = harness_suite_teardown, .timeout = 120           \
    }

/* GET @path with Accept-Encoding @ae and one more header line @extra (each
 * NULL: none). */
struct http_response *get_ae(struct server *s, const char *path, const char *ae,
                             const char *extra);

/* Health, metrics, Server-Timing, listeners, a SIGHUP root flip. */
Suite *docs_ops_suite(void);
/* --follow-into: python3-doc, links beside it (test_e2e_docs_follow.c). */
Suite *docs_follow_suite(void);

#endif
