/* SPDX-License-Identifier: MIT */
/*
 * cases.c - the checks of accept/refuse rows (struct spec_case) that the
 * unit suites share; a failure names the row's input and the message.
 */
#include "cases.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void cases_check_spec(const struct spec_case *c, int r, const char *err)
{
    if (c->err == NULL) {
        ck_assert_msg(r == 0, "%s: refused (%d): %s", c->spec, r, err);
        return;
    }
    ck_assert_msg(r == -EINVAL, "%s: accepted or %d, not refused", c->spec, r);
    ck_assert_str_eq(err, c->err);
}

char *cases_long_line(const char *head, char fill, size_t n, const char *tail)
{
    size_t h = strlen(head), t = strlen(tail);
    char *s = malloc(h + n + t + 1);
    char *p;

    ck_assert_ptr_nonnull(s);
    p = stpcpy(s, head);
    memset(p, fill, n);
    memcpy(p + n, tail, t + 1);
    return s;
}

void cases_check_refused(const struct spec_case *c, int r, const char *err)
{
    ck_assert_msg(r == -EINVAL, "%s: accepted or %d, not refused", c->spec, r);
    ck_assert_msg(strstr(err, c->err) != NULL,
                  "%s: message \"%s\" lacks \"%s\"", c->spec, err, c->err);
}
