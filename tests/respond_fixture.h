/* SPDX-License-Identifier: MIT */
/*
 * respond_fixture.h - what the suites of respond() share: a fixture tree
 * with a configuration loaded over it as the server loads it (struct env),
 * requests as a transport fills them (struct req_spec), and the table of
 * requests and the replies they must get (respond_cases): test_respond.c
 * asks respond() itself, test_h2.c asks it over HTTP/2.
 */
#ifndef BENEATH_TESTS_RESPOND_FIXTURE_H
#define BENEATH_TESTS_RESPOND_FIXTURE_H

#include "access/access.h"
#include "conf.h"
#include "respond/respond.h"
#include "runtime/root.h"

#include <limits.h>
#include <stdbool.h>

/* The server's view of one configuration over the fixture tree. */
struct env {
    char dir[PATH_MAX];
    struct conf c;
    struct root *root;
    struct access *access;
    struct respond_conf rc;
};

/*
 * env_open - the fixture tree and the configuration of @args (NULL: none;
 * "@" in an argument stands for the fixture directory; the directory is
 * the last argument, the root); env_close removes it.
 */
void env_open(struct env *e, const char *const *args);
void env_close(struct env *e);

/* One request as a transport would fill it. */
struct req_spec {
    const char *method;
    const char *target;
    const char *fields[4]; /* "Name: value" */
    bool tls;
    const char *peer; /* IPv4 address, default 127.0.0.1 */
};

struct respond_case {
    const char *what;
    const char *args[8];
    struct req_spec rq;
    const char *body;        /* the body's bytes exactly, or NULL */
    const char *field[3];    /* must be there ("Name: value" or "Name") */
    const char *no_field[2]; /* must not */
    unsigned status;
    bool head; /* no body goes out */
};

static const struct respond_case respond_cases[] = {
    {.what = "a file",
     .rq = {.method = "GET", .target = "/"},
     .status = 200,
     .body = "<h1>home</h1>",
     .field = {"Content-Type: text/html; charset=utf-8", "ETag",
               "X-Content-Type-Options: nosniff"}},
    {.what = "HEAD: the GET's fields, no body",
     .rq = {.method = "HEAD", .target = "/index.html"},
     .status = 200,
     .field = {"Content-Type: text/html; charset=utf-8"},
     .head = true},
    {.what = "missing: the root's 404.html",
     .rq = {.method = "GET", .target = "/nope"},
     .status = 404,
     .body = "<h1>not here</h1>"},
    {.what = "a dotfile is refused, never the fallback",
     .args = {"--fallback", "index.html"},
     .rq = {.method = "GET", .target = "/.git/config"},
     .status = 404,
     .body = "<h1>not here</h1>"},
    {.what = "a dotfile with Range: still no fallback",
     .args = {"--fallback", "index.html"},
     .rq = {.method = "GET",
            .target = "/.git/config",
            .fields = {"Range: bytes=0-3"}},
     .status = 404,
     .body = "<h1>not here</h1>",
     .no_field = {"Content-Range"}},
    {.what = "missing path: the fallback",
     .args = {"--fallback", "index.html"},
     .rq = {.method = "GET", .target = "/no/such/page"},
     .status = 200,
     .body = "<h1>home</h1>"},
    {.what = "a link out of the root: 403, no fallback",
     .args = {"--fallback", "index.html"},
     .rq = {.method = "GET", .target = "/escape"},
     .status = 403},
    {.what = "one range",
     .rq = {.method = "GET",
            .target = "/big.txt",
            .fields = {"Range: bytes=0-3"}},
     .status = 206,
     .body = "0123",
     .field = {"Content-Range: bytes 0-3/20"}},
    {.what = "two ranges: multipart",
     .rq = {.method = "GET",
            .target = "/big.txt",
            .fields = {"Range: bytes=0-1,15-16"}},
     .status = 206,
     .field = {"Content-Type"}},
    {.what = "unsatisfiable",
     .rq = {.method = "GET",
            .target = "/big.txt",
            .fields = {"Range: bytes=100-"}},
     .status = 416,
     .body = "",
     .field = {"Content-Range: bytes */20"}},
    {.what = "If-None-Match: * on a file",
     .rq = {.method = "GET",
            .target = "/big.txt",
            .fields = {"If-None-Match: *"}},
     .status = 304,
     .field = {"ETag"},
     .no_field = {"Content-Type"},
     .head = true},
    {.what = "If-Match another tag",
     .rq = {.method = "GET",
            .target = "/big.txt",
            .fields = {"If-Match: \"other\""}},
     .status = 412},
    {.what = "a sidecar for gzip",
     .args = {"--precompressed", "gz"},
     .rq = {.method = "GET",
            .target = "/style.css",
            .fields = {"Accept-Encoding: gzip"}},
     .status = 200,
     .body = "GZ",
     .field = {"Content-Encoding: gzip", "Vary: Accept-Encoding"}},
    {.what = "no gzip: the file, still Vary",
     .args = {"--precompressed", "gz"},
     .rq = {.method = "GET", .target = "/style.css"},
     .status = 200,
     .body = "body{}",
     .field = {"Vary: Accept-Encoding"},
     .no_field = {"Content-Encoding"}},
    {.what = "try-html",
     .args = {"--try-html", "on"},
     .rq = {.method = "GET", .target = "/guide"},
     .status = 200,
     .body = "guide"},
    {.what = "a directory without its slash",
     .rq = {.method = "GET", .target = "/docs?x=1"},
     .status = 301,
     .field = {"Location: /docs/?x=1"}},
    {.what = "index file",
     .rq = {.method = "GET", .target = "/docs/"},
     .status = 200,
     .body = "docs"},
    {.what = "a method the server does not have",
     .rq = {.method = "BREW", .target = "/"},
     .status = 405,
     .field = {"Allow: GET, HEAD, OPTIONS"}},
    {.what = "OPTIONS *",
     .rq = {.method = "OPTIONS", .target = "*"},
     .status = 204,
     .field = {"Allow: GET, HEAD, OPTIONS"},
     .head = true},
    {.what = "a bad escape",
     .rq = {.method = "GET", .target = "/a%2"},
     .status = 400},
    {.what = "auth: no credentials",
     .args = {"--auth", "/private/**=@/users"},
     .rq = {.method = "GET", .target = "/private/secret.html"},
     .status = 401,
     .field = {"WWW-Authenticate"}},
    {.what = "auth: the right ones",
     .args = {"--auth", "/private/**=@/users"},
     .rq = {.method = "GET",
            .target = "/private/secret.html",
            .fields = {"Authorization: Basic dXNlcjpwdw=="}},
     .status = 200,
     .body = "secret"},
    {.what = "auth: the wrong ones",
     .args = {"--auth", "/private/**=@/users"},
     .rq = {.method = "GET",
            .target = "/private/secret.html",
            .fields = {"Authorization: Basic dXNlcjp4eA=="}},
     .status = 401},
    {.what = "a redirect rule",
     .args = {"--redirects", "@/rules"},
     .rq = {.method = "GET", .target = "/old"},
     .status = 301,
     .field = {"Location: /new"}},
    {.what = "a rewrite rule",
     .args = {"--redirects", "@/rules"},
     .rq = {.method = "GET", .target = "/spa/x"},
     .status = 200,
     .body = "<h1>home</h1>"},
    {.what = "a vhost picks its root",
     .args = {"--vhost", "a.example=@/docs"},
     .rq = {.method = "GET", .target = "/", .fields = {"Host: a.example"}},
     .status = 200,
     .body = "docs"},
    {.what = "a garbage Host with vhosts",
     .args = {"--vhost", "a.example=@/docs"},
     .rq = {.method = "GET", .target = "/", .fields = {"Host: a b"}},
     .status = 400},
    {.what = "HSTS over TLS only",
     .args = {"--hsts", "600"},
     .rq = {.method = "GET", .target = "/", .tls = true},
     .status = 200,
     .body = "<h1>home</h1>",
     .field = {"Strict-Transport-Security: max-age=600"}},
    {.what = "no HSTS on plain HTTP",
     .args = {"--hsts", "600"},
     .rq = {.method = "GET", .target = "/"},
     .status = 200,
     .body = "<h1>home</h1>",
     .no_field = {"Strict-Transport-Security"}},
    {.what = "a --mount: its own root",
     .args = {"--mount", "/m=@/private"},
     .rq = {.method = "GET", .target = "/m/secret.html"},
     .status = 200,
     .body = "secret"},
    {.what = "a --mount's index file is judged by its URL",
     .args = {"--mount", "/m=@/private", "--auth", "/m/index.html=@/users"},
     .rq = {.method = "GET", .target = "/m/"},
     .status = 401,
     .field = {"WWW-Authenticate"}},
    {.what = "a file mount's sidecar is judged by its URL",
     .args = {"--mount", "/s.css=@/style.css", "--precompressed", "gz",
              "--auth", "/s.css.gz=@/users"},
     .rq = {.method = "GET",
            .target = "/s.css",
            .fields = {"Accept-Encoding: gzip"}},
     .status = 401},
    {.what = "a file mount: the file",
     .args = {"--mount", "/s.css=@/style.css"},
     .rq = {.method = "GET", .target = "/s.css"},
     .status = 200,
     .body = "body{}",
     .field = {"Content-Type: text/css; charset=utf-8"}},
    {.what = "--cors *: any origin",
     .args = {"--cors", "*"},
     .rq = {.method = "GET",
            .target = "/big.txt",
            .fields = {"Origin: https://a.example"}},
     .status = 200,
     .field = {"Access-Control-Allow-Origin: *"}},
    {.what = "--cors: a preflight from a listed origin",
     .args = {"--cors", "https://a.example"},
     .rq = {.method = "OPTIONS",
            .target = "/big.txt",
            .fields = {"Origin: https://a.example",
                       "Access-Control-Request-Method: GET",
                       "Access-Control-Request-Headers: x-a",
                       "Access-Control-Request-Headers: x-b"}},
     .status = 204,
     .field = {"Access-Control-Allow-Origin: https://a.example",
               "Access-Control-Allow-Methods: GET, HEAD",
               "Access-Control-Allow-Headers: x-a, x-b"},
     .head = true},
    {.what = "--cors: an origin not listed",
     .args = {"--cors", "https://a.example"},
     .rq = {.method = "GET",
            .target = "/big.txt",
            .fields = {"Origin: https://b.example"}},
     .status = 200,
     .field = {"Vary: Origin"},
     .no_field = {"Access-Control-Allow-Origin"}},
    {.what = "--health",
     .args = {"--health", "/healthz"},
     .rq = {.method = "GET", .target = "/healthz"},
     .status = 200,
     .body = "ok\n",
     .field = {"Cache-Control: no-store"}},
};

#endif
