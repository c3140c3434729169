/* SPDX-License-Identifier: MIT */
/*
 * http_suite.h - what the files of the end-to-end HTTP suite share
 * (http_suite.c): the requests they write, the validators of a file, and the
 * making of one Suite per file from a table of tcases, with the rows of the
 * serves[] table (a server's options and the requests it answers).
 *
 * The binary test_e2e_http is test_http.c (files, keep-alive, directories,
 * error pages, and the check_main table), http_targets.c (request targets,
 * traversal, dotfiles), http_cond.c (conditional requests, Range) and
 * http_log.c (access log, resources).
 */
#ifndef BENEATH_TESTS_INTEGRATION_HTTP_SUITE_H
#define BENEATH_TESTS_INTEGRATION_HTTP_SUITE_H

#include "check_main.h"
#include "harness.h"

/* Why every suite of the binary needs root: the fixture site holds a
 * character device (mknod), and the no-xdev case bind-mounts a directory in
 * the server's own mount namespace. */
#define HTTP_NEEDS_ROOT "mknod of a device file and a bind mount"

/* A server over the fixture site with no options. */
struct server *start_default(void);

/*
 * request_text - the bytes of the request written as @t: a GET target
 * ("/x"), "METHOD target" (HTTP/1.1 with Host: x), or, when it holds a CRLF,
 * the whole request as is.
 */
const char *request_text(const char *t);

/* Whatever the requests before did, the server still serves. */
void expect_still_serves(const struct server *s);

/* No response may contain the site's secret or /etc/passwd. */
void forbid_secrets(void);

/* The validators of a file, as a GET answers them. */
struct validators {
    char *etag; /* as sent: a strong entity-tag */
    char *weak; /* W/ + etag */
    char *lm;
};

struct validators get_validators(const struct server *s, const char *path);
/* Replace {ETAG} {WEAK} {LM} in @t. */
char *fill_validators(const char *t, const struct validators *v);

/* A tcase: a loop over a table (or none), the rows of serves[] of the same
 * name, then the other tests. */
struct http_tcase {
    const char *name;
    struct check_loop loop;
    const TTest *const *tests[8];
};

/*
 * The Suite e2e_http_TOPIC_BACKEND of one file: its @n @tcases, each with
 * the rows of serves[] (http_suite.c) of its name.
 */
Suite *http_suite_make(const char *topic, const struct http_tcase *tcases,
                       size_t n);

/* The suites of the binary, one per file. */
Suite *http_files_suite(void);
Suite *http_targets_suite(void);
Suite *http_cond_suite(void);
Suite *http_log_suite(void);

#endif
