/* SPDX-License-Identifier: MIT */
/*
 * test_conf.c - the configuration from the command line and the
 * environment: their errors and values, precedence between the four sources,
 * repeatable options, the conf_print round trip and --help coverage. Tables,
 * one row per case; ASan (dev preset) checks that no path leaks. The file's
 * errors and values are in test_conf_file.c.
 */
#include "cases.h"
#include "check_main.h"
#include "conf.h"
#include "conf_fixture.h"
#include "fixture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ARGS CONF_FIXTURE_MAX_ARGS

/* A config file in $TMPDIR; the caller unlinks and frees the name. */
static char *temp_file(const char *text)
{
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char *path;
    int fd;

    ck_assert_int_ge(asprintf(&path, "%s/beneath-conf-XXXXXX", dir), 0);
    fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

/* ---- the command line ---- */

static const struct {
    const char *args[MAX_ARGS];
    const char *want;
} cli_errors[] = {
    {{"--lisen", "x"}, "--lisen: unknown option (did you mean --listen?)\n"},
    {{"--frobnicate"}, "--frobnicate: unknown option\n"},
    /* a retired option names what replaces it; its value is not a ROOT */
    {{"--tls-priority", "NORMAL", "www"},
     "--tls-priority is gone: it was a GnuTLS priority string, and beneath "
     "speaks TLS with OpenSSL now: --tls-ciphers takes an OpenSSL cipher list "
     "(docs/tls.md)\n"},
    {{"--lisen=x", "www"},
     "--lisen: unknown option (did you mean --listen?)\n"},
    {{"-x"},
     "-x: unknown option (short options: -h, -p, -V; the others are "
     "--name; see --help)\n"},
    {{"-hx"},
     "-hx: unknown option (short options: -h, -p, -V; the others "
     "are --name; see --help)\n"},
    {{"--listen"}, "--listen: missing value (ADDR)\n"},
    {{"--access-log"}, "--access-log: missing value (PATH|-|off)\n"},
    {{"--check=yes"}, "--check: takes no value\n"},
    {{"--version=1"}, "--version: takes no value\n"},
    {{"--threads", "abc"}, "--threads: 'abc' is not a number\n"},
    {{"--threads="}, "--threads: empty value\n"},
    {{"--listing=maybe"},
     "--listing: 'maybe' is not on or off (also "
     "true/false, yes/no, 1/0)\n"},
    {{"--listen", "8080", "--listen", "::1:80"},
     "--listen: '::1:80': an IPv6 address needs brackets, as in "
     "[::1]:8080\n"},
    {{"a", "b"}, "ROOT: more than one document root ('a', 'b')\n"},
    {{"--root", "a", "b"}, "ROOT: 'b' given together with --root\n"},
    {{"b", "--root=a"}, "ROOT: 'b' given together with --root\n"},
    {{"--confine", "in-root,beneath", "--max-header-size", "0"},
     "--confine: beneath and in-root exclude each other\n"
     "--max-header-size: 0 is out of range 4K..1M\n"},
    {{"--config", "/nonexistent/b.conf", "--threads", "0"},
     "/nonexistent/b.conf: No such file or directory\n"
     "--threads: 0 is out of range 1..1024\n"},
};

LOOP_TEST(cli_error, cli_errors)
{
    conf_args_refused(cli_errors[_i].args, NULL, cli_errors[_i].want);
}
END_TEST

static const struct {
    const char *args[MAX_ARGS];
    const char *want_line;
} cli_values[] = {
    {{"--listing"}, "listing = on\n"},
    {{"--listing", "off"}, "listing = off\n"},
    {{"--listing=no"}, "listing = off\n"},
    {{"--listing", "www"}, "listing = on\n"},
    {{"--listing", "www"}, "root = www\n"},
    {{"--root", "www"}, "root = www\n"},
    {{"--root=www"}, "root = www\n"},
    {{"www"}, "root = www\n"},
    {{"--", "--weird"}, "root = --weird\n"},
    {{"-"}, "root = -\n"},
    {{"--access-log", "-"}, "access-log = -\n"},
    {{"--access-log=/tmp/a.log"}, "access-log = /tmp/a.log\n"},
    {{"--threads", "3", "--threads", "5"}, "threads = 5\n"},
    {{"--timeout", "2m"}, "timeout = 120\n"},
    {{"--user", " spaced "}, "user = \" spaced \"\n"},
    {{"--listen", "8081"}, "listen = 127.0.0.1:8081\n"},
    {{"--confine=no-jumps"}, "confine = beneath,no-xdev,no-magiclinks\n"},
};

LOOP_TEST(cli_value, cli_values)
{
    conf_args_prints(cli_values[_i].args, cli_values[_i].want_line);
}
END_TEST

START_TEST(cli_actions)
{
    const char *check[] = {"--check", NULL};
    const char *help[] = {"-h", NULL};
    const char *version[] = {"--version", NULL};
    /* --help answers whatever the environment says */
    const char *env[] = {"BENEATH_THREADS=0", "BENEATH_CONFIG=/nonexistent",
                         NULL};
    struct conf c;
    struct conf_diag d = {0};

    ck_assert_int_eq(conf_load_args(check, NULL, &c, &d), 0);
    ck_assert(c.check && !c.help && !c.version);
    conf_free(&c);
    ck_assert_int_eq(conf_load_args(help, env, &c, &d), 0);
    ck_assert(!c.check && c.help && !c.version);
    conf_free(&c);
    ck_assert_int_eq(conf_load_args(version, env, &c, &d), 0);
    ck_assert(!c.check && !c.help && c.version);
    conf_free(&c);
    ck_assert_uint_eq(d.n, 0);
    conf_diag_free(&d);
}
END_TEST

/* ---- the environment ---- */

static const struct {
    const char *env[4];
    const char *want;
} env_errors[] = {
    {{"BENEATH_LISTN=1"},
     "BENEATH_LISTN: unknown variable (did you mean BENEATH_LISTEN?)\n"},
    {{"BENEATH_TLS_PRIORITY=NORMAL"},
     "BENEATH_TLS_PRIORITY is gone: it was a GnuTLS priority string, and "
     "beneath speaks TLS with OpenSSL now: --tls-ciphers takes an OpenSSL "
     "cipher list (docs/tls.md)\n"},
    {{"BENEATH_ACESS_LOG=off"},
     "BENEATH_ACESS_LOG: unknown variable (did you mean "
     "BENEATH_ACCESS_LOG?)\n"},
    {{"BENEATH_CHECK=1"},
     "BENEATH_CHECK: --check is a command-line action, not a setting\n"},
    {{"BENEATH_THREADS=0"}, "BENEATH_THREADS: 0 is out of range 1..1024\n"},
    {{"BENEATH_LISTEN="}, "BENEATH_LISTEN: empty value\n"},
    {{"BENEATH_LISTEN=  "}, "BENEATH_LISTEN: empty value\n"},
    {{"BENEATH_LISTEN=8080 :81"},
     "BENEATH_LISTEN: ':81': missing host (all addresses: 0.0.0.0:PORT or "
     "[::]:PORT)\n"},
    {{"BENEATH_CONFIG=/nonexistent/b.conf"},
     "/nonexistent/b.conf: No such file or directory\n"},
    {{"BENEATH_DOTFILES=maybe", "BENEATH_LOG_FORMAT=xml"},
     "BENEATH_DOTFILES: 'maybe' is not deny or allow\n"
     "BENEATH_LOG_FORMAT: 'xml' is not a log format: combined, "
     "combined+duration, json, or a template with $fields ('$time $client "
     "\"$request\" $status')\n"},
};

LOOP_TEST(env_error, env_errors)
{
    conf_args_refused(NULL, env_errors[_i].env, env_errors[_i].want);
}
END_TEST

START_TEST(env_values)
{
    /* unrelated BENEATH_ names and other variables are left alone */
    const char *env[] = {"PATH=/bin",
                         "BENEATH_BIN=/usr/bin/beneath",
                         "BENEATH_ACCESS_LOG=off",
                         "BENEATH_MAX_HEADER_SIZE=8K",
                         "BENEATH_LISTING=yes",
                         "BENEATH_LISTEN=127.0.0.1:1  [::1]:2\tunix:/s",
                         "BENEATH_ROOT=/srv/www",
                         NULL};
    struct conf c;
    struct conf_diag d = {0};

    ck_assert_int_eq(conf_load_args(NULL, env, &c, &d), 0);
    ck_assert_uint_eq(d.n, 0);
    ck_assert_str_eq(c.access_log, "off");
    ck_assert_uint_eq(c.max_header_size, 8192);
    ck_assert(c.listing);
    ck_assert_str_eq(c.root, "/srv/www");
    ck_assert_uint_eq(c.n_listen, 3);
    ck_assert_uint_eq(c.listen[0].port, 1);
    ck_assert_str_eq(c.listen[1].host, "::1");
    ck_assert_str_eq(c.listen[2].path, "/s");
    conf_free(&c);
    conf_diag_free(&d);
}
END_TEST

/* ---- defaults ---- */

START_TEST(defaults)
{
    struct conf c;
    struct conf_diag d = {0};
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);

    ck_assert_int_eq(conf_load_args(NULL, NULL, &c, &d), 0);
    ck_assert_uint_eq(d.n, 0);
    ck_assert_str_eq(c.root, ".");
    ck_assert_uint_eq(c.n_listen, 1);
    ck_assert_int_eq(c.listen[0].kind, CONF_LISTEN_TCP);
    ck_assert(!c.listen[0].tls);
    ck_assert_str_eq(c.listen[0].host, "127.0.0.1");
    ck_assert_uint_eq(c.listen[0].port, 8080);
    ck_assert_int_eq(c.resolver, RESOLVER_BACKEND_AUTO);
    ck_assert_uint_eq(c.confine, RESOLVER_BENEATH | RESOLVER_NO_MAGICLINKS);
    ck_assert_ptr_null(c.config);
    ck_assert_uint_eq(c.threads, cpus < 1 ? 1 : cpus > 1024 ? 1024 : cpus);
    ck_assert_uint_eq(c.index.n, 1);
    ck_assert_str_eq(c.index.v[0], "index.html");
    ck_assert(!c.listing);
    ck_assert_int_eq(c.dotfiles, CONF_DOTFILES_DENY);
    ck_assert_str_eq(c.access_log, "-");
    ck_assert_str_eq(c.log_format, "combined");
    ck_assert_ptr_null(c.user);
    ck_assert_uint_eq(c.max_connections, 1024);
    ck_assert_uint_eq(c.max_connections_per_ip, 64);
    ck_assert_uint_eq(c.timeout, 30);
    ck_assert_uint_eq(c.header_timeout, 10);
    ck_assert_uint_eq(c.max_header_size, 8192);
    ck_assert_uint_eq(c.shutdown_timeout, 10);
    ck_assert(!c.check && !c.help && !c.version);
    conf_free(&c);
    conf_diag_free(&d);
}
END_TEST

/* ---- precedence: command line > environment > file > default ---- */

static const char precedence_file[] = "threads = 3\n"
                                      "timeout = 3\n"
                                      "header-timeout = 3\n"
                                      "listen = 127.0.0.1:3001\n"
                                      "listen = 127.0.0.1:3002\n";

/* Each row adds a source; 0 in a want_* field means "the default". */
static const struct {
    bool file, env, cli;
    unsigned want_threads, want_timeout, want_header;
    unsigned want_ports[3];
} precedence[] = {
    {false, false, false, 0, 30, 10, {8080}},
    {true, false, false, 3, 3, 3, {3001, 3002}},
    {false, true, false, 5, 5, 10, {5001, 5002, 5003}},
    {false, false, true, 7, 30, 10, {7001}},
    {true, true, false, 5, 5, 3, {5001, 5002, 5003}},
    {true, false, true, 7, 3, 3, {7001}},
    {false, true, true, 7, 5, 10, {7001}},
    {true, true, true, 7, 5, 3, {7001}},
};

LOOP_TEST(precedence_case, precedence)
{
    char *path = temp_file(precedence_file);
    char *cfg;
    const char *env[8] = {0};
    const char *args[MAX_ARGS] = {0};
    size_t ne = 0, na = 0, want_n = 0;
    struct conf c;
    struct conf_diag d = {0};

    ck_assert_int_ge(asprintf(&cfg, "BENEATH_CONFIG=%s", path), 0);
    if (precedence[_i].file)
        env[ne++] = cfg;
    if (precedence[_i].env) {
        env[ne++] = "BENEATH_THREADS=5";
        env[ne++] = "BENEATH_TIMEOUT=5";
        env[ne++] = "BENEATH_LISTEN=127.0.0.1:5001 127.0.0.1:5002 "
                    "127.0.0.1:5003";
    }
    if (precedence[_i].cli) {
        args[na++] = "--threads";
        args[na++] = "7";
        args[na++] = "--listen=127.0.0.1:7001";
    }
    ck_assert_int_eq(conf_load_args(args, env, &c, &d), 0);
    ck_assert_uint_eq(d.n, 0);
    if (precedence[_i].want_threads)
        ck_assert_uint_eq(c.threads, precedence[_i].want_threads);
    ck_assert_uint_eq(c.timeout, precedence[_i].want_timeout);
    ck_assert_uint_eq(c.header_timeout, precedence[_i].want_header);
    while (want_n < 3 && precedence[_i].want_ports[want_n])
        want_n++;
    ck_assert_uint_eq(c.n_listen, want_n);
    for (size_t i = 0; i < want_n; i++)
        ck_assert_uint_eq(c.listen[i].port, precedence[_i].want_ports[i]);
    if (precedence[_i].file)
        ck_assert_str_eq(c.config, path);
    else
        ck_assert_ptr_null(c.config);
    conf_free(&c);
    conf_diag_free(&d);
    unlink(path);
    free(path);
    free(cfg);
}
END_TEST

START_TEST(config_cli_over_env)
{
    char *a = temp_file("threads = 11\n");
    char *b = temp_file("threads = 12\n");
    char *cfg;
    const char *env[2] = {NULL, NULL};
    const char *args[] = {"--config", b, NULL};
    char *out, *want;
    struct conf c;
    struct conf_diag d = {0};

    ck_assert_int_ge(asprintf(&cfg, "BENEATH_CONFIG=%s", a), 0);
    env[0] = cfg;
    ck_assert_int_eq(conf_load_args(args, env, &c, &d), 0);
    ck_assert_uint_eq(c.threads, 12);
    ck_assert_str_eq(c.config, b);
    out = conf_printed(&c);
    ck_assert_int_ge(asprintf(&want, "# read from %s\n", b), 0);
    ck_assert_ptr_nonnull(strstr(out, want));
    free(want);
    free(out);
    conf_free(&c);
    conf_diag_free(&d);
    unlink(a);
    unlink(b);
    free(a);
    free(b);
    free(cfg);
}
END_TEST

START_TEST(repeat_in_one_source_appends)
{
    const char *args[] = {"--listen", "1", "--listen=2", "--listen", "3", NULL};
    struct conf c;
    struct conf_diag d = {0};

    ck_assert_int_eq(conf_load_args(args, NULL, &c, &d), 0);
    ck_assert_uint_eq(c.n_listen, 3);
    for (unsigned i = 0; i < 3; i++)
        ck_assert_uint_eq(c.listen[i].port, i + 1);
    conf_free(&c);
    conf_diag_free(&d);
}
END_TEST

/* ---- conf_print, fed back through conf_parse, gives the same struct ---- */

static void assert_same(const struct conf *a, const struct conf *b)
{
    ck_assert_str_eq(a->root, b->root);
    ck_assert_uint_eq(a->n_listen, b->n_listen);
    for (size_t i = 0; i < a->n_listen; i++) {
        const struct conf_listen *x = &a->listen[i], *y = &b->listen[i];

        ck_assert_int_eq(x->kind, y->kind);
        ck_assert_int_eq(x->tls, y->tls);
        ck_assert_uint_eq(x->port, y->port);
        ck_assert_pstr_eq(x->host, y->host);
        ck_assert_pstr_eq(x->path, y->path);
    }
    ck_assert_int_eq(a->resolver, b->resolver);
    ck_assert_uint_eq(a->confine, b->confine);
    ck_assert_uint_eq(a->threads, b->threads);
    ck_assert_uint_eq(a->index.n, b->index.n);
    for (size_t i = 0; i < a->index.n; i++)
        ck_assert_str_eq(a->index.v[i], b->index.v[i]);
    ck_assert_int_eq(a->listing, b->listing);
    ck_assert_int_eq(a->dotfiles, b->dotfiles);
    ck_assert_pstr_eq(a->access_log, b->access_log);
    ck_assert_pstr_eq(a->log_format, b->log_format);
    ck_assert_pstr_eq(a->user, b->user);
    ck_assert_uint_eq(a->max_connections, b->max_connections);
    ck_assert_uint_eq(a->max_connections_per_ip, b->max_connections_per_ip);
    ck_assert_uint_eq(a->timeout, b->timeout);
    ck_assert_uint_eq(a->header_timeout, b->header_timeout);
    ck_assert_uint_eq(a->max_header_size, b->max_header_size);
    ck_assert_uint_eq(a->shutdown_timeout, b->shutdown_timeout);
}

static const struct {
    const char *args[MAX_ARGS];
} round_trips[] = {
    {{NULL}},
    {{"--root", " /srv/my \"site\" ", "--user", "www-data", "--listing",
      "--dotfiles", "allow"}},
    {{"--listen", "unix:/tmp/trailing ", "--listen", "unix: lead"}},
    {{"--listen", "https://[::1]:8443", "--listen", "unix:/run/b#1.sock",
      "--listen", "0.0.0.0:0", "--resolver", "emulated"}},
    {{"--confine", "none", "--index", "a.html,b.htm,c", "--log-format",
      "json"}},
    {{"--confine", "in-root,no-xdev,no-symlinks", "--threads", "1",
      "--access-log", "#log"}},
    {{"--max-connections", "7", "--max-connections-per-ip", "0",
      "--max-header-size", "5000"}},
    {{"--timeout", "1h", "--header-timeout", "1", "--shutdown-timeout", "0"}},
};

LOOP_TEST(round_trip, round_trips)
{
    struct conf a, b;
    struct conf_diag d = {0};

    ck_assert_int_eq(conf_load_args(round_trips[_i].args, NULL, &a, &d), 0);
    conf_reprinted(&a, &b, &d);
    assert_same(&a, &b);
    conf_free(&a);
    conf_free(&b);
    conf_diag_free(&d);
}
END_TEST

/* ---- --help is generated from the table ---- */

START_TEST(help_mentions_every_option)
{
    char *buf = NULL;
    size_t len = 0, n = 0;
    FILE *f = open_memstream(&buf, &len);
    const char *name, *prev = NULL;

    ck_assert_ptr_nonnull(f);
    conf_help(f, "beneath");
    fclose(f);
    ck_assert(strncmp(buf, "Usage: beneath [OPTIONS] [PORT] [ROOT]\n", 39) ==
              0);
    for (size_t i = 0; (name = conf_option_name(i)) != NULL; i++) {
        char flag[64];

        /* "  --name META", "  --name" alone, or "  -n, --name ..." */
        snprintf(flag, sizeof(flag), "  --%s", name);
        const char *at = strstr(buf, flag);
        while (at && !(at[strlen(flag)] == ' ' || at[strlen(flag)] == '\n'))
            at = strstr(at + 1, flag);
        snprintf(flag, sizeof(flag), ", --%s", name);
        ck_assert_msg(at || strstr(buf, flag), "--%s not in --help", name);
        /* sorted, no duplicates: the table's own invariant */
        if (prev)
            ck_assert_msg(strcmp(prev, name) < 0, "%s before %s", prev, name);
        prev = name;
        n++;
    }
    ck_assert_uint_ge(n, 21);
    ck_assert_ptr_nonnull(strstr(buf, "BENEATH_"));
    ck_assert_ptr_nonnull(strstr(buf, "command line > environment > file"));
    ck_assert_ptr_nonnull(strstr(buf, "127.0.0.1:8080)"));
    ck_assert_ptr_nonnull(strstr(buf, "(default: number of CPUs)"));
    for (char *line = buf; *line;) {
        size_t l = strcspn(line, "\n");

        ck_assert_msg(l <= 79 || strncmp(line, "  --", 4) == 0,
                      "help line longer than 79: %.*s", (int)l, line);
        line += l + (line[l] == '\n');
    }
    free(buf);
}
END_TEST

/* ---- resources: no fd left behind on any path ---- */

START_TEST(no_fd_leak)
{
    char *path = temp_file("threads = 2\nbad line\n");
    const char *args[] = {"--config", path, NULL};
    const char *dir_args[] = {"--config", "/", NULL};
    struct conf c;
    struct conf_diag d = {0};
    int before = fixture_count_fds();

    for (int i = 0; i < 50; i++) {
        ck_assert_int_eq(conf_load_args(args, NULL, &c, &d), -EINVAL);
        conf_free(&c);
        ck_assert_int_eq(conf_load_args(dir_args, NULL, &c, &d), -EINVAL);
        conf_free(&c);
    }
    ck_assert_int_eq(fixture_count_fds(), before);
    ck_assert_uint_eq(d.n, 100);
    conf_diag_free(&d);
    conf_free(NULL);
    conf_diag_free(NULL);
    unlink(path);
    free(path);
}
END_TEST

const struct check_main check_main = {
    .suite = "conf",
    .tcases = {{"cli", .loops = {LOOP(cli_error), LOOP(cli_value)},
                .tests = {&cli_actions}},
               {"env", .loops = {LOOP(env_error)}, .tests = {&env_values}},
               {"sources", .loops = {LOOP(precedence_case)},
                .tests = {&defaults, &config_cli_over_env,
                          &repeat_in_one_source_appends}},
               {"output", .loops = {LOOP(round_trip)},
                .tests = {&help_mentions_every_option, &no_fd_leak}}}};
