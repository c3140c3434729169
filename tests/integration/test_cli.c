/* SPDX-License-Identifier: MIT */
/*
 * test_cli.c - end-to-end tests of the command-line habits a new user brings
 * (python3 -m http.server 8000: a lone number is the port, --port and -p),
 * of --check beside a running server (it binds nothing and creates no file:
 * a port in use is a warning, a log file still to be created a note, exit 0),
 * of a start that fails (a port in use: exit 2, and no file left behind),
 * and of '#' in the config file (a comment only after a space; kept with a
 * warning elsewhere), against the real binary.
 */
#include "harness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static bool exists(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0;
}

/* ===== python3 -m http.server habits =================================== */

/* "beneath PORT" in a directory serves that directory on 127.0.0.1:PORT. */
START_TEST(lone_number_serves_cwd)
{
    char *w = tree_site("cwd-site\n");
    unsigned port = fixture_free_port();
    /* Check forks each test: the chdir stays in this test's process */
    EXPECT(chdir(w) == 0, "chdir %s: %s", w, strerror(errno));
    struct server_opts o = {
        .no_listen = true,
        .args = (const char *[]){hfmt("%u", port), NULL},
    };
    struct server *s = server_start_opts(&o);
    EXPECT(s->port == port && strcmp(s->hosts[0], "127.0.0.1") == 0,
           "listening on %s:%u, want 127.0.0.1:%u", s->hosts[0], s->port, port);
    expect_get_body(s, "/", "cwd-site\n", "GET / from the current directory");
    server_stop_clean(s);
}
END_TEST

/*
 * "beneath PORT", "beneath ." and "beneath PORT ROOT" in a directory without
 * index.html list it, as python3 -m http.server does, and say so at
 * start-up: "beneath 8000 site" as "cd site && beneath 8000". --listing off
 * (or BENEATH_LISTING=off) still wins, and a root named by --root alone,
 * no positional argument, or a server given --listen keeps the 403 of a
 * site.
 */
START_TEST(lone_number_lists_cwd)
{
    char *w = tree_new();
    static const char line[] =
        "beneath: listing directories without an index file, as python3 -m "
        "http.server does (--listing off: 403)\n";
    const char *base = strrchr(w, '/') + 1;

    tree_write_str(w, "notes.txt", "n\n");
    tree_mkdir(w, "photos");
    EXPECT(chdir(w) == 0, "chdir %s: %s", w, strerror(errno));
    for (int i = 0; i < 8; i++) {
        char *p = hfmt("%u", fixture_free_port());
        const char *forms[8][5] = {
            {p, NULL},
            {".", "--port", p, NULL},
            {p, w, NULL},
            {p, hfmt("../%s", base), NULL},
            {p, "--listing", "off", NULL},
            {p, NULL},
            {"--port", p, "--root", w, NULL},
            {"--listen", hfmt("127.0.0.1:%s", p), w, NULL},
        };
        const char *off[] = {"BENEATH_LISTING=off", NULL};
        struct server_opts o = {
            .no_listen = true, .args = forms[i], .env = i == 5 ? off : NULL};
        struct server *s = server_start_opts(&o);
        bool lists = i < 4;
        struct http_response *r =
            expect_get(s, "/", lists ? 200 : 403, hfmt("form %d: GET /", i));

        if (lists)
            EXPECT(strstr(r->body, "notes.txt") && strstr(r->body, "photos/"),
                   "form %d: the listing:\n%s", i, r->body);
        EXPECT(!strstr(server_stderr(s), line) == !lists,
               "form %d: the start-up line:\n%s", i, server_stderr(s));
        server_stop_clean(s);
    }
}
END_TEST

/* PORT and ROOT in either order; --port and -p. */
START_TEST(port_forms)
{
    char *w = tree_site("root-site\n");
    for (int i = 0; i < 4; i++) {
        unsigned port = fixture_free_port();
        char *p = hfmt("%u", port);
        const char *forms[4][4] = {
            {w, p, NULL},
            {p, w, NULL},
            {"--port", p, w, NULL},
            {"-p", p, w, NULL},
        };
        struct server_opts o = {.no_listen = true, .args = forms[i]};
        struct server *s = server_start_opts(&o);
        EXPECT(s->port == port, "form %d: port %u, want %u", i, s->port, port);
        expect_get_body(s, "/", "root-site\n", hfmt("form %d: GET /", i));
        server_stop_clean(s);
    }
}
END_TEST

/* What a user is told instead of a missing directory named "70000". */
START_TEST(port_errors)
{
    static struct {
        const char *args[4];
        const char *msg;
    } rows[] = {
        {{"70000", NULL},
         "beneath: PORT: '70000' is not a port number 0..65535 (an address "
         "goes in listen, as in 0.0.0.0:8000)\n"},
        {{"-p", "0.0.0.0:80", NULL},
         "beneath: --port: '0.0.0.0:80' is not a port number 0..65535 (an "
         "address goes in listen, as in 0.0.0.0:8000)\n"},
        {{"--prot", "80", NULL},
         "beneath: --prot: unknown option (did you mean --port?)\n"},
    };
    for (size_t i = 0; i < N_ELEMS(rows); i++) {
        char *out, *err;
        int ws = beneath_run(rows[i].args, NULL, 10000, &out, &err);
        EXPECT_EXIT(ws, 2, err);
        EXPECT(strcmp(err, rows[i].msg) == 0, "row %zu: stderr:\n%s\nwant:\n%s",
               i, err, rows[i].msg);
    }
    char *out, *err;
    int ws = beneath_run((const char *[]){"-V", NULL}, NULL, 10000, &out, &err);
    EXPECT_EXIT(ws, 0, err);
    EXPECT(strncmp(out, "beneath ", 8) == 0, "-V: %s", out);
    ws = beneath_run((const char *[]){"-h", NULL}, NULL, 10000, &out, &err);
    EXPECT_EXIT(ws, 0, err);
    EXPECT(strstr(out, "  -p, --port PORT") != NULL, "-h: %s", out);
}
END_TEST

/* ===== --check has no side effects ===================================== */

/* Beside the running server it validates: exit 0, a warning, no harm. */
START_TEST(check_beside_running_server)
{
    char *w = tree_site("up\n");
    struct server *s = server_start(w, NULL);
    char *addr = hfmt("127.0.0.1:%u", s->port);
    char *out, *err;
    int ws =
        beneath_run((const char *[]){"--check", "--listen", addr, "--resolver",
                                     harness_backend(), w, NULL},
                    NULL, 10000, &out, &err);
    EXPECT_EXIT(ws, 0, err);
    EXPECT(strstr(err, hfmt("beneath: warning: listen %s: the address is in "
                            "use now",
                            addr)) != NULL,
           "--check beside a running server: no warning:\n%s", err);
    EXPECT(strstr(out, hfmt("listen = %s\n", addr)) != NULL,
           "--check did not print the configuration:\n%s", out);
    expect_get(s, "/", 200, "the running server after --check");
    server_stop_clean(s);
}
END_TEST

/* A log file and a unix socket that do not exist yet stay so. */
START_TEST(check_creates_nothing)
{
    char *w = tree_new();
    char *d = tree_new();
    char *log = tree_path(d, "access.log");
    char *sock = tree_path(d, "b.sock");
    char *out, *err;
    int ws = beneath_run((const char *[]){"--check", "--access-log", log,
                                          "--listen", hfmt("unix:%s", sock),
                                          "--listen", "127.0.0.1:0", w, NULL},
                         NULL, 10000, &out, &err);
    EXPECT_EXIT(ws, 0, err);
    EXPECT(!exists(log), "--check created the access log %s", log);
    EXPECT(!exists(sock), "--check created the socket %s", sock);
    EXPECT(strstr(err, hfmt("beneath: access-log %s: does not exist yet",
                            log)) != NULL,
           "--check does not say the log will be created:\n%s", err);
    /* what a start would fail on is still an error */
    char *nodir = tree_path(d, "none/access.log");
    ws =
        beneath_run((const char *[]){"--check", "--access-log", nodir, w, NULL},
                    NULL, 10000, &out, &err);
    EXPECT_EXIT(ws, 2, err);
    EXPECT(strstr(err, hfmt("beneath: access-log %s: %s", nodir,
                            strerror(ENOENT))) != NULL,
           "a log in a missing directory:\n%s", err);
    EXPECT(!exists(nodir), "--check created %s", nodir);
}
END_TEST

/* The ACME options: --check reads the trust anchor, contacts no CA and
 * creates no --acme-dir. */
START_TEST(check_acme)
{
    char *w = tree_new();
    char *d = tree_new();
    char *dir = tree_path(d, "acme");
    char *root = tree_path(d, "root.pem");
    char *out, *err;
    int ws;

    tree_write_str(d, "root.pem",
                   "-----BEGIN CERTIFICATE-----\nMIIB\n"
                   "-----END CERTIFICATE-----\n");
    ws = beneath_run((const char *[]){"--check", "--acme", "a.example",
                                      "--acme-ca", "https://127.0.0.1:9/dir",
                                      "--acme-ca-root", root, "--acme-dir", dir,
                                      w, NULL},
                     NULL, 10000, &out, &err);
    EXPECT_EXIT(ws, 0, err);
    EXPECT(strstr(out, "acme = a.example\n") != NULL, "%s", out);
    EXPECT(!exists(dir), "--check created %s", dir);
    ws = beneath_run((const char *[]){"--check", "--acme", "a.example",
                                      "--acme-ca-root", w, w, NULL},
                     NULL, 10000, &out, &err);
    EXPECT_EXIT(ws, 2, err);
    EXPECT(strstr(err, hfmt("beneath: --acme-ca-root: %s: Is a directory",
                            w)) != NULL,
           "a directory as the trust anchor:\n%s", err);
}
END_TEST

/* A start that cannot serve (its port is in use) leaves no file behind. */
START_TEST(failed_start_creates_nothing)
{
    char *w = tree_site("up\n");
    char *d = tree_new();
    char *log = tree_path(d, "access.log");
    char *sock = tree_path(d, "b.sock");
    struct server *s = server_start(w, NULL);
    char *addr = hfmt("127.0.0.1:%u", s->port);
    char *out, *err;
    int ws = beneath_run((const char *[]){"--access-log", log, "--listen",
                                          hfmt("unix:%s", sock), "--listen",
                                          addr, w, NULL},
                         NULL, 10000, &out, &err);
    EXPECT_EXIT(ws, 2, err);
    EXPECT(strstr(err, hfmt("beneath: listen %s: ", addr)) != NULL,
           "the port in use is not named:\n%s", err);
    EXPECT(!exists(log), "a failed start created the access log %s", log);
    EXPECT(!exists(sock), "a failed start left the socket %s", sock);
    server_stop_clean(s);
}
END_TEST

/* ===== '#' in the config file ========================================== */

START_TEST(hash_in_values)
{
    char *w = tree_site("x\n");
    char *d = tree_new();
    char *log = tree_path(d, "x.log");
    char *conf = tree_path(d, "b.conf");
    tree_write_str(d, "b.conf",
                   hfmt("# access log, then two headers\n"
                        "access-log = %s # the log\n"
                        "header = X-Frag: a#b\n"
                        "header = \"X-Quoted: c #d\"  # quoted\n",
                        log));
    struct server *s = server_start(w, "--config", conf, NULL);
    struct http_response *r = expect_get(s, "/", 200, NULL);
    EXPECT(http_header(r, "X-Frag") &&
               strcmp(http_header(r, "X-Frag"), "a#b") == 0,
           "X-Frag: %s", http_header(r, "X-Frag") ?: "(none)");
    EXPECT(http_header(r, "X-Quoted") &&
               strcmp(http_header(r, "X-Quoted"), "c #d") == 0,
           "X-Quoted: %s", http_header(r, "X-Quoted") ?: "(none)");
    EXPECT(file_wait_for(log, "GET / ", 5000), "no line in %s", log);
    EXPECT(!exists(hfmt("%s # the log", log)), "a file named '... # the log'");
    char *e = server_stderr(s);
    EXPECT(strstr(e, hfmt("beneath: %s:3: header: warning: '#' in 'X-Frag: "
                          "a#b' is part of the value",
                          conf)) != NULL,
           "no warning with FILE:LINE for the kept '#':\n%s", e);
    server_stop_clean(s);
}
END_TEST

const struct check_main check_main = {
    .suite = "e2e_cli",
    .fixture = HARNESS_FIXTURE(120),
    .tcases = {
        {"habits", .tests = {&lone_number_serves_cwd, &lone_number_lists_cwd,
                             &port_forms, &port_errors}},
        {"check",
         .tests = {&check_beside_running_server, &check_creates_nothing,
                   &check_acme, &failed_start_creates_nothing}},
        {"file", .tests = {&hash_in_values}}}};
