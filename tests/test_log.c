// SPDX-License-Identifier: MIT
/* test_log.c - access log lines, escaping, reopen after rotation. */
#include "check_main.h"
#include "fixture.h"
#include "log.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[PATH_MAX], rotated[PATH_MAX];

static void setup(void)
{
    fixture_dir_setup();
    snprintf(path, sizeof path, "%s", fixture_path("access.log"));
    snprintf(rotated, sizeof rotated, "%s", fixture_path("access.log.1"));
}

static char *slurp(const char *p)
{
    static char buf[65536];
    FILE *f = fopen(p, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static const struct log_record rec = {
    .client = "127.0.0.1",
    .time = 784111777,
    .method = "GET",
    .target = "/a\"b\\c\x01",
    .version = "HTTP/1.1",
    .status = 403,
    .bytes = 12,
    .referer = NULL,
    .agent = "curl/8",
    .backend = "kernel",
    .err = EXDEV,
};

/* The log file after one record @r in @format. */
static char *one_record(enum log_format format, const struct log_record *r)
{
    struct log *l;

    ck_assert_int_eq(log_open(path, format, &l), 0);
    log_write(l, r);
    log_close(l);
    return slurp(path);
}

START_TEST(combined)
{
    char *s = one_record(LOG_COMBINED, &rec);

    ck_assert_ptr_nonnull(strstr(s, "127.0.0.1 - - ["));
    ck_assert_ptr_nonnull(strstr(
        s, "] \"GET /a\\x22b\\x5cc\\x01 HTTP/1.1\" 403 12 \"-\" \"curl/8\" "
           "resolver=kernel errno=EXDEV\n"));
    ck_assert_int_eq(strchr(s, '\n') - s + 1, (long)strlen(s));
}
END_TEST

START_TEST(json)
{
    char *s = one_record(LOG_JSON, &rec);

    ck_assert_str_eq(
        s,
        "{\"time\":\"1994-11-06T08:49:37Z\",\"client\":\"127.0.0.1\","
        "\"user\":null,\"method\":\"GET\",\"target\":\"/a\\\"b\\\\c\\u0001\","
        "\"protocol\":\"HTTP/1.1\",\"status\":403,\"bytes\":12,"
        "\"referer\":null,\"agent\":\"curl/8\",\"resolver\":\"kernel\","
        "\"errno\":\"EXDEV\"}\n");
}
END_TEST

/* The user of Basic authentication: %u in combined (escaped, unquoted). */
START_TEST(user_field)
{
    struct log *l;
    struct log_record r = rec;

    r.user = "ann marie\"";
    ck_assert_int_eq(log_open(path, LOG_COMBINED, &l), 0);
    log_write(l, &r);
    log_close(l);
    char *s = slurp(path);
    ck_assert_ptr_nonnull(strstr(s, "127.0.0.1 - ann\\x20marie\\x22 ["));
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(log_open(path, LOG_JSON, &l), 0);
    log_write(l, &r);
    log_close(l);
    s = slurp(path);
    ck_assert_ptr_nonnull(
        strstr(s, "\"client\":\"127.0.0.1\",\"user\":\"ann marie\\\"\","));
}
END_TEST

START_TEST(long_fields_are_cut)
{
    static char big[20000];
    struct log_record r = rec;

    memset(big, 'x', sizeof big - 1);
    r.target = big;
    r.agent = big;
    char *s = one_record(LOG_JSON, &r);
    ck_assert_ptr_nonnull(strstr(s, "xxx...\""));
    ck_assert_ptr_nonnull(strstr(s, "\"errno\":\"EXDEV\"}\n"));
}
END_TEST

START_TEST(reopen_after_rotation)
{
    struct log *l;

    ck_assert_int_eq(log_open(path, LOG_COMBINED, &l), 0);
    log_write(l, &rec);
    ck_assert_int_eq(rename(path, rotated), 0);
    ck_assert_int_eq(log_reopen(l), 0);
    log_write(l, &rec);
    log_write(l, &rec);
    log_close(l);
    char *s = slurp(rotated);
    ck_assert_ptr_eq(strchr(s, '\n'), s + strlen(s) - 1);
    s = slurp(path);
    ck_assert_ptr_nonnull(strchr(s, '\n'));
    ck_assert_ptr_nonnull(strchr(strchr(s, '\n') + 1, '\n'));
}
END_TEST

START_TEST(open_errors)
{
    struct log *l = NULL;

    ck_assert_int_eq(log_open("/nonexistent-dir/x.log", LOG_COMBINED, &l),
                     -ENOENT);
    ck_assert_int_eq(log_open("off", LOG_COMBINED, &l), 0);
    log_write(l, &rec);
    ck_assert_int_eq(log_reopen(l), 0);
    log_close(l);
    log_close(NULL);
}
END_TEST

const struct check_main check_main = {
    .suite = "log",
    .tcases = {{"lines", setup, fixture_dir_teardown,
                .tests = {&combined, &json, &user_field, &long_fields_are_cut,
                          &reopen_after_rotation, &open_errors}}}};
