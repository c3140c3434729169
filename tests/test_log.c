// SPDX-License-Identifier: MIT
/* test_log.c - access log lines, templates, escaping, two writers appending,
 * a stalled reader. */
#include "cases.h"
#include "check_main.h"
#include "fixture.h"
#include "observe/log.h"
#include "syntax/log_template.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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
    .msec = 42,
    .duration_us = 1234,
    .host = "example.org",
    .tls = "TLS1.3",
    .encoding = "br",
    .method = "GET",
    .target = "/a\"b\\c\x01",
    .version = "HTTP/1.1",
    .proto = "http/1.1",
    .status = 403,
    .bytes = 12,
    .referer = NULL,
    .agent = "curl/8",
    .backend = "kernel",
    .err = EXDEV,
};

/* The log file after one record @r in @format. */
static char *one_record(const char *format, const struct log_record *r)
{
    struct log *l;

    ck_assert_int_eq(log_open(path, format, &l), 0);
    log_write(l, r);
    log_close(l);
    return slurp(path);
}

START_TEST(combined)
{
    char *s = one_record("combined", &rec);

    ck_assert_ptr_nonnull(strstr(s, "127.0.0.1 - - ["));
    ck_assert_ptr_nonnull(strstr(
        s, "] \"GET /a\\x22b\\x5cc\\x01 HTTP/1.1\" 403 12 \"-\" \"curl/8\" "
           "resolver=kernel errno=EXDEV\n"));
    ck_assert_int_eq(strchr(s, '\n') - s + 1, (long)strlen(s));
}
END_TEST

START_TEST(json)
{
    char *s = one_record("json", &rec);

    ck_assert_str_eq(
        s,
        "{\"time\":\"1994-11-06T08:49:37.042Z\",\"client\":\"127.0.0.1\","
        "\"user\":null,\"method\":\"GET\",\"target\":\"/a\\\"b\\\\c\\u0001\","
        "\"protocol\":\"HTTP/1.1\",\"proto\":\"http/"
        "1.1\",\"status\":403,\"bytes\":12,\"aborted\":false,"
        "\"duration_us\":1234,\"host\":\"example.org\",\"vhost\":null,"
        "\"tls\":\"TLS1.3\",\"encoding\":\"br\","
        "\"referer\":null,\"agent\":\"curl/8\",\"resolver\":\"kernel\","
        "\"errno\":\"EXDEV\",\"symlink\":null}\n");
}
END_TEST

/* A refused symlink: after errno in combined, a key in JSON, $symlink. */
START_TEST(symlink_field)
{
    struct log_record r = rec;
    char buf[LOG_LINE_MAX];

    r.symlink = "_static/a\"b -> /x/y (in no --follow-into directory)";
    ck_assert_int_gt(log_format_line("combined+duration", &r, buf, sizeof buf),
                     0);
    ck_assert_ptr_nonnull(
        strstr(buf, " errno=EXDEV symlink=\"_static/a\\x22b -> /x/y (in no "
                    "--follow-into directory)\" duration_us=1234\n"));
    ck_assert_int_gt(log_format_line("json", &r, buf, sizeof buf), 0);
    ck_assert_ptr_nonnull(strstr(buf,
                                 ",\"symlink\":\"_static/a\\\"b -> /x/y (in no "
                                 "--follow-into directory)\"}\n"));
    ck_assert_int_gt(
        log_format_line("$status \"$symlink\"", &r, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "403 \"_static/a\\x22b -> /x/y (in no --follow-into "
                          "directory)\"\n");
    ck_assert_int_gt(log_format_line("$status $symlink", &rec, buf, sizeof buf),
                     0);
    ck_assert_str_eq(buf, "403 -\n");
    ck_assert_int_gt(log_format_line("combined", &rec, buf, sizeof buf), 0);
    ck_assert_ptr_null(strstr(buf, "symlink"));
}
END_TEST

/* The user of Basic authentication: %u in combined (escaped, unquoted). */
START_TEST(user_field)
{
    struct log *l;
    struct log_record r = rec;

    r.user = "ann marie\"";
    ck_assert_int_eq(log_open(path, "combined", &l), 0);
    log_write(l, &r);
    log_close(l);
    char *s = slurp(path);
    ck_assert_ptr_nonnull(strstr(s, "127.0.0.1 - ann\\x20marie\\x22 ["));
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(log_open(path, "json", &l), 0);
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
    char *s = one_record("json", &r);
    ck_assert_ptr_nonnull(strstr(s, "xxx...\""));
    ck_assert_ptr_nonnull(strstr(s, "\"errno\":\"EXDEV\",\"symlink\":null}\n"));
}
END_TEST

/*
 * Two generations append to one log while the older drains: each opens the
 * file itself (O_APPEND), and every line arrives whole, none lost.
 */
START_TEST(two_generations_append)
{
    struct log *l1, *l2;

    ck_assert_int_eq(log_open(path, "combined", &l1), 0);
    ck_assert_int_eq(log_open(path, "combined", &l2), 0);
    for (int i = 0; i < 200; i++) {
        log_write(l1, &rec);
        log_write(l2, &rec);
    }
    log_close(l1);
    log_close(l2);
    char *s = slurp(path), *line = s;
    int lines = 0;
    for (char *nl; (nl = strchr(line, '\n')); line = nl + 1, lines++)
        ck_assert_int_eq(strncmp(line, s, (size_t)(strchr(s, '\n') - s)), 0);
    ck_assert_int_eq(lines, 400);
    ck_assert_str_eq(line, "");
}
END_TEST

START_TEST(open_errors)
{
    struct log *l = NULL;

    ck_assert_int_eq(log_open("/nonexistent-dir/x.log", "combined", &l),
                     -ENOENT);
    ck_assert_int_eq(log_open("off", "combined", &l), 0);
    log_write(l, &rec);
    log_close(l);
    log_close(NULL);
}
END_TEST

/* combined+duration: the combined line, then duration_us=N. */
START_TEST(combined_duration)
{
    char *s = one_record("combined+duration", &rec);

    ck_assert_ptr_nonnull(
        strstr(s, "resolver=kernel errno=EXDEV duration_us=1234\n"));
}
END_TEST

/*
 * A reply cut short: its bytes as they went, "aborted=1" before the
 * duration in combined (key=value, as resolver=), true in JSON, 1 in a
 * template; a whole one says nothing in combined, false and 0.
 */
START_TEST(aborted_reply)
{
    struct log_record r = rec;
    char buf[LOG_LINE_MAX];

    r.aborted = true;
    r.bytes = 1048576;
    r.err = 0;
    ck_assert_int_gt(log_format_line("combined", &r, buf, sizeof buf), 0);
    ck_assert_ptr_nonnull(strstr(buf, "\" 403 1048576 \"-\" \"curl/8\" "
                                      "resolver=kernel aborted=1\n"));
    ck_assert_int_gt(log_format_line("combined+duration", &r, buf, sizeof buf),
                     0);
    ck_assert_ptr_nonnull(
        strstr(buf, "resolver=kernel aborted=1 duration_us=1234\n"));
    ck_assert_int_gt(log_format_line("json", &r, buf, sizeof buf), 0);
    ck_assert_ptr_nonnull(
        strstr(buf, "\"bytes\":1048576,\"aborted\":true,\"duration_us\""));
    ck_assert_int_gt(
        log_format_line("$status $bytes $aborted", &r, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "403 1048576 1\n");
    r.aborted = false;
    ck_assert_int_gt(log_format_line("combined", &r, buf, sizeof buf), 0);
    ck_assert_ptr_null(strstr(buf, "aborted"));
    ck_assert_int_gt(
        log_format_line("$status $bytes $aborted", &r, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "403 1048576 0\n");
}
END_TEST

/* A template: literal text kept, fields filled, $$ a dollar. */
static const struct text_case templates[] = {
    {"$client \"$request\" $status $bytes $duration_us",
     "127.0.0.1 \"GET /a\\x22b\\x5cc\\x01 HTTP/1.1\" 403 12 1234\n"},
    {"${time} ${host}|${vhost}|$tls|$encoding|$errno|$resolver",
     "1994-11-06T08:49:37.042Z example.org|-|TLS1.3|br|EXDEV|kernel\n"},
    {"cost $$$bytes", "cost $12\n"},
    {"[$user] \"$referer\" \"$agent\" $method $protocol",
     "[-] \"-\" \"curl/8\" GET HTTP/1.1\n"},
    {"$status", "403\n"},
};

LOOP_TEST(template_case, templates)
{
    char buf[LOG_LINE_MAX];

    ck_assert_int_gt(log_format_line(templates[_i].in, &rec, buf, sizeof buf),
                     0);
    ck_assert_str_eq(buf, templates[_i].want);
}
END_TEST

/* Templates refused; err is a word of the message that says why. */
static const struct spec_case bad_templates[] = {
    {"$nosuch", "unknown log field '$nosuch'"},
    {"${status", "without its '}'"},
    {"no fields at all", "is not a log format"},
    {"", "is not a log format"},
    {"$status\n$bytes", "control characters"},
    {"${}", "unknown log field"},
    {"$", "unknown log field"},
};

LOOP_TEST(bad_template_case, bad_templates)
{
    struct log_template t;
    char err[512] = "";
    struct log *l = NULL;
    int r = log_template_parse(bad_templates[_i].spec, &t, err, sizeof err);

    cases_check_refused(&bad_templates[_i], r, err);
    ck_assert_int_eq(log_open(path, bad_templates[_i].spec, &l), -EINVAL);
}
END_TEST

/*
 * Hostile values from the client (Host, user, path, agent) cannot break a
 * line, a quoted field or the JSON: quotes, backslashes, newlines, control
 * bytes, invalid UTF-8.
 */
static const char *const hostile[] = {
    "a\"b",        "a\\b",         "a\nb",     "a\r\nX-Injected: 1",
    "\x1b[31mred", "\x7f",         "\xff\xfe", "caf\xc3\xa9",
    "\xc3",        "\xed\xa0\x80", "a b",
};

LOOP_TEST(hostile_case, hostile)
{
    const char *v = hostile[_i];
    struct log_record r = rec;
    char buf[LOG_LINE_MAX];

    r.host = v;
    r.user = v;
    r.target = v;
    r.agent = v;
    r.client = v;
    r.symlink = v; /* a link's name is anyone's who can write in the tree */
    const char *formats[] = {"combined", "combined+duration", "json",
                             "$host $user \"$request\" \"$agent\" $client"};
    for (size_t f = 0; f < N_ELEMS(formats); f++) {
        int n = log_format_line(formats[f], &r, buf, sizeof buf);
        ck_assert_int_gt(n, 0);
        /* one line: the only newline ends it, no control byte inside */
        ck_assert_ptr_eq(strchr(buf, '\n'), buf + n - 1);
        for (int i = 0; i < n - 1; i++)
            ck_assert_msg(
                (unsigned char)buf[i] >= 0x20 && (unsigned char)buf[i] != 0x7f,
                "%s: byte %d is %#x", formats[f], i, (unsigned char)buf[i]);
        /* non-JSON: no raw quote from the value, no raw byte >= 0x80 */
        if (strcmp(formats[f], "json") != 0) {
            for (int i = 0; i < n - 1; i++)
                ck_assert((unsigned char)buf[i] < 0x80);
            ck_assert_ptr_null(strstr(buf, "a\"b"));
        }
    }
    /* JSON: the quotes inside strings are all escaped; bytes >= 0x80 only
     * as valid UTF-8 (checked with python's json module in e2e) */
    log_format_line("json", &r, buf, sizeof buf);
    ck_assert_ptr_null(strstr(buf, "a\"b"));
    ck_assert_ptr_null(strstr(buf, "\xff"));
    ck_assert_ptr_null(strstr(buf, "\xed"));
    if (strcmp(v, "caf\xc3\xa9") == 0)
        ck_assert_ptr_nonnull(strstr(buf, "\"host\":\"caf\xc3\xa9\""));
    if (strcmp(v, "\xff\xfe") == 0)
        ck_assert_ptr_nonnull(strstr(buf, "\"host\":\"\\u00ff\\u00fe\""));
}
END_TEST

static long long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * A FIFO whose reader never reads: the writer thread stalls, the buffer
 * fills, and log_write drops lines (counted, here and in the counter given
 * by log_count_drops) instead of blocking; close gives up after
 * LOG_CLOSE_WAIT_MS.
 */
START_TEST(stalled_reader)
{
    const char *fifo = fixture_path("fifo");
    struct log *l;
    _Atomic uint64_t counted = 0;
    static char big[900];
    struct log_record r = rec;
    long long worst = 0;

    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    int rd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    ck_assert_int_ge(rd, 0);
    ck_assert_int_eq(log_open(fifo, "combined", &l), 0);
    log_count_drops(l, &counted);
    memset(big, 'x', sizeof big - 1);
    r.target = big;
    /* 64 KiB pipe + 2 buffers of LOG_BUFFER_SIZE: 4000 lines are too many */
    for (int i = 0; i < 4000; i++) {
        long long t0 = now_ms();
        log_write(l, &r);
        long long dt = now_ms() - t0;
        if (dt > worst)
            worst = dt;
    }
    ck_assert_msg(worst < 500, "a write waited %lld ms", worst);
    ck_assert_uint_gt(log_dropped(l), 0);
    ck_assert_uint_eq(atomic_load(&counted), log_dropped(l));
    long long t0 = now_ms();
    log_close(l);
    long long dt = now_ms() - t0;
    ck_assert_msg(dt < LOG_CLOSE_WAIT_MS + 2000, "close took %lld ms", dt);
    /* what went through is whole lines */
    static char got[65536];
    ssize_t n = read(rd, got, sizeof got - 1);
    ck_assert_int_gt(n, 0);
    got[n] = '\0';
    ck_assert_ptr_nonnull(strstr(got, "127.0.0.1 - - ["));
    close(rd);
}
END_TEST

/* Lines written by many threads at once come out whole and all there. */
static struct log *shared;

static void *hammer(void *arg)
{
    struct log_record r = rec;

    (void)arg;
    for (int i = 0; i < 500; i++)
        log_write(shared, &r);
    return NULL;
}

START_TEST(threads_whole_lines)
{
    pthread_t t[4];

    ck_assert_int_eq(log_open(path, "json", &shared), 0);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, hammer, NULL), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    unsigned long long lost = log_dropped(shared);
    log_close(shared);
    FILE *f = fopen(path, "r");
    char line[LOG_LINE_MAX];
    unsigned long long lines = 0;
    ck_assert_ptr_nonnull(f);
    while (fgets(line, sizeof line, f)) {
        ck_assert_msg(line[0] == '{' && strstr(line, "}\n"), "cut: %s", line);
        lines++;
    }
    fclose(f);
    ck_assert_uint_eq(lines + lost, 2000);
}
END_TEST

const struct check_main check_main = {
    .suite = "log",
    .tcases = {
        {"lines", setup, fixture_dir_teardown,
         .tests = {&combined, &json, &symlink_field, &user_field,
                   &long_fields_are_cut, &two_generations_append, &open_errors,
                   &combined_duration, &aborted_reply, &stalled_reader,
                   &threads_whole_lines}},
        {"templates", .loops = {LOOP(template_case), LOOP(hostile_case)}},
        {"bad templates", setup, fixture_dir_teardown,
         .loops = {LOOP(bad_template_case)}}}};
