/* SPDX-License-Identifier: MIT */
/*
 * test_conf_values.c - the configuration values that are typed by server/http/
 * parsers (precompressed, cache, cache-default, header, security-headers) and
 * the root-relative paths (fallback, health, metrics): every bad value with
 * its exact place ("FILE:LINE: key: ", "--flag: ", "BENEATH_X: "), the typed
 * value a good one gives, and the conf_print round trip. Also the file's '#'
 * rule and its warning, and the python3 -m http.server habits of the command
 * line (a lone number, --port, -p, -V).
 */
#include "cases.h"
#include "check_main.h"
#include "conf.h"
#include "conf_fixture.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ARGS CONF_FIXTURE_MAX_ARGS

/* ---- bad values in the file: the exact FILE:LINE: key: message ---- */

/* The file's text and all its messages, each followed by '\n'. */
static const struct text_case file_errors[] = {
    {"precompressed = br,deflate\n",
     "t.conf:1: precompressed: 'deflate' is not br, zstd or gzip (or the list "
     "is off)\n"},
    {"precompressed = br,gz,br\n",
     "t.conf:1: precompressed: 'br' is listed twice\n"},
    {"precompressed = br,,gz\n",
     "t.conf:1: precompressed: '' is not br, zstd or gzip (or the list is "
     "off)\n"},
    {"\n\ncache = *.css\n",
     "t.conf:3: cache: '*.css': expected GLOB[,GLOB...]=VALUE\n"},
    {"cache = a**b=max-age=1\n",
     "t.conf:1: cache: 'a**b=max-age=1': bad glob component \"a**b\" (\"**\" "
     "must be a whole component; '[' needs a ']')\n"},
    {"cache = *.css=\n", "t.conf:1: cache: '*.css=': the Cache-Control value "
                         "is empty or has a control byte\n"},
    {"cache = ,*.js=no-cache\n",
     "t.conf:1: cache: ',*.js=no-cache': empty glob\n"},
    {"cache = [a=no-cache\n", "t.conf:1: cache: '[a=no-cache': bad glob "
                              "component \"[a\" (\"**\" must be a whole "
                              "component; '[' needs a ']')\n"},
    {"cache-default =\n", "t.conf:1: cache-default: empty value\n"},
    {"cache-default = a\tb\n",
     "t.conf:1: cache-default: control character in value\n"},
    {"header = Bad Name: x\n",
     "t.conf:1: header: 'Bad Name: x': the header name must be a token "
     "(letters, digits, !#$%&'*+-.^_`|~; no spaces)\n"},
    {"header = X-No-Colon\n",
     "t.conf:1: header: 'X-No-Colon': expected \"Name: value\"\n"},
    {"header = Content-Length: 1\n",
     "t.conf:1: header: 'Content-Length: 1': Content-Length is set by the "
     "server and cannot be added\n"},
    {"header = Cache-Control: no-store\n",
     "t.conf:1: header: 'Cache-Control: no-store': Cache-Control comes from "
     "--cache and --cache-default\n"},
    {"fallback = /\n", "t.conf:1: fallback: '/' names the root, not a file\n"},
    {"health = /\n", "t.conf:1: health: '/' names the root, not a path of "
                     "its own (as in /healthz)\n"},
    {"metrics = //\n", "t.conf:1: metrics: '//' names the root, not a path "
                       "of its own (as in /healthz)\n"},
    {"port = 70000\n", "t.conf:1: port: '70000' is not a port number "
                       "0..65535 (an address goes in listen, as in "
                       "0.0.0.0:8000)\n"},
    {"port = 0.0.0.0:80\n", "t.conf:1: port: '0.0.0.0:80' is not a port "
                            "number 0..65535 (an address goes in listen, as "
                            "in 0.0.0.0:8000)\n"},
    /* all of them in one run, each with its line */
    {"header = X-A: 1\n"
     "header = bad\n"
     "cache = x\n"
     "precompressed = lz4\n",
     "t.conf:2: header: 'bad': expected \"Name: value\"\n"
     "t.conf:3: cache: 'x': expected GLOB[,GLOB...]=VALUE\n"
     "t.conf:4: precompressed: 'lz4' is not br, zstd or gzip (or the list is "
     "off)\n"},
    /* '#' after a space starts a comment: the value may end up empty */
    {"access-log = # where\n", "t.conf:1: access-log: empty value\n"},
    {"user = \"a\"#b\n", "t.conf:1: text after the closing quote\n"},
    {"listing # = on\n", "t.conf:1: missing '=' after 'listing'\n"},
};

LOOP_TEST(file_error, file_errors)
{
    ck_assert_uint_eq(
        conf_file_refused(file_errors[_i].in, -1, file_errors[_i].want), 0);
}
END_TEST

/* ---- the same values from the command line and the environment ---- */

static const struct {
    const char *args[MAX_ARGS];
    const char *env[3];
    const char *want;
} other_errors[] = {
    {{"--cache", "*.css"},
     {NULL},
     "--cache: '*.css': expected GLOB[,GLOB...]=VALUE\n"},
    {{"--header", "Bad Name: x"},
     {NULL},
     "--header: 'Bad Name: x': the header name must be a token (letters, "
     "digits, !#$%&'*+-.^_`|~; no spaces)\n"},
    {{"--precompressed=br,deflate"},
     {NULL},
     "--precompressed: 'deflate' is not br, zstd or gzip (or the list is "
     "off)\n"},
    {{"--fallback", "/"},
     {NULL},
     "--fallback: '/' names the root, not a file\n"},
    {{NULL},
     {"BENEATH_CACHE_DEFAULT=a\001b"},
     "BENEATH_CACHE_DEFAULT: control character in value\n"},
    {{"--header", "Repr-Digest: sha-256=:AAAA:"},
     {NULL},
     "--header: 'Repr-Digest: sha-256=:AAAA:': Repr-Digest is set by the "
     "server and cannot be added\n"},
    {{NULL},
     {"BENEATH_HEADER=Date: x"},
     "BENEATH_HEADER: 'Date: x': Date is set by the server and cannot be "
     "added\n"},
    {{NULL},
     {"BENEATH_PORT=http"},
     "BENEATH_PORT: 'http' is not a port number 0..65535 (an address goes in "
     "listen, as in 0.0.0.0:8000)\n"},
    {{"-p"}, {NULL}, "--port: missing value (PORT)\n"},
    {{"-p", "x"},
     {NULL},
     "--port: 'x' is not a port number 0..65535 (an address goes in listen, "
     "as in 0.0.0.0:8000)\n"},
    {{"-V1"},
     {NULL},
     "-V1: unknown option (short options: -h, -p, -V; the others are --name; "
     "see --help)\n"},
    {{"70000"},
     {NULL},
     "PORT: '70000' is not a port number 0..65535 (an "
     "address goes in listen, as in 0.0.0.0:8000)\n"},
    {{"8000", "8001"},
     {NULL},
     "PORT: more than one port ('8000', '8001'); a directory named by a "
     "number is written ./8001\n"},
    {{"www", "8000", "site"},
     {NULL},
     "ROOT: more than one document root ('www', 'site')\n"},
};

LOOP_TEST(other_error, other_errors)
{
    conf_args_refused(other_errors[_i].args, other_errors[_i].env,
                      other_errors[_i].want);
}
END_TEST

/* ---- good values, as conf_print shows them back ---- */

/* The file's text and lines of conf_print's output, in order. */
static const struct text_case file_values[] = {
    {"", "precompressed = off\n"},
    {"", "# cache-default = (not set)\n"},
    /* the codings as HTTP names them; the suffixes are accepted too */
    {"precompressed = gz, br\n", "precompressed = gzip,br\n"},
    {"precompressed = zstd,gzip,br\n", "precompressed = zstd,gzip,br\n"},
    {"precompressed = zst,gz\n", "precompressed = zstd,gzip\n"},
    {"compress = gz,zst,br\n", "compress = gzip,zstd,br\n"},
    {"", "compress = gzip\n"},
    {"precompressed = off\n", "precompressed = off\n"},
    {"cache = *.css, *.js = max-age=31536000, immutable\n",
     "cache = *.css,*.js=max-age=31536000, immutable\n"},
    {"cache = assets/**=public\ncache = /top.html=no-store\n",
     "cache = assets/**=public\ncache = /top.html=no-store\n"},
    {"cache = **/x.txt=no-cache\n", "cache = x.txt=no-cache\n"},
    {"cache = \"docs/**/index.html=max-age=60\"\n",
     "cache = docs/**/index.html=max-age=60\n"},
    {"cache-default = no-cache\n", "cache-default = no-cache\n"},
    {"header = X-Robots-Tag:   noindex  \n",
     "header = X-Robots-Tag: noindex\n"},
    {"header = \"Link: <https://x.example/#a>; rel=preload\"\n",
     "header = \"Link: <https://x.example/#a>; rel=preload\"\n"},
    {"header = \"X-A: 1\"\nheader = X-B: 2 # two\n",
     "header = X-A: 1\nheader = X-B: 2\n"},
    {"security-headers = on\nheader = X-Frame-Options: SAMEORIGIN\n",
     "header = X-Frame-Options: SAMEORIGIN\n"},
    {"fallback = /spa.html\n", "fallback = spa.html\n"},
    {"fallback = app/index.html\n", "fallback = app/index.html\n"},
    {"health = /healthz\n", "health = /healthz\n"},
    {"health = healthz\n", "health = /healthz\n"},
    {"metrics = /_/metrics\n", "metrics = /_/metrics\n"},
    {"port = 8000\n", "listen = 127.0.0.1:8000\n"},
    {"listen = [::1]:1\nport = 2\n",
     "listen = [::1]:1\nlisten = 127.0.0.1:2\n"},
    {"access-log = \"a #b.log\" # quoted\n", "access-log = \"a #b.log\"\n"},
    {"access-log = x.log # log\n", "access-log = x.log\n"},
    {"access-log = x.log\t# log\n", "access-log = x.log\n"},
    {"index = a.html,b#.html\n", "index = \"a.html,b#.html\"\n"},
};

LOOP_TEST(file_value, file_values)
{
    conf_file_prints(file_values[_i].in, file_values[_i].want);
}
END_TEST

/* ---- '#' inside a bare value: kept, with a warning naming the line ---- */

/* The file's text and all its warnings, each followed by '\n'. */
static const struct text_case hash_rows[] = {
    {"access-log = x.log#log\n",
     "t.conf:1: access-log: warning: '#' in 'x.log#log' is part of the value "
     "(a comment needs a space before '#'; quote the value to keep it)\n"},
    {"\n# c\nheader = X-Frag: a#b # c\n",
     "t.conf:3: header: warning: '#' in 'X-Frag: a#b' is part of the value "
     "(a comment needs a space before '#'; quote the value to keep it)\n"},
    {"access-log = \"x.log#log\"\n", ""},
    {"access-log = x.log # log#2\n", ""},
    {"# threads = 1#2\n", ""},
};

LOOP_TEST(hash_warning, hash_rows)
{
    conf_file_warns(hash_rows[_i].in, hash_rows[_i].want);
}
END_TEST

/* ---- the typed values the server reads ---- */

START_TEST(typed_values)
{
    static const char text[] =
        "precompressed = zst,br\n"
        "cache = *.css,*.js=max-age=31536000, immutable\n"
        "cache = assets/**=public\n"
        "cache-default = no-cache\n"
        "header = X-Robots-Tag: noindex\n"
        "header = X-Frame-Options: SAMEORIGIN\n"
        "security-headers = on\n"
        "fallback = /spa.html\n"
        "health = /healthz\n"
        "metrics = /metrics\n";
    struct conf c;
    struct conf_diag d = {0};

    ck_assert_int_eq(conf_parse_string(text, -1, &c, &d), 0);
    ck_assert_uint_eq(c.precompressed.n, 2);
    ck_assert_int_eq(c.precompressed.v[0], CODING_ZSTD);
    ck_assert_int_eq(c.precompressed.v[1], CODING_BR);
    ck_assert_str_eq(cache_rules_match(&c.cache, "a/b/site.css"),
                     "max-age=31536000, immutable");
    ck_assert_str_eq(cache_rules_match(&c.cache, "assets/x.png"), "public");
    ck_assert_str_eq(cache_rules_match(&c.cache, "index.html"), "no-cache");
    /* the headers given, then the security set without the name given */
    ck_assert_uint_eq(c.n_headers_given, 2);
    ck_assert_uint_eq(c.headers.n, 5);
    ck_assert_str_eq(c.headers.v[0].name, "X-Robots-Tag");
    ck_assert_str_eq(headers_opt_find(&c.headers, "X-Frame-Options"),
                     "SAMEORIGIN");
    ck_assert_str_eq(headers_opt_find(&c.headers, "X-Content-Type-Options"),
                     "nosniff");
    ck_assert_str_eq(c.fallback, "spa.html");
    ck_assert_str_eq(c.health, "healthz");
    ck_assert_str_eq(c.metrics, "metrics");
    conf_free(&c);
    conf_diag_free(&d);
}
END_TEST

/* A higher source's header replaces the list; the security set stays last. */
START_TEST(headers_across_sources)
{
    const char *args[] = {"--header", "X-C: 3", "--security-headers", NULL};
    const char *env[] = {"BENEATH_HEADER=X-B: 2", NULL};
    struct conf c;
    struct conf_diag d = {0};

    ck_assert_int_eq(conf_load_args(args, env, &c, &d), 0);
    ck_assert_uint_eq(c.n_headers_given, 1);
    ck_assert_str_eq(c.headers.v[0].name, "X-C");
    ck_assert_uint_eq(c.headers.n, 5);
    ck_assert_ptr_null(headers_opt_find(&c.headers, "X-B"));
    conf_free(&c);
    ck_assert_int_eq(conf_load_args(NULL, env, &c, &d), 0);
    ck_assert_uint_eq(c.headers.n, 1);
    conf_free(&c);
    ck_assert_uint_eq(d.n, 0);
    conf_diag_free(&d);
}
END_TEST

/* ---- the command line as python3 -m http.server users type it ---- */

/*
 * A positional PORT or ROOT, without --listen, is the quick form of
 * python3 -m http.server: directories without an index are listed
 * (listing_quick) unless a source names --listing, whichever directory the
 * root is ("beneath 8000 site" as "cd site && beneath 8000").
 */
#define QUICK 1
static const struct {
    const char *args[MAX_ARGS];
    const char *want_root;
    const char *want_host; /* of the first listener */
    unsigned want_ports[3];
    int want_listing; /* 0 off, QUICK by the quick form, 2 --listing */
} port_rows[] = {
    {{"8000"}, ".", "127.0.0.1", {8000}, QUICK},
    {{"8000", "www"}, "www", "127.0.0.1", {8000}, QUICK},
    {{"www", "8000"}, "www", "127.0.0.1", {8000}, QUICK},
    {{"www"}, "www", "127.0.0.1", {8080}, QUICK},
    {{"--port", "9000"}, ".", "127.0.0.1", {9000}, 0},
    {{"-p", "9001", "site"}, "site", "127.0.0.1", {9001}, QUICK},
    {{"-p9002"}, ".", "127.0.0.1", {9002}, 0},
    {{"--port=0"}, ".", "127.0.0.1", {0}, 0},
    {{"--root", "www"}, "www", "127.0.0.1", {8080}, 0},
    /* in one source, --listen and --port add to one list; --listen is no
     * quick form */
    {{"--listen", "0.0.0.0:1", "-p", "2", "3"}, ".", "0.0.0.0", {1, 2, 3}, 0},
    {{"--listen", "0.0.0.0:8000", "site"}, "site", "0.0.0.0", {8000}, 0},
    {{"./8000"}, "./8000", "127.0.0.1", {8080}, QUICK},
    {{"--", "8000"}, ".", "127.0.0.1", {8000}, QUICK},
    {{"--root", "www", "8000"}, "www", "127.0.0.1", {8000}, QUICK},
    {{"."}, ".", "127.0.0.1", {8080}, QUICK},
    {{"./", "8000"}, "./", "127.0.0.1", {8000}, QUICK},
    {{"8000", "--listing", "off"}, ".", "127.0.0.1", {8000}, 0},
    {{"8000", "site", "--listing", "off"}, "site", "127.0.0.1", {8000}, 0},
    {{"--listing=no", "."}, ".", "127.0.0.1", {8080}, 0},
    {{"8000", "--listing"}, ".", "127.0.0.1", {8000}, 2},
};

LOOP_TEST(port_case, port_rows)
{
    struct conf c;
    struct conf_diag d = {0};
    size_t n = 0;

    ck_assert_int_eq(conf_load_args(port_rows[_i].args, NULL, &c, &d), 0);
    ck_assert_uint_eq(d.n, 0);
    ck_assert_str_eq(c.root, port_rows[_i].want_root);
    while (n < 3 && (n == 0 || port_rows[_i].want_ports[n]))
        n++;
    ck_assert_uint_eq(c.n_listen, n);
    for (size_t i = 0; i < n; i++)
        ck_assert_uint_eq(c.listen[i].port, port_rows[_i].want_ports[i]);
    ck_assert_str_eq(c.listen[0].host, port_rows[_i].want_host);
    ck_assert_msg(c.listing == (port_rows[_i].want_listing != 0),
                  "row %d: listing %d, want %d", _i, c.listing,
                  port_rows[_i].want_listing);
    /* said at start-up only when the quick form turned it on */
    ck_assert_int_eq(c.listing_quick, port_rows[_i].want_listing == QUICK);
    conf_free(&c);
    conf_diag_free(&d);
}
END_TEST

/* BENEATH_LISTING=off wins over the quick form, as --listing off does;
 * a configuration file, virtual hosts or a listener named are no quick
 * form. */
static const struct {
    const char *args[MAX_ARGS];
    const char *env[2];
} not_quick[] = {
    {{"8000"}, {"BENEATH_LISTING=off"}},
    {{"8000", "site"}, {"BENEATH_LISTING=off"}},
    {{"8000", "site"}, {"BENEATH_CONFIG="}}, /* an empty file of its own */
    {{"8000", "--vhost", "a.test=site"}, {NULL}},
    {{"site"}, {"BENEATH_LISTEN=0.0.0.0:8080"}},
};

LOOP_TEST(quick_listing_not, not_quick)
{
    struct conf c;
    struct conf_diag d = {0};
    char file[] = "/tmp/beneath-empty-conf-XXXXXX", env[64];
    const char *envp[2] = {not_quick[_i].env[0], NULL};
    int fd = -1;

    if (envp[0] && strcmp(envp[0], "BENEATH_CONFIG=") == 0) {
        fd = mkstemp(file);
        ck_assert_int_ge(fd, 0);
        snprintf(env, sizeof env, "BENEATH_CONFIG=%s", file);
        envp[0] = env;
    }
    int r = conf_load_args(not_quick[_i].args, envp, &c, &d);
    if (fd >= 0) {
        close(fd);
        unlink(file);
    }
    ck_assert_int_eq(r, 0);
    ck_assert(!c.listing && !c.listing_quick);
    conf_free(&c);
    ck_assert_uint_eq(d.n, 0);
    conf_diag_free(&d);
}
END_TEST

START_TEST(short_actions)
{
    const char *v[] = {"-V", NULL};
    const char *h[] = {"-h", NULL};
    /* the environment's port replaced by the command line's */
    const char *env[] = {"BENEATH_PORT=7000", NULL};
    const char *p[] = {"-p", "7001", NULL};
    struct conf c;
    struct conf_diag d = {0};

    ck_assert_int_eq(conf_load_args(v, NULL, &c, &d), 0);
    ck_assert(c.version && !c.help);
    conf_free(&c);
    ck_assert_int_eq(conf_load_args(h, NULL, &c, &d), 0);
    ck_assert(c.help && !c.version);
    conf_free(&c);
    ck_assert_int_eq(conf_load_args(NULL, env, &c, &d), 0);
    ck_assert_uint_eq(c.n_listen, 1);
    ck_assert_uint_eq(c.listen[0].port, 7000);
    conf_free(&c);
    ck_assert_int_eq(conf_load_args(p, env, &c, &d), 0);
    ck_assert_uint_eq(c.n_listen, 1);
    ck_assert_uint_eq(c.listen[0].port, 7001);
    conf_free(&c);
    ck_assert_uint_eq(d.n, 0);
    conf_diag_free(&d);
}
END_TEST

/* ---- conf_print of every typed value reads back the same ---- */

START_TEST(round_trip)
{
    static const char text[] =
        "precompressed = gz,zst\n"
        "cache = *.css,/top/*.js,a/**/b=max-age=1, immutable\n"
        "cache = **=no-store\n"
        "cache = /**=private\n"
        "cache-default = \" no-cache \"\n"
        "header = X-A: \"q\" #1\n"
        "header = \"X-B: a # b\"\n"
        "security-headers = on\n"
        "fallback = /x/spa.html\n"
        "health = /h\n"
        "metrics = m\n"
        "port = 8001\n";
    struct conf a, b;
    struct conf_diag d = {0};

    ck_assert_int_eq(conf_parse_string(text, -1, &a, &d), 0);
    conf_reprinted(&a, &b, &d);
    ck_assert_uint_eq(d.n_warnings, 0);
    ck_assert_uint_eq(a.cache.n, b.cache.n);
    for (size_t i = 0; i < a.cache.n; i++) {
        ck_assert_uint_eq(a.cache.v[i].n_globs, b.cache.v[i].n_globs);
        for (size_t j = 0; j < a.cache.v[i].n_globs; j++)
            for (size_t k = 0; a.cache.v[i].globs[j][k]; k++)
                ck_assert_str_eq(a.cache.v[i].globs[j][k],
                                 b.cache.v[i].globs[j][k]);
    }
    ck_assert_str_eq(b.cache.dflt, " no-cache ");
    ck_assert_uint_eq(a.headers.n, b.headers.n);
    for (size_t i = 0; i < a.headers.n; i++) {
        ck_assert_str_eq(a.headers.v[i].name, b.headers.v[i].name);
        ck_assert_str_eq(a.headers.v[i].value, b.headers.v[i].value);
    }
    ck_assert_str_eq(b.headers.v[1].value, "a # b");
    ck_assert_str_eq(b.fallback, "x/spa.html");
    conf_free(&a);
    conf_free(&b);
    conf_diag_free(&d);
}
END_TEST

const struct check_main check_main = {
    .suite = "conf_values",
    .tcases = {{"errors", .loops = {LOOP(file_error), LOOP(other_error)}},
               {"values", .loops = {LOOP(file_value), LOOP(hash_warning)},
                .tests = {&typed_values, &headers_across_sources, &round_trip}},
               {"cli", .loops = {LOOP(port_case), LOOP(quick_listing_not)},
                .tests = {&short_actions}}}};
