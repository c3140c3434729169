/* SPDX-License-Identifier: MIT */
/*
 * harness.h - drive the real beneath binary from Check tests.
 *
 * The harness builds temporary trees, starts `beneath` (path in $BENEATH_BIN)
 * on 127.0.0.1 port 0, learns the port from its `listening on` line, talks to
 * it with a raw-socket client (exact bytes) or libcurl, and stops it. Every
 * string, response and tree it hands out is owned by the harness and released
 * by harness_test_teardown(), so tests never free anything themselves.
 *
 * Server stdout (the access log with `--access-log -`) and stderr go to files
 * in the test's temporary directory, never to pipes: a server that logs a lot
 * can never block on a full pipe, and the files can be read at any time.
 *
 * A failing expectation (EXPECT) first prints the stderr of every server the
 * test started, then fails the test, so a failure always shows what the
 * server said.
 */
#ifndef BENEATH_TESTS_INTEGRATION_HARNESS_H
#define BENEATH_TESTS_INTEGRATION_HARNESS_H

#include "check_main.h"
#include "fixture.h"

#include <curl/curl.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

/* Print what the servers of this test said, then fail with the message. */
void harness_on_failure(void);
#define EXPECT(cond, ...)                                                      \
    do {                                                                       \
        if (!(cond)) {                                                         \
            harness_on_failure();                                              \
            ck_abort_msg(__VA_ARGS__);                                         \
        }                                                                      \
    } while (0)

/* Response @r has status @want; @what names the request in the message. */
#define EXPECT_STATUS(r, want, what)                                           \
    EXPECT((r)->status == (want), "%s: status %d, want %d (error %s)\n%s",     \
           (what), (r)->status, (want),                                        \
           (r)->error ? strerror((r)->error) : "none", (r)->head)

/* Response @r is a 200 whose body is the string @want. */
#define EXPECT_BODY(r, want, what)                                             \
    EXPECT((r)->status == 200 && strcmp((r)->body, (want)) == 0,               \
           "%s: status %d, body '%s', want 200 '%s'", (what), (r)->status,     \
           (r)->body, (want))

/* Header @name of @r is @want, or absent when @want is NULL. */
#define EXPECT_HEADER(r, name, want, what)                                     \
    do {                                                                       \
        const char *v_ = http_header((r), (name));                             \
        const char *w_ = (want);                                               \
        EXPECT(w_ ? v_ &&strcmp(v_, w_) == 0 : v_ == NULL,                     \
               "%s: %s is \"%s\", want \"%s\"\n%s", (what), (name),            \
               v_ ? v_ : "(absent)", w_ ? w_ : "(absent)", (r)->head);         \
    } while (0)

/* Suite-level (unchecked fixture, runs in the runner): top temp dir and
 * libcurl's global state. */
void harness_suite_setup(void);
void harness_suite_teardown(void);
/* Test-level (checked fixture): stop servers, free everything. */
void harness_test_setup(void);
void harness_test_teardown(void);

/* The fixtures above for a check_main table, @seconds per test. */
#define HARNESS_FIXTURE(seconds)                                               \
    {                                                                          \
        .setup = harness_test_setup, .teardown = harness_test_teardown,        \
        .unchecked_setup = harness_suite_setup,                                \
        .unchecked_teardown = harness_suite_teardown, .timeout = (seconds)     \
    }

/*
 * harness_tcase - add a TCase @name to @su with the fixtures above: once per
 * tcase @suite_setup (NULL: harness_suite_setup) and harness_suite_teardown;
 * around each test @test_setup (NULL: harness_test_setup) and
 * harness_test_teardown. A custom setup calls the harness's first. Each test
 * may take @timeout seconds. Returns the TCase, to add tests to.
 */
TCase *harness_tcase(Suite *su, const char *name, void (*suite_setup)(void),
                     void (*test_setup)(void), int timeout);

/* The backend under test: $BENEATH_E2E_RESOLVER, default "kernel". */
const char *harness_backend(void);

/* CLOCK_MONOTONIC in milliseconds. */
long long now_ms(void);
/* Sleep @ms milliseconds (resumed after signals). */
void sleep_ms(int ms);

/*
 * htpasswd_user - add @user with password @pw to the htpasswd file @file
 * (created anew when @create), bcrypt at cost 5 by Debian's htpasswd
 * (apache2-utils); the test fails if it cannot.
 */
void htpasswd_user(const char *file, const char *user, const char *pw,
                   bool create);

/* A printf into harness-owned memory. */
char *hfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Harness-owned copy of @len bytes, NUL-terminated. */
char *hmem(const void *p, size_t len);
/* A zeroed harness-owned buffer of @len + 1 bytes. */
char *hbuf(size_t len);
/* A harness-owned string of @len bytes @ch. */
char *hfill(size_t len, char ch);
/* Random lowercase hex string of @n characters, harness-owned. */
char *hrandom(size_t n);
/*
 * hline - the next line of *@text, harness-owned and without its newline,
 * moving *@text past it; NULL at the end of the text.
 */
char *hline(const char **text);

/* --- trees ------------------------------------------------------------- */

/* A new empty directory under the suite's temp dir (mode 0755). */
char *tree_new(void);
/* A new tree (as tree_new) whose index.html holds @index. */
char *tree_site(const char *index);
/* @dir/@rel, harness-owned. */
char *tree_path(const char *dir, const char *rel);
void tree_write(const char *dir, const char *rel, const void *data, size_t len);
void tree_write_str(const char *dir, const char *rel, const char *s);
/*
 * tree_build - make the entries below @dir, in the forms of fixture.h
 * ("d/", "f=text", "name -> target", "fifo|"), parents on the way; the list
 * ends with NULL.
 */
void tree_build(const char *dir, ...) __attribute__((sentinel));
void tree_mkdir(const char *dir, const char *rel);
void tree_symlink(const char *dir, const char *target, const char *rel);
void tree_mkfifo(const char *dir, const char *rel);
void tree_mknod_null(const char *dir, const char *rel); /* char 1:3 */
void tree_socket(const char *dir, const char *rel);     /* bound AF_UNIX */
void tree_mtime(const char *dir, const char *rel, time_t t);
/* Read a whole file (harness-owned, NUL-terminated); NULL if absent. */
char *tree_read(const char *path, size_t *len);
/* Remove a tree (nftw, FTW_DEPTH|FTW_PHYS); quiet if absent. */
void tree_remove(const char *path);

/* --- the server -------------------------------------------------------- */

#define SERVER_MAX_LISTEN 4

struct server {
    pid_t pid;
    int n_listen;
    unsigned ports[SERVER_MAX_LISTEN];
    char hosts[SERVER_MAX_LISTEN][64]; /* as printed: 127.0.0.1, [::1] */
    unsigned port;                     /* == ports[0] */
    char *dir;                         /* its own temp dir (logs) */
    char *out_path;
    char *err_path;
    size_t err_startup; /* bytes of stderr once the listening line(s) came */
    bool reaped;
    int wstatus;
    struct server *next;
};

struct server_opts {
    const char *root;        /* positional ROOT unless NULL */
    const char *const *args; /* extra argv, NULL-terminated, may be NULL */
    const char **env;        /* extra "K=V", NULL-terminated, may be NULL */
    bool no_listen;          /* do not add --listen 127.0.0.1:0 */
    bool no_resolver;        /* do not add --resolver <backend under test> */
    int n_listen;            /* listening lines to wait for (default 1) */
    int startup_ms;          /* bound on start-up (default 15000) */
    int block_openat2; /* errno a seccomp filter gives openat2 (0: none) */
    /* bind-mount bind_src on bind_dst in a mount namespace of the server's
     * own (nothing changes outside it); both NULL: none */
    const char *bind_src;
    const char *bind_dst;
    unsigned nofile; /* RLIMIT_NOFILE (soft and hard) of the server; 0: ours */
};

/*
 * server_start - start beneath with @o and wait for its listening line(s).
 * Fails the test (with the stderr seen) if it does not come in time.
 */
struct server *server_start_opts(const struct server_opts *o);
/* server_start(root, "--flag", "value", ..., NULL) */
struct server *server_start(const char *root, ...) __attribute__((sentinel));

/* Send @sig; no wait. */
void server_signal(struct server *s, int sig);
/*
 * server_wait - wait up to @ms for exit. Returns true if it exited; the wait
 * status is in s->wstatus.
 */
bool server_wait(struct server *s, int ms);
/*
 * server_stop - SIGTERM, wait up to @ms, SIGKILL fallback. Returns the wait
 * status. Reaped servers return their status again.
 */
int server_stop(struct server *s, int ms);
/* Stop and assert a clean exit: status 0 and no sanitizer report. */
void server_stop_clean(struct server *s);
/* Human-readable wait status, harness-owned. */
char *wstatus_str(int wstatus);
/*
 * The process that serves: the server started is the keeper (with the
 * sandbox on or off; server/process/keeper.h), which serves through its
 * children, one per configuration generation: the newest (older ones may
 * still drain after a SIGHUP). The keeper itself if it has no child.
 */
pid_t server_serving_pid(const struct server *s);

/* The port of @s's https:// listener on 127.0.0.1, from its start-up
 * lines (fails the test without one). */
unsigned server_https_port(const struct server *s);

/*
 * The serving processes the keeper @s has now (its children: the newest
 * serves, older ones still drain), 0 if it has none.
 */
int server_serving_count(const struct server *s);
/* Wait up to @ms until one serving process is left (the older generations
 * drained and exited); true if so. */
bool server_drained(const struct server *s, int ms);
/*
 * server_reload - SIGHUP to the keeper, then wait up to @ms until that
 * reload has ended: a new generation serves and the one before it has
 * drained and exited (until then it may still accept a connection): its
 * pid; or the keeper kept the old configuration (an error in the file, or
 * the new process failed its checks): 0. Fails the test if neither happens
 * in time. Call it with no other reload under way.
 */
pid_t server_reload(struct server *s, int ms);
/*
 * server_reload_refused - server_reload (10 s), which must keep the old
 * configuration: stderr says @why, and the serving process is the one that
 * served before.
 */
void server_reload_refused(struct server *s, const char *why);

/* Number of open fds of process @pid (/proc/PID/fd), -1 if unknown. */
int pid_fd_count(pid_t pid);
/* Number of open fds of the serving process (/proc/PID/fd), -1 if unknown. */
int server_fd_count(const struct server *s);
/* The count once it has not changed for 10 readings 20 ms apart (closed
 * connections gone), bounded at 4 s. */
int server_fd_count_settled(const struct server *s);
/* Current stderr / stdout, harness-owned, NUL-terminated. */
char *server_stderr(const struct server *s);
char *server_stdout(const struct server *s);
/* Stderr written after start-up. */
char *server_stderr_since_startup(const struct server *s);
/* Base URL of listener @i: http://HOST:PORT, harness-owned. */
char *server_url(const struct server *s, int i, const char *path);
/* Poll @path (or stdout if NULL) until it contains @needle, up to @ms. */
bool file_wait_for(const char *path, const char *needle, int ms);

/*
 * beneath_run - run beneath to completion (--help, --check, bad options),
 * bounded by @ms; @args and @env NULL-terminated extras (nothing is added).
 * Returns the wait status; *out and *err get harness-owned output.
 */
int beneath_run(const char **args, const char **env, int ms, char **out,
                char **err);

/* An option with a bad value, and what beneath must say about it. */
struct bad_option {
    const char *opt, *value, *msg;
};
/*
 * expect_bad_options - for each of the @n @rows, `beneath OPT VALUE --check
 * --listen 127.0.0.1:0 @root` exits 2 with the row's msg in its stderr.
 */
void expect_bad_options(const struct bad_option *rows, size_t n,
                        const char *root);

/* beneath_run's wait status @ws is exit @code; @err: its stderr. */
#define EXPECT_EXIT(ws, code, err)                                             \
    EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) == (code),                         \
           "beneath: %s, want exit status %d; stderr:\n%s", wstatus_str(ws),   \
           (code), (err))

/* --- responses --------------------------------------------------------- */

struct http_header {
    char *name;
    char *value;
};

struct http_response {
    int status; /* 0 when no status line was received */
    char *head; /* status line and header lines as received */
    size_t head_len;
    struct http_header *headers;
    size_t n_headers;
    char *body; /* NUL-terminated for convenience */
    size_t body_len;
    bool closed;       /* the server closed after this response */
    int error;         /* 0, ETIMEDOUT, ECONNRESET, EPROTO, ... */
    long num_connects; /* libcurl: new connections for this request */
    struct http_response *next;
};

/* A request target and a value its answer must carry (a table row). */
struct target_want {
    const char *target, *want;
};
/* A request target and the status of its answer (a table row). */
struct target_status {
    const char *target;
    int status;
};

/* First value of header @name (case-insensitive), NULL if absent. */
const char *http_header(const struct http_response *r, const char *name);
size_t http_header_count(const struct http_response *r, const char *name);
/* Case-insensitive comparison, ignoring spaces (for media types). */
bool http_value_eq(const char *a, const char *b);

/*
 * A string that must never appear in any response (head or body): every
 * response the harness receives is scanned and the test fails on a match.
 */
void harness_forbid(const char *secret);

/* --- raw-socket client ------------------------------------------------- */

struct raw_conn {
    int fd;
    char *buf;
    size_t len;
    size_t cap;
    bool eof;
    struct raw_conn *next;
};

/* Connect to 127.0.0.1:@port (or [::1] if @v6). NULL with errno on failure. */
struct raw_conn *raw_connect(unsigned port);
struct raw_conn *raw_connect_host(const char *host, unsigned port);
/* raw_connect_host from the local address @src (NULL: the kernel's choice). */
struct raw_conn *raw_connect_from(const char *src, const char *host,
                                  unsigned port);
/* raw_connect, failing the test (with errno) when it cannot connect. */
struct raw_conn *raw_open(unsigned port);
/* raw_open to @s, one GET / answered 200 and the connection kept open: a
 * connection the server holds (keep-alive), counted against its limits. */
struct raw_conn *raw_held(const struct server *s);
/* Send exactly @len bytes (bounded). Returns 0 or -errno. */
int raw_send(struct raw_conn *c, const void *data, size_t len);
int raw_send_str(struct raw_conn *c, const char *s);
/*
 * raw_read - read one response within @ms. @head_req: the request was HEAD
 * (no body follows). Never blocks past the bound: r->error = ETIMEDOUT.
 */
struct http_response *raw_read(struct raw_conn *c, bool head_req, int ms);
/* Wait until the server closes the connection (EOF/reset) within @ms. */
bool raw_wait_closed(struct raw_conn *c, int ms);
void raw_close(struct raw_conn *c);
/* Connect, send @req, read one response, close. */
struct http_response *raw_request(unsigned port, const char *req, int ms);
/* raw_request with "GET @target HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n". */
struct http_response *raw_get(unsigned port, const char *target);
/* GET @target from @s with "Host: @host" (and Connection: close); @host
 * NULL: HTTP/1.0 with no Host. */
struct http_response *raw_get_host(const struct server *s, const char *target,
                                   const char *host);
/* raw_get @target from @s and expect @status; @what names the request in the
 * message (NULL: "GET @target"). Returns the response. */
struct http_response *expect_get(const struct server *s, const char *target,
                                 int status, const char *what);
/* raw_get @target from @s and expect a 200 whose body is the string @body. */
struct http_response *expect_get_body(const struct server *s,
                                      const char *target, const char *body,
                                      const char *what);

/* --- libcurl client ---------------------------------------------------- */

/* A growing buffer for CURLOPT_WRITEFUNCTION http_write (WRITEDATA: the
 * buffer), kept NUL-terminated; the caller frees .p. */
struct http_buf {
    char *p;
    size_t n;
    size_t cap;
};
size_t http_write(char *data, size_t size, size_t nmemb, void *buf);

/*
 * http_do - one request with libcurl. @easy: a handle to reuse (keep-alive),
 * or NULL for a fresh one. @method "GET", "HEAD", or any token. @headers:
 * NULL-terminated "Name: value" list or NULL. Paths go as is
 * (CURLOPT_PATH_AS_IS). Never follows redirects.
 */
struct http_response *http_do(CURL *easy, const struct server *s,
                              const char *method, const char *path,
                              const char **headers);
struct http_response *http_get(const struct server *s, const char *path);
/* An easy handle owned by the harness. */
CURL *http_easy(void);

#endif
