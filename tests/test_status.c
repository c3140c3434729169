// SPDX-License-Identifier: MIT
/* test_status.c - the errno -> status table and reason phrases. */
#include "cases.h"
#include "check_main.h"
#include "http/status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    int err;
    int want;
} errno_cases[] = {
    {ENOENT, 404}, {ENOTDIR, 404}, {ENAMETOOLONG, 404}, {EACCES, 403},
    {EPERM, 403},  {EXDEV, 403},   {ELOOP, 403},        {EAGAIN, 503},
    {-EXDEV, 403}, {-ENOENT, 404}, {ENXIO, 403},        {ENODEV, 403},
    {EIO, 500},    {EMFILE, 500},  {ENOMEM, 500},       {EINVAL, 500},
    {ENOSYS, 500}, {0, 500},
};

LOOP_TEST(errno_case, errno_cases)
{
    ck_assert_int_eq(status_from_errno(errno_cases[_i].err),
                     errno_cases[_i].want);
}
END_TEST

static const struct num_case reason_cases[] = {
    {200, "OK"},
    {206, "Partial Content"},
    {304, "Not Modified"},
    {404, "Not Found"},
    {416, "Range Not Satisfiable"},
    {503, "Service Unavailable"},
    {299, "Unknown"},
};

LOOP_TEST(reason_case, reason_cases)
{
    ck_assert_str_eq(status_reason((int)reason_cases[_i].in),
                     reason_cases[_i].want);
}
END_TEST

const struct check_main check_main = {
    .suite = "status",
    .tcases = {{"table", .loops = {LOOP(errno_case), LOOP(reason_case)}}}};
