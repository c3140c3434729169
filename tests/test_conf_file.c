/* SPDX-License-Identifier: MIT */
/*
 * test_conf_file.c - the configuration file: every error message with its
 * FILE:LINE place, and the values each type accepts as conf_print shows them
 * back. Tables, one row per case; ASan (dev preset) checks that no path
 * leaks.
 */
#include "cases.h"
#include "check_main.h"
#include "conf.h"
#include "conf_fixture.h"

/* ---- the file: every error with its FILE:LINE: message ---- */

#define X16 "xxxxxxxxxxxxxxxx"
#define LONG_NAME                                                              \
    X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16 X16

/* The file's text and all its messages, each followed by '\n'. */
static const struct text_case file_errors[] = {
    {"listn = 1\n", "t.conf:1: unknown key 'listn' (did you mean 'listen'?)\n"},
    {"bogus = 1\n", "t.conf:1: unknown key 'bogus'\n"},
    {"tls-priority = NORMAL\n",
     "t.conf:1: key 'tls-priority' is gone: it was a GnuTLS priority string, "
     "and beneath speaks TLS with OpenSSL now: --tls-ciphers takes an OpenSSL "
     "cipher list (docs/tls.md)\n"},
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

const struct check_main check_main = {
    .suite = "conf",
    .tcases = {{"file", .loops = {LOOP(file_error), LOOP(file_value)},
                .tests = {&file_nul_byte, &file_unreadable, &listen_fields}}}};
