/* SPDX-License-Identifier: MIT */
/*
 * access.h - what the suites of test_e2e_access share (test_access.c
 * defines it): a server on a root with more arguments, a start-up that must
 * be refused, and the other suites (test_access_sites.c,
 * test_access_candidates.c).
 */
#ifndef BENEATH_TESTS_INTEGRATION_ACCESS_H
#define BENEATH_TESTS_INTEGRATION_ACCESS_H

#include "harness.h"

/* A server on @root (NULL: none) with the NULL-ended @args. */
struct server *start(const char *root, const char **args);
/* The stderr of a run that must fail at start-up (exit 2); its time in *@ms. */
char *refused(const char **args, long long *ms);

/* htpasswd -b[c]B FILE USER PASSWORD (Debian's apache2-utils). */
void htpasswd_add(const char *file, const char *user, const char *pw,
                  bool create);
/*
 * curl -u USER:PASSWORD URL (the real command line client): the status, and
 * the body in *@body when not NULL. @userpwd NULL: no credentials.
 */
int curl_u(const struct server *s, const char *path, const char *userpwd,
           char **body);

/* Virtual hosts, _redirects and _headers, error pages. */
Suite *access_sites_suite(void);
/* Rules judged on each candidate lookup opens (test_access_candidates.c). */
Suite *access_candidates_suite(void);

#endif
