/* SPDX-License-Identifier: MIT */
/*
 * check_main.h - the one main() of every Check test binary (check_main.c).
 *
 * A test binary defines its tests with START_TEST and one table, and links
 * the check_main library. Most describe their suite as data:
 *
 *     LOOP_TEST(parse_case, cases) { ... cases[_i] ... }
 *     END_TEST
 *
 *     const struct check_main check_main = {
 *         .suite = "date",
 *         .tcases = {{"parse", .loops = {LOOP(parse_case)},
 *                     .tests = {&format_round_trip}}}};
 *
 * and a tcase with a checked fixture: {"lines", setup, teardown, .tests =
 * ...}.
 *
 * (a START_TEST is named with &, so the table is a constant). A suite whose
 * tcases are made in a loop is built in code by a function listed in .suites
 * instead, or as well; one whose table needs values known only at run time
 * (a loop over another file's table) returns check_suite_make() of a table
 * it fills in.
 *
 * The shared main runs every suite with one SRunner, so CK_RUN_SUITE,
 * CK_RUN_CASE, CK_FORK, CK_VERBOSITY and CK_DEFAULT_TIMEOUT work as Check
 * documents them, and exits 0 when every test passed, 1 otherwise. A suite
 * in .suites that needs root names the reason in .needs_root: for any other
 * user it is left out with that reason on stderr, and when nothing is left to
 * run the binary exits CHECK_SKIP, which ctest reports as skipped.
 */
#ifndef BENEATH_TESTS_CHECK_MAIN_H
#define BENEATH_TESTS_CHECK_MAIN_H

#include "common/elems.h"

#include <check.h>
#include <stddef.h>

/* The exit status ctest counts as skipped (SKIP_RETURN_CODE). */
#define CHECK_SKIP 77

/* A loop test: the START_TEST @test runs for rows _i = 0 .. rows - 1. */
struct check_loop {
    const TTest *const *test;
    int rows;
};

/*
 * LOOP_TEST(name, table) starts a test run once per row of @table (_i is
 * the row), and LOOP(name) is its entry in a tcase's .loops: the row count
 * is written where the table is indexed, so no entry can pair a test with
 * another table's length.
 */
#define LOOP_TEST(name, table)                                                 \
    enum { name##_rows = (int)N_ELEMS(table) };                                \
    START_TEST(name)
#define LOOP(name)                                                             \
    {                                                                          \
        &(name), name##_rows                                                   \
    }

/* What runs around the tests of a tcase; a field left unset is not used. */
struct check_fixture {
    void (*setup)(void); /* checked: around each test, in its process */
    void (*teardown)(void);
    void (*unchecked_setup)(void); /* once per tcase, in the runner */
    void (*unchecked_teardown)(void);
    int timeout; /* seconds per test; 0: Check's default */
};

/* A tcase; its fixture fields left unset are check_main.fixture's. */
struct check_tcase {
    const char *name;
    void (*setup)(void);
    void (*teardown)(void);
    void (*unchecked_setup)(void);
    void (*unchecked_teardown)(void);
    int timeout;
    /* Run in this order, loops first; each list ends at the first NULL. */
    struct check_loop loops[8];
    const TTest *const *tests[24];
};

struct check_suite {
    Suite *(*make)(void);
    const char *needs_root; /* why it needs root, or NULL */
};

struct check_main {
    /* The suite as data (NULL: none); the list ends at .name == NULL. */
    const char *suite;
    struct check_fixture fixture; /* of every tcase, field by field */
    struct check_tcase tcases[8];
    /* Suites built in code, run after it; the list ends at .make == NULL. */
    struct check_suite suites[8];
    /*
     * Optional, once before the first suite runs (and only if one does):
     * returns 0 to go on, or the exit status to end with.
     */
    int (*setup)(int argc, char **argv);
    /* Optional, once after the suites: returns the failures it found. */
    int (*teardown)(void);
};

/*
 * check_suite_make - the suite @name of the tcases @tcases describe (the
 * list ends at .name == NULL, or after @n), built as check_main.suite and
 * .tcases are: a fixture field a tcase leaves unset is @fixture's.
 */
Suite *check_suite_make(const char *name, const struct check_fixture *fixture,
                        const struct check_tcase *tcases, size_t n);

/* Defined by each test binary. */
extern const struct check_main check_main;

#endif
