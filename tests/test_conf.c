/* SPDX-License-Identifier: MIT */
/*
 * test_conf.c - the configuration: every error message with its place, the
 * values each type accepts, precedence between the four sources, repeatable
 * options, the conf_print round trip and --help coverage. Tables, one row per
 * case; ASan (dev preset) checks that no path leaks.
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

/* ---- the file: every error with its FILE:LINE: message ---- */

#define X16 "xxxxxxxxxxxxxxxx"
#define LONG_NAME                                                              \
    X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16

/* The file's text and all its messages, each followed by '\n'. */
static const struct text_case file_errors[] = {
    {"listn = 1\n", "t.conf:1: unknown key 'listn' (did you mean 'listen'?)\n"},
    {"bogus = 1\n", "t.conf:1: unknown key 'bogus'\n"},
    /* too long to be worth a guess */
    {"listen-on-every-interface-and-also-on-the-unix-socket-in-run-dir"
     " = 1\n",
     "t.conf:1: unknown key "
     "'listen-on-every-interface-and-also-on-the-unix-socket-in-run-dir'\n"},
    {"listen\n", "t.conf:1: missing '=' after 'listen'\n"},
    {"  = x\n", "t.conf:1: missing key before '='\n"},
    {"user =\n", "t.conf:1: user: empty value\n"},
    {"user = \"\"\n", "t.conf:1: user: empty value\n"},
    {"user = \"ab\n", "t.conf:1: unterminated quote\n"},
    {"user = \"a\" b\n", "t.conf:1: text after the closing quote\n"},
    {"user = \"a\\n\"\n",
     "t.conf:1: unknown escape in quotes (only \\\" and \\\\)\n"},
    {"user = a\001b\n", "t.conf:1: user: control character in value\n"},
    {"threads = 4\nthreads = 5\n",
     "t.conf:2: duplicate key 'threads' (first at line 1)\n"},
    {"access_log = off\naccess-log = -\n",
     "t.conf:2: duplicate key 'access-log' (first at line 1)\n"},
    {"threads = 0\n", "t.conf:1: threads: 0 is out of range 1..1024\n"},
    {"threads = 1025\n", "t.conf:1: threads: 1025 is out of range 1..1024\n"},
    {"threads = -1\n", "t.conf:1: threads: '-1' is not a number\n"},
    {"threads = 4k\n", "t.conf:1: threads: '4k' is not a number\n"},
    {"threads = 4#four\n", "t.conf:1: threads: '4#four' is not a number\n"},
    {"user = #x\n", "t.conf:1: user: empty value\n"},
    {"threads = 99999999999999999999999\n",
     "t.conf:1: threads: 99999999999999999999999 is out of range 1..1024\n"},
    {"max-header-size = 2K\n",
     "t.conf:1: max-header-size: 2K is out of range 4K..1M\n"},
    {"max-header-size = 2M\n",
     "t.conf:1: max-header-size: 2M is out of range 4K..1M\n"},
    {"max-header-size = 18014398509481984K\n",
     "t.conf:1: max-header-size: 18014398509481984K is out of range "
     "4K..1M\n"},
    {"max-header-size = 2X\n", "t.conf:1: max-header-size: '2X' is not a "
                               "number with an optional K/M/G suffix\n"},
    {"max-header-size = 8KB\n", "t.conf:1: max-header-size: '8KB' is not a "
                                "number with an optional K/M/G suffix\n"},
    {"timeout = 5d\n", "t.conf:1: timeout: '5d' is not a number with an "
                       "optional s/m/h suffix\n"},
    {"timeout = 0\n", "t.conf:1: timeout: 0 is out of range 1..86400\n"},
    {"header-timeout = 2h\n",
     "t.conf:1: header-timeout: 2h is out of range 1..3600\n"},
    {"listing = maybe\n", "t.conf:1: listing: 'maybe' is not on or off (also "
                          "true/false, yes/no, 1/0)\n"},
    {"dotfiles = sometimes\n",
     "t.conf:1: dotfiles: 'sometimes' is not deny or allow\n"},
    {"log-format = xml\n",
     "t.conf:1: log-format: 'xml' is not a log format: combined, "
     "combined+duration, json, or a template with $fields ('$time $client "
     "\"$request\" $status')\n"},
    {"resolver = fast\n", "t.conf:1: resolver: 'fast' is not auto, kernel, "
                          "emulated or lexical\n"},
    {"resolver = default\n", "t.conf:1: resolver: 'default' is not auto, "
                             "kernel, emulated or lexical\n"},
    {"confine = beneath,in-root\n",
     "t.conf:1: confine: beneath and in-root exclude each other\n"},
    {"confine = beneath,bogus\n",
     "t.conf:1: confine: unknown flag 'bogus' (flags: beneath, in-root, "
     "no-xdev, no-symlinks, no-magiclinks, no-jumps; or none)\n"},
    {"confine = beneath,,no-xdev\n",
     "t.conf:1: confine: unknown flag '' (flags: beneath, in-root, "
     "no-xdev, no-symlinks, no-magiclinks, no-jumps; or none)\n"},
    {"index = a/b\n",
     "t.conf:1: index: 'a/b' is not a file name (no '/', '.' or '..')\n"},
    {"index = a,..\n",
     "t.conf:1: index: '..' is not a file name (no '/', '.' or '..')\n"},
    {"index = a,,b\n", "t.conf:1: index: empty item in comma list\n"},
    {"index = a, ,b\n", "t.conf:1: index: empty item in comma list\n"},
    {"confine = \" \"\n",
     "t.conf:1: confine: unknown flag '' (flags: beneath, in-root, "
     "no-xdev, no-symlinks, no-magiclinks, no-jumps; or none)\n"},
    {"index = a," LONG_NAME "\n", "t.conf:1: index: list item too long\n"},
    {"index = a,\n", "t.conf:1: index: empty item in comma list\n"},
    {"listen = :80\n", "t.conf:1: listen: ':80': missing host (all "
                       "addresses: 0.0.0.0:PORT or [::]:PORT)\n"},
    {"listen = ::1:80\n", "t.conf:1: listen: '::1:80': an IPv6 address "
                          "needs brackets, as in [::1]:8080\n"},
    {"listen = localhost\n", "t.conf:1: listen: 'localhost': missing port, "
                             "as in 127.0.0.1:8080\n"},
    {"listen = 127.0.0.1:\n", "t.conf:1: listen: missing port after ':'\n"},
    {"listen = 127.0.0.1:70000\n",
     "t.conf:1: listen: bad port '70000' (0..65535)\n"},
    {"listen = 127.0.0.1:8o\n", "t.conf:1: listen: bad port '8o' (0..65535)\n"},
    {"listen = 99999\n", "t.conf:1: listen: bad port '99999' (0..65535)\n"},
    {"listen = ftp://x:21\n",
     "t.conf:1: listen: 'ftp://x:21': only http:// and https:// URLs\n"},
    {"listen = http://\n", "t.conf:1: listen: 'http://': missing host\n"},
    {"listen = a b:80\n", "t.conf:1: listen: 'a b:80': bad host name\n"},
    {"listen = [::1\n",
     "t.conf:1: listen: '[::1': bad IPv6 address in [...]\n"},
    {"listen = []:80\n",
     "t.conf:1: listen: '[]:80': bad IPv6 address in [...]\n"},
    /* found by fuzz_conf: would print without brackets and not read back */
    {"listen = [z%1]:0\n",
     "t.conf:1: listen: '[z%1]:0': bad IPv6 address in [...]\n"},
    {"listen = [127.0.0.1]:80\n",
     "t.conf:1: listen: '[127.0.0.1]:80': bad IPv6 address in [...]\n"},
    {"listen = [::g]:80\n",
     "t.conf:1: listen: '[::g]:80': bad IPv6 address in [...]\n"},
    {"listen = a\tb:80\n", "t.conf:1: listen: control character in value\n"},
    {"index = a\tb\n", "t.conf:1: index: control character in value\n"},
    {"listen = [::1%a/b]:80\n",
     "t.conf:1: listen: '[::1%a/b]:80': bad IPv6 address in [...]\n"},
    {"listen = [::1%]:80\n",
     "t.conf:1: listen: '[::1%]:80': bad IPv6 address in [...]\n"},
    {"listen = [::1]80\n",
     "t.conf:1: listen: '[::1]80': expected ':PORT' after ']'\n"},
    {"listen = [::1]\n",
     "t.conf:1: listen: '[::1]': missing port, as in 127.0.0.1:8080\n"},
    {"listen = unix:\n", "t.conf:1: listen: empty unix socket path\n"},
    {"listen = "
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:80\n",
     "t.conf:1: listen: "
     "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa': "
     "address too long\n"},
    {"listen = unix:/"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
     "t.conf:1: listen: unix socket path longer than 107 bytes\n"},
    {"check = on\n",
     "t.conf:1: 'check' is a command-line action (--check), not a setting\n"},
    {"help = on\n",
     "t.conf:1: 'help' is a command-line action (--help), not a setting\n"},
    {"config = other.conf\n", "t.conf:1: 'config' cannot be set in a file "
                              "(use --config or BENEATH_CONFIG)\n"},
    /* every problem of a file in one run, in line order */
    {"# a comment\n"
     "threads = 0\n"
     "\n"
     "listing = on\n"
     "listing = off\n"
     "nope\n"
     "dotfile = allow\n",
     "t.conf:2: threads: 0 is out of range 1..1024\n"
     "t.conf:5: duplicate key 'listing' (first at line 4)\n"
     "t.conf:6: missing '=' after 'nope'\n"
     "t.conf:7: unknown key 'dotfile' (did you mean 'dotfiles'?)\n"},
    /* a failed value still counts as the key's use */
    {"threads = x\nthreads = 2\n",
     "t.conf:1: threads: 'x' is not a number\n"
     "t.conf:2: duplicate key 'threads' (first at line 1)\n"},
};

LOOP_TEST(file_error, file_errors)
{
    conf_file_refused(file_errors[_i].in, -1, file_errors[_i].want);
}
END_TEST

START_TEST(file_nul_byte)
{
    static const char text[] = "user = a\0b\nthreads = 0\n";
    conf_file_refused(text, sizeof(text) - 1,
                      "t.conf:1: NUL byte in line\n"
                      "t.conf:2: threads: 0 is out of range 1..1024\n");
}
END_TEST

START_TEST(file_unreadable)
{
    const char *args[] = {"--config", "/nonexistent/beneath.conf", NULL};
    const char *dir_args[] = {"--config", "/", NULL};

    conf_args_refused(args, NULL,
                      "/nonexistent/beneath.conf: No such file or directory\n");
    conf_args_refused(dir_args, NULL, "/: Is a directory\n");
}
END_TEST

/* ---- values the file accepts, as conf_print shows them back ---- */

/* The file's text and a line of conf_print's output. */
static const struct text_case file_values[] = {
    {"", "threads = "},
    {"# only a comment\n\n \t \n", "listing = off\n"},
    {"listing = on", "listing = on\n"}, /* no final newline */
    {"listing=yes\n", "listing = on\n"},
    {"listing = true\r\n", "listing = on\n"},
    {"listing = 1\n", "listing = on\n"},
    {"listing = no\n", "listing = off\n"},
    {"\tlisting\t=\tfalse\t\n", "listing = off\n"},
    {"access_log = off\n", "access-log = off\n"},
    {"access-log = \"/var/log/a b.log\"\n", "access-log = /var/log/a b.log\n"},
    {"user = \" www \"\n", "user = \" www \"\n"},
    {"user = \"a\\\"b\\\\c\"\n", "user = a\"b\\c\n"},
    {"user = \"#x\"\n", "user = \"#x\"\n"},
    {"threads = 4 # four\n", "threads = 4\n"},
    {"user = a = b\n", "user = a = b\n"},
    {"max-header-size = 4096\n", "max-header-size = 4K\n"},
    {"max-header-size = 4097\n", "max-header-size = 4097\n"},
    {"max-header-size = 1m\n", "max-header-size = 1M\n"},
    {"max-header-size = 64k\n", "max-header-size = 64K\n"},
    {"timeout = 90\n", "timeout = 90\n"},
    {"timeout = 90s\n", "timeout = 90\n"},
    {"timeout = 2m\n", "timeout = 120\n"},
    {"timeout = 1H\n", "timeout = 3600\n"},
    {"shutdown-timeout = 0\n", "shutdown-timeout = 0\n"},
    {"max-connections-per-ip = 0\n", "max-connections-per-ip = 0\n"},
    {"threads = 1024\n", "threads = 1024\n"},
    {"confine = no-jumps\n", "confine = beneath,no-xdev,no-magiclinks\n"},
    {"confine = in-root,no-symlinks\n", "confine = in-root,no-symlinks\n"},
    {"confine = none\n", "confine = none\n"},
    {"resolver = emulated\n", "resolver = emulated\n"},
    {"dotfiles = allow\n", "dotfiles = allow\n"},
    {"log-format = json\n", "log-format = json\n"},
    {"index = index.htm,index.html\n", "index = index.htm,index.html\n"},
    {"index = index.htm , index.html\n", "index = index.htm,index.html\n"},
    {"confine = beneath, no-xdev\n", "confine = beneath,no-xdev\n"},
    {"listen = 8081\n", "listen = 127.0.0.1:8081\n"},
    {"listen = 0.0.0.0:0\n", "listen = 0.0.0.0:0\n"},
    {"listen = [::1]:8080\n", "listen = [::1]:8080\n"},
    {"listen = [fe80::1%lo]:8080\n", "listen = [fe80::1%lo]:8080\n"},
    {"listen = localhost:80\n", "listen = localhost:80\n"},
    {"listen = http://localhost:8000/\n", "listen = localhost:8000\n"},
    {"listen = http://example.org\n", "listen = example.org:80\n"},
    {"listen = https://example.org\n", "listen = https://example.org:443\n"},
    {"listen = https://[::]:8443\n", "listen = https://[::]:8443\n"},
    {"listen = unix:/run/beneath.sock\n", "listen = unix:/run/beneath.sock\n"},
    {"listen = unix:rel.sock\n", "listen = unix:rel.sock\n"},
};

LOOP_TEST(file_value, file_values)
{
    conf_file_prints(file_values[_i].in, file_values[_i].want);
}
END_TEST

START_TEST(listen_fields)
{
    static const char text[] = "listen = https://[::1]:8443\n"
                               "listen = unix:/run/b.sock\n"
                               "listen = 9000\n";
    struct conf c;
    struct conf_diag d = {0};

    ck_assert_int_eq(conf_parse_string(text, -1, &c, &d), 0);
    ck_assert_uint_eq(c.n_listen, 3);
    ck_assert_int_eq(c.listen[0].kind, CONF_LISTEN_TCP);
    ck_assert(c.listen[0].tls);
    ck_assert_str_eq(c.listen[0].host, "::1");
    ck_assert_uint_eq(c.listen[0].port, 8443);
    ck_assert_ptr_null(c.listen[0].path);
    ck_assert_int_eq(c.listen[1].kind, CONF_LISTEN_UNIX);
    ck_assert(!c.listen[1].tls);
    ck_assert_ptr_null(c.listen[1].host);
    ck_assert_str_eq(c.listen[1].path, "/run/b.sock");
    ck_assert_str_eq(c.listen[2].host, "127.0.0.1");
    ck_assert_uint_eq(c.listen[2].port, 9000);
    conf_free(&c);
    conf_diag_free(&d);
}
END_TEST

/* ---- the command line ---- */

static const struct {
    const char *args[MAX_ARGS];
    const char *want;
} cli_errors[] = {
    {{"--lisen", "x"}, "--lisen: unknown option (did you mean --listen?)\n"},
    {{"--frobnicate"}, "--frobnicate: unknown option\n"},
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
    .tcases = {{"file", .loops = {LOOP(file_error), LOOP(file_value)},
                .tests = {&file_nul_byte, &file_unreadable, &listen_fields}},
               {"cli", .loops = {LOOP(cli_error), LOOP(cli_value)},
                .tests = {&cli_actions}},
               {"env", .loops = {LOOP(env_error)}, .tests = {&env_values}},
               {"sources", .loops = {LOOP(precedence_case)},
                .tests = {&defaults, &config_cli_over_env,
                          &repeat_in_one_source_appends}},
               {"output", .loops = {LOOP(round_trip)},
                .tests = {&help_mentions_every_option, &no_fd_leak}}}};
