/* SPDX-License-Identifier: MIT */
/*
 * harness_internal.h - what the files of the e2e harness share (harness.c
 * holds the arena and the lists the teardowns empty; harness_tree.c,
 * harness_server.c and harness_http.c use them). Not for tests.
 */
#ifndef BENEATH_TESTS_INTEGRATION_HARNESS_INTERNAL_H
#define BENEATH_TESTS_INTEGRATION_HARNESS_INTERNAL_H

#include "harness.h"

/* Report running out of memory and abort. */
void harness_die_oom(void) __attribute__((noreturn));
/* Record @p (aborting if NULL) in the arena and return it. */
void *harness_own(void *p);
/* A zeroed arena block of @n bytes (at least 1). */
void *harness_alloc(size_t n);

/* Put on the lists harness_test_teardown() stops, closes and cleans up. */
void harness_add_server(struct server *s);
void harness_add_conn(struct raw_conn *c);
void harness_add_easy(CURL *e);
/* Take @c off its list (it is closed by its owner). */
void harness_drop_conn(struct raw_conn *c);

/* Fail the test if @r holds a string given to harness_forbid(). */
void harness_check_forbidden(const struct http_response *r);

#endif
