/* SPDX-License-Identifier: MIT */
/*
 * test_ops.c - end-to-end tests of beneath as an operator meets it: the
 * command line, environment and config file (here), privilege drop with
 * --user (here); the start-up lines (test_ops_startup.c); limits
 * (connections per IP and in total, slow and idle clients;
 * test_ops_limits.c); signals (SIGTERM drain, SIGHUP log reopen;
 * test_ops_signals.c) and the SIGHUP root swap (test_ops_swap.c). One
 * binary, test_e2e_ops: the other files' suites, also named e2e_ops, are
 * listed in .suites (test_ops.h).
 *
 * Backend-agnostic; the root-swap tcase "swap" is also run with the emulated
 * backend (CK_RUN_CASE=swap in the CMake fragment).
 */
#include "test_ops.h"

#include "harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Lines of @text that contain @needle, counted. */
static int count_lines_with(const char *text, const char *needle)
{
    int n = 0;
    for (const char *line; (line = hline(&text)) != NULL;)
        if (strstr(line, needle))
            n++;
    return n;
}

/* The value of "KEY = VALUE" in --check output (quotes stripped), or NULL. */
static char *conf_value(const char *text, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        const char *q = p;
        while (*q == ' ')
            q++;
        if (strncmp(q, key, kl) == 0) {
            const char *v = q + kl;
            while (*v == ' ' || *v == '\t')
                v++;
            if (*v == '=') {
                v++;
                while (*v == ' ' || *v == '\t')
                    v++;
                size_t vl = (size_t)(p + len - v);
                while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\r'))
                    vl--;
                if (vl >= 2 && v[0] == '"' && v[vl - 1] == '"') {
                    v++;
                    vl -= 2;
                }
                return hmem(v, vl);
            }
        }
        p += len;
        if (*p)
            p++;
    }
    return NULL;
}

/* ===== command line, environment, config file ============================ */

START_TEST(cli_bogus_flag)
{
    char *out, *err;
    int ws =
        beneath_run((const char *[]){"--bogus", NULL}, NULL, 10000, &out, &err);
    EXPECT_EXIT(ws, 2, err);
    EXPECT(strstr(err, "beneath: --bogus: ") != NULL,
           "want 'beneath: --bogus: ...' on stderr, got:\n%s", err);
}
END_TEST

START_TEST(cli_every_error_in_one_run)
{
    char *out, *err;
    int ws = beneath_run((const char *[]){"--threads", "abc", "--listing=maybe",
                                          "--resolver", "nope", NULL},
                         NULL, 10000, &out, &err);
    EXPECT_EXIT(ws, 2, err);
    EXPECT(strstr(err, "beneath: --threads") &&
               strstr(err, "beneath: --listing") &&
               strstr(err, "beneath: --resolver"),
           "want one 'beneath: --flag: ...' line for each of --threads, "
           "--listing, --resolver, got:\n%s",
           err);
}
END_TEST

START_TEST(cli_bad_env)
{
    char *out, *err;
    int ws = beneath_run((const char *[]){"--check", NULL},
                         (const char *[]){"BENEATH_THREADS=abc",
                                          "BENEATH_DOTFILES=sometimes", NULL},
                         10000, &out, &err);
    EXPECT_EXIT(ws, 2, err);
    EXPECT(strstr(err, "beneath: BENEATH_THREADS") &&
               strstr(err, "beneath: BENEATH_DOTFILES"),
           "want 'beneath: BENEATH_THREADS: ...' and BENEATH_DOTFILES lines, "
           "got:\n%s",
           err);
}
END_TEST

START_TEST(cli_config_every_bad_line)
{
    char *d = tree_new();
    tree_write_str(d, "beneath.conf",
                   "# a comment\n"                    /* 1 */
                   "threads = abc\n"                  /* 2 bad */
                   "listing = on\n"                   /* 3 */
                   "bogus-key = 1\n"                  /* 4 bad */
                   "dotfiles\n"                       /* 5 bad: no '=' */
                   "\n"                               /* 6 */
                   "resolver = kernel\n"              /* 7 */
                   "confine = beneath,no-such-flag\n" /* 8 bad */
                   "log-format = xml\n");             /* 9 bad */
    char *file = tree_path(d, "beneath.conf");
    char *out, *err;
    int ws = beneath_run((const char *[]){"--config", file, "--check", NULL},
                         NULL, 10000, &out, &err);
    EXPECT_EXIT(ws, 2, err);
    static const int bad[] = {2, 4, 5, 8, 9};
    for (size_t i = 0; i < N_ELEMS(bad); i++) {
        char *want = hfmt("beneath: %s:%d: ", file, bad[i]);
        EXPECT(count_lines_with(err, want) == 1,
               "want exactly one line starting '%s', stderr:\n%s", want, err);
    }
    static const int good[] = {1, 3, 6, 7};
    for (size_t i = 0; i < N_ELEMS(good); i++) {
        char *nope = hfmt("%s:%d:", file, good[i]);
        EXPECT(strstr(err, nope) == NULL, "a message for good line %d:\n%s",
               good[i], err);
    }
}
END_TEST

START_TEST(cli_config_missing_file)
{
    char *out, *err;
    const char *file = "/nonexistent/beneath-e2e.conf";
    int ws = beneath_run((const char *[]){"--config", file, "--check", NULL},
                         NULL, 10000, &out, &err);
    EXPECT_EXIT(ws, 2, err);
    EXPECT(strstr(err, file) != NULL, "message does not name %s:\n%s", file,
           err);
}
END_TEST

START_TEST(cli_check_prints_effective)
{
    char *w = tree_site("x");
    char *out, *err;
    int ws = beneath_run((const char *[]){"--check", "--listing", "on",
                                          "--threads", "3", "--dotfiles",
                                          "allow", "--root", w, NULL},
                         NULL, 10000, &out, &err);
    EXPECT_EXIT(ws, 0, err);
    char *all = hfmt("%s\n%s", out, err);
    EXPECT(strstr(all, "listening on") == NULL, "--check started serving");
    char *v = conf_value(all, "listing");
    EXPECT(v && strcmp(v, "on") == 0, "--check: listing = '%s'\n%s", v, all);
    v = conf_value(all, "threads");
    EXPECT(v && strcmp(v, "3") == 0, "--check: threads = '%s'\n%s", v, all);
    v = conf_value(all, "dotfiles");
    EXPECT(v && strcmp(v, "allow") == 0, "--check: dotfiles = '%s'", v);
    v = conf_value(all, "root");
    EXPECT(v && strcmp(v, w) == 0, "--check: root = '%s', want '%s'", v, w);
    EXPECT(conf_value(all, "listen") && conf_value(all, "resolver") &&
               conf_value(all, "confine") && conf_value(all, "index") &&
               conf_value(all, "access-log") && conf_value(all, "log-format"),
           "--check does not print every option:\n%s", all);
}
END_TEST

START_TEST(cli_check_round_trip)
{
    /* conf.h: --check prints "the file syntax that conf_parse reads back" */
    char *w = tree_site("x");
    char *out, *err;
    int ws =
        beneath_run((const char *[]){"--check", "--listing", "on", "--index",
                                     "a.html,b.html", "--listen", "127.0.0.1:0",
                                     "--listen", "[::1]:0", w, NULL},
                    NULL, 10000, &out, &err);
    EXPECT_EXIT(ws, 0, err);
    char *d = tree_new();
    tree_write_str(d, "round.conf", out);
    char *out2, *err2;
    ws = beneath_run((const char *[]){"--config", tree_path(d, "round.conf"),
                                      "--check", NULL},
                     NULL, 10000, &out2, &err2);
    EXPECT_EXIT(ws, 0, err2);
    /* the config line names the file in the second run; compare the rest */
    char *a = hfmt("%s", out), *b = hfmt("%s", out2);
    EXPECT(conf_value(a, "listing") && conf_value(b, "listing") &&
               strcmp(conf_value(a, "listing"), conf_value(b, "listing")) ==
                   0 &&
               strcmp(conf_value(a, "index"), conf_value(b, "index")) == 0 &&
               strcmp(conf_value(a, "root"), conf_value(b, "root")) == 0,
           "--check output does not read back the same:\n%s\n----\n%s", a, b);
    EXPECT(count_lines_with(b, "listen") == count_lines_with(a, "listen"),
           "listen lines differ after the round trip:\n%s\n----\n%s", a, b);
}
END_TEST

/* A --check number, with an optional K/M suffix; -1 if absent or bad. */
static long long conf_number(const char *text, const char *key)
{
    char *v = conf_value(text, key);
    if (v == NULL || *v == '\0')
        return -1;
    char *end;
    long long n = strtoll(v, &end, 10);
    if (end == v)
        return -1;
    if (*end == 'K' || *end == 'k') {
        n *= 1024;
        end++;
    } else if (*end == 'M' || *end == 'm') {
        n *= 1024LL * 1024;
        end++;
    }
    return *end == '\0' ? n : -1;
}

START_TEST(cli_default_limits)
{
    /* MHD 0.9.75 has no connection timeout by default (MHD-NOTES 6); the
     * defaults must be limits. Bounds here are generous:
     * what nginx/Caddy ship is well inside them. */
    static const struct {
        const char *key;
        long long lo, hi;
    } lim[] = {
        {"timeout", 1, 600},
        {"header-timeout", 1, 120},
        {"max-connections", 16, 1000000},
        {"max-header-size", 1024, 1024LL * 1024},
        {"shutdown-timeout", 1, 600},
    };
    char *out, *err;
    int ws =
        beneath_run((const char *[]){"--check", NULL}, NULL, 10000, &out, &err);
    EXPECT_EXIT(ws, 0, err);
    for (size_t i = 0; i < N_ELEMS(lim); i++) {
        long long n = conf_number(out, lim[i].key);
        EXPECT(n >= lim[i].lo && n <= lim[i].hi,
               "default %s = %s, want %lld..%lld", lim[i].key,
               conf_value(out, lim[i].key) ?: "(absent)", lim[i].lo, lim[i].hi);
    }
}
END_TEST

START_TEST(cli_precedence)
{
    char *d = tree_new();
    tree_write_str(d, "f.conf", "threads = 2\nlisting = on\n");
    char *file = tree_path(d, "f.conf");
    char *out, *err;
    int ws;

    ws = beneath_run((const char *[]){"--config", file, "--check", NULL}, NULL,
                     10000, &out, &err);
    EXPECT_EXIT(ws, 0, err);
    EXPECT(strcmp(conf_value(out, "threads") ?: "", "2") == 0,
           "file only: threads = %s", conf_value(out, "threads"));

    ws = beneath_run((const char *[]){"--config", file, "--check", NULL},
                     (const char *[]){"BENEATH_THREADS=3", NULL}, 10000, &out,
                     &err);
    EXPECT_EXIT(ws, 0, err);
    EXPECT(strcmp(conf_value(out, "threads") ?: "", "3") == 0,
           "env over file: threads = %s", conf_value(out, "threads"));
    EXPECT(strcmp(conf_value(out, "listing") ?: "", "on") == 0,
           "file value lost when env sets another: listing = %s",
           conf_value(out, "listing"));

    ws = beneath_run(
        (const char *[]){"--config", file, "--check", "--threads", "4", NULL},
        (const char *[]){"BENEATH_THREADS=3", NULL}, 10000, &out, &err);
    EXPECT_EXIT(ws, 0, err);
    EXPECT(strcmp(conf_value(out, "threads") ?: "", "4") == 0,
           "command line over env: threads = %s", conf_value(out, "threads"));

    /* BENEATH_CONFIG names the file too */
    ws = beneath_run((const char *[]){"--check", NULL},
                     (const char *[]){hfmt("BENEATH_CONFIG=%s", file),
                                      "BENEATH_LISTING=off", NULL},
                     10000, &out, &err);
    EXPECT_EXIT(ws, 0, err);
    EXPECT(strcmp(conf_value(out, "threads") ?: "", "2") == 0,
           "BENEATH_CONFIG not read: threads = %s", conf_value(out, "threads"));
    EXPECT(strcmp(conf_value(out, "listing") ?: "", "off") == 0,
           "env over file: listing = %s", conf_value(out, "listing"));
}
END_TEST

START_TEST(cli_env_listen_real)
{
    char *w = tree_site("ENV-LISTEN\n");
    struct server_opts o = {
        .root = w,
        .no_listen = true,
        .env = (const char *[]){"BENEATH_LISTEN=127.0.0.1:0", NULL}};
    struct server *s = server_start_opts(&o);
    EXPECT(strcmp(s->hosts[0], "127.0.0.1") == 0, "listening on %s",
           s->hosts[0]);
    expect_get_body(s, "/", "ENV-LISTEN\n", "BENEATH_LISTEN server");
    server_stop_clean(s);

    /* the command line replaces the environment's list as a whole */
    o.no_listen = false;
    o.env = (const char *[]){"BENEATH_LISTEN=[::1]:0", NULL};
    s = server_start_opts(&o);
    sleep_ms(200);
    char *e = server_stderr(s);
    EXPECT(count_lines_with(e, "listening on") == 1 &&
               strstr(e, "listening on http://[::1]") == NULL,
           "--listen did not replace BENEATH_LISTEN:\n%s", e);
    server_stop_clean(s);
}
END_TEST

START_TEST(cli_help_version)
{
    char *out, *err;
    int ws =
        beneath_run((const char *[]){"--help", NULL}, NULL, 10000, &out, &err);
    EXPECT_EXIT(ws, 0, err);
    static const char *const opts[] = {
        "--root",       "--listen", "--resolver", "--confine",  "--config",
        "--threads",    "--index",  "--listing",  "--dotfiles", "--access-log",
        "--log-format", "--check",  "--help",     "--version",  "--user",
    };
    for (size_t i = 0; i < N_ELEMS(opts); i++)
        EXPECT(strstr(out, opts[i]) != NULL, "--help (stdout) lacks %s:\n%s",
               opts[i], out);
    ws = beneath_run((const char *[]){"--version", NULL}, NULL, 10000, &out,
                     &err);
    EXPECT_EXIT(ws, 0, err);
    const char *ver = getenv("BENEATH_E2E_VERSION");
    EXPECT(strstr(out, "beneath") && (!ver || strstr(out, ver)),
           "--version: '%s', want 'beneath' and '%s'", out, ver ?: "");
}
END_TEST

START_TEST(cli_root_missing)
{
    char *out, *err;
    const char *root = "/nonexistent/beneath-e2e-root";
    int ws =
        beneath_run((const char *[]){"--listen", "127.0.0.1:0", root, NULL},
                    NULL, 10000, &out, &err);
    EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) != 0,
           "a missing root: %s, want a non-zero exit", wstatus_str(ws));
    EXPECT(strstr(err, root) != NULL && strstr(err, "listening on") == NULL,
           "a missing root: the message does not name it:\n%s", err);
}
END_TEST

START_TEST(cli_listen_in_use)
{
    /* An address already taken: a clear message and a non-zero exit, not a
     * server that runs without listening. */
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof(sa);
    EXPECT(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
               listen(fd, 1) == 0 &&
               getsockname(fd, (struct sockaddr *)&sa, &sl) == 0,
           "cannot take a port");
    char *addr = hfmt("127.0.0.1:%u", ntohs(sa.sin_port));
    char *w = tree_site("x");
    char *out, *err;
    int ws = beneath_run((const char *[]){"--listen", addr, w, NULL}, NULL,
                         10000, &out, &err);
    close(fd);
    EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) != 0,
           "--listen on a taken address: %s, want a non-zero exit",
           wstatus_str(ws));
    EXPECT(strstr(err, addr) != NULL && strstr(err, "listening on") == NULL,
           "--listen on a taken address: the message does not name %s:\n%s",
           addr, err);
}
END_TEST

/* ===== privileges ======================================================== */

static unsigned free_privileged_port(void)
{
    for (unsigned port = 800; port < 1000; port++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        struct sockaddr_in sa = {.sin_family = AF_INET,
                                 .sin_port = htons((uint16_t)port),
                                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        bool ok = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
        close(fd);
        if (ok)
            return port;
    }
    return 0;
}

static char *status_field(pid_t pid, const char *field)
{
    char *st = tree_read(hfmt("/proc/%d/status", (int)pid), NULL);
    EXPECT(st != NULL, "no /proc/%d/status", (int)pid);
    char *key = hfmt("\n%s:", field);
    const char *p = strstr(st, key);
    EXPECT(p != NULL, "no %s in /proc/%d/status", field, (int)pid);
    p += strlen(key);
    while (*p == '\t' || *p == ' ')
        p++;
    return hmem(p, strcspn(p, "\n"));
}

START_TEST(user_drops_privileges)
{
    char *w = tree_site("AS-NOBODY\n");
    tree_write_str(w, "private.txt", "root only\n");
    chmod(tree_path(w, "private.txt"), 0600);
    /* a privileged port proves the bind happened before the drop */
    unsigned port = free_privileged_port();
    EXPECT(port != 0, "no free port in 800..999");
    struct server_opts o = {
        .root = w,
        .no_listen = true,
        .args = (const char *[]){"--listen", hfmt("127.0.0.1:%u", port),
                                 "--user", "nobody", NULL},
    };
    struct server *s = server_start_opts(&o);
    EXPECT(s->port == port, "listening on %u, want %u", s->port, port);
    expect_get_body(s, "/", "AS-NOBODY\n", "GET / as nobody");
    /* the keeper and the serving process alike (keeper.h) */
    pid_t both[] = {s->pid, server_serving_pid(s)};
    EXPECT(both[1] != both[0], "no serving process beside the keeper");
    for (size_t i = 0; i < 2; i++) {
        char *uid = status_field(both[i], "Uid");
        char *gid = status_field(both[i], "Gid");
        char *groups = status_field(both[i], "Groups");
        EXPECT(strcmp(uid, "65534\t65534\t65534\t65534") == 0,
               "Uid of pid %d after --user nobody: %s", (int)both[i], uid);
        EXPECT(strcmp(gid, "65534\t65534\t65534\t65534") == 0,
               "Gid of pid %d after --user nobody: %s", (int)both[i], gid);
        EXPECT(strcmp(groups, "") == 0 || strcmp(groups, "65534") == 0 ||
                   strcmp(groups, "65534 ") == 0,
               "supplementary groups kept after --user nobody: '%s'", groups);
    }
    expect_get(s, "/private.txt", 403, "a root-only file as nobody (EACCES)");
    server_stop_clean(s);
}
END_TEST

START_TEST(user_unknown)
{
    char *w = tree_site("x");
    char *out, *err;
    int ws = beneath_run((const char *[]){"--listen", "127.0.0.1:0", "--user",
                                          "no-such-user-e2e", w, NULL},
                         NULL, 10000, &out, &err);
    EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) != 0,
           "--user no-such-user: %s, want a non-zero exit", wstatus_str(ws));
    EXPECT(strstr(err, "no-such-user-e2e") != NULL,
           "the message does not name the user:\n%s", err);
}
END_TEST

static const struct check_fixture ops_fixture = HARNESS_FIXTURE(OPS_TIMEOUT);

Suite *ops_suite(const struct check_tcase *t)
{
    return check_suite_make("e2e_ops", &ops_fixture, t, 1);
}

/* What only root can do: bind a privileged port, then drop to nobody. */
static Suite *ops_root_suite(void)
{
    static const struct check_tcase user = {"user",
                                            .tests = {&user_drops_privileges}};

    return check_suite_make("e2e_ops_root", &ops_fixture, &user, 1);
}

const struct check_main check_main = {
    .suite = "e2e_ops",
    .fixture = HARNESS_FIXTURE(OPS_TIMEOUT),
    .tcases = {{"cli",
                .tests = {&cli_bogus_flag, &cli_every_error_in_one_run,
                          &cli_bad_env, &cli_config_every_bad_line,
                          &cli_config_missing_file, &cli_check_prints_effective,
                          &cli_check_round_trip, &cli_precedence,
                          &cli_default_limits, &cli_env_listen_real,
                          &cli_help_version, &cli_root_missing,
                          &cli_listen_in_use}},
               {"user", .tests = {&user_unknown}}},
    .suites = {
        {.make = ops_startup_suite},
        {.make = ops_limits_suite},
        {.make = ops_signals_suite},
        {.make = ops_swap_suite},
        {.make = ops_root_suite,
         .needs_root = "--user drops privileges only when started as root"}}};
