/* SPDX-License-Identifier: MIT */
/* test_listing.c - the directory listing end to end (placeholder). */
#include "harness.h"

START_TEST(placeholder)
{
}
END_TEST

const struct check_main check_main = {
    .suite = "e2e_listing",
    .fixture = HARNESS_FIXTURE(120),
    .tcases = {{"listing", .tests = {&placeholder}}}};
