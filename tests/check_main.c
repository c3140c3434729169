/* SPDX-License-Identifier: MIT */
/*
 * check_main.c - main() for every Check test binary: builds the suite the
 * binary's check_main table describes, and the ones its functions make, runs
 * them with one SRunner, leaves out the suites that need root when it is not
 * root (saying why), and turns the outcome into the exit status ctest reads:
 * 0 passed, 1 failed, CHECK_SKIP nothing to run.
 */
#include "check_main.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A tcase's fixture field, or the default of @fixture. */
#define OR_FIXTURE(t, fixture, field)                                          \
    ((t)->field ? (t)->field : (fixture)->field)

Suite *check_suite_make(const char *name, const struct check_fixture *fixture,
                        const struct check_tcase *tcases, size_t n)
{
    Suite *s = suite_create(name);

    for (const struct check_tcase *t = tcases; t < tcases + n && t->name; t++) {
        TCase *tc = tcase_create(t->name);

        if (OR_FIXTURE(t, fixture, setup) || OR_FIXTURE(t, fixture, teardown))
            tcase_add_checked_fixture(tc, OR_FIXTURE(t, fixture, setup),
                                      OR_FIXTURE(t, fixture, teardown));
        if (OR_FIXTURE(t, fixture, unchecked_setup) ||
            OR_FIXTURE(t, fixture, unchecked_teardown))
            tcase_add_unchecked_fixture(
                tc, OR_FIXTURE(t, fixture, unchecked_setup),
                OR_FIXTURE(t, fixture, unchecked_teardown));
        if (OR_FIXTURE(t, fixture, timeout))
            tcase_set_timeout(tc, OR_FIXTURE(t, fixture, timeout));
        for (size_t k = 0; k < N_ELEMS(t->loops) && t->loops[k].test; k++)
            tcase_add_loop_test(tc, *t->loops[k].test, 0, t->loops[k].rows);
        for (size_t k = 0; k < N_ELEMS(t->tests) && t->tests[k]; k++)
            tcase_add_test(tc, *t->tests[k]);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(int argc, char **argv)
{
    const struct check_suite *end = check_main.suites;
    const int root = geteuid() == 0;
    const char *said = NULL;
    SRunner *sr;
    int skipped = 0;
    int status = 0;
    int failed;

    while (end < check_main.suites + N_ELEMS(check_main.suites) && end->make)
        end++;
    for (const struct check_suite *cs = check_main.suites; cs < end; cs++) {
        if (cs->needs_root == NULL || root)
            continue;
        /* suites that share a reason share one line */
        if (said == NULL || strcmp(said, cs->needs_root) != 0)
            fprintf(stderr, "%s: SKIP: needs root: %s\n", argv[0],
                    cs->needs_root);
        said = cs->needs_root;
        skipped++;
    }
    if (check_main.suite == NULL && skipped == end - check_main.suites)
        return CHECK_SKIP;
    if (check_main.setup)
        status = check_main.setup(argc, argv);
    if (status != 0)
        return status;
    sr = srunner_create(
        check_main.suite
            ? check_suite_make(check_main.suite, &check_main.fixture,
                               check_main.tcases, N_ELEMS(check_main.tcases))
            : NULL);
    for (const struct check_suite *cs = check_main.suites; cs < end; cs++)
        if (cs->needs_root == NULL || root)
            srunner_add_suite(sr, cs->make());
    srunner_run_all(sr, CK_ENV);
    failed = srunner_ntests_failed(sr);
    /* CK_RUN_SUITE chose only suites that were left out */
    if (skipped && srunner_ntests_run(sr) == 0)
        status = CHECK_SKIP;
    srunner_free(sr);
    if (check_main.teardown)
        failed += check_main.teardown();
    return failed ? EXIT_FAILURE : status;
}
