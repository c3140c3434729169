/* SPDX-License-Identifier: MIT */
#include "conf.h"

#include <check.h>
#include <stdlib.h>

START_TEST(smoke)
{
    struct conf c;
    struct conf_diag d = {0};
    char *argv[] = {"beneath", NULL};

    ck_assert_int_eq(conf_load(&c, 1, argv, NULL, &d), 0);
    conf_print(stdout, &c);
    conf_help(stdout, "beneath");
    conf_free(&c);
    conf_diag_free(&d);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("conf");
    TCase *tc = tcase_create("all");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, smoke);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
