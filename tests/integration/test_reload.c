/* SPDX-License-Identifier: MIT */
/*
 * test_reload.c - SIGHUP reads the configuration file again, end to end: a
 * changed header is served by the requests that follow; a file with an error
 * keeps the old configuration and names FILE:LINE on stderr; a changed listen
 * address says it needs a restart and the old socket keeps serving, while
 * the other options of that file take effect; and under load, 50 SIGHUPs
 * alternating two configurations (50 serving processes, each draining when
 * the next serves) fail no request, every response comes from one
 * generation (its header and Cache-Control agree), no access log line is
 * lost, the old processes are gone, and the server exits clean (ASan in
 * the dev preset).
 */
#include "harness.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* Replace the content of @dir/b.conf atomically (a reader never sees half a
 * file); returns its path. */
static char *write_conf(const char *dir, const char *text)
{
    char *conf = tree_path(dir, "b.conf");
    tree_write_str(dir, "b.conf.tmp", text);
    EXPECT(rename(tree_path(dir, "b.conf.tmp"), conf) == 0, "rename: %s",
           strerror(errno));
    return conf;
}

/* SIGHUP, then wait until stderr holds @needle once more than before. */
static void hup_and_wait(struct server *s, const char *needle)
{
    int before = count(server_stderr(s), needle);
    server_signal(s, SIGHUP);
    long long deadline = now_ms() + 10000;
    while (count(server_stderr(s), needle) == before && now_ms() < deadline)
        sleep_ms(5);
    EXPECT(count(server_stderr(s), needle) > before,
           "no '%s' within 10 s of SIGHUP; stderr:\n%s", needle,
           server_stderr(s));
}

/* Serve a root of one index.html with the configuration @text, written to
 * @dir/b.conf (rewrite it there with write_conf). */
static struct server *start_conf(const char *dir, const char *text)
{
    return server_start(tree_site("x\n"), "--config", write_conf(dir, text),
                        NULL);
}

static const char *header_of(const struct http_response *r, const char *name)
{
    const char *v = http_header(r, name);
    return v ? v : "(none)";
}

#define APPLIED "beneath: SIGHUP: configuration applied; "
#define KEPT "; keeping the old configuration\n"

START_TEST(reload_header)
{
    char *d = tree_new();
    struct server *s = start_conf(d, "header = X-Gen: one\n");
    struct http_response *r = raw_get(s->port, "/");
    EXPECT(strcmp(header_of(r, "X-Gen"), "one") == 0, "before: X-Gen %s",
           header_of(r, "X-Gen"));

    write_conf(d, "header = X-Gen: two\nsecurity-headers = on\n");
    EXPECT(server_reload(s, 10000) > 0, "not applied:\n%s", server_stderr(s));
    EXPECT(strstr(server_stderr(s),
                  APPLIED "changed: header, security-headers\n") != NULL,
           "the log does not say what changed:\n%s", server_stderr(s));
    r = raw_get(s->port, "/");
    EXPECT(strcmp(header_of(r, "X-Gen"), "two") == 0 &&
               strcmp(header_of(r, "X-Frame-Options"), "DENY") == 0,
           "after SIGHUP: X-Gen %s, X-Frame-Options %s", header_of(r, "X-Gen"),
           header_of(r, "X-Frame-Options"));

    /* the same file again: nothing changed, and it says so */
    EXPECT(server_reload(s, 10000) > 0, "not applied:\n%s", server_stderr(s));
    EXPECT(strstr(server_stderr(s), APPLIED "nothing changed\n") != NULL,
           "a reload without a change:\n%s", server_stderr(s));
    server_stop_clean(s);
}
END_TEST

/*
 * A small settled file's 200 is kept ready in the worker's reply cache; a
 * SIGHUP that changes a header must still be seen by the next request, and
 * the entry made under the old configuration is never compared against the
 * freed strings of that configuration (ASan).
 */
START_TEST(reload_header_cached_reply)
{
    char *w = tree_site("x\n");
    char *d = tree_new();
    char *conf =
        write_conf(d, "header = X-Gen: one\ncache-default = no-cache\n");
    /* the reply cache keeps only files changed 2 s (and more) ago */
    sleep_ms(2200);
    struct server *s =
        server_start(w, "--config", conf, "--threads", "1", NULL);
    struct http_response *r;
    for (int i = 0; i < 3; i++) {
        r = raw_get(s->port, "/");
        EXPECT(r->status == 200 && strcmp(header_of(r, "X-Gen"), "one") == 0,
               "before: %d X-Gen %s", r->status, header_of(r, "X-Gen"));
    }
    /* only the header changes: the entry's file, type and Cache-Control
     * (equal text, in the new generation's memory) all still match */
    for (int gen = 0; gen < 2; gen++) {
        const char *want = gen ? "three" : "two";
        write_conf(
            d, hfmt("header = X-Gen: %s\ncache-default = no-cache\n", want));
        EXPECT(server_reload(s, 10000) > 0, "not applied:\n%s",
               server_stderr(s));
        for (int i = 0; i < 3; i++) {
            r = raw_get(s->port, "/");
            EXPECT(r->status == 200 && strcmp(header_of(r, "X-Gen"), want) == 0,
                   "after SIGHUP %d: X-Gen %s", gen + 1, header_of(r, "X-Gen"));
        }
    }
    server_stop_clean(s);
}
END_TEST

START_TEST(reload_bad_file_keeps_old)
{
    char *d = tree_new();
    struct server *s = start_conf(d, "header = X-Gen: one\n");

    char *conf =
        write_conf(d, "header = X-Gen: three\nthreads = 0\ncache = nonsense\n");
    server_reload_refused(s, "beneath: SIGHUP: the configuration has "
                             "errors" KEPT);
    char *e = server_stderr(s);
    EXPECT(strstr(e, hfmt("beneath: SIGHUP: %s:2: threads: 0 is out of range "
                          "1..1024\n",
                          conf)) != NULL &&
               strstr(e, hfmt("beneath: SIGHUP: %s:3: cache: 'nonsense': "
                              "expected GLOB[,GLOB...]=VALUE\n",
                              conf)) != NULL,
           "the errors are not named with FILE:LINE:\n%s", e);
    /* the keeper found the errors: no serving process was started */
    EXPECT(!strstr(e, "starting generation"),
           "a serving process was started for a file with errors:\n%s", e);
    struct http_response *r = raw_get(s->port, "/");
    EXPECT(r->status == 200 && strcmp(header_of(r, "X-Gen"), "one") == 0,
           "after a bad reload: %d, X-Gen %s", r->status,
           header_of(r, "X-Gen"));

    /* a good file after the bad one is applied */
    write_conf(d, "header = X-Gen: four\n");
    EXPECT(server_reload(s, 10000) > 0, "not applied:\n%s", server_stderr(s));
    r = raw_get(s->port, "/");
    EXPECT(strcmp(header_of(r, "X-Gen"), "four") == 0, "X-Gen %s",
           header_of(r, "X-Gen"));
    server_stop_clean(s);
}
END_TEST

/* The number of threads of process @pid (/proc/PID/status), or -1. */
static int threads_of(pid_t pid)
{
    char *st = tree_read(hfmt("/proc/%d/status", (int)pid), NULL);
    const char *t = st ? strstr(st, "\nThreads:") : NULL;

    return t ? (int)strtol(t + strlen("\nThreads:"), NULL, 10) : -1;
}

/*
 * Only the listening addresses (and --metrics-listen, --user) are the
 * keeper's, fixed at its start: a changed listen says it needs a restart
 * and the old socket keeps serving, while every other option of the same
 * file takes effect in the new serving process (--threads, --listing).
 */
START_TEST(reload_listen_needs_restart)
{
    char *w = tree_site("x\n");
    char *d = tree_new();
    tree_build(w, "dir/f.txt=f\n", NULL);
    char *conf = write_conf(d, "listen = 127.0.0.1:0\nthreads = 6\n");
    struct server_opts o = {
        .root = w,
        .no_listen = true,
        .args = (const char *[]){"--config", conf, NULL},
    };
    struct server *s = server_start_opts(&o);
    int threads_before = threads_of(server_serving_pid(s));
    expect_get(s, "/dir/", 403, "a directory without --listing");

    /* the port this file names: free now, and it must stay free */
    unsigned other = fixture_free_port();
    write_conf(
        d, hfmt("listen = 127.0.0.1:%u\nthreads = 1\nlisting = on\n", other));
    pid_t next = server_reload(s, 10000);
    char *e = server_stderr(s);
    EXPECT(next > 0, "the reload was not applied:\n%s", e);
    EXPECT(strstr(e, APPLIED "changed: listing, threads\n") != NULL &&
               strstr(e, "beneath: SIGHUP: needs a restart to change: listen "
                         "(the running values stay)\n") != NULL,
           "the log does not say what changed and what needs a restart:\n%s",
           e);
    expect_get(s, "/", 200, "the old listener after SIGHUP");
    expect_get(s, "/dir/", 200, "--listing on after SIGHUP");
    int threads_after = threads_of(next);
    EXPECT(threads_after > 0 && threads_after < threads_before,
           "--threads 6 -> 1: %d threads before, %d in the new serving "
           "process",
           threads_before, threads_after);
    EXPECT(raw_connect(other) == NULL,
           "port %u is listening: a listen change needs a restart", other);
    server_stop_clean(s);
}
END_TEST

/* ---- under load --------------------------------------------------------- */

struct load {
    const struct server *s;
    atomic_bool stop;
    atomic_int done;     /* requests answered (each leaves a log line) */
    atomic_int failures; /* not 200, or a mix of two generations */
    atomic_int seen_a, seen_b;
    char last_failure[256];
};

/* One response: 200, and its header and Cache-Control of one generation.
 * @how: the client that asked. */
static void judge(struct load *l, const struct http_response *r,
                  const char *how)
{
    const char *gen = header_of(r, "X-Gen");
    const char *cc = header_of(r, "Cache-Control");
    bool a = strcmp(gen, "a") == 0 && strcmp(cc, "no-cache") == 0;
    bool b = strcmp(gen, "b") == 0 && strcmp(cc, "max-age=60") == 0;

    if (r->status == 200 && (a || b)) {
        atomic_fetch_add(a ? &l->seen_a : &l->seen_b, 1);
        atomic_fetch_add(&l->done, 1);
        return;
    }
    if (r->status)
        atomic_fetch_add(&l->done, 1);
    atomic_fetch_add(&l->failures, 1);
    snprintf(l->last_failure, sizeof l->last_failure,
             "%s: status %d error %d X-Gen %s Cache-Control %s", how, r->status,
             r->error, gen, cc);
}

static void *load_thread(void *ud)
{
    struct load *l = ud;
    CURL *e = curl_easy_init(); /* keep-alive across the reloads */

    /* bounded: stops when told, or after 20000 requests */
    for (int i = 0; e && i < 10000 && !atomic_load(&l->stop); i++) {
        judge(l, http_do(e, l->s, "GET", "/", NULL), "keep-alive (curl)");
        judge(l, raw_get(l->s->port, "/"), "a new connection");
    }
    if (e)
        curl_easy_cleanup(e);
    return NULL;
}

START_TEST(reload_under_load)
{
    char *d = tree_new();
    char *log = tree_path(d, "access.log");
    const char *gen[2] = {
        hfmt("access-log = %s\nheader = X-Gen: a\ncache-default = no-cache\n",
             log),
        hfmt("access-log = %s\nheader = X-Gen: b\ncache-default = "
             "max-age=60\nlog-format = combined\n",
             log),
    };
    struct server *s = start_conf(d, gen[0]);
    struct load l = {.s = s};
    pthread_t th[2];

    for (int i = 0; i < 2; i++)
        EXPECT(pthread_create(&th[i], NULL, load_thread, &l) == 0,
               "pthread_create");
    for (int i = 1; i <= 50; i++) {
        write_conf(d, gen[i % 2]);
        hup_and_wait(s, APPLIED);
    }
    atomic_store(&l.stop, true);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    EXPECT(atomic_load(&l.failures) == 0,
           "%d of %d requests failed across 50 SIGHUPs; last: %s",
           atomic_load(&l.failures), atomic_load(&l.done), l.last_failure);
    EXPECT(atomic_load(&l.seen_a) > 0 && atomic_load(&l.seen_b) > 0,
           "one generation only: a %d, b %d", atomic_load(&l.seen_a),
           atomic_load(&l.seen_b));
    EXPECT(count(server_stderr(s), "SIGHUP: root ") == 50,
           "not every SIGHUP started a generation with its root:\n%s",
           server_stderr(s));
    /* 50 serving processes came and went: one is left */
    EXPECT(server_drained(s, 10000), "%d serving processes after 50 reloads",
           server_serving_count(s));
    server_stop_clean(s);
    /* every request answered left its line in the one file */
    size_t len = 0;
    char *lines = tree_read(log, &len);
    EXPECT(lines && count(lines, "\n") == atomic_load(&l.done),
           "%d log lines for %d requests", lines ? count(lines, "\n") : -1,
           atomic_load(&l.done));
}
END_TEST

const struct check_main check_main = {
    .suite = "e2e_reload",
    .fixture = HARNESS_FIXTURE(300),
    .tcases = {{"sighup",
                .tests = {&reload_header, &reload_header_cached_reply,
                          &reload_bad_file_keeps_old,
                          &reload_listen_needs_restart, &reload_under_load}}}};
