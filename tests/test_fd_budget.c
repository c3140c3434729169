/* SPDX-License-Identifier: MIT */
/*
 * test_fd_budget.c - the descriptors fitted to RLIMIT_NOFILE
 * (process/fd_budget.h): rows of limits and options, what each gets, and
 * that what is planned always fits the limit.
 */
#include "check_main.h"
#include "process/fd_budget.h"
#include "transport/h2/h2.h"

static const struct {
    struct fd_budget_in in;
    struct fd_budget want;
} rows[] = {
    /* the shipped unit's 65536: everything as asked */
    {{65536, 1024, 1024, 2, 1, true, 0}, {1024, 1024, 1024 * 7}},
    /* podman's 4096: the pool takes a quarter of 4096 - 2112, the caches
     * the rest: 1488 / 3 - 3 */
    {{4096, 1024, 1024, 2, 1, true, 0}, {1024, 493, 496}},
    {{2200, 1024, 1024, 2, 1, true, 0}, {1024, 19, 22}},
    /* no directory cache: the pool may take all that is left */
    {{4096, 1024, 0, 2, 1, true, 0}, {1024, 0, 1984}},
    /* no HTTP/2: no pool */
    {{4096, 1024, 1024, 2, 1, false, 0}, {1024, 658, 0}},
    /* too small for the connections: they are lowered, nothing else fits */
    {{300, 1024, 1024, 2, 1, true, 0}, {118, 0, 0}},
    {{10, 1024, 1024, 2, 1, true, 0}, {1, 0, 0}},
    /* vhosts and mounts: a cache per thread and root */
    {{65536, 256, 1024, 4, 3, true, 0}, {256, 1024, 256 * 7}},
    {{8192, 256, 1024, 4, 3, true, 0}, {256, 385, 1792}},
    /* --sites: its 1024 site directories before the connections, one cache
     * per thread for all the sites: the pool a quarter of 960, the caches
     * 720 / 6 - 3 */
    {{4096, 1024, 1024, 2, 2, true, 1024}, {1024, 117, 240}},
    /* a limit the sites and the connections do not both fit in: the
     * connections lowered (--sites-cache is fitted to a quarter before) */
    {{2048, 1024, 1024, 2, 2, true, 512}, {736, 0, 0}},
};

LOOP_TEST(plan_case, rows)
{
    const struct fd_budget_in *in = &rows[_i].in;
    struct fd_budget got;

    fd_budget_plan(in, &got);
    ck_assert_uint_eq(got.max_connections, rows[_i].want.max_connections);
    ck_assert_uint_eq(got.dir_cache, rows[_i].want.dir_cache);
    ck_assert_uint_eq(got.h2_files, rows[_i].want.h2_files);
    ck_assert_uint_le(got.h2_files,
                      (uintmax_t)got.max_connections * (H2_FILES_PER_CONN - 1));
    if (in->limit < FD_BUDGET_MARGIN + FD_BUDGET_PER_CONNECTION)
        return;
    unsigned long long used =
        FD_BUDGET_MARGIN + in->sites +
        FD_BUDGET_PER_CONNECTION * (unsigned long long)got.max_connections +
        got.h2_files +
        (got.dir_cache ? (unsigned long long)(in->threads + 1) * in->roots *
                             (got.dir_cache + 3)
                       : 0);
    ck_assert_msg(used <= in->limit, "row %d: %llu fds planned, limit %llu", _i,
                  used, (unsigned long long)in->limit);
}
END_TEST

const struct check_main check_main = {
    .suite = "fd_budget", .tcases = {{"plan", .loops = {LOOP(plan_case)}}}};
