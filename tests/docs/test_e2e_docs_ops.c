/* SPDX-License-Identifier: MIT */
/*
 * test_e2e_docs_ops.c - the operations side of docs hosting, against the
 * real binary (the second suite of test_e2e_docs, on its fixture site):
 * health, metrics checked against the requests just made, Server-Timing, a
 * Unix-socket listener, socket activation (fds 3 and 4 from
 * tests/docs/sd_launch.c) and a SIGHUP root flip with variants.
 */
#include "e2e_docs.h"
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- ops: health, metrics, Server-Timing ---------------------------- */

START_TEST(health)
{
    struct server *s = server_start(www, "--health", "/healthz", NULL);
    struct http_response *r = expect_get(s, "/healthz", 200, "health");
    EXPECT(strcmp(r->body, "ok\n") == 0, "health body %s", r->body);
    EXPECT_HEADER(r, "Cache-Control", "no-store", "health");
    r = http_do(NULL, s, "HEAD", "/healthz", NULL);
    EXPECT_STATUS(r, 200, "HEAD health");
    server_stop_clean(s);
    s = server_start(www, NULL);
    expect_get(s, "/healthz", 404, "health off by default");
    server_stop_clean(s);
}
END_TEST

/* The value of the sample @series in Prometheus text @t, or -1. */
static double sample(const char *t, const char *series)
{
    size_t n = strlen(series);

    for (const char *p = t; p && *p;
         p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, series, n) == 0 && p[n] == ' ')
            return strtod(p + n + 1, NULL);
    return -1;
}

START_TEST(metrics)
{
    struct server *s = server_start(www, "--metrics", "/metrics",
                                    "--precompressed", "br", NULL);
    const char *be = harness_backend();
    struct http_response *r;
    double ok = 0, bytes = 0;
    int polls = 0;

    for (int i = 0; i < 3; i++) {
        r = http_get(s, "/guide.html");
        EXPECT_STATUS(r, 200, "guide");
        bytes += (double)r->body_len;
    }
    r = http_get(s, "/nope");
    EXPECT_STATUS(r, 404, "nope");
    bytes += (double)r->body_len;
    r = http_get(s, "/evil.html");
    EXPECT_STATUS(r, 403, "evil");
    bytes += (double)r->body_len;

    /*
     * A response is counted when libmicrohttpd reports it complete, which
     * may be just after the client has it: poll (bounded) until the counts
     * settle. Each earlier /metrics response adds one 200 and its bytes.
     */
    for (;;) {
        r = http_get(s, "/metrics");
        EXPECT_STATUS(r, 200, "metrics");
        ok = sample(r->body, "beneath_http_requests_total{class=\"2xx\","
                             "code=\"200\",proto=\"http/1.1\"}");
        if (ok == 3 + polls &&
            sample(r->body, "beneath_http_sent_bytes_total") == bytes &&
            sample(r->body, "beneath_http_requests_total{class=\"4xx\","
                            "code=\"403\",proto=\"http/1.1\"}") == 1)
            break;
        EXPECT(++polls < 200, "metrics never settled:\n%s", r->body);
        bytes += (double)r->body_len;
        usleep(10000);
    }
    EXPECT(http_value_eq(http_header(r, "Content-Type"),
                         "text/plain; version=0.0.4; charset=utf-8"),
           "type %s", http_header(r, "Content-Type"));
    EXPECT(ok == 3 + polls, "200s: %g, want %d\n%s", ok, 3 + polls, r->body);
    EXPECT(sample(r->body,
                  "beneath_http_requests_total{class=\"4xx\",code=\"404\","
                  "proto=\"http/1.1\"}") == 1,
           "404s\n%s", r->body);
    EXPECT(sample(r->body, "beneath_http_sent_bytes_total") == bytes,
           "bytes %g, want %g\n%s",
           sample(r->body, "beneath_http_sent_bytes_total"), bytes, r->body);
    EXPECT(sample(r->body, "beneath_resolver_errors_total{errno=\"EXDEV\"}") ==
               1,
           "one EXDEV refusal\n%s", r->body);
    double count = sample(
        r->body,
        hfmt("beneath_resolver_duration_seconds_count{backend=\"%s\"}", be));
    double inf = sample(
        r->body,
        hfmt("beneath_resolver_duration_seconds_bucket{backend=\"%s\",le=\"+"
             "Inf\"}",
             be));
    /* guide x3 (+ .br probe each), nope (+404.html), evil: at least 9 */
    EXPECT(count >= 9 && inf == count, "histogram count %g, +Inf %g\n%s", count,
           inf, r->body);
    EXPECT(strstr(r->body, "# TYPE beneath_resolver_duration_seconds "
                           "histogram\n") != NULL,
           "TYPE line\n%s", r->body);
    server_stop_clean(s);
}
END_TEST

START_TEST(server_timing)
{
    struct server *s = server_start(www, "--server-timing", NULL);
    struct http_response *r = http_get(s, "/guide.html");
    regex_t re;

    ck_assert_int_eq(regcomp(&re, "^resolve;dur=[0-9]+\\.[0-9]{3}$",
                             REG_EXTENDED | REG_NOSUB),
                     0);
    EXPECT(http_header(r, "Server-Timing") &&
               regexec(&re, http_header(r, "Server-Timing"), 0, NULL, 0) == 0,
           "Server-Timing: %s", http_header(r, "Server-Timing"));
    r = http_get(s, "/nope");
    EXPECT(http_header(r, "Server-Timing") != NULL, "on a 404 too");
    regfree(&re);
    server_stop_clean(s);
    s = server_start(www, NULL);
    r = http_get(s, "/guide.html");
    EXPECT_HEADER(r, "Server-Timing", NULL, "off by default");
    server_stop_clean(s);
}
END_TEST

/* ---- listeners ------------------------------------------------------ */

struct sink {
    char buf[4096];
    size_t len;
};

static size_t sink_cb(char *p, size_t sz, size_t n, void *arg)
{
    struct sink *k = arg;
    size_t len = sz * n;

    if (len > sizeof k->buf - 1 - k->len)
        len = sizeof k->buf - 1 - k->len;
    memcpy(k->buf + k->len, p, len);
    k->len += len;
    k->buf[k->len] = '\0';
    return sz * n;
}

/* GET @path over the Unix socket @sock; the status, body in @k. */
static long unix_get(const char *sock, const char *path, const char *ae,
                     struct sink *k)
{
    CURL *e = curl_easy_init();
    struct curl_slist *h = NULL;
    long status = 0;

    ck_assert_ptr_nonnull(e);
    if (ae)
        h = curl_slist_append(h, hfmt("Accept-Encoding: %s", ae));
    curl_easy_setopt(e, CURLOPT_UNIX_SOCKET_PATH, sock);
    curl_easy_setopt(e, CURLOPT_URL, hfmt("http://localhost%s", path));
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, sink_cb);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, k);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 10000L);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    k->len = 0;
    k->buf[0] = '\0';
    if (curl_easy_perform(e) == CURLE_OK)
        curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(h);
    curl_easy_cleanup(e);
    return status;
}

START_TEST(unix_listener)
{
    char *sock = tree_path(tree_new(), "b.sock");
    struct server *s = server_start(www, "--listen", hfmt("unix:%s", sock),
                                    "--precompressed", "br", NULL);
    struct sink k;
    struct stat st;

    EXPECT(strstr(server_stderr(s), hfmt("listening on unix:%s", sock)),
           "no unix listening line");
    EXPECT(stat(sock, &st) == 0 && S_ISSOCK(st.st_mode), "no socket at %s",
           sock);
    EXPECT(unix_get(sock, "/guide.html", NULL, &k) == 200, "unix GET");
    EXPECT(strcmp(k.buf, "GUIDE-HTML\n") == 0, "unix body %s", k.buf);
    EXPECT(unix_get(sock, "/app.css", "br", &k) == 200, "unix GET br");
    EXPECT(strcmp(k.buf, "BR-BODY") == 0, "unix br body %s", k.buf);
    EXPECT(unix_get(sock, "/evil.html", NULL, &k) == 403, "unix refusal");
    EXPECT(http_get(s, "/guide.html")->status == 200, "tcp still serves");
    server_stop_clean(s);
    EXPECT(stat(sock, &st) != 0, "socket file left behind");
}
END_TEST

static void use_launcher(void)
{
    const char *l = getenv("DOCS_SD_LAUNCH");
    ck_assert_msg(l && *l, "DOCS_SD_LAUNCH is not set");
    setenv("BENEATH_BIN", l, 1); /* this forked test process only */
}

START_TEST(socket_activation)
{
    char *sock = tree_path(tree_new(), "act.sock");
    const char *real = getenv("DOCS_BENEATH_BIN");
    const char *env[] = {hfmt("SD_LAUNCH_EXEC=%s", real),
                         hfmt("SD_LAUNCH_UNIX=%s", sock), NULL};
    const char *args[] = {"--precompressed", "br", NULL};
    struct server_opts o = {
        .root = www, .args = args, .env = env, .no_listen = true};
    struct sink k;
    struct server *s;
    struct http_response *r;

    use_launcher();
    s = server_start_opts(&o);
    EXPECT(strstr(server_stderr(s), hfmt("listening on unix:%s", sock)),
           "fd 4 (unix) not listed");
    EXPECT(strstr(server_stderr(s), "127.0.0.1:8080") == NULL,
           "the configured default listener was bound too");
    r = get_ae(s, "/app.css", "br", NULL);
    EXPECT_STATUS(r, 200, "activated fd 3");
    EXPECT(strcmp(r->body, "BR-BODY") == 0, "body %s", r->body);
    EXPECT(unix_get(sock, "/guide.html", NULL, &k) == 200, "activated fd 4");
    server_stop_clean(s);
}
END_TEST

START_TEST(socket_activation_foreign_pid)
{
    const char *real = getenv("DOCS_BENEATH_BIN");
    const char *env[] = {hfmt("SD_LAUNCH_EXEC=%s", real), "SD_LAUNCH_PID=1",
                         NULL};
    const char *args[] = {NULL};
    struct server_opts o = {.root = www, .args = args, .env = env};
    struct server *s;

    use_launcher();
    /* LISTEN_PID names another process: --listen is used, as configured. */
    s = server_start_opts(&o);
    EXPECT(http_get(s, "/guide.html")->status == 200, "--listen serves");
    server_stop_clean(s);
}
END_TEST

START_TEST(socket_activation_bad_fd)
{
    const char *env[] = {"LISTEN_FDS=1", NULL};
    char *out, *err;
    /* LISTEN_PID must be the child's pid: run through /bin/sh to know it. */
    const char *sh[] = {"-c",
                        hfmt("LISTEN_PID=$$ exec %s --check %s 3</dev/null",
                             getenv("DOCS_BENEATH_BIN"), www),
                        NULL};
    int ws;

    setenv("BENEATH_BIN", "/bin/sh", 1);
    ws = beneath_run(sh, env, 10000, &out, &err);
    EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) == 2, "fd 3 not a socket: %s\n%s",
           wstatus_str(ws), err);
    EXPECT(strstr(err, "fd 3 is not a listening socket") != NULL, "stderr: %s",
           err);
}
END_TEST

/* ---- SIGHUP root flip with variants --------------------------------- */

START_TEST(root_flip_with_variants)
{
    char *d = tree_new();
    char *link = tree_path(d, "current");
    struct server *s;
    struct http_response *r;

    tree_mkdir(d, "v1");
    tree_mkdir(d, "v2");
    tree_write_str(d, "v1/app.css", "V1\n");
    tree_write_str(d, "v1/app.css.br", "V1-BR");
    tree_write_str(d, "v2/app.css", "V2\n");
    tree_write_str(d, "v2/app.css.br", "V2-BR");
    tree_symlink(d, "v1", "current");
    s = server_start(link, "--precompressed", "br", NULL);
    r = get_ae(s, "/app.css", "br", NULL);
    EXPECT(strcmp(r->body, "V1-BR") == 0, "v1 body %s", r->body);

    /* A deploy flips the symlink atomically (rename over it). */
    tree_symlink(d, "v2", "next");
    EXPECT(rename(tree_path(d, "next"), link) == 0, "rename: %s",
           strerror(errno));
    r = get_ae(s, "/app.css", "br", NULL);
    EXPECT(strcmp(r->body, "V1-BR") == 0, "before SIGHUP: %s", r->body);
    EXPECT(server_reload(s, 10000) > 0, "no new generation:\n%s",
           server_stderr(s));
    EXPECT(strstr(server_stderr(s), hfmt("beneath: SIGHUP: root %s (%s)\n",
                                         link, tree_path(d, "v2"))),
           "the new generation does not serve v2:\n%s", server_stderr(s));
    r = get_ae(s, "/app.css", "br", NULL);
    EXPECT(strcmp(r->body, "V2-BR") == 0, "after SIGHUP: %s", r->body);
    EXPECT_HEADER(r, "Content-Encoding", "br", "v2 variant");
    r = get_ae(s, "/app.css", NULL, NULL);
    EXPECT(strcmp(r->body, "V2\n") == 0, "v2 plain: %s", r->body);
    server_stop_clean(s);
}
END_TEST

Suite *docs_ops_suite(void)
{
    static const struct check_fixture fixture = DOCS_FIXTURE;
    static const struct check_tcase tcases[] = {
        {"ops",
         .tests = {&health, &metrics, &server_timing, &unix_listener,
                   &socket_activation, &socket_activation_foreign_pid,
                   &socket_activation_bad_fd, &root_flip_with_variants}}};

    return check_suite_make("e2e_docs", &fixture, tcases, N_ELEMS(tcases));
}
