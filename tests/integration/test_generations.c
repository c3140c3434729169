// SPDX-License-Identifier: MIT
/*
 * test_generations.c - a SIGHUP starts a new serving process (a generation)
 * with the configuration as it is now; the old one drains (keeper.h).
 *
 * The deploys users make - a new tree renamed over the root, a symlink
 * flipped, the same under a --vhost and a --mount - answer the new tree
 * after the SIGHUP and never 403 meanwhile (a client loops all the while,
 * keep-alive and fresh connections), under --sandbox on and strict: the
 * new process's walls are made for the new tree. What the configuration
 * file names takes effect too: a vhost added, a --mime changed, an --auth
 * file changed, and a user removed from that new file is refused (the
 * file in force is the one read at the generation's start). A generation
 * that fails its checks leaves the old one serving; the old one is gone
 * once drained, and a connection that never ends is closed at
 * --drain-timeout, with a line.
 */
#include "harness.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

#define SERVING "beneath: SIGHUP: generation "
#define STARTED_NOT "before serving; keeping the old configuration"

/* SIGHUP, then wait (bounded) until stderr holds @needle once more. */
static void hup_and_wait(struct server *s, const char *needle)
{
    int before = count(server_stderr(s), needle);
    server_signal(s, SIGHUP);
    long long deadline = now_ms() + 15000;
    while (count(server_stderr(s), needle) == before && now_ms() < deadline)
        sleep_ms(5);
    EXPECT(count(server_stderr(s), needle) > before,
           "no '%s' within 15 s of SIGHUP; stderr:\n%s", needle,
           server_stderr(s));
}

/* Whether process @pid exists (and is not a zombie of ours). */
static bool alive(pid_t pid)
{
    char *st = tree_read(hfmt("/proc/%d/stat", (int)pid), NULL);
    const char *p = st ? strrchr(st, ')') : NULL;

    return p && p[1] == ' ' && p[2] != 'Z';
}

/* Wait up to @ms for @pid to be gone. */
static bool gone_within(pid_t pid, int ms)
{
    long long deadline = now_ms() + ms;
    while (alive(pid) && now_ms() < deadline)
        sleep_ms(10);
    return !alive(pid);
}

/* ---- a client looping through a deploy ----------------------------------- */

struct looper {
    const struct server *s;
    const char *host; /* Host: of the raw requests, NULL: 127.0.0.1 */
    const char *path;
    const char *v1, *v2; /* the two bodies allowed */
    atomic_bool stop;
    atomic_int n, failures, v2_seen;
    char last_failure[256];
};

static void judge(struct looper *l, const struct http_response *r,
                  const char *how)
{
    bool v1 = r->status == 200 && strcmp(r->body, l->v1) == 0;
    bool v2 = r->status == 200 && strcmp(r->body, l->v2) == 0;

    if (!v1 && !v2) {
        atomic_fetch_add(&l->failures, 1);
        snprintf(l->last_failure, sizeof l->last_failure,
                 "%s: status %d error %d body '%.40s'", how, r->status,
                 r->error, r->body ? r->body : "");
    }
    atomic_fetch_add(&l->v2_seen, v2);
    atomic_fetch_add(&l->n, 1);
}

static void *loop_thread(void *ud)
{
    struct looper *l = ud;
    CURL *e = curl_easy_init(); /* keep-alive across the reload */
    const char *hdr[] = {l->host ? hfmt("Host: %s", l->host) : NULL, NULL};

    /* bounded: stops when told, or after 20000 requests */
    for (int i = 0; e && i < 10000 && !atomic_load(&l->stop); i++) {
        judge(l, http_do(e, l->s, "GET", l->path, l->host ? hdr : NULL),
              "keep-alive");
        judge(l,
              raw_request(l->s->port,
                          hfmt("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", l->path,
                               l->host ? l->host : "127.0.0.1"),
                          5000),
              "fresh");
    }
    if (e)
        curl_easy_cleanup(e);
    return NULL;
}

static void loop_start(struct looper *l, pthread_t *t)
{
    EXPECT(pthread_create(t, NULL, loop_thread, l) == 0, "pthread_create");
    long long deadline = now_ms() + 10000;
    while (atomic_load(&l->n) < 20 && now_ms() < deadline)
        sleep_ms(5);
}

static void loop_stop(struct looper *l, pthread_t t, const char *what)
{
    long long deadline = now_ms() + 10000;
    int seen = atomic_load(&l->v2_seen);
    /* a few more after the new tree answered */
    while (atomic_load(&l->v2_seen) < seen + 20 && now_ms() < deadline)
        sleep_ms(5);
    atomic_store(&l->stop, true);
    pthread_join(t, NULL);
    EXPECT(atomic_load(&l->failures) == 0,
           "%s: %d of %d requests were not the old or the new tree; last: %s",
           what, atomic_load(&l->failures), atomic_load(&l->n),
           l->last_failure);
    EXPECT(atomic_load(&l->v2_seen) > 0, "%s: the new tree never answered",
           what);
}

/* --sandbox on, then strict: the walls of the new process are its own. */
static const char *const sandboxes[] = {"on", "strict"};

/* ---- deploys --------------------------------------------------------------
 */

/* mv live live.old; mv live.new live; SIGHUP. */
LOOP_TEST(deploy_rename, sandboxes)
{
    char *d = tree_new();
    tree_build(d, "live/index.html=V1\n", "next/index.html=V2\n", NULL);
    struct server *s =
        server_start(tree_path(d, "live"), "--sandbox", sandboxes[_i], NULL);
    struct looper l = {.s = s, .path = "/", .v1 = "V1\n", .v2 = "V2\n"};
    pthread_t t;
    pid_t old = server_serving_pid(s);

    loop_start(&l, &t);
    EXPECT(rename(tree_path(d, "live"), tree_path(d, "live.old")) == 0 &&
               rename(tree_path(d, "next"), tree_path(d, "live")) == 0,
           "rename: %s", strerror(errno));
    hup_and_wait(s, SERVING);
    loop_stop(&l, t, "rename deploy");
    expect_get_body(s, "/", "V2\n", "a new connection after the reload");
    EXPECT(server_serving_pid(s) != old, "the same serving process serves");
    EXPECT(gone_within(old, 10000),
           "the old serving process %d is still "
           "there 10 s after the reload",
           (int)old);
    server_stop_clean(s);
}
END_TEST

/* current -> releases/1 flipped to releases/2; SIGHUP. */
LOOP_TEST(deploy_symlink_flip, sandboxes)
{
    char *d = tree_new();
    tree_build(d, "releases/1/index.html=V1\n", "releases/2/index.html=V2\n",
               NULL);
    tree_symlink(d, "releases/1", "current");
    struct server *s =
        server_start(tree_path(d, "current"), "--sandbox", sandboxes[_i], NULL);
    struct looper l = {.s = s, .path = "/", .v1 = "V1\n", .v2 = "V2\n"};
    pthread_t t;

    loop_start(&l, &t);
    tree_symlink(d, "releases/2", "current.tmp");
    EXPECT(rename(tree_path(d, "current.tmp"), tree_path(d, "current")) == 0,
           "rename: %s", strerror(errno));
    hup_and_wait(s, SERVING);
    loop_stop(&l, t, "symlink flip");
    expect_get_body(s, "/", "V2\n", "a new connection after the reload");
    server_stop_clean(s);
}
END_TEST

/* The same under a --vhost and a --mount: each root is opened anew. */
LOOP_TEST(deploy_vhost_and_mount, sandboxes)
{
    char *d = tree_new();
    tree_build(d, "main/index.html=main\n", "a/index.html=A1\n",
               "a.next/index.html=A2\n", "static/x.txt=S1\n",
               "static.next/x.txt=S2\n", NULL);
    struct server *s =
        server_start(tree_path(d, "main"), "--sandbox", sandboxes[_i],
                     "--vhost", hfmt("a.test=%s", tree_path(d, "a")), "--mount",
                     hfmt("/static=%s", tree_path(d, "static")), NULL);
    struct looper l = {
        .s = s, .host = "a.test", .path = "/", .v1 = "A1\n", .v2 = "A2\n"};
    pthread_t t;

    loop_start(&l, &t);
    EXPECT(rename(tree_path(d, "a"), tree_path(d, "a.old")) == 0 &&
               rename(tree_path(d, "a.next"), tree_path(d, "a")) == 0 &&
               rename(tree_path(d, "static"), tree_path(d, "static.old")) ==
                   0 &&
               rename(tree_path(d, "static.next"), tree_path(d, "static")) == 0,
           "rename: %s", strerror(errno));
    hup_and_wait(s, SERVING);
    loop_stop(&l, t, "vhost deploy");
    struct http_response *r =
        raw_request(s->port, "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n", 5000);
    EXPECT_STATUS(r, 200, "the vhost after the reload");
    EXPECT_BODY(r, "A2\n", "the vhost after the reload");
    expect_get_body(s, "/static/x.txt", "S2\n", "the mount after the reload");
    server_stop_clean(s);
}
END_TEST

/* ---- what the configuration file names ------------------------------------
 */

static char *write_conf(const char *dir, const char *text)
{
    tree_write_str(dir, "b.conf.tmp", text);
    EXPECT(rename(tree_path(dir, "b.conf.tmp"), tree_path(dir, "b.conf")) == 0,
           "rename: %s", strerror(errno));
    return tree_path(dir, "b.conf");
}

/* A vhost added, a --mime changed: both serve after the SIGHUP. */
START_TEST(config_vhost_and_mime)
{
    char *d = tree_new();
    tree_build(d, "www/index.html=main\n", "www/f.xyz=data\n",
               "b/index.html=B\n", NULL);
    char *conf = write_conf(d, hfmt("root = %s\n", tree_path(d, "www")));
    struct server *s = server_start(NULL, "--config", conf, NULL);
    struct http_response *r = expect_get(s, "/f.xyz", 200, "before");
    EXPECT(strcmp(http_header(r, "Content-Type") ? http_header(r, "Content-"
                                                                  "Type")
                                                 : "",
                  "text/x-test") != 0,
           "the new type before the reload");

    write_conf(d, hfmt("root = %s\nvhost = b.test=%s\nmime = "
                       "xyz=text/x-test\n",
                       tree_path(d, "www"), tree_path(d, "b")));
    hup_and_wait(s, SERVING);
    EXPECT(strstr(server_stderr(s),
                  "beneath: SIGHUP: configuration applied; changed: ") != NULL,
           "no line says what changed:\n%s", server_stderr(s));
    r = raw_request(s->port, "GET / HTTP/1.1\r\nHost: b.test\r\n\r\n", 5000);
    EXPECT_STATUS(r, 200, "the vhost added");
    EXPECT_BODY(r, "B\n", "the vhost added");
    r = expect_get(s, "/f.xyz", 200, "after");
    EXPECT_HEADER(r, "Content-Type", "text/x-test; charset=utf-8",
                  "the --mime added");
    EXPECT(strstr(server_stderr(s), "needs a restart") == NULL,
           "a vhost or --mime still needs a restart:\n%s", server_stderr(s));
    server_stop_clean(s);
}
END_TEST

/* "alice:one" and "bob:two", Basic. */
#define ALICE "Authorization: Basic YWxpY2U6b25l"
#define BOB "Authorization: Basic Ym9iOnR3bw=="

static int as(const struct server *s, const char *who)
{
    struct http_response *r = raw_request(
        s->port,
        hfmt("GET /p/x HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n\r\n", who), 5000);
    return r->status;
}

/*
 * --auth's file changed in the configuration file, then a user removed from
 * the new file: refused after the next SIGHUP (the file in force is the
 * one the keeper opened for this generation).
 */
LOOP_TEST(auth_revoked, sandboxes)
{
    char *d = tree_new();
    tree_build(d, "www/index.html=i\n", "www/p/x=secret\n", NULL);
    char *h1 = tree_path(d, "h1"), *h2 = tree_path(d, "h2");
    htpasswd_user(h1, "alice", "one", true);
    htpasswd_user(h1, "bob", "two", false);
    char *conf = write_conf(
        d, hfmt("root = %s\nauth = /p/**=%s\n", tree_path(d, "www"), h1));
    struct server *s =
        server_start(NULL, "--config", conf, "--sandbox", sandboxes[_i], NULL);

    EXPECT(as(s, ALICE) == 200 && as(s, BOB) == 200, "alice and bob at first");
    htpasswd_user(h2, "alice", "one", true);
    htpasswd_user(h2, "bob", "two", false);
    write_conf(d,
               hfmt("root = %s\nauth = /p/**=%s\n", tree_path(d, "www"), h2));
    hup_and_wait(s, SERVING);
    EXPECT(as(s, ALICE) == 200 && as(s, BOB) == 200,
           "alice and bob from the new file");
    EXPECT(system(hfmt("htpasswd -D '%s' bob 2>/dev/null", h2)) == 0,
           "htpasswd -D");
    hup_and_wait(s, SERVING);
    EXPECT(as(s, BOB) == 401, "bob removed from the file in force: %d",
           as(s, BOB));
    EXPECT(as(s, ALICE) == 200, "alice after bob's removal");
    server_stop_clean(s);
}
END_TEST

/* A generation that fails its checks: the old one serves on. */
START_TEST(failed_start_keeps_old)
{
    char *d = tree_new();
    tree_build(d, "live/index.html=V1\n", NULL);
    struct server *s = server_start(tree_path(d, "live"), NULL);
    pid_t old = server_serving_pid(s);

    EXPECT(rename(tree_path(d, "live"), tree_path(d, "gone")) == 0, "rename");
    hup_and_wait(s, STARTED_NOT);
    char *e = server_stderr(s);
    EXPECT(strstr(e, hfmt("beneath: SIGHUP: root %s: No such file or "
                          "directory",
                          tree_path(d, "live"))) != NULL,
           "the failed generation does not say why:\n%s", e);
    EXPECT(server_serving_pid(s) == old && alive(old),
           "the old serving process is not serving");
    expect_get_body(s, "/", "V1\n", "after a failed reload");
    /* and a later reload that can start does */
    tree_build(d, "live/index.html=V2\n", NULL);
    hup_and_wait(s, SERVING);
    expect_get_body(s, "/", "V2\n", "after a good reload");
    server_stop_clean(s);
}
END_TEST

/* ---- the drain -------------------------------------------------------------
 */

/*
 * A download whose client never reads: the old generation closes it at
 * --drain-timeout, says so, and is gone; the new one served meanwhile.
 */
START_TEST(drain_bound)
{
    char *d = tree_new();
    tree_write(d, "big.bin", hfill(64 << 20, 'x'), 64 << 20);
    tree_write_str(d, "index.html", "i\n");
    struct server *s =
        server_start(d, "--drain-timeout", "2", "--timeout", "60", NULL);
    pid_t old = server_serving_pid(s);
    struct raw_conn *c = raw_open(s->port);
    int small = 4096;

    setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    raw_send_str(c, "GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n");
    sleep_ms(200); /* its reply under way, never read */
    long long t0 = now_ms();
    hup_and_wait(s, SERVING);
    expect_get_body(s, "/", "i\n", "the new generation while the old drains");
    EXPECT(gone_within(old, 10000),
           "the old serving process is there 10 s after a 2 s drain bound");
    long long took = now_ms() - t0;
    EXPECT(took >= 1500,
           "the old generation left after %lld ms, before its "
           "drain bound",
           took);
    EXPECT(file_wait_for(s->err_path,
                         "beneath: drain-timeout: closing 1 connections", 5000),
           "no line says the connection was closed at the bound:\n%s",
           server_stderr(s));
    EXPECT(raw_wait_closed(c, 10000), "the held connection is still open");
    raw_close(c);
    server_stop_clean(s);
}
END_TEST

/* Without connections, the old generation is gone at once. */
START_TEST(drain_idle_is_quick)
{
    struct server *s = server_start(tree_site("x\n"), NULL);
    pid_t old = server_serving_pid(s);

    hup_and_wait(s, SERVING);
    EXPECT(gone_within(old, 3000),
           "an idle old generation is still there 3 s after the reload");
    EXPECT(strstr(server_stderr(s), hfmt("beneath: generation 1 (pid %d) "
                                         "drained in ",
                                         (int)old)) != NULL,
           "no line says the old generation drained:\n%s", server_stderr(s));
    server_stop_clean(s);
}
END_TEST

const struct check_main check_main = {
    .suite = "e2e_generations",
    .fixture = HARNESS_FIXTURE(300),
    .tcases = {{"generations",
                .loops = {LOOP(deploy_rename), LOOP(deploy_symlink_flip),
                          LOOP(deploy_vhost_and_mount), LOOP(auth_revoked)},
                .tests = {&config_vhost_and_mime, &failed_start_keeps_old,
                          &drain_bound, &drain_idle_is_quick}}}};
