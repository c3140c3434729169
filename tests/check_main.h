/* SPDX-License-Identifier: MIT */
/*
 * check_main.h - the one main() of every Check test binary (check_main.c).
 *
 * A test binary defines its suites and one table, and links check_main:
 *
 *     static Suite *mime_suite(void) { ... }
 *
 *     const struct check_main check_main = {.suites = {{mime_suite}}};
 *
 * The shared main runs the suites with one SRunner, so CK_RUN_SUITE,
 * CK_RUN_CASE, CK_FORK, CK_VERBOSITY and CK_DEFAULT_TIMEOUT work as Check
 * documents them, and exits 0 when every test passed, 1 otherwise. A suite
 * that needs root names the reason in .needs_root: for any other user it is
 * left out with that reason on stderr, and when nothing is left to run the
 * binary exits CHECK_SKIP, which ctest reports as skipped.
 */
#ifndef CHECK_MAIN_H
#define CHECK_MAIN_H

#include <check.h>

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* The exit status ctest counts as skipped (SKIP_RETURN_CODE). */
#define CHECK_SKIP 77

struct check_suite {
    Suite *(*make)(void);
    const char *needs_root; /* why it needs root, or NULL */
};

struct check_main {
    /* Run in this order; the list ends at the first .make == NULL. */
    struct check_suite suites[8];
    /*
     * Optional, once before the first suite runs (and only if one does):
     * returns 0 to go on, or the exit status to end with.
     */
    int (*setup)(int argc, char **argv);
    /* Optional, once after the suites: returns the failures it found. */
    int (*teardown)(void);
};

/* Defined by each test binary. */
extern const struct check_main check_main;

#endif
