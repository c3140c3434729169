/* SPDX-License-Identifier: MIT */
/*
 * test_ops_limits.c - the e2e_ops tcase "limits": connections over
 * --max-connections-per-ip and --max-connections are closed at accept, and
 * slow (slowloris) and idle clients are timed out.
 */
#include "harness.h"
#include "test_ops.h"

#include <errno.h>
#include <string.h>

/* ===== limits ============================================================ */

/* The over-limit connection is accepted and closed without an answer. */
static void expect_refused(const struct server *s, const char *what)
{
    struct raw_conn *c = raw_connect(s->port);
    EXPECT(c != NULL, "%s: connect: %s", what, strerror(errno));
    raw_send_str(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    struct http_response *r = raw_read(c, false, 5000);
    EXPECT(r->status == 0,
           "%s: the connection over the limit got status %d (error %s)", what,
           r->status, r->error ? strerror(r->error) : "none");
    EXPECT(r->error != ETIMEDOUT,
           "%s: the connection over the limit was neither answered nor "
           "closed within 5 s",
           what);
    raw_close(c);
}

/* After freeing a slot, a new connection is served (within a bound). */
static void expect_served_again(const struct server *s, const char *what)
{
    long long deadline = now_ms() + 5000;
    for (;;) {
        struct raw_conn *c = raw_connect(s->port);
        if (c) {
            raw_send_str(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
            struct http_response *r = raw_read(c, false, 2000);
            raw_close(c);
            if (r->status == 200)
                return;
        }
        EXPECT(now_ms() < deadline,
               "%s: no connection served within 5 s after one closed", what);
        sleep_ms(100);
    }
}

/*
 * The N+1th concurrent connection is closed at accept, as the README says
 * ("excess connections are closed at accept"). Left unanswered in the
 * listen backlog is not enough: the client hangs.
 */
static void limit_case(const char *flag)
{
    char *w = tree_site("L\n");
    /* one worker: MHD splits the total limit across pool threads */
    struct server *s = server_start(w, flag, "2", "--threads", "1", NULL);
    struct raw_conn *a = raw_held(s);
    struct raw_conn *b = raw_held(s);
    expect_refused(s, flag);
    raw_close(a);
    expect_served_again(s, flag);
    raw_close(b);
    server_stop_clean(s);
}

START_TEST(limit_per_ip)
{
    limit_case("--max-connections-per-ip");
}
END_TEST

START_TEST(limit_total)
{
    limit_case("--max-connections");
}
END_TEST

START_TEST(limit_slowloris)
{
    /* Headers one byte at a time, faster than the inactivity timeout (30 s)
     * but never finishing: the header timeout (2 s) must close them all
     * within a generous bound, while other clients are served meanwhile.
     * MHD 0.9.75's inactivity timeout alone never fires here. */
    char *w = tree_site("FAST\n");
    struct server *s = server_start(w, "--header-timeout", "2", "--timeout",
                                    "30", "--threads", "2", NULL);
    struct raw_conn *slow[4];
    bool closed[4] = {0};
    for (size_t i = 0; i < N_ELEMS(slow); i++) {
        slow[i] = raw_open(s->port);
        raw_send_str(slow[i], "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ");
    }
    long long start = now_ms(), deadline = start + 15000;
    bool served = false;
    size_t n_closed = 0;
    while (n_closed < N_ELEMS(slow)) {
        EXPECT(now_ms() < deadline,
               "slowloris: %zu of %zu trickling connections still open after "
               "15 s with --header-timeout 2",
               N_ELEMS(slow) - n_closed, N_ELEMS(slow));
        for (size_t i = 0; i < N_ELEMS(slow); i++) {
            if (closed[i])
                continue;
            if (raw_send_str(slow[i], "a") != 0 ||
                raw_wait_closed(slow[i], 1)) {
                closed[i] = true;
                n_closed++;
            }
        }
        if (!served) {
            expect_get_body(s, "/", "FAST\n",
                            "a normal client during the slowloris");
            served = true;
        }
        sleep_ms(250);
    }
    EXPECT(served, "no normal request made");
    expect_get(s, "/", 200, "after the slowloris");
    server_stop_clean(s);
}
END_TEST

START_TEST(limit_idle_timeout)
{
    char *w = tree_site("IDLE\n");
    struct server *s = server_start(w, "--timeout", "1", NULL);
    struct raw_conn *idle = raw_open(s->port);
    struct raw_conn *kept = raw_held(s);
    EXPECT(raw_wait_closed(idle, 10000),
           "an idle connection (nothing sent) stayed open 10 s with "
           "--timeout 1");
    EXPECT(raw_wait_closed(kept, 10000),
           "an idle keep-alive connection stayed open 10 s with --timeout 1");
    server_stop_clean(s);
}
END_TEST

static const struct check_tcase tcase = {
    "limits", .tests = {&limit_per_ip, &limit_total, &limit_slowloris,
                        &limit_idle_timeout}};

Suite *ops_limits_suite(void)
{
    return ops_suite(&tcase);
}
