// SPDX-License-Identifier: MIT
/*
 * test_conn.c - what HTTP/1.1 and HTTP/2 share (server/transport/conn/):
 * the Host rule of a request's head, the request line and connection
 * into a struct request, a file body read with pread (a real file: whole,
 * at an offset, as a multipart body, cut short while read) and the Date of
 * this second.
 */
#include "check_main.h"
#include "http/arena.h"
#include "http/date.h"
#include "http/status.h"
#include "transport/conn/body.h"
#include "transport/conn/date_cache.h"
#include "transport/conn/intake.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the Host rule ------------------------------------------------------- */

static const struct {
    const char *hosts[3]; /* the Host field lines, in order */
    const char *authority;
    enum http_version version;
    unsigned want;
    const char *host; /* the Host the request then has */
} hosts[] = {
    {{"a.example"}, NULL, HTTP_VERSION_1_1, 0, "a.example"},
    {{NULL}, NULL, HTTP_VERSION_1_1, STATUS_BAD_REQUEST, NULL},
    {{NULL}, NULL, HTTP_VERSION_1_0, 0, NULL}, /* HTTP/1.0 needs none */
    {{"a.example", "a.example"},
     NULL,
     HTTP_VERSION_1_1,
     STATUS_BAD_REQUEST,
     NULL},
    {{"a.example", "b.example"},
     NULL,
     HTTP_VERSION_1_0,
     STATUS_BAD_REQUEST,
     NULL},
    /* HTTP/2: :authority is the Host; a Host beside it names the same */
    {{NULL}, "a.example", HTTP_VERSION_2, 0, "a.example"},
    {{"A.Example"}, "a.example", HTTP_VERSION_2, 0, "a.example"},
    {{"b.example"}, "a.example", HTTP_VERSION_2, STATUS_BAD_REQUEST, NULL},
    {{"a.example", "a.example"},
     "a.example",
     HTTP_VERSION_2,
     STATUS_BAD_REQUEST,
     NULL},
    {{"a.example"}, NULL, HTTP_VERSION_2, 0, "a.example"},
    {{NULL}, NULL, HTTP_VERSION_2, STATUS_BAD_REQUEST, NULL},
};

LOOP_TEST(host_case, hosts)
{
    struct request rq = {0};
    struct arena a = {0};

    rq.version = hosts[_i].version;
    for (size_t k = 0; k < N_ELEMS(hosts[_i].hosts) && hosts[_i].hosts[k]; k++)
        ck_assert_int_eq(request_add_field(&rq, &a, "Host", 4,
                                           hosts[_i].hosts[k],
                                           strlen(hosts[_i].hosts[k]), false),
                         0);
    ck_assert_uint_eq(intake_host(&rq, hosts[_i].authority), hosts[_i].want);
    if (hosts[_i].want == 0) {
        if (hosts[_i].host)
            ck_assert_str_eq(rq.field[RF_HOST], hosts[_i].host);
        else
            ck_assert_ptr_null(rq.field[RF_HOST]);
    }
    arena_free(&a);
}
END_TEST

/* The request line and the connection; a peer's length from its family. */
START_TEST(start_fills_the_request)
{
    struct sockaddr_in6 v6 = {.sin6_family = AF_INET6};
    struct sockaddr_in v4 = {.sin_family = AF_INET};
    struct request rq = {0};

    intake_start(&rq, &(struct intake){.method = "GET",
                                       .target = "/a%20b?x",
                                       .version = HTTP_VERSION_1_1,
                                       .version_name = "HTTP/1.1",
                                       .peer = (struct sockaddr *)&v6,
                                       .peer_text = "::1",
                                       .tls = true,
                                       .tls_version = "TLSv1.3"});
    ck_assert_int_eq(rq.method, HTTP_GET);
    ck_assert_str_eq(rq.method_name, "GET");
    ck_assert_str_eq(rq.target, "/a%20b?x");
    ck_assert_str_eq(rq.version_name, "HTTP/1.1");
    ck_assert_uint_eq(rq.peer_len, sizeof v6);
    ck_assert_str_eq(rq.peer_text, "::1");
    ck_assert(rq.tls);
    ck_assert_str_eq(rq.tls_version, "TLSv1.3");
    intake_start(&rq, &(struct intake){.method = NULL,
                                       .peer = (struct sockaddr *)&v4,
                                       .version = HTTP_VERSION_2});
    ck_assert_uint_eq(rq.peer_len, sizeof v4);
    ck_assert_int_ne(rq.method, HTTP_GET);
    intake_start(
        &rq, &(struct intake){.peer = (struct sockaddr *)&v4, .peer_len = 3});
    ck_assert_uint_eq(rq.peer_len, 3); /* given: kept */
    intake_start(&rq, &(struct intake){0});
    ck_assert_uint_eq(rq.peer_len, 0);
}
END_TEST

/* ---- the body ------------------------------------------------------------ */

static char path[] = "/tmp/test_conn.XXXXXX";
static int fd = -1;
static char text[100]; /* the file: a..z repeated */

static void file_setup(void)
{
    for (size_t i = 0; i < sizeof text; i++)
        text[i] = (char)('a' + i % 26);
    strcpy(path, "/tmp/test_conn.XXXXXX");
    fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, sizeof text), (ssize_t)sizeof text);
}

static void file_teardown(void)
{
    close(fd);
    unlink(path);
}

START_TEST(reads_at_offset)
{
    char buf[40];
    bool cut = false;

    ck_assert_int_eq(body_pread(fd, 10, NULL, 5, buf, 40, &cut), 40);
    ck_assert_int_eq(memcmp(buf, text + 15, 40), 0);
    ck_assert(!cut);
}
END_TEST

/* A multipart body read in steps of every size is the writer's body. */
START_TEST(reads_multipart)
{
    static const struct range_set set = {2, {{0, 10}, {95, 5}}};
    struct multipart m;
    char want[512], got[512];
    bool cut = false;
    size_t n = 0;

    ck_assert_int_eq(multipart_init(&m, &set, 100, "text/plain", "B"), 0);
    ck_assert_uint_lt(m.total, sizeof want);
    /* the writer's body, its file bytes copied from memory */
    while (n < m.total) {
        uint64_t off;
        size_t len,
            k = multipart_step(&m, n, want + n, m.total - n, &off, &len);

        if (!k) {
            memcpy(want + n, text + off, len);
            k = len;
        }
        n += k;
    }
    for (size_t step = 1; step <= m.total; step += 7) {
        size_t pos = 0;

        while (pos < m.total) {
            size_t ask = step < m.total - pos ? step : m.total - pos;
            ssize_t r = body_pread(fd, 0, &m, pos, got + pos, ask, &cut);

            ck_assert_int_eq(r, (ssize_t)ask);
            pos += (size_t)r;
        }
        ck_assert_int_eq(memcmp(got, want, m.total), 0);
    }
    /* asked past its end: what there is */
    ck_assert_int_eq(body_pread(fd, 0, &m, m.total - 3, got, 10, &cut), 3);
    ck_assert(!cut);
}
END_TEST

/* A file cut short while served: -1 and said so; a failed read: -1 only. */
START_TEST(short_file)
{
    char buf[100];
    bool cut = false;

    ck_assert_int_eq(ftruncate(fd, 50), 0);
    ck_assert_int_eq(body_pread(fd, 40, NULL, 0, buf, 20, &cut), -1);
    ck_assert(cut);
    cut = false;
    ck_assert_int_eq(body_pread(-1, 0, NULL, 0, buf, 20, &cut), -1);
    ck_assert(!cut);
}
END_TEST

/* ---- the Date ------------------------------------------------------------ */

START_TEST(date_of_the_second)
{
    char want[DATE_LEN];
    const char *a = date_cache_text(784111777);

    date_format(784111777, want);
    ck_assert_str_eq(a, want);
    ck_assert_str_eq(a, "Sun, 06 Nov 1994 08:49:37 GMT");
    ck_assert_ptr_eq(date_cache_text(784111777), a);
    ck_assert_str_eq(date_cache_text(784111778),
                     "Sun, 06 Nov 1994 08:49:38 GMT");
}
END_TEST

const struct check_main check_main = {
    .suite = "conn",
    .tcases = {{"intake", .loops = {LOOP(host_case)},
                .tests = {&start_fills_the_request}},
               {"body", file_setup, file_teardown,
                .tests = {&reads_at_offset, &reads_multipart, &short_file}},
               {"date", .tests = {&date_of_the_second}}}};
