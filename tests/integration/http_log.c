/* SPDX-License-Identifier: MIT */
/*
 * http_log.c - the end-to-end HTTP suite (test_http.c): the access log
 * (combined and JSON, off, to a file), a directory moved out between
 * requests, and resources (no fd growth, a quiet stderr, concurrent
 * clients).
 */
#include "http_suite.h"
#include "site.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ===== access log ======================================================== */

/* The lines of @log containing @needle, joined; "" if none. */
static char *log_lines_with(const char *log, const char *needle)
{
    char *out = hfmt("%s", "");
    for (char *line; (line = hline(&log)) != NULL;)
        if (strstr(line, needle))
            out = hfmt("%s%s\n", out, line);
    return out;
}

START_TEST(log_combined)
{
    struct server *s = start_default();
    const char *h[] = {"User-Agent: e2e-agent/1.0",
                       "Referer: http://ref.example/", NULL};
    http_do(NULL, s, "GET", "/range.txt?marker=ok1", h);
    raw_get(s->port, "/link-abs?marker=exdev1");
    raw_get(s->port, "/loop-a?marker=eloop1");
    raw_get(s->port, "/nothing?marker=enoent1");
    /* one line per request, also for the ones refused before any file */
    raw_get(s->port, "/%zz?marker=bad400");
    raw_request(s->port,
                "DELETE /range.txt?marker=del405 HTTP/1.1\r\nHost: x\r\n\r\n",
                5000);
    /* injection: an encoded newline in the target, quotes in the agent */
    raw_get(s->port, "/a%0aFAKE-LINE?marker=inject1");
    http_do(NULL, s, "GET", "/range.txt?marker=quote1",
            (const char *[]){"User-Agent: evil\" 200 \"x", NULL});
    /* lines are written when each request completes, possibly by another
     * worker after the response: wait for each one */
    static const char *const marks[] = {"marker=ok1", "marker=exdev1",
                                        "marker=eloop1", "marker=enoent1"};
    for (size_t i = 0; i < N_ELEMS(marks); i++)
        EXPECT(file_wait_for(s->out_path, marks[i], 5000),
               "access log on stdout lacks %s (not flushed?):\n%s", marks[i],
               server_stdout(s));
    char *log = server_stdout(s);
    char *ok = log_lines_with(log, "marker=ok1");
    /* 127.0.0.1 - - [02/Jan/2024:03:04:05 +0000] "GET /x HTTP/1.1" 200 100
     *   "referer" "agent"  (+ beneath's fields) */
    EXPECT(strncmp(ok, "127.0.0.1 - - [", 15) == 0,
           "combined line does not start with '127.0.0.1 - - [':\n%s", ok);
    char *req = hfmt("] \"GET /range.txt?marker=ok1 HTTP/1.1\" 200 %d "
                     "\"http://ref.example/\" \"e2e-agent/1.0\"",
                     SITE_RANGE_LEN);
    EXPECT(strstr(ok, req) != NULL, "combined line lacks '%s':\n%s", req, ok);
    const char *ts = strchr(ok, '[');
    int d, y, hh, mm, ss;
    char mon[4], zone[6];
    /* only the shape is checked: the fields' values are not used */
    // NOLINTNEXTLINE(cert-err34-c)
    EXPECT(ts && sscanf(ts, "[%2d/%3s/%4d:%2d:%2d:%2d %5s]", &d, mon, &y, &hh,
                        &mm, &ss, zone) == 7,
           "combined timestamp not [dd/Mon/yyyy:HH:MM:SS +zzzz]:\n%s", ok);
    EXPECT(strstr(ok, harness_backend()) != NULL,
           "combined line does not name the backend '%s':\n%s",
           harness_backend(), ok);
    char *ex = log_lines_with(log, "marker=exdev1");
    EXPECT(strstr(ex, "\" 403 ") && strstr(ex, "EXDEV"),
           "refusal through an absolute symlink not logged as 403 EXDEV:\n%s",
           ex);
    char *lo = log_lines_with(log, "marker=eloop1");
    EXPECT(strstr(lo, "\" 403 ") && strstr(lo, "ELOOP"),
           "symlink loop not logged as 403 ELOOP:\n%s", lo);
    char *en = log_lines_with(log, "marker=enoent1");
    EXPECT(strstr(en, "\" 404 "), "missing file not logged as 404:\n%s", en);
    static const char *const more[] = {"marker=bad400", "marker=del405",
                                       "marker=inject1", "marker=quote1"};
    for (size_t i = 0; i < N_ELEMS(more); i++)
        EXPECT(file_wait_for(s->out_path, more[i], 5000),
               "no access log line for %s:\n%s", more[i], server_stdout(s));
    log = server_stdout(s);
    EXPECT(strstr(log_lines_with(log, "marker=bad400"), "\" 400 "),
           "bad escape not logged as 400:\n%s", log_lines_with(log, "bad400"));
    EXPECT(strstr(log_lines_with(log, "marker=del405"), "\" 405 "),
           "DELETE not logged as 405");
    for (const char *p = log, *line; (line = hline(&p)) != NULL;)
        EXPECT(strncmp(line, "FAKE-LINE", 9) != 0,
               "an encoded newline in the target split the access log:\n%s",
               log);
    /* a quote in a field is escaped (nginx: \x22), or the fields can be
     * forged: the agent must not read as ... "evil" 200 "x" */
    char *q = log_lines_with(log, "marker=quote1");
    EXPECT(strstr(q, "\"evil\" 200 \"x\"") == NULL,
           "a quote in the User-Agent is not escaped in the combined log:\n%s",
           q);
    server_stop_clean(s);
}
END_TEST

/* --- a minimal JSON validator: one object of scalars/arrays/objects --- */

struct jp {
    const char *p;
    int depth;
};

static void jws(struct jp *j)
{
    while (*j->p == ' ' || *j->p == '\t')
        j->p++;
}

static bool jvalue(struct jp *j);

static bool jstring(struct jp *j, char **out)
{
    if (*j->p != '"')
        return false;
    const char *start = ++j->p;
    while (*j->p && *j->p != '"') {
        if ((unsigned char)*j->p < 0x20)
            return false;
        if (*j->p == '\\') {
            j->p++;
            if (*j->p == 'u') {
                for (int k = 1; k <= 4; k++)
                    if (!strchr("0123456789abcdefABCDEF", j->p[k]) || !j->p[k])
                        return false;
                j->p += 4;
            } else if (!*j->p || !strchr("\"\\/bfnrt", *j->p)) {
                return false;
            }
        }
        j->p++;
    }
    if (*j->p != '"')
        return false;
    if (out)
        *out = hmem(start, (size_t)(j->p - start));
    j->p++;
    return true;
}

static bool jvalue(struct jp *j)
{
    jws(j);
    if (++j->depth > 16)
        return false;
    bool ok = false;
    if (*j->p == '"') {
        ok = jstring(j, NULL);
    } else if (*j->p == '{' || *j->p == '[') {
        char close = *j->p == '{' ? '}' : ']';
        bool obj = *j->p == '{';
        j->p++;
        jws(j);
        if (*j->p == close) {
            j->p++;
            ok = true;
        } else {
            for (;;) {
                if (obj) {
                    jws(j);
                    if (!jstring(j, NULL))
                        break;
                    jws(j);
                    if (*j->p++ != ':')
                        break;
                }
                if (!jvalue(j))
                    break;
                jws(j);
                if (*j->p == ',') {
                    j->p++;
                    continue;
                }
                if (*j->p == close) {
                    j->p++;
                    ok = true;
                }
                break;
            }
        }
    } else if (strncmp(j->p, "true", 4) == 0 || strncmp(j->p, "null", 4) == 0) {
        j->p += 4;
        ok = true;
    } else if (strncmp(j->p, "false", 5) == 0) {
        j->p += 5;
        ok = true;
    } else if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9')) {
        char *end;
        strtod(j->p, &end);
        ok = end != j->p;
        j->p = end;
    }
    j->depth--;
    return ok;
}

static bool json_line_valid(const char *line)
{
    struct jp j = {.p = line};
    jws(&j);
    if (*j.p != '{')
        return false;
    if (!jvalue(&j))
        return false;
    jws(&j);
    return *j.p == '\0';
}

/* @line has a top-level-ish "KEY": VALUE pair whose value is @val. Key
 * names are not in the README, so look for the value only. */
static bool json_has_value(const char *line, const char *val)
{
    return strstr(line, hfmt(":\"%s\"", val)) ||
           strstr(line, hfmt(": \"%s\"", val)) ||
           strstr(line, hfmt(":%s,", val)) ||
           strstr(line, hfmt(": %s,", val)) ||
           strstr(line, hfmt(":%s}", val)) || strstr(line, hfmt(": %s}", val));
}

START_TEST(log_json)
{
    struct server *s = server_start(site.www, "--log-format", "json", NULL);
    const char *h[] = {"User-Agent: evil\"agent\\with\x01 quotes", NULL};
    http_do(NULL, s, "GET", "/range.txt?marker=ok2", h);
    raw_get(s->port, "/link-abs?marker=exdev2");
    raw_get(s->port, "/nothing?marker=enoent2");
    static const char *const marks[] = {"marker=ok2", "marker=exdev2",
                                        "marker=enoent2"};
    for (size_t i = 0; i < N_ELEMS(marks); i++)
        EXPECT(file_wait_for(s->out_path, marks[i], 5000),
               "JSON access log lacks %s:\n%s", marks[i], server_stdout(s));
    char *log = server_stdout(s);
    for (const char *p = log, *line; (line = hline(&p)) != NULL;)
        EXPECT(json_line_valid(line), "not a JSON object: %s", line);
    char *ok = log_lines_with(log, "marker=ok2");
    EXPECT(*ok, "no line for the first request");
    ok[strlen(ok) - 1] = '\0';
    EXPECT(json_has_value(ok, "200"), "no status 200 in %s", ok);
    EXPECT(json_has_value(ok, "GET"), "no method GET in %s", ok);
    EXPECT(json_has_value(ok, harness_backend()), "no backend '%s' in %s",
           harness_backend(), ok);
    EXPECT(strstr(ok, "/range.txt") != NULL, "no path in %s", ok);
    EXPECT(strstr(ok, "127.0.0.1") != NULL, "no client address in %s", ok);
    char *ex = log_lines_with(log, "marker=exdev2");
    EXPECT(json_has_value(ex, "403") && strstr(ex, "\"EXDEV\""),
           "refusal not logged with status 403 and \"EXDEV\": %s", ex);
    server_stop_clean(s);
}
END_TEST

START_TEST(log_off_and_file)
{
    struct server *s = server_start(site.www, "--access-log", "off", NULL);
    raw_get(s->port, "/range.txt");
    server_stop_clean(s);
    EXPECT(*server_stdout(s) == '\0', "--access-log off wrote: %s",
           server_stdout(s));

    char *d = tree_new();
    char *logp = tree_path(d, "access.log");
    s = server_start(site.www, "--access-log", logp, NULL);
    raw_get(s->port, "/range.txt?marker=file1");
    EXPECT(file_wait_for(logp, "marker=file1", 5000),
           "--access-log FILE: no line in %s", logp);
    server_stop_clean(s);
}
END_TEST

/*
 * A directory served, then moved out of the root (and a secret put in it),
 * then replaced by a symlink to it: each request is resolved afresh, so
 * nothing from the moved directory is served. With --resolver emulated this
 * is the directory cache noticing the moves (one worker, so the same cache).
 */
START_TEST(dir_moved_out_between_requests)
{
    char *outside = tree_new();
    char *w = tree_new();
    tree_mkdir(w, "docs");
    tree_mkdir(w, "docs/v1");
    tree_write_str(w, "docs/v1/page.html", "v1 page\n");
    char *secret = hfmt("moved-out-%s", hrandom(16));
    harness_forbid(secret);
    struct server *s = server_start(w, "--threads", "1", NULL);
    for (int i = 0; i < 3; i++)
        expect_get_body(s, "/docs/v1/page.html", "v1 page\n",
                        "before the move");
    EXPECT(rename(tree_path(w, "docs/v1"), tree_path(outside, "v1")) == 0,
           "rename: %s", strerror(errno));
    tree_write_str(outside, "v1/secret.html", secret);
    expect_get(s, "/docs/v1/secret.html", 404,
               "a file in the moved-out directory");
    expect_get(s, "/docs/v1/page.html", 404,
               "the old page in the moved-out directory");
    /* A symlink in its place, to the outside: refused under beneath. */
    tree_symlink(w, tree_path(outside, "v1"), "docs/v1");
    expect_get(s, "/docs/v1/secret.html", 403,
               "through an absolute symlink to the moved directory");
    /* And a new directory of the same name is served. */
    EXPECT(unlink(tree_path(w, "docs/v1")) == 0, "unlink");
    tree_mkdir(w, "docs/v1");
    tree_write_str(w, "docs/v1/page.html", "v1 again\n");
    expect_get_body(s, "/docs/v1/page.html", "v1 again\n", "the new directory");
    server_stop_clean(s);
}
END_TEST

/* ===== resources ========================================================= */

START_TEST(no_fd_growth)
{
    /* ~2000 mixed requests over fresh and reused connections; afterwards,
     * with every client connection closed, the server holds as many fds as
     * before, and said nothing on stderr. One worker, warmed up with every
     * path first: the emulated backend's directory cache then holds all
     * the directories it will hold. */
    harness_forbid(site.secret);
    struct server *s =
        server_start(site.www, "--listing", "on", "--threads", "1", NULL);
    static const char *const paths[] = {
        "/index.html",
        "/range.txt",
        "/missing",
        "/link-abs",
        "/list/",
        "/sub",
        "/sub/",
        "/noindex/x",
        "/fifo",
        "/loop-a",
        "/big.bin",
        "/.hidden",
        "/link-dir/inner.txt",
    };
    for (size_t i = 0; i < N_ELEMS(paths); i++)
        raw_get(s->port, paths[i]); /* warm up */
    struct http_response *r;
    expect_get(s, "/index.html", 200, "warm-up");
    int before = server_fd_count_settled(s);
    EXPECT(before > 0, "cannot count the server's fds");
    struct validators v = get_validators(s, "/range.txt");
    CURL *e = curl_easy_init(); /* closed below, before counting */
    EXPECT(e != NULL, "curl_easy_init");
    int n = 0;
    for (int round = 0; n < 2000; round++) {
        for (size_t i = 0; i < N_ELEMS(paths); i++, n++) {
            const char *path = paths[i];
            if (i % 3 == 0) {
                r = raw_get(s->port, path);
            } else if (i % 3 == 1) {
                const char *h[] = {hfmt("If-None-Match: %s", v.etag), NULL};
                r = http_do(e, s, "GET", path, h);
            } else {
                const char *h[] = {"Range: bytes=1-5", NULL};
                r = http_do(e, s, round % 2 ? "HEAD" : "GET", path, h);
            }
            EXPECT(r->status >= 200 && r->status < 500,
                   "%s: status %d (error %s)", path, r->status,
                   r->error ? strerror(r->error) : "none");
        }
        r = raw_request(s->port, "DELETE / HTTP/1.1\r\nHost: x\r\n\r\n", 5000);
        EXPECT_STATUS(r, 405, "DELETE");
        n++;
    }
    curl_easy_cleanup(e); /* closes the reused connection */
    /* A background job (a content hash, a compression) may hold one fd
     * for a while after its request under a slow build: a leak never gives
     * it back, so wait up to 10 s for the count to come down. */
    int after = server_fd_count_settled(s);
    for (int i = 0; i < 100 && after > before; i++) {
        sleep_ms(100);
        after = server_fd_count(s);
    }
    EXPECT(after <= before,
           "fd count grew: %d before, %d after ~2000 "
           "requests",
           before, after);
    char *extra = server_stderr_since_startup(s);
    EXPECT(*extra == '\0', "stderr during requests:\n%s", extra);
    server_stop_clean(s);
}
END_TEST

START_TEST(stderr_quiet_on_bad_requests)
{
    /* Not in the README. A client's malformed request is the client's problem:
     * nginx logs it at "info" (off by default), the access log already has
     * a line for it. Echoing each one to stderr lets any client flood the
     * operator's journal; stderr should stay for the operator. */
    struct server *s =
        server_start(site.www, "--max-header-size", "8192", NULL);
    const char *reqs[] = {
        "GET /range.txt HTTP/1.1\r\n\r\n",
        "GET /range.txt HTTP/2.0\r\nHost: x\r\n\r\n",
        hfmt("GET / HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n",
             hfill(9000, 'a')),
        "GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n",
        "BREW / HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /missing HTTP/1.1\r\nHost: x\r\n\r\n",
    };
    for (size_t i = 0; i < N_ELEMS(reqs); i++)
        raw_request(s->port, reqs[i], 5000);
    struct raw_conn *c = raw_connect(s->port);
    raw_send_str(c, "GET / HTTP/1.1\r\nHost: x\r\n"); /* then hang up */
    raw_close(c);
    expect_still_serves(s);
    usleep(200000);
    char *said = server_stderr_since_startup(s);
    EXPECT(*said == '\0', "bad client requests were echoed on stderr:\n%s",
           said);
    server_stop_clean(s);
}
END_TEST

START_TEST(concurrent_clients)
{
    /* 48 transfers at once (libcurl multi), mixed sizes and statuses, on
     * two workers: every one gets its own right answer. */
    harness_forbid(site.secret);
    struct server *s = server_start(site.www, "--threads", "2", NULL);
    static const struct target_status kinds[] = {
        {"/big.bin", 200}, {"/range.txt", 200}, {"/link-abs", 403},
        {"/missing", 404}, {"/sub", 301},       {"/index.html", 200}};
    enum { N = 48 };
    CURLM *m = curl_multi_init();
    CURL *e[N];
    struct http_buf x[N];
    memset(x, 0, sizeof(x));
    for (int i = 0; i < N; i++) {
        e[i] = curl_easy_init();
        curl_easy_setopt(e[i], CURLOPT_URL,
                         server_url(s, 0, kinds[i % N_ELEMS(kinds)].target));
        curl_easy_setopt(e[i], CURLOPT_WRITEFUNCTION, http_write);
        curl_easy_setopt(e[i], CURLOPT_WRITEDATA, &x[i]);
        curl_easy_setopt(e[i], CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(e[i], CURLOPT_TIMEOUT_MS, 30000L);
        curl_easy_setopt(e[i], CURLOPT_FORBID_REUSE, 1L);
        curl_multi_add_handle(m, e[i]);
    }
    int running = 1;
    while (running) {
        curl_multi_perform(m, &running);
        if (running)
            curl_multi_poll(m, NULL, 0, 1000, NULL);
    }
    int bad = -1;
    long bad_status = 0;
    for (int i = 0; i < N; i++) {
        long st = 0;
        curl_easy_getinfo(e[i], CURLINFO_RESPONSE_CODE, &st);
        const char *path = kinds[i % N_ELEMS(kinds)].target;
        bool ok = st == kinds[i % N_ELEMS(kinds)].status;
        if (ok && strcmp(path, "/big.bin") == 0)
            ok = x[i].n == SITE_BIG_LEN &&
                 memcmp(x[i].p, site.big, SITE_BIG_LEN) == 0;
        if (ok && strcmp(path, "/range.txt") == 0)
            ok = x[i].n == SITE_RANGE_LEN &&
                 memcmp(x[i].p, site.range, SITE_RANGE_LEN) == 0;
        if (x[i].p && site.secret &&
            memmem(x[i].p, x[i].n, site.secret, strlen(site.secret)))
            ok = false;
        if (!ok && bad < 0) {
            bad = i;
            bad_status = st;
        }
        curl_multi_remove_handle(m, e[i]);
        curl_easy_cleanup(e[i]);
        free(x[i].p);
    }
    curl_multi_cleanup(m);
    EXPECT(bad < 0, "concurrent transfer %d (%s) wrong: status %ld", bad,
           bad >= 0 ? kinds[bad % N_ELEMS(kinds)].target : "", bad_status);
    server_stop_clean(s);
}
END_TEST

static const struct http_tcase tcases[] = {
    {"log", .tests = {&log_combined, &log_json, &log_off_and_file,
                      &no_fd_growth, &dir_moved_out_between_requests,
                      &concurrent_clients, &stderr_quiet_on_bad_requests}},
};

Suite *http_log_suite(void)
{
    return http_suite_make("log", tcases, N_ELEMS(tcases));
}
