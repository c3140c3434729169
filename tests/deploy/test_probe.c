/* SPDX-License-Identifier: MIT */
/*
 * test_probe.c - "beneath --probe URL" against the real binary: 0 and one
 * line on stdout for a 2xx or 3xx answer (plain HTTP, the health path, IPv4
 * by name "localhost", HTTPS, a unix socket); 1 and one line on stderr for a
 * 404, a closed port, a peer that never answers (bounded by the probe's own
 * deadline), a bad URL; and a probe reads neither the environment nor a
 * config file, so a broken BENEATH_ variable cannot fail a health check.
 */
#include "harness.h"

#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct probe_result {
    int exit;
    char *out;
    char *err;
    long ms;
};

static struct probe_result probe(const char *url, const char **env)
{
    const char *args[] = {"--probe", url, NULL};
    struct probe_result r = {0};
    struct timespec a, b;
    int ws;

    clock_gettime(CLOCK_MONOTONIC, &a);
    ws = beneath_run(args, env, 20000, &r.out, &r.err);
    clock_gettime(CLOCK_MONOTONIC, &b);
    EXPECT(WIFEXITED(ws), "probe %s: %s", url, wstatus_str(ws));
    r.exit = WEXITSTATUS(ws);
    r.ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
    return r;
}

static size_t lines(const char *s)
{
    size_t n = 0;

    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void expect_ok(const char *url, const char *status, const char **env)
{
    struct probe_result r = probe(url, env);

    EXPECT(r.exit == 0, "probe %s: exit %d, stderr: %s", url, r.exit, r.err);
    EXPECT(strstr(r.out, status) && lines(r.out) == 1 && !*r.err,
           "probe %s: stdout '%s', stderr '%s'", url, r.out, r.err);
}

static void expect_fail(const char *url, const char *why)
{
    struct probe_result r = probe(url, NULL);

    EXPECT(r.exit == 1, "probe %s: exit %d (want 1), stdout: %s", url, r.exit,
           r.out);
    EXPECT(strstr(r.err, why) && lines(r.err) == 1 && !*r.out,
           "probe %s: stderr '%s' (want '%s'), stdout '%s'", url, r.err, why,
           r.out);
}

static struct server *site(const char **extra_args)
{
    char *root = tree_new();
    struct server_opts o = {.root = root, .args = extra_args};

    tree_write_str(root, "index.html", "hello\n");
    tree_mkdir(root, "dir");
    tree_write_str(root, "dir/index.html", "dir\n");
    return server_start_opts(&o);
}

START_TEST(probe_answers)
{
    const char *args[] = {"--health", "/healthz", NULL};
    struct server *s = site(args);
    const char *env[] = {"BENEATH_LISTEN=not an address",
                         "BENEATH_CONFIG=/nonexistent/beneath.conf", NULL};

    expect_ok(server_url(s, 0, "/"), "200 OK", NULL);
    expect_ok(server_url(s, 0, "/healthz"), "200 OK", NULL);
    expect_ok(hfmt("http://localhost:%u/index.html", s->port), "200 OK", NULL);
    expect_ok(server_url(s, 0, "/dir"), "301", NULL); /* 3xx counts */
    /* the environment and the config file are not read */
    expect_ok(server_url(s, 0, "/healthz"), "200 OK", env);
    expect_fail(server_url(s, 0, "/missing"), "404 Not Found");
    expect_fail(server_url(s, 0, "/../../etc/passwd"), "40");
    server_stop_clean(s);
}
END_TEST

START_TEST(probe_https_and_unix)
{
    char *dir = tree_new();
    char *sock = tree_path(dir, "s");
    const char *args[] = {"--listen",          "https://127.0.0.1:0",
                          "--listen",          hfmt("unix:%s", sock),
                          "--tls-self-signed", NULL};
    struct server *s = site(args);
    unsigned port = server_https_port(s);
    expect_ok(hfmt("https://127.0.0.1:%u/", port), "200 OK", NULL);
    expect_ok(hfmt("unix:%s", sock), "200 OK", NULL);
    /* TLS spoken to a plain HTTP port is a failed handshake */
    expect_fail(hfmt("https://127.0.0.1:%u/", s->port), "TLS handshake");
    server_stop_clean(s);
}
END_TEST

START_TEST(probe_failures)
{
    expect_fail(hfmt("http://127.0.0.1:%u/", fixture_free_port()),
                "Connection refused");
    expect_fail("ftp://127.0.0.1/", "not an http://");
    expect_fail("http://127.0.0.1:8x/", "bad port");
    expect_fail("http://example.invalid/", "not a numeric address");
    expect_fail("http:///", "missing host");
}
END_TEST

/* A listener that accepts (the kernel's backlog) but never answers. */
START_TEST(probe_times_out)
{
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sa;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct probe_result r;

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    ck_assert_int_eq(listen(fd, 8), 0);
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
    r = probe(hfmt("http://127.0.0.1:%u/", ntohs(sa.sin_port)), NULL);
    close(fd);
    EXPECT(r.exit == 1, "silent peer: exit %d", r.exit);
    EXPECT(strstr(r.err, "no answer") && lines(r.err) == 1,
           "silent peer: stderr '%s'", r.err);
    EXPECT(r.ms >= 4000 && r.ms < 9000, "silent peer: %ld ms", r.ms);
}
END_TEST

const struct check_main check_main = {
    .suite = "probe",
    .fixture = HARNESS_FIXTURE(60),
    .tcases = {{"probe", .tests = {&probe_answers, &probe_https_and_unix,
                                   &probe_failures, &probe_times_out}}}};
