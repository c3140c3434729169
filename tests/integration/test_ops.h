/* SPDX-License-Identifier: MIT */
/*
 * test_ops.h - the suites of the e2e_ops binary (test_e2e_ops) that its other
 * files build, each named e2e_ops with one tcase, listed in test_ops.c's
 * .suites.
 */
#ifndef BENEATH_TESTS_INTEGRATION_TEST_OPS_H
#define BENEATH_TESTS_INTEGRATION_TEST_OPS_H

#include "check_main.h"

/* Seconds each e2e_ops test may take. */
#define OPS_TIMEOUT 60

/*
 * ops_suite - a suite named e2e_ops of the one tcase @t, with the harness's
 * fixtures and OPS_TIMEOUT where @t leaves its fixture fields unset.
 */
Suite *ops_suite(const struct check_tcase *t);

Suite *ops_startup_suite(void); /* tcase startup: test_ops_startup.c */
Suite *ops_limits_suite(void);  /* tcase limits: test_ops_limits.c */
Suite *ops_signals_suite(void); /* tcase signals: test_ops_signals.c */
Suite *ops_swap_suite(void);    /* tcase swap: test_ops_swap.c */

#endif
