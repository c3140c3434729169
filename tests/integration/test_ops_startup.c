/* SPDX-License-Identifier: MIT */
/*
 * test_ops_startup.c - the e2e_ops tcase "startup": the lines beneath prints
 * once it listens (resolver, confinement, fd budget), the auto resolver's
 * fallback when openat2 is refused, listening on [::1], and the warning of a
 * --fallback file the root lacks (at start-up and on SIGHUP).
 */
#include "harness.h"
#include "test_ops.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ===== start-up lines ==================================================== */

static bool have_openat2(void)
{
#ifdef SYS_openat2
    struct {
        unsigned long long flags, mode, resolve;
    } how = {.flags = O_RDONLY | O_CLOEXEC, .resolve = 0x08};
    long fd = syscall(SYS_openat2, AT_FDCWD, ".", &how, sizeof(how));
    if (fd >= 0) {
        close((int)fd);
        return true;
    }
#endif
    return false;
}

/* The stderr line containing the listening line for @host. */
static char *listening_line(const struct server *s, const char *host)
{
    char *e = server_stderr(s);
    char *needle = hfmt("listening on http://%s:", host);
    const char *p = strstr(e, needle);
    EXPECT(p != NULL, "no '%s' line", needle);
    const char *start = p;
    while (start > e && start[-1] != '\n')
        start--;
    return hmem(start, strcspn(start, "\n"));
}

/*
 * A low RLIMIT_NOFILE: the emulated backend's directory caches are lowered
 * to fit what the connections may need (2 per connection + 64, and the
 * HTTP/2 file streams' pool: at most a quarter of the rest,
 * process/fd_budget.h), the start-up lines say so, and nested paths are
 * still served.
 */
START_TEST(startup_fd_budget)
{
    char *w = tree_new();
    tree_mkdir(w, "a");
    tree_mkdir(w, "a/b");
    tree_write_str(w, "a/b/f.txt", "nested\n");
    struct server_opts o = {
        .root = w,
        .no_resolver = true,
        .nofile = 2200,
        .args = (const char *[]){"--resolver", "emulated", "--threads", "2",
                                 "--max-connections", "1024", NULL},
    };
    struct server *s = server_start_opts(&o);
    char *e = server_stderr(s);
    /* 2200 - 2 * 1024 - 64 = 88; the HTTP/2 pool takes 88 / 4 = 22; 66 /
     * (2 + 1) threads = 22, minus 3 event fds */
    EXPECT(strstr(e, "--resolver-cache lowered from 1024 to 19 per thread: "
                     "RLIMIT_NOFILE is 2200") != NULL,
           "no warning about the lowered cache:\n%s", e);
    EXPECT(strstr(e, "directory cache: 19 per worker") != NULL,
           "the resolver line does not give the cache size:\n%s", e);
    expect_get_body(s, "/a/b/f.txt", "nested\n", "GET /a/b/f.txt");
    server_stop_clean(s);
}
END_TEST

START_TEST(startup_line)
{
    static const struct {
        const char *resolver;
        const char
            *backend; /* NULL: kernel when openat2 works, else emulated */
    } cases[] = {
        {"kernel", "kernel"}, {"emulated", "emulated"}, {"auto", NULL}};
    char *w = tree_site("x");
    const char *resolver = cases[_i].resolver;
    const char *backend = cases[_i].backend
                              ? cases[_i].backend
                              : (have_openat2() ? "kernel" : "emulated");
    struct server_opts o = {
        .root = w,
        .no_resolver = true,
        .args = (const char *[]){"--resolver", resolver, NULL},
    };
    struct server *s = server_start_opts(&o);
    char *line = listening_line(s, "127.0.0.1");
    char *hp = hfmt("listening on http://127.0.0.1:%u", s->port);
    EXPECT(strstr(line, hp), "line lacks '%s': %s", hp, line);
    /* At start-up stderr says the address, the root, the backend that
     * serves (and why) and the confinement flags, on one or more lines. */
    char *e = server_stderr(s);
    EXPECT(strstr(e, w) != NULL, "start-up lines lack the root %s:\n%s", w, e);
    char *bl = NULL, *l;
    for (const char *p = e; (l = hline(&p)) != NULL;)
        if (strstr(l, backend) && !strstr(l, "listening on") && !strstr(l, w))
            bl = l;
    EXPECT(bl != NULL,
           "--resolver %s: no start-up line names the backend "
           "'%s':\n%s",
           resolver, backend, e);
    /* "and why": more than the bare name on that line */
    EXPECT(strlen(bl) > strlen(backend) + 20,
           "the backend line does not say why: %s", bl);
    if (strcmp(resolver, "auto") == 0)
        EXPECT(strstr(bl, "auto") != NULL || strstr(bl, "openat2") != NULL,
               "auto: the backend line does not say it was chosen: %s", bl);
    EXPECT(strstr(e, "beneath,no-magiclinks") ||
               strstr(e, "no-magiclinks,beneath"),
           "start-up lines lack the default flags beneath,no-magiclinks:\n%s",
           e);
    expect_get(s, "/", 200, "GET /");
    server_stop_clean(s);
}
END_TEST

START_TEST(startup_confine_flags_shown)
{
    char *w = tree_site("x");
    struct server *s =
        server_start(w, "--confine", "in-root,no-symlinks", NULL);
    char *e = server_stderr(s);
    EXPECT(strstr(e, "in-root") && strstr(e, "no-symlinks"),
           "--confine in-root,no-symlinks not shown:\n%s", e);
    server_stop_clean(s);
}
END_TEST

START_TEST(startup_auto_fallback)
{
    /* auto with openat2 blocked by seccomp (ENOSYS as old kernels and some
     * container profiles give, EPERM as others do): the emulation serves,
     * the start-up says so, and confinement still holds. */
    static const int errs[] = {ENOSYS, EPERM};
    char *b = tree_new();
    char *secret = hfmt("SECRET-%s", hrandom(24));
    tree_write_str(b, "secret.txt", secret);
    tree_mkdir(b, "www");
    char *w = tree_path(b, "www");
    tree_write_str(w, "index.html", "FALLBACK\n");
    tree_symlink(w, tree_path(b, "secret.txt"), "link-abs");
    tree_symlink(w, "../secret.txt", "link-rel");
    harness_forbid(secret);
    struct server_opts o = {
        .root = w,
        .no_resolver = true,
        .args = (const char *[]){"--resolver", "auto", NULL},
        .block_openat2 = errs[_i],
    };
    struct server *s = server_start_opts(&o);
    char *e = server_stderr(s);
    EXPECT(strstr(e, "emulated") != NULL,
           "openat2 blocked with %s: start-up does not say the emulation "
           "serves:\n%s",
           strerror(errs[_i]), e);
    expect_get_body(s, "/", "FALLBACK\n", "fallback: GET /");
    static const char *const t[] = {"/../secret.txt", "/%2e%2e/secret.txt",
                                    "/link-abs", "/link-rel"};
    for (size_t i = 0; i < N_ELEMS(t); i++)
        expect_get(s, t[i], 403, t[i]);
    server_stop_clean(s);
}
END_TEST

static bool have_ipv6_loopback(void)
{
    int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    struct sockaddr_in6 sa = {.sin6_family = AF_INET6,
                              .sin6_addr = IN6ADDR_LOOPBACK_INIT};
    bool ok = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
    close(fd);
    return ok;
}

/* Listening on [::1] alone, then on [::1] beside the default 127.0.0.1:
 * every listener answers. */
START_TEST(startup_ipv6)
{
    if (!have_ipv6_loopback()) {
        fprintf(stderr, "SKIP startup_ipv6: no ::1 on this machine\n");
        return;
    }
    char *w = tree_site("V6\n");
    struct server_opts o = {
        .root = w,
        .no_listen = _i == 0,
        .args = (const char *[]){"--listen", "[::1]:0", NULL},
        .n_listen = _i + 1,
    };
    struct server *s = server_start_opts(&o);
    EXPECT(_i == 1 || strcmp(s->hosts[0], "[::1]") == 0,
           "want 'listening on http://[::1]:PORT', got host %s", s->hosts[0]);
    for (int i = 0; i < o.n_listen; i++) {
        bool v6 = s->hosts[i][0] == '[';
        struct raw_conn *c =
            raw_connect_host(v6 ? "::1" : "127.0.0.1", s->ports[i]);
        EXPECT(c != NULL, "connect %s:%u: %s", s->hosts[i], s->ports[i],
               strerror(errno));
        raw_send_str(c,
                     hfmt("GET / HTTP/1.1\r\nHost: %s\r\n\r\n", s->hosts[i]));
        struct http_response *r = raw_read(c, false, 5000);
        EXPECT_BODY(r, "V6\n", hfmt("GET over listener %s", s->hosts[i]));
    }
    server_stop_clean(s);
}
END_TEST

/* The number of times @needle occurs in @hay. */
static int count_of(const char *hay, const char *needle)
{
    int n = 0;

    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

/*
 * --fallback naming a file the root does not have: a warning at start-up,
 * none once the file is there (SIGHUP), again when it is gone (SIGHUP);
 * a directory is no fallback either.
 */
START_TEST(startup_fallback_missing)
{
    char *w = tree_site("HOME\n");
    const char *warn = hfmt("beneath: warning: fallback /app.html under %s: No "
                            "such file or directory (a path not found is "
                            "answered 404)\n",
                            w);
    const char *hup_warn = hfmt("beneath: SIGHUP: warning: fallback /app.html "
                                "under %s: No such file or directory",
                                w);
    const char *applied = "beneath: SIGHUP: configuration applied";
    struct server *s = server_start(w, "--fallback", "/app.html", NULL);

    EXPECT(strstr(server_stderr(s), warn), "no warning at start-up:\n%s",
           server_stderr(s));
    expect_get(s, "/route", 404, "no fallback file yet");
    tree_write_str(w, "app.html", "APP\n");
    server_signal(s, SIGHUP);
    EXPECT(file_wait_for(s->err_path, applied, 10000), "no reload:\n%s",
           server_stderr(s));
    EXPECT(!strstr(server_stderr(s), hup_warn), "warned with the file there");
    expect_get_body(s, "/route", "APP\n", "the fallback");
    EXPECT(unlink(tree_path(w, "app.html")) == 0, "unlink");
    server_signal(s, SIGHUP);
    for (int i = 0; i < 100 && count_of(server_stderr(s), applied) < 2; i++)
        sleep_ms(50);
    EXPECT(file_wait_for(s->err_path, hup_warn, 10000),
           "no warning after the file went:\n%s", server_stderr(s));
    server_stop_clean(s);

    tree_mkdir(w, "spa");
    s = server_start(w, "--fallback", "spa", NULL);
    EXPECT(strstr(server_stderr(s),
                  hfmt("beneath: warning: fallback /spa under %s: Is a "
                       "directory",
                       w)),
           "a directory: no warning:\n%s", server_stderr(s));
    server_stop_clean(s);
    s = server_start(w, "--fallback", "index.html", NULL);
    EXPECT(!strstr(server_stderr(s), "fallback"), "warned for index.html:\n%s",
           server_stderr(s));
    server_stop_clean(s);
}
END_TEST

static const struct check_tcase tcase = {"startup",
                                         .loops = {{&startup_line, 3},
                                                   {&startup_auto_fallback, 2},
                                                   {&startup_ipv6, 2}},
                                         .tests = {&startup_fd_budget,
                                                   &startup_confine_flags_shown,
                                                   &startup_fallback_missing}};

Suite *ops_startup_suite(void)
{
    return ops_suite(&tcase);
}
