/* SPDX-License-Identifier: MIT */
/* test_metrics.c - counters and their Prometheus text rendering. */
#include "check_main.h"
#include "common/mono.h"
#include "observe/metrics.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct metrics m;

static void setup(void)
{
    metrics_init(&m);
}

/* The value of the sample line starting with @series, or -1 if absent. */
static double sample(const char *text, const char *series)
{
    size_t len = strlen(series);

    for (const char *p = text; p != NULL && *p;) {
        const char *nl = strchr(p, '\n');

        if (strncmp(p, series, len) == 0 && p[len] == ' ')
            return strtod(p + len + 1, NULL);
        p = nl != NULL ? nl + 1 : NULL;
    }
    return -1;
}

/* A series and its value in the rendered text; -1: no such series. */
struct sample_want {
    const char *series;
    double want;
};

/* Every series of @w[0 .. n - 1] has its value in @text. */
static void check_samples(const char *text, const struct sample_want *w,
                          size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double got = sample(text, w[i].series);

        ck_assert_msg(got == w[i].want, "%s: %g, want %g", w[i].series, got,
                      w[i].want);
    }
}

#define RESOLVER_BUCKET "beneath_resolver_duration_seconds_bucket"

static const struct sample_want rendered[] = {
    {"beneath_http_requests_total{class=\"2xx\",code=\"200\",proto=\"http/"
     "1.1\"}",
     2},
    {"beneath_http_requests_total{class=\"4xx\",code=\"404\",proto=\"http/"
     "1.1\"}",
     1},
    {"beneath_http_requests_total{class=\"3xx\",code=\"304\",proto=\"http/"
     "1.1\"}",
     1},
    {"beneath_http_requests_total{class=\"other\",code=\"other\",proto=\"http/"
     "1.1\"}",
     1},
    {"beneath_http_requests_total{class=\"5xx\",code=\"500\",proto=\"http/"
     "1.1\"}",
     -1},
    {"beneath_http_sent_bytes_total", 124},
    {"beneath_resolver_errors_total{errno=\"EXDEV\"}", 1},
    {"beneath_resolver_errors_total{errno=\"ELOOP\"}", 1},
    {"beneath_resolver_errors_total{errno=\"ENOENT\"}", 3},
    {"beneath_resolver_errors_total{errno=\"other\"}", 1},
    /* buckets are cumulative; le is inclusive */
    {RESOLVER_BUCKET "{backend=\"kernel\",le=\"1e-06\"}", 1},
    {RESOLVER_BUCKET "{backend=\"kernel\",le=\"2.5e-06\"}", 2},
    {RESOLVER_BUCKET "{backend=\"kernel\",le=\"0.1\"}", 2},
    {RESOLVER_BUCKET "{backend=\"kernel\",le=\"+Inf\"}", 3},
    {"beneath_resolver_duration_seconds_count{backend=\"kernel\"}", 3},
    {RESOLVER_BUCKET "{backend=\"emulated\",le=\"2.5e-05\"}", 0},
    {RESOLVER_BUCKET "{backend=\"emulated\",le=\"5e-05\"}", 2},
    {"beneath_resolver_duration_seconds_count{backend=\"lexical\"}", 1},
};

START_TEST(render_counts)
{
    size_t len;
    char *text;

    metrics_count_response(&m, HTTP_VERSION_1_1, 200, 100);
    metrics_count_response(&m, HTTP_VERSION_1_1, 200, 23);
    metrics_count_response(&m, HTTP_VERSION_1_1, 404, 0);
    metrics_count_response(&m, HTTP_VERSION_1_1, 304, 0);
    metrics_count_response(&m, HTTP_VERSION_1_1, 42, 1);
    metrics_count_resolve(&m, RESOLVER_BACKEND_KERNEL, 1500, 3);
    metrics_count_resolve(&m, RESOLVER_BACKEND_KERNEL, 1000, -EXDEV);
    metrics_count_resolve(&m, RESOLVER_BACKEND_KERNEL, 2000000000, -ELOOP);
    metrics_count_resolve(&m, RESOLVER_BACKEND_EMULATED, 30000, -ENOENT);
    metrics_count_resolve(&m, RESOLVER_BACKEND_EMULATED, 30000, -ENOENT);
    metrics_count_resolve(&m, RESOLVER_BACKEND_AUTO, 1, -ENOENT);
    metrics_count_resolve(&m, RESOLVER_BACKEND_LEXICAL, 1, -100000);
    text = metrics_render_alloc(&m, &len);
    ck_assert_ptr_nonnull(text);
    ck_assert_uint_eq(len, strlen(text));

    ck_assert_ptr_nonnull(
        strstr(text, "# TYPE beneath_http_requests_total counter\n"));
    ck_assert_ptr_nonnull(
        strstr(text, "# TYPE beneath_resolver_duration_seconds histogram\n"));
    check_samples(text, rendered, N_ELEMS(rendered));
    ck_assert_double_eq_tol(sample(text, "beneath_resolver_duration_seconds_sum"
                                         "{backend=\"kernel\"}"),
                            2.0000025, 1e-9);
    ck_assert_ptr_null(strstr(text, "backend=\"auto\""));
    free(text);
}
END_TEST

/* Every line is a comment or "name{labels} value"; HELP precedes TYPE; five
 * families (requests, bytes, resolver errors and durations, reply cache). */
START_TEST(format_is_prometheus_text)
{
    char *text;
    size_t len;
    int types = 0;

    metrics_count_response(&m, HTTP_VERSION_1_1, 500, 1);
    metrics_count_resolve(&m, RESOLVER_BACKEND_KERNEL, 1, -EACCES);
    text = metrics_render_alloc(&m, &len);
    ck_assert_ptr_nonnull(text);
    ck_assert(len > 0 && text[len - 1] == '\n');
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        char *sp;

        if (strncmp(line, "# HELP beneath_", 15) == 0)
            continue;
        if (strncmp(line, "# TYPE beneath_", 15) == 0) {
            types++;
            continue;
        }
        ck_assert_msg(strncmp(line, "beneath_", 8) == 0, "line: %s", line);
        sp = strrchr(line, ' ');
        ck_assert_ptr_nonnull(sp);
        ck_assert_msg(strspn(sp + 1, "0123456789.") == strlen(sp + 1),
                      "value in: %s", line);
        if (strchr(line, '{') != NULL)
            ck_assert_msg(sp[-1] == '}', "labels in: %s", line);
    }
    /* 5 + refused_total, auth_failures_total, then the request histogram,
     * coded bytes, refusals, connections, parked ones, TLS, log drops,
     * caches */
    ck_assert_int_eq(types, 15);
    free(text);
}
END_TEST

/* The access counters: refusals by reason, 401 answers. */
START_TEST(access_counters)
{
    char *text;
    size_t len;

    metrics_count(&m.refused_address);
    metrics_count(&m.refused_address);
    metrics_count(&m.refused_forwarded);
    metrics_count(&m.auth_failures);
    text = metrics_render_alloc(&m, &len);
    ck_assert_ptr_nonnull(
        strstr(text, "\nbeneath_refused_total{reason=\"address\"} 2\n"));
    ck_assert_ptr_nonnull(
        strstr(text, "\nbeneath_refused_total{reason=\"forwarded\"} 1\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nbeneath_auth_failures_total 1\n"));
    free(text);
}
END_TEST

START_TEST(render_truncates_like_snprintf)
{
    char small[16];
    size_t need = metrics_render(&m, NULL, 0);
    char *big = malloc(need + 1);

    ck_assert_uint_gt(need, sizeof(small));
    ck_assert_uint_eq(metrics_render(&m, small, sizeof(small)), need);
    ck_assert_uint_eq(strlen(small), sizeof(small) - 1);
    ck_assert_uint_eq(metrics_render(&m, big, need + 1), need);
    ck_assert_uint_eq(strlen(big), need);
    ck_assert(strncmp(big, small, sizeof(small) - 1) == 0);
    free(big);
}
END_TEST

#define THREADS 4
#define PER_THREAD 20000

static void *hammer(void *arg)
{
    (void)arg;
    for (int i = 0; i < PER_THREAD; i++) {
        metrics_count_response(&m, HTTP_VERSION_1_1, 200, 3);
        metrics_count_resolve(&m, RESOLVER_BACKEND_EMULATED, (uint64_t)i,
                              -EXDEV);
    }
    return NULL;
}

/* Counts are exact under concurrency (atomics, not locks or luck). */
START_TEST(concurrent_counts_exact)
{
    pthread_t t[THREADS];
    char *text;
    size_t len;

    for (int i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, hammer, NULL), 0);
    for (int i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_join(t[i], NULL), 0);
    text = metrics_render_alloc(&m, &len);
    ck_assert_ptr_nonnull(text);
    ck_assert_double_eq(
        sample(text, "beneath_http_requests_total{class=\"2xx\",code=\"200\","
                     "proto=\"http/1.1\"}"),
        THREADS * PER_THREAD);
    ck_assert_double_eq(sample(text, "beneath_http_sent_bytes_total"),
                        3.0 * THREADS * PER_THREAD);
    ck_assert_double_eq(
        sample(text, "beneath_resolver_errors_total{errno=\"EXDEV\"}"),
        THREADS * PER_THREAD);
    ck_assert_double_eq(sample(text, "beneath_resolver_duration_seconds_count"
                                     "{backend=\"emulated\"}"),
                        THREADS * PER_THREAD);
    free(text);
}
END_TEST

START_TEST(clock_moves_forward)
{
    uint64_t a = mono_ns(), b = mono_ns();

    ck_assert_uint_ge(b, a);
    ck_assert_uint_gt(a, 0);
}
END_TEST

#define REQUEST_SECONDS "beneath_http_request_duration_seconds"
#define REQUEST_BUCKET REQUEST_SECONDS "_bucket"

static const struct sample_want histogram[] = {
    {REQUEST_BUCKET "{class=\"2xx\",backend=\"kernel\",le=\"0.0001\"}", 1},
    {REQUEST_BUCKET "{class=\"2xx\",backend=\"kernel\",le=\"0.0025\"}", 1},
    {REQUEST_BUCKET "{class=\"2xx\",backend=\"kernel\",le=\"0.005\"}", 2},
    {REQUEST_BUCKET "{class=\"2xx\",backend=\"kernel\",le=\"+Inf\"}", 2},
    {REQUEST_SECONDS "_count{class=\"2xx\",backend=\"kernel\"}", 2},
    /* past the last bound: only +Inf */
    {REQUEST_BUCKET "{class=\"4xx\",backend=\"emulated\",le=\"5\"}", 0},
    {REQUEST_BUCKET "{class=\"4xx\",backend=\"emulated\",le=\"+Inf\"}", 1},
    {REQUEST_SECONDS "_count{class=\"4xx\",backend=\"none\"}", 1},
    {REQUEST_SECONDS "_count{class=\"other\",backend=\"none\"}", 1},
    /* a class and backend without requests has no series */
    {REQUEST_SECONDS "_count{class=\"5xx\",backend=\"kernel\"}", -1},
    {"beneath_http_sent_coded_bytes_total{coding=\"identity\"}", 1005},
    {"beneath_http_sent_coded_bytes_total{coding=\"br\"}", 10},
    {"beneath_http_sent_coded_bytes_total{coding=\"other\"}", 7},
    {"beneath_http_refusals_total{errno=\"ENOENT\"}", 1},
    {"beneath_http_refusals_total{errno=\"EXDEV\"}", 1},
    {"beneath_http_sent_bytes_total", 1022},
};

/*
 * The request histogram: one series per status class and backend that has
 * requests, buckets cumulative, +Inf == _count, _sum in seconds; bytes by
 * coding; responses by errno.
 */
START_TEST(request_histogram)
{
    char *text;
    size_t len;

    metrics_count_request(&m, HTTP_VERSION_1_1, 200, 1000,
                          RESOLVER_BACKEND_KERNEL, 80000, NULL, 0);
    metrics_count_request(&m, HTTP_VERSION_1_1, 206, 10,
                          RESOLVER_BACKEND_KERNEL, 3000000, "br", 0);
    metrics_count_request(&m, HTTP_VERSION_1_1, 404, 5,
                          RESOLVER_BACKEND_EMULATED, 7000000000u, NULL, ENOENT);
    metrics_count_request(&m, HTTP_VERSION_1_1, 403, 0, RESOLVER_BACKEND_KERNEL,
                          1, NULL, EXDEV);
    metrics_count_request(&m, HTTP_VERSION_1_1, 400, 7,
                          RESOLVER_BACKEND_DEFAULT, 1, "x-new", 0);
    metrics_count_request(&m, HTTP_VERSION_1_1, 99, 0, RESOLVER_BACKEND_DEFAULT,
                          1, NULL, 0);
    text = metrics_render_alloc(&m, &len);
    ck_assert_ptr_nonnull(text);
    check_samples(text, histogram, N_ELEMS(histogram));
    ck_assert_double_eq_tol(sample(text, REQUEST_SECONDS "_sum{class=\"2xx\","
                                                         "backend=\"kernel\"}"),
                            0.00308, 1e-12);
    free(text);
}
END_TEST

static void fake_cache(void *arg, uint64_t *hits, uint64_t *misses)
{
    const uint64_t *v = arg;

    *hits = v[0];
    *misses = v[1];
}

/* Connections, TLS handshakes, log drops, and the caches' hook. */
START_TEST(gauges_and_caches)
{
    static uint64_t counts[2] = {7, 3};
    char *text;
    size_t len;

    metrics_count_connection(&m, true);
    metrics_count_connection(&m, true);
    metrics_count_connection(&m, true);
    metrics_count_connection(&m, false);
    for (int i = 0; i < 3; i++)
        metrics_count_parked(&m, true);
    metrics_count_parked(&m, false);
    metrics_count_tls(&m, true);
    metrics_count_tls(&m, false);
    metrics_count_tls(&m, true);
    metrics_count_dir_cache(&m, 5, 2);
    atomic_fetch_add(&m.log_dropped, 4);
    ck_assert_int_eq(metrics_add_cache(&m, "compress", fake_cache, counts), 0);
    for (int i = 1; i < METRICS_MAX_CACHES; i++)
        ck_assert_int_eq(metrics_add_cache(&m, "x", fake_cache, counts), 0);
    ck_assert_int_eq(metrics_add_cache(&m, "y", fake_cache, counts), -ENOSPC);
    text = metrics_render_alloc(&m, &len);
    ck_assert_ptr_nonnull(text);
    ck_assert_double_eq(sample(text, "beneath_open_connections"), 2);
    ck_assert_ptr_nonnull(
        strstr(text, "# TYPE beneath_open_connections gauge\n"));
    ck_assert_double_eq(sample(text, "beneath_parked_connections"), 2);
    ck_assert_ptr_nonnull(
        strstr(text, "# TYPE beneath_parked_connections gauge\n"));
    ck_assert_double_eq(
        sample(text, "beneath_tls_handshakes_total{result=\"ok\"}"), 2);
    ck_assert_double_eq(
        sample(text, "beneath_tls_handshakes_total{result=\"failed\"}"), 1);
    ck_assert_double_eq(sample(text, "beneath_access_log_dropped_total"), 4);
    ck_assert_double_eq(
        sample(
            text,
            "beneath_cache_requests_total{cache=\"directory\",result=\"hit\"}"),
        5);
    ck_assert_double_eq(
        sample(text, "beneath_cache_requests_total{cache=\"directory\","
                     "result=\"miss\"}"),
        2);
    ck_assert_double_eq(
        sample(
            text,
            "beneath_cache_requests_total{cache=\"compress\",result=\"hit\"}"),
        7);
    ck_assert_double_eq(
        sample(text, "beneath_cache_requests_total{cache=\"compress\","
                     "result=\"miss\"}"),
        3);
    free(text);
}
END_TEST

const struct check_main check_main = {
    .suite = "metrics",
    .tcases = {
        {"core", setup, NULL,
         .tests = {&render_counts, &access_counters, &format_is_prometheus_text,
                   &render_truncates_like_snprintf, &concurrent_counts_exact,
                   &clock_moves_forward, &request_histogram,
                   &gauges_and_caches}}}};
