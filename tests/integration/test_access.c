/* SPDX-License-Identifier: MIT */
/*
 * test_access.c - who may see what, and where requests go, against the
 * real binary: Basic authentication (files from Debian's htpasswd -B,
 * requests with curl -u), address rules (listeners on 127.0.0.1 and
 * 127.0.0.2, requests from 127.0.0.2), trusted proxies, virtual hosts
 * (Host headers; a symlink from one site into another refused under the
 * backend in BENEATH_E2E_RESOLVER), _redirects and _headers in the
 * conventions of a real static site, error pages, SIGHUP reloads, and the
 * bad input of the issue (a 100,000-line htpasswd, a 1 MiB _headers line,
 * 10,000 redirects, invalid CIDRs, a missing vhost root) with the start-up
 * time it costs printed.
 */
#include "harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* An mtime long past: the reply cache keeps only files that settled. */
#define SITE_MTIME_OLD ((time_t)1704164645)

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

/* htpasswd -b[c]B FILE USER PASSWORD (Debian's apache2-utils). */
static void htpasswd_add(const char *file, const char *user, const char *pw,
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

/*
 * curl -u USER:PASSWORD URL (the real command line client): the status, and
 * the body in *@body when not NULL. @userpwd NULL: no credentials.
 */
static int curl_u(const struct server *s, const char *path, const char *userpwd,
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
    return atoi(code);
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
    struct sockaddr_in sa = {.sin_family = AF_INET}, da = sa;
    struct reply r = {0, ""};
    char buf[65536];
    size_t len = 0;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    ck_assert_int_ge(fd, 0);
    inet_pton(AF_INET, src, &sa.sin_addr);
    inet_pton(AF_INET, dst, &da.sin_addr);
    da.sin_port = htons((uint16_t)port);
    ck_assert_msg(bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0,
                  "bind %s: %s", src, strerror(errno));
    ck_assert_msg(connect(fd, (struct sockaddr *)&da, sizeof da) == 0,
                  "connect %s:%u: %s", dst, port, strerror(errno));
    char *req =
        hfmt("GET %s HTTP/1.1\r\nHost: x\r\n%sConnection: close\r\n\r\n", path,
             extra);
    if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0) {
        close(fd);
        return r;
    }
    long long deadline = now_ms() + 10000;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        long long left = deadline - now_ms();
        if (left <= 0 || poll(&p, 1, (int)left) <= 0)
            break;
        ssize_t n = recv(fd, buf + len, sizeof buf - 1 - len, 0);
        if (n <= 0)
            break;
        len += (size_t)n;
        if (len == sizeof buf - 1)
            break;
    }
    close(fd);
    buf[len] = '\0';
    r.text = hmem(buf, len);
    if (len > 12 && strncmp(buf, "HTTP/1.1 ", 9) == 0)
        r.status = atoi(buf + 9);
    return r;
}

/* A raw request with the given head lines to 127.0.0.1:@port. */
static struct http_response *with_host(const struct server *s,
                                       const char *target, const char *host)
{
    return raw_request(
        s->port,
        host ? hfmt("GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n",
                    target, host)
             : hfmt("GET %s HTTP/1.0\r\n\r\n", target),
        10000);
}

static struct server *start(const char *root, const char **args)
{
    struct server_opts o = {.root = root, .args = args};

    return server_start_opts(&o);
}

/* The stderr of a run that must fail at start-up (exit 2), and its time. */
static char *refused(const char **args, long long *ms)
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

/* SIGHUP re-reads the file; a broken or missing file keeps the old users. */
START_TEST(auth_reload)
{
    char *users, *www = auth_site(&users);
    struct server *s =
        start(www, (const char *[]){"--auth", hfmt("/**=%s", users), NULL});

    EXPECT(curl_u(s, "/", "alice:s3cret pass", NULL) == 200, "before");
    htpasswd_add(users, "alice", "new pass", false);
    server_signal(s, SIGHUP);
    EXPECT(file_wait_for(s->err_path, "re-read (2 users)", 5000),
           "no reload line:\n%s", server_stderr(s));
    EXPECT(curl_u(s, "/", "alice:s3cret pass", NULL) == 401,
           "the old password after SIGHUP");
    EXPECT(curl_u(s, "/", "alice:new pass", NULL) == 200, "the new one");
    /* broken: an MD5 entry; the users read before stay */
    FILE *f = fopen(users, "a");
    ck_assert_ptr_nonnull(f);
    fputs("carol:$apr1$7EAU.9L4$Ej0EWQj9BdxjSlUM.HXWW1\n", f);
    fclose(f);
    server_signal(s, SIGHUP);
    EXPECT(file_wait_for(s->err_path, "keeping the users read before", 5000),
           "no keep line:\n%s", server_stderr(s));
    EXPECT(strstr(server_stderr(s), ":3: user 'carol': MD5 ($apr1$) is "
                                    "refused"),
           "the reason with FILE:LINE:\n%s", server_stderr(s));
    EXPECT(curl_u(s, "/", "alice:new pass", NULL) == 200,
           "alice after a broken reload");
    unlink(users);
    server_signal(s, SIGHUP);
    EXPECT(
        file_wait_for(s->err_path, "No such file or directory; keeping", 5000),
        "no line for the missing file:\n%s", server_stderr(s));
    EXPECT(curl_u(s, "/", "alice:new pass", NULL) == 200,
           "alice after the file went");
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
    EXPECT(r.status == 403, "Forwarded wins over X-Forwarded-For: %d",
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
    EXPECT(strstr(r.text, "beneath_refused_total{reason=\"forwarded\"} 3"),
           "three forwarded refusals:\n%s", r.text);
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

/* ---- virtual hosts ---- */

struct sites {
    char *base, *a, *b, *dflt, *v6;
};

static struct sites make_sites(void)
{
    struct sites t;

    t.base = tree_new();
    t.a = tree_path(t.base, "a");
    t.b = tree_path(t.base, "b");
    t.dflt = tree_path(t.base, "default");
    t.v6 = tree_path(t.base, "v6");
    tree_mkdir(t.base, "a");
    tree_mkdir(t.base, "b");
    tree_mkdir(t.base, "default");
    tree_mkdir(t.base, "v6");
    tree_write_str(t.a, "index.html", "site A\n");
    tree_write_str(t.a, "404.html", "A has no such page\n");
    tree_write_str(t.a, "only-a.txt", "a secret of site A\n");
    tree_mkdir(t.a, "private");
    tree_write_str(t.a, "private/x.txt", "A private\n");
    tree_write_str(t.b, "index.html", "site B\n");
    tree_write_str(t.b, "404.html", "B has no such page\n");
    tree_write_str(t.dflt, "index.html", "the default site\n");
    tree_write_str(t.v6, "index.html", "the IPv6 literal site\n");
    /* links from B into A: absolute, relative, and a directory */
    tree_symlink(t.b, hfmt("%s/only-a.txt", t.a), "abs-link.txt");
    tree_symlink(t.b, "../a/only-a.txt", "rel-link.txt");
    tree_symlink(t.b, "../a", "a-dir");
    return t;
}

static const char **vhost_args(const struct sites *t, bool with_root)
{
    const char **v = (const char **)hbuf(16 * sizeof(char *));
    size_t n = 0;

    v[n++] = "--vhost";
    v[n++] = hfmt("docs.example.com=%s", t->a);
    v[n++] = "--vhost";
    v[n++] = hfmt("*.b.example=%s", t->b);
    v[n++] = "--vhost";
    v[n++] = hfmt("[::1]=%s", t->v6);
    if (with_root) {
        v[n++] = "--root";
        v[n++] = t->dflt;
    }
    v[n] = NULL;
    return v;
}

static const struct {
    const char *host; /* NULL: HTTP/1.0 without Host */
    int status;
    const char *body; /* substring */
} hosts[] = {
    {"docs.example.com", 200, "site A"},
    {"DOCS.Example.COM", 200, "site A"},
    {"docs.example.com.", 200, "site A"},
    {"docs.example.com:8080", 200, "site A"},
    {"Docs.Example.Com.:80", 200, "site A"},
    {"x.b.example", 200, "site B"},
    {"deep.x.b.example", 200, "site B"},
    {"b.example", 200, "the default site"}, /* *.b.example needs a label */
    {"other.example", 200, "the default site"},
    {"[::1]", 200, "the IPv6 literal site"},
    {"[::1]:8080", 200, "the IPv6 literal site"},
    {"127.0.0.1", 200, "the default site"},
    {NULL, 200, "the default site"},
    {"docs..example.com", 400, ""},
    {"docs.example.com:http", 400, ""},
    {"docs example.com", 400, ""},
    {"[::1", 400, ""},
    {"user@docs.example.com", 400, ""},
    {"docs.example.com/x", 400, ""},
};

LOOP_TEST(vhost_hosts, hosts)
{
    struct sites t = make_sites();
    struct server *s = start(NULL, vhost_args(&t, true));
    struct http_response *r = with_host(s, "/", hosts[_i].host);

    EXPECT_STATUS(r, hosts[_i].status, hfmt("Host %s", hosts[_i].host));
    EXPECT(strstr(r->body, hosts[_i].body), "Host %s: body %s", hosts[_i].host,
           r->body);
    server_stop_clean(s);
}
END_TEST

START_TEST(vhost_each_site)
{
    struct sites t = make_sites();
    struct server *s = start(NULL, vhost_args(&t, true));
    struct http_response *r;

    /* each host has its own 404 page */
    r = with_host(s, "/missing", "docs.example.com");
    EXPECT(r->status == 404 && strstr(r->body, "A has no such page"),
           "A's 404: %d %s", r->status, r->body);
    r = with_host(s, "/missing", "x.b.example");
    EXPECT(r->status == 404 && strstr(r->body, "B has no such page"),
           "B's 404: %d %s", r->status, r->body);
    /* absolute-form: the target's authority wins over Host (RFC 9112) */
    r = raw_request(s->port,
                    "GET http://docs.example.com/ HTTP/1.1\r\nHost: "
                    "x.b.example\r\nConnection: close\r\n\r\n",
                    10000);
    EXPECT(r->status == 200 && strstr(r->body, "site A"), "absolute-form: %s",
           r->body);
    /* a path of B can never reach A's tree, whatever the link */
    static const char *const links[] = {"/abs-link.txt", "/rel-link.txt",
                                        "/a-dir/only-a.txt", "/../a/only-a.txt",
                                        "/a-dir/private/x.txt"};
    for (size_t i = 0; i < N_ELEMS(links); i++) {
        r = with_host(s, links[i], "x.b.example");
        EXPECT(r->status == 403 || r->status == 404, "%s from B under %s: %d",
               links[i], harness_backend(), r->status);
        EXPECT(strstr(r->body, "a secret of site A") == NULL &&
                   strstr(r->body, "A private") == NULL,
               "%s from B served A's file", links[i]);
    }
    r = with_host(s, "/abs-link.txt", "x.b.example");
    EXPECT_STATUS(r, 403, "an absolute link into A");
    r = with_host(s, "/rel-link.txt", "x.b.example");
    EXPECT_STATUS(r, 403, "a relative link into A");
    server_stop_clean(s);

    /* without --root, a Host no vhost names is 421 */
    s = start(NULL, vhost_args(&t, false));
    r = with_host(s, "/", "other.example");
    EXPECT_STATUS(r, 421, "unknown Host without --root");
    r = with_host(s, "/", NULL);
    EXPECT_STATUS(r, 421, "no Host without --root");
    r = with_host(s, "/", "docs.example.com");
    EXPECT_STATUS(r, 200, "a vhost without --root");
    server_signal(s, SIGHUP);
    EXPECT(file_wait_for(s->err_path, "SIGHUP: configuration applied", 5000),
           "a reload without --root:\n%s", server_stderr(s));
    r = with_host(s, "/", "docs.example.com");
    EXPECT_STATUS(r, 200, "a vhost without --root after SIGHUP");
    server_stop_clean(s);
}
END_TEST

/* SIGHUP reopens every vhost root (a deploy renames a new tree in). */
START_TEST(vhost_reload)
{
    struct sites t = make_sites();
    const char **args = vhost_args(&t, true);
    size_t n = 0;

    /* A tree renamed onto a root's path is outside the sandbox's Landlock
     * rules, which name the inodes seen at start (docs/security.md); this
     * deploy style needs --sandbox off. */
    while (args[n])
        n++;
    args[n++] = "--sandbox";
    args[n++] = "off";
    args[n] = NULL;
    struct server *s = start(NULL, args);

    EXPECT(strstr(with_host(s, "/", "x.b.example")->body, "site B"), "before");
    char *next = tree_path(t.base, "b-next"), *old = tree_path(t.base, "b-old");
    tree_mkdir(t.base, "b-next");
    tree_write_str(next, "index.html", "site B, version 2\n");
    ck_assert_int_eq(rename(t.b, old), 0);
    ck_assert_int_eq(rename(next, t.b), 0);
    EXPECT(strstr(with_host(s, "/", "x.b.example")->body, "site B\n"),
           "the old tree serves until SIGHUP");
    server_signal(s, SIGHUP);
    EXPECT(file_wait_for(s->err_path, "vhost *.b.example: root", 5000),
           "no reload line:\n%s", server_stderr(s));
    EXPECT(strstr(with_host(s, "/", "x.b.example")->body, "version 2"),
           "the new tree after SIGHUP");
    EXPECT(strstr(with_host(s, "/", "docs.example.com")->body, "site A"),
           "A unchanged");
    /* a root that went: the old one stays */
    char *gone = tree_path(t.base, "gone");
    ck_assert_int_eq(rename(t.a, gone), 0);
    server_signal(s, SIGHUP);
    EXPECT(file_wait_for(s->err_path, "keeping the old root", 5000),
           "no keep line:\n%s", server_stderr(s));
    EXPECT(strstr(with_host(s, "/", "docs.example.com")->body, "site A"),
           "A after its root went");
    server_stop_clean(s);
}
END_TEST

START_TEST(vhost_bad)
{
    char *d = tree_new(), *err;

    err = refused((const char *[]){"--vhost", hfmt("a.example=%s/none", d),
                                   "--root", d, "--check", "--listen",
                                   "127.0.0.1:0", NULL},
                  NULL);
    EXPECT(strstr(err, hfmt("beneath: vhost a.example: root %s/none: No such "
                            "file or directory",
                            d)),
           "missing root:\n%s", err);
    err = refused((const char *[]){"--vhost", "a.example:80=/x", "--check",
                                   "--listen", "127.0.0.1:0", NULL},
                  NULL);
    EXPECT(strstr(err, "--vhost: 'a.example:80': a virtual host has no port"),
           "port:\n%s", err);
    err = refused((const char *[]){"--vhost", "nothing", "--check", "--listen",
                                   "127.0.0.1:0", NULL},
                  NULL);
    EXPECT(strstr(err, "--vhost: expected NAME=ROOT"), "syntax:\n%s", err);
    err = refused((const char *[]){"--vhost", hfmt("a.example=%s", d),
                                   "--vhost", hfmt("A.Example.=%s", d),
                                   "--check", "--listen", "127.0.0.1:0", NULL},
                  NULL);
    EXPECT(strstr(err, "a.example is given twice"), "twice:\n%s", err);
}
END_TEST

/* ---- _redirects and _headers ---- */

/*
 * A site laid out like a Jekyll/Hugo blog moved to a new structure, with a
 * single-page app under /app: the _redirects of such a site on Netlify.
 */
static const char site_redirects[] =
    "# moved pages\n"
    "/feed.xml                       /blog/feed.xml          301\n"
    "/blog/:year/:month/:day/:slug   /blog/:slug/            301\n"
    "/docs/latest/*                  /docs/v3/:splat         302\n"
    "/go/:name                       https://example.org/:name  307\n"
    "/old-about                      /about/                 308\n"
    "# an existing file shadows a rule unless it is forced\n"
    "/about/                         /elsewhere              301\n"
    "/legacy.html                    /about/                 301!\n"
    "# rewrites: served through the resolver under the same URL\n"
    "/find                           /search/index.html      200\n"
    "/escape/*                       /escape-link/:splat     200\n"
    "/app/*                          /app/index.html         200\n";

static const char site_headers[] = "/*\n"
                                   "  X-Frame-Options: DENY\n"
                                   "  X-Robots-Tag: all\n"
                                   "/app/*\n"
                                   "  Cache-Control: no-cache\n"
                                   "/drafts/*\n"
                                   "  ! X-Robots-Tag\n"
                                   "  X-Robots-Tag: noindex\n"
                                   "  ! X-Team\n";

static char *rules_site(char **outside)
{
    char *d = tree_new(), *www = tree_path(d, "www");

    tree_mkdir(d, "www");
    *outside = tree_path(d, "outside.txt");
    tree_write_str(d, "outside.txt", "OUTSIDE THE ROOT\n");
    tree_write_str(www, "index.html", "home\n");
    tree_mkdir(www, "about");
    tree_write_str(www, "about/index.html", "about us\n");
    tree_write_str(www, "legacy.html", "the legacy page\n");
    tree_mkdir(www, "search");
    tree_write_str(www, "search/index.html", "search page\n");
    tree_mkdir(www, "app");
    tree_write_str(www, "app/index.html", "the app shell\n");
    tree_write_str(www, "app/app.js", "console.log(1)\n");
    tree_mkdir(www, "drafts");
    tree_write_str(www, "drafts/x.html", "draft\n");
    tree_mkdir(www, "errors");
    tree_write_str(www, "errors/4xx.html", "custom 4xx page\n");
    tree_write_str(www, "50x.html", "custom 5xx page\n");
    tree_symlink(www, "..", "escape-link");
    tree_write_str(www, "_redirects", site_redirects);
    tree_write_str(www, "_headers", site_headers);
    tree_symlink(www, "_redirects", "rules.txt");
    return www;
}

static const struct {
    const char *target;
    int status;
    const char *location; /* or a body substring for 200/4xx */
} rules[] = {
    {"/feed.xml", 301, "/blog/feed.xml"},
    {"/feed.xml?utm_source=rss", 301, "/blog/feed.xml?utm_source=rss"},
    {"/blog/2019/04/01/hello-world", 301, "/blog/hello-world/"},
    {"/blog/2019/04/01/caf%C3%A9", 301, "/blog/caf%C3%A9/"},
    {"/docs/latest/guide/install.html", 302, "/docs/v3/guide/install.html"},
    {"/docs/latest/", 302, "/docs/v3/"},
    {"/go/beneath?x=1", 307, "https://example.org/beneath?x=1"},
    {"/old-about", 308, "/about/"},
    {"/about/", 200, "about us"},      /* shadowed by the file */
    {"/legacy.html", 301, "/about/"},  /* forced */
    {"/find?q=x", 200, "search page"}, /* rewrite */
    {"/app/settings/profile", 200, "the app shell"},
    {"/app/app.js", 200, "console.log"}, /* the asset is not rewritten */
    {"/escape/outside.txt", 403, "custom 4xx page"}, /* resolver refuses */
    {"/_redirects", 404, "custom 4xx page"},
    {"/_headers", 404, "custom 4xx page"},
    {"/rules.txt", 404, "custom 4xx page"}, /* a link to _redirects */
    {"/missing", 404, "custom 4xx page"},
};

LOOP_TEST(rules_site_files, rules)
{
    char *outside, *www = rules_site(&outside);
    struct server *s =
        start(www, (const char *[]){"--site-files", "on", "--error-page",
                                    "403,404=/errors/4xx.html", "--error-page",
                                    "500,502,503=/50x.html", NULL});
    struct http_response *r = raw_get(s->port, rules[_i].target);

    harness_forbid("OUTSIDE THE ROOT");
    harness_forbid("/feed.xml   "); /* the rule file's text */
    EXPECT_STATUS(r, rules[_i].status, rules[_i].target);
    if (rules[_i].status >= 300 && rules[_i].status < 400)
        EXPECT(http_header(r, "Location") &&
                   strcmp(http_header(r, "Location"), rules[_i].location) == 0,
               "%s: Location %s, want %s", rules[_i].target,
               http_header(r, "Location"), rules[_i].location);
    else
        EXPECT(strstr(r->body, rules[_i].location), "%s: body %s",
               rules[_i].target, r->body);
    server_stop_clean(s);
}
END_TEST

START_TEST(rules_headers)
{
    char *outside, *www = rules_site(&outside);
    struct server *s = start(
        www, (const char *[]){"--site-files", "on", "--header", "X-Team: docs",
                              "--cache", "*.js=max-age=60", NULL});
    struct http_response *r;

    r = http_get(s, "/");
    EXPECT(http_header(r, "X-Frame-Options") &&
               strcmp(http_header(r, "X-Frame-Options"), "DENY") == 0 &&
               strcmp(http_header(r, "X-Robots-Tag"), "all") == 0 &&
               strcmp(http_header(r, "X-Team"), "docs") == 0,
           "headers of /:\n%s", r->head);
    r = http_get(s, "/drafts/x.html");
    EXPECT(strcmp(http_header(r, "X-Robots-Tag"), "noindex") == 0 &&
               http_header_count(r, "X-Robots-Tag") == 1 &&
               http_header(r, "X-Team") == NULL,
           "! removes earlier ones and --header:\n%s", r->head);
    r = http_get(s, "/app/app.js");
    EXPECT(strcmp(http_header(r, "Cache-Control"), "no-cache") == 0 &&
               http_header_count(r, "Cache-Control") == 1,
           "_headers' Cache-Control wins over --cache:\n%s", r->head);
    r = http_get(s, "/missing");
    EXPECT(r->status == 404 && http_header(r, "X-Frame-Options"),
           "headers on a 404 too:\n%s", r->head);
    server_stop_clean(s);
}
END_TEST

/*
 * Headers go by request path, the reply cache keeps responses by file: a
 * path with header rules never takes (nor leaves) a cached response.
 */
START_TEST(rules_reply_cache)
{
    char *www = tree_new();
    struct http_response *r;

    tree_write_str(www, "page.html", "a small page\n");
    tree_mtime(www, "page.html", SITE_MTIME_OLD);
    tree_write_str(www, "_headers", "/special\n  X-Special: yes\n");
    tree_write_str(www, "_redirects", "/special /page.html 200\n");
    struct server *s = start(
        www, (const char *[]){"--site-files", "on", "--threads", "1", NULL});
    /* the cache keeps a file whose ctime is REPLY_CACHE_SETTLE_S old */
    sleep(3);
    for (int i = 0; i < 3; i++) {
        r = http_get(s, "/page.html");
        EXPECT(r->status == 200 && !http_header(r, "X-Special"),
               "plain page:\n%s", r->head);
    }
    r = http_get(s, "/special");
    EXPECT(r->status == 200 && strcmp(r->body, "a small page\n") == 0 &&
               http_header(r, "X-Special"),
           "the rewrite with its header:\n%s", r->head);
    r = http_get(s, "/page.html");
    EXPECT(!http_header(r, "X-Special"), "the header leaked:\n%s", r->head);
    server_stop_clean(s);
}
END_TEST

/* --redirects and --headers-file: files read by path, re-read on SIGHUP. */
START_TEST(rules_files_reload)
{
    char *outside, *www = rules_site(&outside);
    char *d = tree_new(), *rf = tree_path(d, "redirects"),
         *hf = tree_path(d, "headers");

    tree_write_str(d, "redirects", "/a /b 302\n");
    tree_write_str(d, "headers", "/*\n  X-Version: 1\n");
    struct server *s =
        start(www, (const char *[]){"--redirects", rf, "--headers-file", hf,
                                    "--fallback", "/index.html", NULL});
    struct http_response *r = http_get(s, "/a");
    EXPECT(r->status == 302 && strcmp(http_header(r, "Location"), "/b") == 0 &&
               strcmp(http_header(r, "X-Version"), "1") == 0,
           "a rule wins over --fallback:\n%s", r->head);
    r = http_get(s, "/no-rule-no-file");
    EXPECT(r->status == 200 && strcmp(r->body, "home\n") == 0,
           "--fallback where no rule matches: %d %s", r->status, r->body);
    r = http_get(s, "/_redirects");
    EXPECT_STATUS(r, 200, "without --site-files the file is content");
    tree_write_str(d, "redirects", "/a /c 302\n");
    tree_write_str(d, "headers", "/*\n  X-Version: 2\n");
    server_signal(s, SIGHUP);
    EXPECT(file_wait_for(s->err_path, "SIGHUP: root", 5000), "no reload");
    usleep(100000);
    r = http_get(s, "/a");
    EXPECT(strcmp(http_header(r, "Location"), "/c") == 0 &&
               strcmp(http_header(r, "X-Version"), "2") == 0,
           "after SIGHUP:\n%s", r->head);
    /* a loop: refused, the old rules stay */
    tree_write_str(d, "redirects", "/a /b 302\n/b /a 302\n");
    server_signal(s, SIGHUP);
    EXPECT(file_wait_for(s->err_path, "keeping the --redirects", 5000),
           "no keep line:\n%s", server_stderr(s));
    EXPECT(strstr(server_stderr(s),
                  hfmt("beneath: SIGHUP: %s:1: redirect loop: line 1 -> "
                       "line 2 -> line 1",
                       rf)),
           "the loop named:\n%s", server_stderr(s));
    r = http_get(s, "/a");
    EXPECT(strcmp(http_header(r, "Location"), "/c") == 0, "old rules kept");
    server_stop_clean(s);
}
END_TEST

START_TEST(rules_bad_input)
{
    char *d = tree_new(), *www = tree_path(d, "www"), *err;
    long long ms;

    tree_mkdir(d, "www");
    tree_write_str(www, "index.html", "x\n");
    /* a 1 MiB header line */
    size_t n = 1 << 20;
    char *big = hbuf(n + 64);
    strcpy(big, "/*\n  X-Big: ");
    memset(big + strlen(big), 'v', n);
    strcat(big, "\n");
    tree_write_str(www, "_headers", big);
    err = refused((const char *[]){"--site-files", "on", "--check", "--listen",
                                   "127.0.0.1:0", www, NULL},
                  &ms);
    EXPECT(strstr(err, hfmt("beneath: %s/_headers:2: line longer than 8192 "
                            "bytes",
                            www)),
           "1 MiB line:\n%s", err);
    fprintf(stderr, "e2e: a 1 MiB _headers line refused in %lld ms\n", ms);
    unlink(tree_path(www, "_headers"));
    /* Netlify features beyond the subset, each named */
    tree_write_str(www, "_redirects",
                   "/store id=:id /blog/:id 301\n"
                   "/a /b 404\n"
                   "/c http://example.org/\n"
                   "/d //example.org/\n"
                   "https://old.example/* /x 301\n"
                   "/e /f/:slug\n");
    err = refused((const char *[]){"--site-files", "on", "--check", "--listen",
                                   "127.0.0.1:0", www, NULL},
                  NULL);
    static const char *const msgs[] = {
        ":1: query-parameter matching ('id=:id') is not supported",
        ":2: status 404: only 200 (rewrite), 301, 302, 303, 307 and 308",
        ":3: 'http://example.org/' leaves the origin over plain HTTP",
        ":4: '//example.org/' would leave the origin (protocol-relative)",
        ":5: rules for a host are not supported",
        ":6: TO uses :slug, which FROM does not define",
    };
    for (size_t i = 0; i < N_ELEMS(msgs); i++)
        EXPECT(strstr(err, hfmt("%s/_redirects%s", www, msgs[i])),
               "missing '%s':\n%s", msgs[i], err);
    /* a _redirects that is a link out of the root is refused, not read */
    unlink(tree_path(www, "_redirects"));
    tree_write_str(d, "elsewhere", "/a /b\n");
    tree_symlink(www, "../elsewhere", "_redirects");
    err = refused((const char *[]){"--site-files", "on", "--check", "--listen",
                                   "127.0.0.1:0", www, NULL},
                  NULL);
    EXPECT(strstr(err, hfmt("%s/_redirects: Invalid cross-device link (EXDEV)",
                            www)) ||
               strstr(err, hfmt("%s/_redirects: Too many levels of symbolic "
                                "links (ELOOP)",
                                www)),
           "escaping _redirects:\n%s", err);
    unlink(tree_path(www, "_redirects"));
    /* 10,000 redirects: start-up time, and the last rule answers */
    char *rf = tree_path(d, "many");
    FILE *f = fopen(rf, "w");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < 10000; i++)
        fprintf(f, "/old/page-%d.html /new/page-%d.html 301\n", i, i);
    fclose(f);
    long long t0 = now_ms();
    struct server *s = start(www, (const char *[]){"--redirects", rf, NULL});
    fprintf(stderr, "e2e: start-up with 10,000 redirects: %lld ms\n",
            now_ms() - t0);
    struct http_response *r = http_get(s, "/old/page-9999.html");
    EXPECT(r->status == 301 &&
               strcmp(http_header(r, "Location"), "/new/page-9999.html") == 0,
           "rule 10000:\n%s", r->head);
    server_stop_clean(s);
}
END_TEST

/* Error pages: the original status, under each site's root. */
START_TEST(error_pages)
{
    char *outside, *www = rules_site(&outside), *err, *out;
    tree_write_str(www, "errors/400.json", "{\"error\": \"bad request\"}\n");
    struct server *s = start(
        www, (const char *[]){"--error-page", "403,404=/errors/4xx.html",
                              "--error-page", "400=/errors/400.json", NULL});
    struct http_response *r;

    r = http_get(s, "/missing");
    EXPECT(r->status == 404 && strcmp(r->body, "custom 4xx page\n") == 0,
           "404: %s", r->body);
    r = http_get(s, "/escape-link/outside.txt");
    EXPECT(r->status == 403 && strcmp(r->body, "custom 4xx page\n") == 0,
           "403: %s", r->body);
    r = raw_get(s->port, "/bad%zzescape");
    EXPECT(r->status == 400 && strstr(r->body, "bad request") &&
               http_header(r, "Content-Type") &&
               strncmp(http_header(r, "Content-Type"), "application/json",
                       16) == 0,
           "400 with a JSON page, typed by its name:\n%s%s", r->head, r->body);
    server_stop_clean(s);
    /* a page the root does not have: a warning, the built-in page */
    int ws = beneath_run((const char *[]){"--error-page", "404=/nope.html",
                                          "--check", "--listen", "127.0.0.1:0",
                                          www, NULL},
                         NULL, 30000, &out, &err);
    EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) == 0 &&
               strstr(err, hfmt("beneath: warning: error-page 404: /nope.html "
                                "under %s: No such file or directory",
                                www)),
           "warning:\n%s", err);
    err = refused((const char *[]){"--error-page", "404=/a.html",
                                   "--error-page", "404=/b.html", "--check",
                                   "--listen", "127.0.0.1:0", www, NULL},
                  NULL);
    EXPECT(strstr(err, "status 404 has an error page already"), "twice:\n%s",
           err);
}
END_TEST

const struct check_main check_main = {
    .suite = "e2e_access",
    .fixture = HARNESS_FIXTURE(120),
    .tcases = {
        {"auth", .tests = {&auth_basic, &auth_whole_site, &auth_reload,
                           &auth_bad_files, &auth_many_users}},
        {"addresses",
         .tests = {&addr_allow_deny, &addr_trusted_proxy, &addr_bad_cidrs}},
        {"vhosts", .loops = {LOOP(vhost_hosts)},
         .tests = {&vhost_each_site, &vhost_reload, &vhost_bad}},
        {"rules", .loops = {LOOP(rules_site_files)},
         .tests = {&rules_headers, &rules_reply_cache, &rules_files_reload,
                   &rules_bad_input, &error_pages}}}};
