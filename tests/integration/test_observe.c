// SPDX-License-Identifier: MIT
/*
 * test_observe.c - end-to-end tests of what operators read: the access log
 * (JSON fields checked with jq, templates, combined+duration, a bad
 * template refused at start, a FIFO log nobody reads) and the metrics on
 * --metrics-listen, scraped live and checked by Prometheus' own promtool.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *www;

static void test_setup(void)
{
    harness_test_setup();
    www = tree_site("hello\n");
    tree_write_str(www, "style.css", "body { color: red }\n");
    tree_write_str(www, "style.css.br", "BROTLI");
}

/* Run @cmd with sh (from a script file: no quoting), bounded; its exit
 * status (-1: did not exit). */
static int run(const char *cmd)
{
    char *dir = tree_new(), *script = tree_path(dir, "cmd.sh");

    tree_write_str(dir, "cmd.sh", cmd);
    int st = system(hfmt("timeout 30 sh %s", script));

    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The URL of --metrics-listen, from the start-up lines. */
static char *metrics_url(struct server *s)
{
    const char *needle = "beneath: metrics on ";
    const char *p = strstr(server_stderr(s), needle);

    EXPECT(p != NULL, "no metrics line:\n%s", server_stderr(s));
    p += strlen(needle);
    return hmem(p, strcspn(p, "\n"));
}

/* A scrape of @url into a file of the test's; its path. */
static char *scrape(const char *url)
{
    char *out = tree_path(tree_new(), "scrape.txt");

    EXPECT(run(hfmt("curl -sf -o %s %s", out, url)) == 0, "scrape %s", url);
    return out;
}

/* The value of the sample @series in the scrape file @path, or -1. */
static double sample(const char *path, const char *series)
{
    const char *text = tree_read(path, NULL);
    size_t len = strlen(series);

    for (const char *p = text; p && *p;) {
        if (strncmp(p, series, len) == 0 && p[len] == ' ')
            return strtod(p + len + 1, NULL);
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return -1;
}

/*
 * JSON lines: every line parses (jq), and a request carries the new
 * fields: time with milliseconds, duration_us, host (hostile bytes
 * escaped), client, tls, bytes, encoding of the sidecar served, vhost.
 */
START_TEST(json_fields)
{
    struct server *s = server_start(www, "--log-format", "json",
                                    "--precompressed", "br", NULL);
    struct http_response *r =
        raw_request(s->port,
                    "GET /style.css HTTP/1.1\r\nHost: mark-json\r\n"
                    "Accept-Encoding: br\r\n\r\n",
                    5000);
    EXPECT_STATUS(r, 200, "GET /style.css");
    raw_request(s->port,
                "GET /nothing HTTP/1.1\r\nHost: a\"b\\c\x01\xff\r\n\r\n", 5000);
    EXPECT(file_wait_for(s->out_path, "/nothing", 5000), "no line:\n%s",
           server_stdout(s));
    char *log = s->out_path;
    /* every line is JSON */
    EXPECT(run(hfmt("jq -e . %s >/dev/null", log)) == 0, "not JSON:\n%s",
           server_stdout(s));
    const char *checks[] = {
        "select(.host==\"mark-json\") | .time | "
        "test(\"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}"
        "\\\\.[0-9]{3}Z$\")",
        "select(.host==\"mark-json\") | .duration_us | type == \"number\"",
        ("select(.host==\"mark-json\") | .encoding == \"br\" and .bytes == 6 "
         "and .status == 200 and .client == \"127.0.0.1\" and .tls == null "
         "and .vhost == null and .user == null"),
        ("select(.target==\"/nothing\") | .status == 404 and .encoding == null "
         "and .errno == \"ENOENT\""),
    };
    for (size_t i = 0; i < N_ELEMS(checks); i++)
        EXPECT(run(hfmt("jq -e '%s' %s | grep -qx true", checks[i], log)) == 0,
               "jq %s failed on:\n%s", checks[i], server_stdout(s));
    /* the hostile Host is one string, escaped */
    EXPECT(strstr(server_stdout(s), "\"host\":\"a\\\"b\\\\c\\u0001\\u00ff\""),
           "hostile Host not escaped as expected:\n%s", server_stdout(s));
    server_stop_clean(s);
}
END_TEST

/* The vhost that answered, and the user of a Basic authentication. */
START_TEST(vhost_field)
{
    char *docs = tree_site("docs\n");
    struct server *s =
        server_start(www, "--log-format", "$vhost $host $status", "--vhost",
                     hfmt("*.docs.example=%s", docs), NULL);
    struct http_response *r = raw_request(
        s->port, "GET / HTTP/1.1\r\nHost: v1.docs.example\r\n\r\n", 5000);
    EXPECT_BODY(r, "docs\n", "GET / on the vhost");
    r = raw_request(s->port, "GET / HTTP/1.1\r\nHost: other\r\n\r\n", 5000);
    EXPECT_BODY(r, "hello\n", "GET / on the root");
    /* each line comes once its reply is over: wait for both */
    EXPECT(file_wait_for(s->out_path, "- other 200\n", 5000), "root line:\n%s",
           server_stdout(s));
    EXPECT(file_wait_for(s->out_path, "*.docs.example v1.docs.example 200\n",
                         5000),
           "vhost line:\n%s", server_stdout(s));
    server_stop_clean(s);
}
END_TEST

/* A template and combined+duration, as documented: the line a GET gets. */
START_TEST(template_and_duration)
{
    static const struct {
        const char *format, *target, *wait, *grep;
    } cases[] = {
        {"$client \"$request\" $status $bytes $duration_us host=$host",
         "/index.html?t=1", "host=127",
         "-Eqx '127\\.0\\.0\\.1 \"GET /index\\.html\\?t=1 HTTP/1\\.1\" 200 6 "
         "[0-9]+ host=127\\.0\\.0\\.1'"},
        {"combined+duration", "/index.html", "duration_us=",
         "-Eq '\" 200 6 \"-\" \"-\" resolver=[a-z]+ duration_us=[0-9]+$'"},
    };
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        struct server *s =
            server_start(www, "--log-format", cases[i].format, NULL);
        expect_get(s, cases[i].target, 200, "GET /index.html");
        EXPECT(file_wait_for(s->out_path, cases[i].wait, 5000),
               "%s: no line:\n%s", cases[i].format, server_stdout(s));
        EXPECT(run(hfmt("grep %s %s", cases[i].grep, s->out_path)) == 0,
               "%s: line:\n%s", cases[i].format, server_stdout(s));
        server_stop_clean(s);
    }
}
END_TEST

/* A template with a typo is refused before anything starts, saying why. */
START_TEST(bad_template_refused)
{
    const char *args[] = {"--log-format",
                          "$client $stauts",
                          "--listen",
                          "127.0.0.1:0",
                          www,
                          NULL};
    char *out, *err;
    int st = beneath_run(args, NULL, 10000, &out, &err);

    EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 2, "status %s", wstatus_str(st));
    EXPECT(strstr(err, "log-format: unknown log field '$stauts'"), "stderr: %s",
           err);
}
END_TEST

/*
 * --metrics-listen: the metrics on their own port (only /metrics), not on
 * the site's; promtool accepts the live scrape and refuses a broken one.
 */
START_TEST(metrics_listen_promtool)
{
    struct server *s =
        server_start(www, "--metrics-listen", "127.0.0.1:0", NULL);
    char *url = metrics_url(s);

    for (int i = 0; i < 5; i++)
        expect_get(s, "/index.html", 200, "GET");
    expect_get(s, "/missing", 404, "GET /missing");
    expect_get(s, "/metrics", 404, "site /metrics");
    char *file = scrape(url);
    EXPECT(run(hfmt("promtool check metrics < %s >&2", file)) == 0,
           "promtool refused the scrape (its messages above)");
    const char *b = harness_backend();
    EXPECT(sample(file, hfmt("beneath_http_request_duration_seconds_count{"
                             "class=\"2xx\",backend=\"%s\"}",
                             b)) == 5,
           "2xx count");
    EXPECT(sample(file, hfmt("beneath_http_request_duration_seconds_count{"
                             "class=\"4xx\",backend=\"%s\"}",
                             b)) == 2,
           "4xx count");
    EXPECT(sample(file, "beneath_http_refusals_total{errno=\"ENOENT\"}") == 2,
           "refusals");
    EXPECT(sample(file, "beneath_open_connections") >= 0, "connections");
    EXPECT(sample(file, "beneath_cache_requests_total{cache=\"etag\","
                        "result=\"miss\"}") >= 1,
           "etag cache");
    /* a broken exposition fails the same check */
    EXPECT(run(hfmt("(cat %s; echo \"beneath_bad{x=} 1\") | promtool check "
                    "metrics",
                    file)) != 0,
           "promtool accepted a broken exposition");
    /* the metrics port serves only /metrics */
    char *other = hfmt("%.*s/index.html", (int)(strlen(url) - 8), url);
    EXPECT(run(hfmt("test \"$(curl -s -o /dev/null -w %%{http_code} %s)\" = "
                    "404",
                    other)) == 0,
           "%s is not 404", other);
    server_stop_clean(s);
}
END_TEST

/* HTTPS: the log names the TLS version; handshakes counted, failed too. */
START_TEST(tls_version_and_handshakes)
{
    struct server *s =
        server_start(www, "--listen", "https://127.0.0.1:0",
                     "--tls-self-signed", "--log-format", "$tls $status",
                     "--metrics-listen", "127.0.0.1:0", NULL);
    unsigned port = server_https_port(s);

    EXPECT(run(hfmt("curl -skf -o /dev/null https://127.0.0.1:%u/", port)) == 0,
           "curl https");
    /* plain HTTP on the HTTPS port: no handshake */
    struct raw_conn *c = raw_open(port);
    EXPECT(raw_send_str(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n") == 0, "send");
    raw_wait_closed(c, 3000);
    raw_close(c);
    EXPECT(file_wait_for(s->out_path, "TLS1.3 200", 5000) ||
               file_wait_for(s->out_path, "TLS1.2 200", 100),
           "no TLS version:\n%s", server_stdout(s));
    char *url = metrics_url(s);
    double ok = 0, failed = 0;
    for (int i = 0; i < 50 && (ok < 1 || failed < 1); i++) {
        char *file = scrape(url);
        ok = sample(file, "beneath_tls_handshakes_total{result=\"ok\"}");
        failed =
            sample(file, "beneath_tls_handshakes_total{result=\"failed\"}");
        usleep(100 * 1000);
    }
    EXPECT(ok == 1 && failed == 1, "handshakes ok %g failed %g", ok, failed);
    server_stop_clean(s);
}
END_TEST

/* The size of big.bin: a 36 MB download, as a user's report had it. */
#define BIG_SIZE 36567483
/* What the client reads of it before closing, and its receive buffer. */
#define CUT_AT 1000000
#define CLIENT_RCVBUF (128 * 1024)

struct download {
    size_t got, stop; /* stop: 0, read it all */
};

static size_t download_write(char *data, size_t size, size_t nmemb, void *arg)
{
    struct download *d = arg;

    (void)data;
    d->got += size * nmemb;
    /* 0: libcurl fails the transfer and closes the connection */
    return d->stop && d->got >= d->stop ? 0 : size * nmemb;
}

/* A small receive buffer, so that what waits in the client's is bounded. */
static int small_rcvbuf(void *arg, curl_socket_t fd, curlsocktype purpose)
{
    int n = CLIENT_RCVBUF;

    (void)arg;
    (void)purpose;
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &n, sizeof n);
    return CURL_SOCKOPT_OK;
}

/* The most a socket's send buffer grows to (tcp_wmem's third value). */
static double tcp_wmem_max(void)
{
    const char *t = tree_read("/proc/sys/net/ipv4/tcp_wmem", NULL);
    double a = 0, b = 0, c = 4194304;

    // NOLINTNEXTLINE(cert-err34-c): a kernel file, its three numbers
    (void)sscanf(t, "%lf %lf %lf", &a, &b, &c);
    return c;
}

/*
 * big.bin (BIG_SIZE bytes, sparse) in the site, and a server on it with
 * an https:// listener (its port in *@tls) beside the plain one, JSON
 * lines, and @opt @val.
 */
static struct server *big_server(const char *opt, const char *val,
                                 unsigned *tls)
{
    char *big = tree_path(www, "big.bin");
    int fd = open(big, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

    EXPECT(fd >= 0 && ftruncate(fd, BIG_SIZE) == 0, "make big.bin");
    close(fd);
    struct server *s = server_start(www, "--listen", "https://127.0.0.1:0",
                                    "--tls-self-signed", "--log-format", "json",
                                    opt, val, NULL);
    *tls = server_https_port(s);
    return s;
}

/*
 * Bytes and time actually sent: a client reads 1 MB of a 36 MB file and
 * closes, over HTTP/1.1, HTTPS, h2 and h2c. Each line says what went: at
 * least the 1 MB read, at most that plus what the buffers between could
 * hold (the server's socket send buffer, the client's receive buffer,
 * made small, and theirs), far below 36 MB; and that the reply was cut
 * short. A whole download says all 36 MB, not cut short. The sent-bytes
 * metric is the sum of the lines' bytes.
 */
START_TEST(aborted_downloads)
{
    unsigned tls;
    struct server *s = big_server("--metrics-listen", "127.0.0.1:0", &tls);
    /* read, the server's send buffer, the client's receive buffer (the
       kernel doubles it), and 1 MB for the client's and server's own (TLS
       records, HTTP/2 frames) */
    double most = CUT_AT + tcp_wmem_max() + 2.0 * CLIENT_RCVBUF + 1e6;
    static const struct {
        const char *mark, *scheme;
        long version;
        bool whole;
    } cases[] = {
        {"h1cut", "http", CURL_HTTP_VERSION_1_1, false},
        {"tlscut", "https", CURL_HTTP_VERSION_1_1, false},
        {"h2cut", "https", CURL_HTTP_VERSION_2TLS, false},
        {"h2ccut", "http", CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE, false},
        {"h1whole", "http", CURL_HTTP_VERSION_1_1, true},
        {"tlswhole", "https", CURL_HTTP_VERSION_1_1, true},
        {"h2whole", "https", CURL_HTTP_VERSION_2TLS, true},
    };
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        unsigned port = cases[i].scheme[4] == 's' ? tls : s->port;
        struct download d = {.stop = cases[i].whole ? 0 : CUT_AT};
        CURL *e = curl_easy_init();
        EXPECT(e, "curl_easy_init");
        curl_easy_setopt(e, CURLOPT_URL,
                         hfmt("%s://127.0.0.1:%u/big.bin?m=%s", cases[i].scheme,
                              port, cases[i].mark));
        curl_easy_setopt(e, CURLOPT_HTTP_VERSION, cases[i].version);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
        curl_easy_setopt(e, CURLOPT_SOCKOPTFUNCTION, small_rcvbuf);
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, download_write);
        curl_easy_setopt(e, CURLOPT_WRITEDATA, &d);
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 30000L);
        CURLcode rc = curl_easy_perform(e);
        curl_easy_cleanup(e); /* the connection closes here */
        EXPECT(rc == (cases[i].whole ? CURLE_OK : CURLE_WRITE_ERROR),
               "%s: %s after %zu bytes", cases[i].mark, curl_easy_strerror(rc),
               d.got);
        EXPECT(file_wait_for(s->out_path, hfmt("m=%s", cases[i].mark), 5000),
               "no line for %s:\n%s", cases[i].mark, server_stdout(s));
        const char *want =
            cases[i].whole
                ? hfmt(".bytes == %d and .aborted == false", BIG_SIZE)
                : hfmt(".bytes >= %d and .bytes <= %.0f and .aborted == true",
                       CUT_AT, most);
        EXPECT(run(hfmt("jq -e 'select(.target == \"/big.bin?m=%s\") | "
                        ".status == 200 and .duration_us > 0 and %s' %s | "
                        "grep -qx true",
                        cases[i].mark, want, s->out_path)) == 0,
               "%s: not %s:\n%s", cases[i].mark, want, server_stdout(s));
    }
    /* the metric counts the same bytes as the lines */
    char *sum = tree_path(tree_new(), "sum");
    EXPECT(run(hfmt("jq -s 'map(.bytes) | add' %s > %s", s->out_path, sum)) ==
               0,
           "jq sum");
    double lines = strtod(tree_read(sum, NULL), NULL);
    char *file = scrape(metrics_url(s));
    EXPECT(sample(file, "beneath_http_sent_bytes_total") == lines,
           "beneath_http_sent_bytes_total is not the lines' %.0f bytes:\n%s",
           lines, tree_read(file, NULL));
    server_stop_clean(s);
}
END_TEST

/*
 * A stop loses no line: downloads under way when SIGTERM comes (a slow
 * reader over HTTP/1.1, HTTPS and h2) are cut at --shutdown-timeout, and
 * each gets its line, cut short, with the bytes that went, before the log
 * closes.
 */
START_TEST(stop_logs_cut_replies)
{
    unsigned tls;
    struct server *s = big_server("--shutdown-timeout", "1", &tls);
    static const struct {
        const char *mark, *curl, *scheme;
    } slow[] = {
        {"stoph1", "--http1.1", "http"},
        {"stoptls", "--http1.1", "https"},
        {"stoph2", "--http2", "https"},
    };
    /* slow readers in the background, bounded; they end with the server */
    for (size_t i = 0; i < N_ELEMS(slow); i++)
        EXPECT(run(hfmt("timeout 20 curl -sk %s --limit-rate 200k "
                        "%s://127.0.0.1:%u/big.bin?m=%s -o /dev/null "
                        ">/dev/null 2>&1 &",
                        slow[i].curl, slow[i].scheme,
                        slow[i].scheme[4] == 's' ? tls : s->port,
                        slow[i].mark)) == 0,
               "start %s", slow[i].mark);
    sleep_ms(1500);
    int ws = server_stop(s, 20000);
    EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "stop: %s", wstatus_str(ws));
    for (size_t i = 0; i < N_ELEMS(slow); i++)
        EXPECT(run(hfmt("jq -e 'select(.target == \"/big.bin?m=%s\") | "
                        ".aborted == true and .bytes > 0 and .bytes < %d' "
                        "%s | grep -qx true",
                        slow[i].mark, BIG_SIZE, s->out_path)) == 0,
               "no line cut short for %s after the stop:\n%s", slow[i].mark,
               server_stdout(s));
}
END_TEST

/*
 * An access log that is a FIFO nobody reads: requests are still answered
 * promptly (the log drops, never the worker waits), the drops show in the
 * metrics, and SIGTERM still stops the server in bounded time.
 */
START_TEST(fifo_nobody_reads)
{
    char *dir = tree_new();
    char *fifo = tree_path(dir, "log.fifo");
    EXPECT(mkfifo(fifo, 0600) == 0, "mkfifo: %s", strerror(errno));
    int rd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* never read */
    EXPECT(rd >= 0, "open fifo");
    struct server *s = server_start(www, "--access-log", fifo,
                                    "--metrics-listen", "127.0.0.1:0", NULL);
    char *url = metrics_url(s);
    char *path = hfmt("/%s", hfill(900, 'q'));
    struct raw_conn *c = raw_open(s->port);
    struct timespec t0, t1;
    double worst = 0;
    for (int i = 0; i < 1500; i++) {
        clock_gettime(CLOCK_MONOTONIC, &t0);
        EXPECT(raw_send_str(
                   c, hfmt("GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path)) == 0,
               "send %d", i);
        struct http_response *r = raw_read(c, false, 5000);
        EXPECT(r->status == 404, "request %d: status %d", i, r->status);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
                    (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        if (ms > worst)
            worst = ms;
    }
    raw_close(c);
    /* a bound on waiting, not a speed figure: a blocked worker waits for
     * ever (the 5 s read bound above), one that drops does not */
    EXPECT(worst < 2000, "a request took %.0f ms", worst);
    char *file = scrape(url);
    EXPECT(sample(file, "beneath_access_log_dropped_total") > 0,
           "no drops counted");
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    int ws = server_stop(s, 20000);
    clock_gettime(CLOCK_MONOTONIC, &b);
    EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "stop: %s", wstatus_str(ws));
    EXPECT(b.tv_sec - a.tv_sec < 10, "stop took %lld s",
           (long long)(b.tv_sec - a.tv_sec));
    EXPECT(strstr(server_stderr(s), "lines dropped in all"),
           "no drop total on stderr:\n%s", server_stderr(s));
    close(rd);
}
END_TEST

const struct check_main check_main = {
    .suite = "observe",
    .fixture = {.setup = test_setup,
                .teardown = harness_test_teardown,
                .unchecked_setup = harness_suite_setup,
                .unchecked_teardown = harness_suite_teardown,
                .timeout = 120},
    .tcases = {
        {"log", .tests = {&json_fields, &vhost_field, &template_and_duration,
                          &bad_template_refused, &fifo_nobody_reads,
                          &aborted_downloads, &stop_logs_cut_replies}},
        {"metrics",
         .tests = {&metrics_listen_promtool, &tls_version_and_handshakes}}}};
