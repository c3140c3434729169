// SPDX-License-Identifier: MIT
/* conf_fixture.c - see conf_fixture.h. */
#include "conf_fixture.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *msgs_joined(char *const *v, size_t n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    ck_assert_ptr_nonnull(f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s\n", v[i]);
    fclose(f);
    return buf;
}

char *conf_printed(const struct conf *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    ck_assert_ptr_nonnull(f);
    conf_print(f, c);
    fclose(f);
    return buf;
}

int conf_parse_string(const char *text, ssize_t len, struct conf *c,
                      struct conf_diag *d)
{
    size_t n = len < 0 ? strlen(text) : (size_t)len;
    FILE *f;
    int r;

    ck_assert_int_eq(conf_defaults(c), 0);
    /* fmemopen refuses size 0: use /dev/null for the empty file */
    f = n ? fmemopen((void *)(uintptr_t)text, n, "r") : fopen("/dev/null", "r");
    ck_assert_ptr_nonnull(f);
    r = conf_parse(f, "t.conf", c, d);
    fclose(f);
    return r;
}

int conf_load_args(const char *const *args, const char *const *env,
                   struct conf *c, struct conf_diag *d)
{
    char *argv[CONF_FIXTURE_MAX_ARGS + 2] = {"beneath"};
    int argc = 1;

    for (size_t i = 0; args && i < CONF_FIXTURE_MAX_ARGS && args[i]; i++)
        argv[argc++] = (char *)(uintptr_t)args[i];
    argv[argc] = NULL;
    return conf_load(c, argc, argv, (char *const *)(uintptr_t)env, d);
}

/* @r is -EINVAL and @d holds exactly @want; releases @c and @d */
static size_t refused(int r, struct conf *c, struct conf_diag *d,
                      const char *want)
{
    char *got = msgs_joined(d->msgs, d->n);
    size_t warnings = d->n_warnings;

    ck_assert_int_eq(r, -EINVAL);
    ck_assert_str_eq(got, want);
    free(got);
    conf_free(c);
    conf_diag_free(d);
    return warnings;
}

size_t conf_file_refused(const char *text, ssize_t len, const char *want)
{
    struct conf c;
    struct conf_diag d = {0};

    return refused(conf_parse_string(text, len, &c, &d), &c, &d, want);
}

/* @r is 0 and @d holds no message; @what names the input. */
static void accepted(int r, const struct conf_diag *d, const char *what)
{
    char *got = msgs_joined(d->msgs, d->n);

    ck_assert_msg(r == 0, "'%s' refused (%d): %s", what, r, got);
    ck_assert_str_eq(got, "");
    free(got);
}

/* conf_print of @c holds @want; releases @c and @d. */
static void prints(struct conf *c, struct conf_diag *d, const char *want)
{
    char *out = conf_printed(c);

    ck_assert_msg(strstr(out, want) != NULL, "'%s' not in:\n%s", want, out);
    free(out);
    conf_free(c);
    conf_diag_free(d);
}

void conf_file_prints(const char *text, const char *want)
{
    struct conf c;
    struct conf_diag d = {0};

    accepted(conf_parse_string(text, -1, &c, &d), &d, text);
    prints(&c, &d, want);
}

void conf_args_prints(const char *const *args, const char *want)
{
    struct conf c;
    struct conf_diag d = {0};

    accepted(conf_load_args(args, NULL, &c, &d), &d,
             args[0] ? args[0] : "(no arguments)");
    prints(&c, &d, want);
}

void conf_file_warns(const char *text, const char *want)
{
    struct conf c;
    struct conf_diag d = {0};
    char *got;

    accepted(conf_parse_string(text, -1, &c, &d), &d, text);
    got = msgs_joined(d.warnings, d.n_warnings);
    ck_assert_str_eq(got, want);
    free(got);
    conf_free(&c);
    conf_diag_free(&d);
}

void conf_reprinted(const struct conf *a, struct conf *b, struct conf_diag *d)
{
    char *text = conf_printed(a), *again;
    FILE *f = fmemopen(text, strlen(text), "r");

    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(conf_defaults(b), 0);
    ck_assert_int_eq(conf_parse(f, "printed", b, d), 0);
    fclose(f);
    ck_assert_uint_eq(d->n, 0);
    again = conf_printed(b);
    ck_assert_str_eq(again, text);
    free(again);
    free(text);
}

void conf_args_refused(const char *const *args, const char *const *env,
                       const char *want)
{
    struct conf c;
    struct conf_diag d = {0};

    refused(conf_load_args(args, env, &c, &d), &c, &d, want);
}
