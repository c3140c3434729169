/* SPDX-License-Identifier: MIT */
/*
 * test_access.c - who may see what, against the real binary: Basic
 * authentication (files from Debian's htpasswd -B, requests with curl -u),
 * address rules (listeners on 127.0.0.1 and 127.0.0.2, requests from
 * 127.0.0.2), trusted proxies, SIGHUP reloads, and the bad input of the
 * issue (a 100,000-line htpasswd, invalid CIDRs) with the start-up time it
 * costs printed. Virtual hosts, _redirects/_headers and error pages are in
 * test_access_sites.c, the same binary's second suite.
 */
#include "access.h"
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * Run a program to completion, bounded by 30 s; stdout to @out_path (or
 * /dev/null). Returns its exit status, or -1.
 */
static int run(const char *const argv[], const char *out_path)
{
    pid_t pid = fork();
    int ws;

    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fd = open(out_path ? out_path : "/dev/null",
                      O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (fd < 0 || null < 0)
            _exit(126);
        dup2(null, STDIN_FILENO);
        dup2(fd, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        char *v[32];
        size_t n = 0;
        for (; argv[n] && n < N_ELEMS(v) - 1; n++)
            v[n] = strdup(argv[n]); /* the child execs or exits */
        v[n] = NULL;
        execvp(v[0], v);
        _exit(127);
    }
    long long deadline = now_ms() + 30000;
    while (waitpid(pid, &ws, WNOHANG) != pid) {
        if (now_ms() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &ws, 0);
            return -1;
        }
        usleep(5000);
    }
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

void htpasswd_add(const char *file, const char *user, const char *pw,
                  bool create)
{
    const char *argv[] = {
        "htpasswd", create ? "-cbB" : "-bB", "-C", "5", file, user, pw, NULL};
    int st = run(argv, NULL);

    EXPECT(st == 0,
           "htpasswd (apache2-utils) failed with %d: install it with "
           "scripts/deps.sh test",
           st);
}

int curl_u(const struct server *s, const char *path, const char *userpwd,
           char **body)
{
    char *dir = tree_new(), *bp = tree_path(dir, "body"),
         *sp = tree_path(dir, "status");
    const char *argv[] = {"curl",
                          "-s",
                          "-m",
                          "10",
                          "-o",
                          bp,
                          "-w",
                          "%{http_code}",
                          "--path-as-is",
                          server_url(s, 0, path),
                          userpwd ? "-u" : NULL,
                          userpwd,
                          NULL};
    int st = run(argv, sp);
    char *code = tree_read(sp, NULL);

    EXPECT(st == 0 && code, "curl %s failed: %d", path, st);
    if (body)
        *body = tree_read(bp, NULL);
    return (int)strtol(code, NULL, 10);
}

/* ---- a raw client with a chosen source address ---- */

struct reply {
    int status; /* 0: no answer (closed or reset) */
    char *text; /* head and body, harness-owned */
};

/*
 * One request from @src to @dst:@port ("Connection: close"); @extra is
 * more header lines ("X-Forwarded-For: ...\r\n") or "".
 */
static struct reply from(const char *src, const char *dst, unsigned port,
                         const char *path, const char *extra)
{
    struct raw_conn *c = raw_connect_from(src, dst, port);
    struct reply r = {0, ""};

    EXPECT(c != NULL, "connect %s:%u from %s: %s", dst, port, src,
           strerror(errno));
    if (raw_send_str(c, hfmt("GET %s HTTP/1.1\r\nHost: x\r\n%s"
                             "Connection: close\r\n\r\n",
                             path, extra)) == 0) {
        struct http_response *h = raw_read(c, false, 10000);

        r.status = h->status;
        r.text = hfmt("%s%s", h->head, h->body);
    }
    raw_close(c);
    return r;
}

struct server *start(const char *root, const char **args)
{
    struct server_opts o = {.root = root, .args = args};

    return server_start_opts(&o);
}

/* The stderr of a run that must fail at start-up (exit 2), and its time. */
char *refused(const char **args, long long *ms)
{
    char *out, *err;
    long long t0 = now_ms();
    int ws = beneath_run(args, NULL, 30000, &out, &err);

    if (ms)
        *ms = now_ms() - t0;
    EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) == 2,
           "want exit 2 for bad input, got %s; stderr:\n%s", wstatus_str(ws),
           err);
    return err;
}

/* ---- Basic authentication ---- */

/* A site with a public page and a private folder; users from htpasswd -B. */
static char *auth_site(char **users)
{
    char *d = tree_new(), *www = tree_path(d, "www");

    tree_mkdir(d, "www");
    tree_mkdir(www, "private");
    tree_write_str(www, "index.html", "public page\n");
    tree_write_str(www, "private/report.txt", "quarterly figures\n");
    *users = tree_path(d, "users");
    htpasswd_add(*users, "alice", "s3cret pass", true);
    htpasswd_add(*users, "bob", "hunter2", false);
    return www;
}

START_TEST(auth_basic)
{
    char *users, *www = auth_site(&users), *body = NULL;
    struct server *s =
        start(www, (const char *[]){"--auth", hfmt("/private/**=%s", users),
                                    "--auth-realm", "Team \"docs\"",
                                    "--access-log", "-", NULL});

    harness_forbid("s3cret pass");
    EXPECT(curl_u(s, "/index.html", NULL, &body) == 200, "public page");
    struct http_response *r = http_get(s, "/private/report.txt");
    EXPECT_STATUS(r, 401, "no credentials");
    EXPECT(http_header(r, "WWW-Authenticate") &&
               strcmp(http_header(r, "WWW-Authenticate"),
                      "Basic realm=\"Team \\\"docs\\\"\", charset=\"UTF-8\"") ==
                   0,
           "challenge: %s", http_header(r, "WWW-Authenticate"));
    EXPECT(strstr(r->body, "quarterly") == NULL, "401 leaks the file");
    EXPECT(curl_u(s, "/private/report.txt", "alice:s3cret pass", &body) ==
                   200 &&
               strcmp(body, "quarterly figures\n") == 0,
           "alice with her password: %s", body);
    EXPECT(curl_u(s, "/private/report.txt", "bob:hunter2", NULL) == 200, "bob");
    EXPECT(curl_u(s, "/private/report.txt", "alice:hunter2", NULL) == 401,
           "alice with bob's password");
    EXPECT(curl_u(s, "/private/report.txt", "alice:", NULL) == 401,
           "empty password");
    EXPECT(curl_u(s, "/private/report.txt", "mallory:hunter2", NULL) == 401,
           "unknown user");
    /* the rule is on the normalised path: dot segments do not bypass it */
    EXPECT(curl_u(s, "/index.html/../private/report.txt", NULL, NULL) == 401,
           "/index.html/../private: %s", "bypassed");
    EXPECT(curl_u(s, "//private//./report.txt", NULL, NULL) == 401,
           "//private//./report.txt bypassed");
    EXPECT(curl_u(s, "/private", NULL, NULL) == 401,
           "the folder itself is covered by /private/**");
    EXPECT(curl_u(s, "/nothing/../private/missing", NULL, NULL) == 401,
           "a missing file under the rule is 401, not 404 (no existence "
           "oracle)");
    /* a malformed Authorization is a 401, never a 400 or a crash */
    static const char *const bad[] = {
        "Authorization: Basic\r\n", "Authorization: Basic !!!!\r\n",
        "Authorization: Bearer YWxpY2U6eA==\r\n",
        "Authorization: Basic YWxpY2U=\r\n", /* "alice", no ':' */
    };
    for (size_t i = 0; i < N_ELEMS(bad); i++) {
        r = raw_request(s->port,
                        hfmt("GET /private/report.txt HTTP/1.1\r\nHost: x\r\n"
                             "%sConnection: close\r\n\r\n",
                             bad[i]),
                        10000);
        EXPECT_STATUS(r, 401, bad[i]);
    }
    /* the log names the user of the request that authenticated, never a
     * password */
    EXPECT(file_wait_for(s->out_path, "127.0.0.1 - alice [", 5000),
           "no access-log line names alice:\n%s", server_stdout(s));
    char *log = server_stdout(s);
    EXPECT(strstr(log, "s3cret") == NULL && strstr(log, "hunter2") == NULL,
           "a password is in the access log");
    EXPECT(strstr(log, "mallory") == NULL,
           "a user who failed is logged as if authenticated");
    server_stop_clean(s);
}
END_TEST

/* The whole site (a glob of "**"), an error page for 401, the metrics. */
START_TEST(auth_whole_site)
{
    char *users, *www = auth_site(&users), *body = NULL;

    tree_write_str(www, "login.html", "<p>please log in</p>\n");
    struct server *s = start(
        www, (const char *[]){"--auth", hfmt("/**=%s", users), "--error-page",
                              "401=/login.html", "--metrics", "/metrics",
                              "--health", "/healthz", NULL});
    EXPECT(curl_u(s, "/", NULL, &body) == 401 && strstr(body, "please log in"),
           "401 with the error page: %s", body);
    EXPECT(curl_u(s, "/", "alice:s3cret pass", &body) == 200 &&
               strcmp(body, "public page\n") == 0,
           "alice on /");
    EXPECT(curl_u(s, "/metrics", NULL, NULL) == 401, "metrics protected");
    EXPECT(curl_u(s, "/healthz", NULL, NULL) == 200,
           "the health check needs no credentials");
    EXPECT(curl_u(s, "/metrics", "bob:hunter2", &body) == 200 &&
               strstr(body, "beneath_auth_failures_total 2"),
           "two 401s counted:\n%s", body);
    server_stop_clean(s);
}
END_TEST

/*
 * SIGHUP: a new serving process reads the file; one that is broken or
 * missing stops that process before it serves (its message with
 * FILE:LINE), and the old one serves on with the users read before. A
 * user removed from the file is refused from the reload on.
 */
START_TEST(auth_reload)
{
    char *users, *www = auth_site(&users);
    struct server *s =
        start(www, (const char *[]){"--auth", hfmt("/**=%s", users), NULL});

    EXPECT(curl_u(s, "/", "alice:s3cret pass", NULL) == 200, "before");
    htpasswd_add(users, "alice", "new pass", false);
    EXPECT(server_reload(s, 10000) > 0, "no new generation:\n%s",
           server_stderr(s));
    EXPECT(curl_u(s, "/", "alice:s3cret pass", NULL) == 401,
           "the old password after SIGHUP");
    EXPECT(curl_u(s, "/", "alice:new pass", NULL) == 200, "the new one");
    /* broken: an MD5 entry; the users read before stay */
    FILE *f = fopen(users, "a");
    ck_assert_ptr_nonnull(f);
    fputs("carol:$apr1$7EAU.9L4$Ej0EWQj9BdxjSlUM.HXWW1\n", f);
    fclose(f);
    server_reload_refused(s, hfmt("beneath: SIGHUP: auth: %s:3: user 'carol': "
                                  "MD5 ($apr1$) is refused",
                                  users));
    EXPECT(curl_u(s, "/", "alice:new pass", NULL) == 200,
           "alice after a broken reload");
    unlink(users);
    server_reload_refused(
        s, hfmt("beneath: SIGHUP: auth: %s: No such file or directory", users));
    EXPECT(curl_u(s, "/", "alice:new pass", NULL) == 200,
           "alice after the file went");
    /* alice removed: refused once the file without her is read */
    htpasswd_add(users, "bob", "hunter2", true);
    EXPECT(server_reload(s, 10000) > 0, "no new generation:\n%s",
           server_stderr(s));
    EXPECT(curl_u(s, "/", "alice:new pass", NULL) == 401,
           "alice, removed from the file, after SIGHUP");
    EXPECT(curl_u(s, "/", "bob:hunter2", NULL) == 200, "bob after SIGHUP");
    server_stop_clean(s);
}
END_TEST

/* Refused at load, with FILE:LINE; and the plain-HTTP warning. */
START_TEST(auth_bad_files)
{
    char *d = tree_new(), *f = tree_path(d, "users");
    char *err;

    tree_write_str(d, "users",
                   "# team\n"
                   "carol:{SHA}EfatjsUqKYSrqv18O1FlA3hcIHI=\n"
                   "dave:plain\n");
    err = refused((const char *[]){"--check", "--listen", "127.0.0.1:0",
                                   "--auth", hfmt("/**=%s", f), d, NULL},
                  NULL);
    EXPECT(strstr(err, hfmt("beneath: auth: %s:2: user 'carol': {SHA} is "
                            "one unsalted SHA-1, refused",
                            f)) &&
               strstr(err, hfmt("beneath: auth: %s:3: user 'dave': a "
                                "plain-text or DES-crypt password is refused",
                                f)),
           "both lines named:\n%s", err);
    err = refused((const char *[]){"--check", "--listen", "127.0.0.1:0",
                                   "--auth", hfmt("/**=%s/none", d), d, NULL},
                  NULL);
    EXPECT(strstr(err, "none: No such file or directory"), "missing:\n%s", err);
    err = refused((const char *[]){"--check", "--listen", "127.0.0.1:0",
                                   "--auth", "a**b=/x", d, NULL},
                  NULL);
    EXPECT(strstr(err, "--auth: bad glob component"), "glob:\n%s", err);
    /* a plain-HTTP listener on all addresses: a warning, not an error */
    htpasswd_add(f, "alice", "x", true);
    char *out;
    int ws = beneath_run((const char *[]){"--check", "--listen", "0.0.0.0:0",
                                          "--auth", hfmt("/**=%s", f), d, NULL},
                         NULL, 30000, &out, &err);
    EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "--check: %s\n%s",
           wstatus_str(ws), err);
    EXPECT(strstr(err, "beneath: warning: --auth on plain HTTP at 0.0.0.0:0"),
           "no warning:\n%s", err);
    ws = beneath_run((const char *[]){"--check", "--listen", "127.0.0.1:0",
                                      "--auth", hfmt("/**=%s", f), d, NULL},
                     NULL, 30000, &out, &err);
    EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "--check: %s\n%s",
           wstatus_str(ws), err);
    EXPECT(strstr(err, "warning") == NULL, "loopback warned:\n%s", err);
}
END_TEST

/* 100,000 users: start-up time, and the last one logs in. */
START_TEST(auth_many_users)
{
    char *d = tree_new(), *f = tree_path(d, "users"), *www = tree_path(d, "w");
    char *one = tree_path(d, "one"), *line;
    const size_t users = 100000;

    tree_mkdir(d, "w");
    tree_write_str(www, "index.html", "hi\n");
    htpasswd_add(one, "u", "pw", true);
    line = tree_read(one, NULL);
    const char *hash = strchr(line, ':') + 1;
    size_t hlen = strcspn(hash, "\n");
    FILE *fp = fopen(f, "w");
    ck_assert_ptr_nonnull(fp);
    for (size_t i = 0; i < users; i++)
        fprintf(fp, "user%zu:%.*s\n", i, (int)hlen, hash);
    fclose(fp);
    long long t0 = now_ms();
    struct server *s =
        start(www, (const char *[]){"--auth", hfmt("/**=%s", f), NULL});
    long long ms = now_ms() - t0;
    fprintf(stderr, "e2e: start-up with a %zu-line htpasswd: %lld ms\n", users,
            ms);
    EXPECT(curl_u(s, "/", "user99999:pw", NULL) == 200, "the last user");
    EXPECT(curl_u(s, "/", "user100000:pw", NULL) == 401, "no such user");
    server_stop_clean(s);
}
END_TEST

/* ---- addresses ---- */

static char *plain_site(void)
{
    char *d = tree_site("hello\n");
    return d;
}

static struct server *two_listeners(const char *root, const char **more)
{
    const char *args[16] = {"--listen", "127.0.0.2:0",  "--metrics",
                            "/metrics", "--access-log", "-"};
    size_t n = 6;

    for (; more && *more && n < N_ELEMS(args) - 1; more++)
        args[n++] = *more;
    struct server_opts o = {.root = root, .args = args, .n_listen = 2};
    return server_start_opts(&o);
}

START_TEST(addr_allow_deny)
{
    char *www = plain_site();
    struct server *s =
        two_listeners(www, (const char *[]){"--allow", "127.0.0.1", NULL});
    unsigned p1 = s->ports[0], p2 = s->ports[1];

    EXPECT(from("127.0.0.1", "127.0.0.1", p1, "/", "").status == 200,
           "127.0.0.1 allowed");
    EXPECT(from("127.0.0.1", "127.0.0.2", p2, "/", "").status == 200,
           "127.0.0.1 through the 127.0.0.2 listener");
    struct reply r = from("127.0.0.2", "127.0.0.2", p2, "/", "");
    EXPECT(r.status == 0 && r.text[0] == '\0',
           "127.0.0.2 not in --allow got an answer:\n%s", r.text);
    r = from("127.0.0.2", "127.0.0.1", p1, "/", "");
    EXPECT(r.status == 0, "127.0.0.2 via 127.0.0.1:\n%s", r.text);
    r = from("127.0.0.1", "127.0.0.1", p1, "/metrics", "");
    EXPECT(strstr(r.text, "beneath_refused_total{reason=\"address\"} 2"),
           "two refusals counted:\n%s", r.text);
    server_stop_clean(s);

    /* --deny wins over --allow */
    s = two_listeners(www, (const char *[]){"--allow", "127.0.0.0/8", "--deny",
                                            "127.0.0.2/32", NULL});
    EXPECT(from("127.0.0.3", "127.0.0.1", s->ports[0], "/", "").status == 200,
           "127.0.0.3 in 127.0.0.0/8");
    EXPECT(from("127.0.0.2", "127.0.0.2", s->ports[1], "/", "").status == 0,
           "127.0.0.2 denied");
    server_stop_clean(s);
}
END_TEST

/* Only a trusted proxy's Forwarded / X-Forwarded-For is believed. */
START_TEST(addr_trusted_proxy)
{
    char *www = plain_site();
    struct server *s =
        two_listeners(www, (const char *[]){"--trusted-proxy", "127.0.0.1",
                                            "--deny", "203.0.113.0/24", NULL});
    unsigned p = s->ports[0];
    struct reply r;

    r = from("127.0.0.1", "127.0.0.1", p, "/",
             "X-Forwarded-For: 203.0.113.7\r\n");
    EXPECT(r.status == 403, "a denied client behind the proxy: %d", r.status);
    r = from("127.0.0.1", "127.0.0.1", p, "/",
             "X-Forwarded-For: 203.0.113.7, 198.51.100.1\r\n");
    EXPECT(r.status == 200,
           "the rightmost untrusted hop decides, not the leftmost: %d",
           r.status);
    r = from("127.0.0.1", "127.0.0.1", p, "/",
             "Forwarded: for=203.0.113.9;proto=https\r\n"
             "X-Forwarded-For: 198.51.100.2\r\n");
    EXPECT(r.status == 200,
           "a proxy that writes X-Forwarded-For: the client's Forwarded is "
           "not read: %d",
           r.status);
    r = from("127.0.0.1", "127.0.0.1", p, "/",
             "X-Forwarded-For: 198.51.100.3\r\nX-Forwarded-For: "
             "203.0.113.8\r\n");
    EXPECT(r.status == 403, "two field lines are one list: %d", r.status);
    /* not from a trusted proxy: the header is the client's own words */
    r = from("127.0.0.2", "127.0.0.2", s->ports[1], "/",
             "X-Forwarded-For: 198.51.100.4\r\n");
    EXPECT(r.status == 200, "untrusted peer: %d", r.status);
    EXPECT(file_wait_for(s->out_path, "127.0.0.2 - - [", 5000),
           "the untrusted peer is logged as itself:\n%s", server_stdout(s));
    char *log = server_stdout(s);
    EXPECT(strstr(log, "198.51.100.1 - - [") && strstr(log, "203.0.113.7 - ") &&
               !strstr(log, "198.51.100.4"),
           "forwarded clients in the log:\n%s", log);
    r = from("127.0.0.1", "127.0.0.1", p, "/metrics", "");
    EXPECT(strstr(r.text, "beneath_refused_total{reason=\"forwarded\"} 2"),
           "two forwarded refusals:\n%s", r.text);
    server_stop_clean(s);

    /* a proxy that writes Forwarded: X-Forwarded-For is not read */
    s = two_listeners(www,
                      (const char *[]){"--trusted-proxy", "127.0.0.1=forwarded",
                                       "--deny", "203.0.113.0/24", NULL});
    p = s->ports[0];
    r = from("127.0.0.1", "127.0.0.1", p, "/",
             "Forwarded: for=203.0.113.9;proto=https\r\n"
             "X-Forwarded-For: 198.51.100.2\r\n");
    EXPECT(r.status == 403, "Forwarded of a =forwarded proxy: %d", r.status);
    r = from("127.0.0.1", "127.0.0.1", p, "/",
             "X-Forwarded-For: 203.0.113.9\r\n");
    EXPECT(r.status == 200, "X-Forwarded-For of a =forwarded proxy: %d",
           r.status);
    server_stop_clean(s);
}
END_TEST

/* The port of --metrics-listen, from the start-up lines. */
static unsigned metrics_port(const struct server *s)
{
    const char *needle = "beneath: metrics on http://127.0.0.1:";
    const char *p = strstr(server_stderr(s), needle);

    EXPECT(p, "no metrics line:\n%s", server_stderr(s));
    return (unsigned)strtoul(p + strlen(needle), NULL, 10);
}

/*
 * --metrics-listen answers only whom --allow/--deny let in, as the site
 * does; a trusted proxy gets no pass there (its requests are not checked
 * one by one on that listener).
 */
START_TEST(addr_metrics_listen)
{
    char *www = plain_site();
    struct server *s =
        start(www, (const char *[]){"--metrics-listen", "127.0.0.1:0",
                                    "--allow", "127.0.0.1", "--trusted-proxy",
                                    "127.0.0.4", NULL});
    unsigned mp = metrics_port(s);
    struct reply r;

    r = from("127.0.0.1", "127.0.0.1", mp, "/metrics", "");
    EXPECT(r.status == 200, "127.0.0.1 allowed: %d", r.status);
    r = from("127.0.0.2", "127.0.0.1", mp, "/metrics", "");
    EXPECT(r.status == 0, "127.0.0.2 not in --allow got %d", r.status);
    r = from("127.0.0.4", "127.0.0.1", mp, "/metrics", "");
    EXPECT(r.status == 0, "the trusted proxy got %d", r.status);
    r = from("127.0.0.1", "127.0.0.1", mp, "/metrics", "");
    EXPECT(strstr(r.text, "beneath_refused_total{reason=\"address\"} 2"),
           "two refusals counted:\n%s", r.text);
    EXPECT(strstr(server_stderr(s), "beneath: metrics: --allow/--deny apply "
                                    "to their listener too\n"),
           "no start-up line:\n%s", server_stderr(s));
    server_stop_clean(s);

    s = start(www, (const char *[]){"--metrics-listen", "127.0.0.1:0", "--deny",
                                    "127.0.0.3", NULL});
    mp = metrics_port(s);
    r = from("127.0.0.3", "127.0.0.1", mp, "/metrics", "");
    EXPECT(r.status == 0, "127.0.0.3 denied got %d", r.status);
    r = from("127.0.0.2", "127.0.0.1", mp, "/metrics", "");
    EXPECT(r.status == 200, "127.0.0.2 not denied: %d", r.status);
    server_stop_clean(s);
    /* without address rules: no line */
    s = start(www, (const char *[]){"--metrics-listen", "127.0.0.1:0", NULL});
    EXPECT(!strstr(server_stderr(s), "beneath: metrics: --allow"),
           "a line without rules:\n%s", server_stderr(s));
    server_stop_clean(s);
}
END_TEST

/* ---- nginx in front (Debian's nginx-light and its proxy_params) ---- */

/* A port on 127.0.0.1 free a moment ago. */
struct nginx {
    pid_t pid;
    unsigned port;
};

/*
 * nginx in the foreground on 127.0.0.1 in front of beneath's @upstream
 * port, with "include /etc/nginx/proxy_params" as Debian ships it (appends
 * X-Forwarded-For, passes a client's Forwarded untouched).
 */
static struct nginx nginx_start(unsigned upstream)
{
    char *d = tree_new();
    struct nginx n = {.port = fixture_free_port()};

    EXPECT(access("/usr/sbin/nginx", X_OK) == 0 &&
               access("/etc/nginx/proxy_params", R_OK) == 0,
           "nginx (nginx-light) is missing: install it with scripts/deps.sh "
           "test");
    tree_write_str(
        d, "nginx.conf",
        hfmt("daemon off;\nmaster_process off;\npid %s/nginx.pid;\n"
             "error_log %s/error.log;\nevents { worker_connections 64; }\n"
             "http {\n  access_log off;\n  client_body_temp_path %s;\n"
             "  proxy_temp_path %s;\n  fastcgi_temp_path %s;\n"
             "  uwsgi_temp_path %s;\n  scgi_temp_path %s;\n"
             "  server {\n    listen 127.0.0.1:%u;\n    location / {\n"
             "      proxy_pass http://127.0.0.1:%u;\n"
             "      include /etc/nginx/proxy_params;\n    }\n  }\n}\n",
             d, d, d, d, d, d, d, n.port, upstream));
    n.pid = fork();
    ck_assert_int_ge(n.pid, 0);
    if (n.pid == 0) {
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null < 0)
            _exit(126);
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        execl("/usr/sbin/nginx", "nginx", "-p", d, "-e",
              tree_path(d, "error.log"), "-c", tree_path(d, "nginx.conf"),
              (char *)NULL);
        _exit(127);
    }
    for (long long deadline = now_ms() + 10000;; sleep_ms(20)) {
        struct raw_conn *c = raw_connect_from(NULL, "127.0.0.1", n.port);
        if (c) {
            raw_close(c);
            break;
        }
        EXPECT(now_ms() < deadline && waitpid(n.pid, NULL, WNOHANG) == 0,
               "nginx did not start:\n%s",
               tree_read(tree_path(d, "error.log"), NULL));
    }
    return n;
}

static void nginx_stop(struct nginx *n)
{
    int ws;

    kill(n->pid, SIGTERM);
    EXPECT(waitpid(n->pid, &ws, 0) == n->pid, "nginx: %s", strerror(errno));
}

/*
 * The attack: behind nginx with proxy_params, a client's own
 * Forwarded header must not make it someone else.
 */
START_TEST(addr_behind_nginx)
{
    char *www = plain_site();
    struct server *s =
        start(www, (const char *[]){"--trusted-proxy", "127.0.0.1", "--allow",
                                    "127.0.0.5", "--access-log", "-", NULL});
    struct nginx n = nginx_start(s->port);
    struct reply r;

    r = from("127.0.0.5", "127.0.0.1", n.port, "/", "");
    EXPECT(r.status == 200, "127.0.0.5 via nginx: %d\n%s", r.status, r.text);
    r = from("127.0.0.6", "127.0.0.1", n.port, "/",
             "Forwarded: for=127.0.0.5\r\n");
    EXPECT(r.status == 403, "127.0.0.6 claiming Forwarded: for=127.0.0.5: %d",
           r.status);
    r = from("127.0.0.6", "127.0.0.1", n.port, "/",
             "X-Forwarded-For: 127.0.0.5\r\n");
    EXPECT(r.status == 403, "127.0.0.6 claiming X-Forwarded-For: 127.0.0.5: %d",
           r.status);
    nginx_stop(&n);
    EXPECT(file_wait_for(s->out_path, "127.0.0.6 - - [", 5000),
           "the client is logged as itself:\n%s", server_stdout(s));
    server_stop_clean(s);
}
END_TEST

START_TEST(addr_bad_cidrs)
{
    static const struct bad_option bad[] = {
        {"--allow", "10.0.0.1/8",
         "beneath: --allow: '10.0.0.1/8' has host bits set (the network is "
         "10.0.0.0/8)"},
        {"--deny", "10.0.0.0/33",
         "beneath: --deny: '10.0.0.0/33': the prefix length is 0..32"},
        {"--trusted-proxy", "proxy.example",
         "beneath: --trusted-proxy: 'proxy.example' is not an IPv4 or IPv6 "
         "address"},
        {"--trusted-proxy", "10.0.0.5=x-real-ip",
         "beneath: --trusted-proxy: 'x-real-ip': the header a proxy writes is "
         "forwarded or x-forwarded-for"},
        {"--allow", "10.0.0.0/8,,::1",
         "beneath: --allow: empty item in the address list"},
        {"--deny", "fe80::1%eth0",
         "beneath: --deny: 'fe80::1%eth0': zone ids (%...) are not supported "
         "in rules"},
    };
    char *www = plain_site();

    expect_bad_options(bad, N_ELEMS(bad), www);
    /* the same in a file and in the environment */
    char *conf = tree_path(www, "b.conf");
    tree_write_str(www, "b.conf", "allow = 10.0.0.0/8\nallow = 1.2.3.4/16\n");
    char *err = refused((const char *[]){"--config", conf, "--check",
                                         "--listen", "127.0.0.1:0", www, NULL},
                        NULL);
    EXPECT(strstr(err, hfmt("beneath: %s:2: allow: '1.2.3.4/16' has host bits "
                            "set (the network is 1.2.0.0/16)",
                            conf)),
           "file:\n%s", err);
    char *out;
    int ws = beneath_run(
        (const char *[]){"--check", "--listen", "127.0.0.1:0", www, NULL},
        (const char *[]){"BENEATH_DENY=::1/129", NULL}, 30000, &out, &err);
    EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) == 2 &&
               strstr(err, "BENEATH_DENY: '::1/129': the prefix length is "
                           "0..128"),
           "env:\n%s", err);
}
END_TEST

const struct check_main check_main = {
    .suite = "e2e_access",
    .fixture = HARNESS_FIXTURE(120),
    .tcases = {{"auth", .tests = {&auth_basic, &auth_whole_site, &auth_reload,
                                  &auth_bad_files, &auth_many_users}},
               {"addresses", .tests = {&addr_allow_deny, &addr_trusted_proxy,
                                       &addr_behind_nginx, &addr_metrics_listen,
                                       &addr_bad_cidrs}}},
    .suites = {{.make = access_sites_suite},
               {.make = access_candidates_suite}}};
