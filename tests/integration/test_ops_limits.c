/* SPDX-License-Identifier: MIT */
/*
 * test_ops_limits.c - the e2e_ops tcase "limits": connections over
 * --max-connections-per-ip and --max-connections are closed at accept,
 * slow (slowloris) and idle clients are timed out, and a waiting one is
 * parked in the front.
 */
#include "harness.h"
#include "test_ops.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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

/*
 * The inode of the server's socket of the connection whose client end is
 * @c, from the kernel's socket table by its exact addresses (sock_diag, as
 * ss(8) asks it), or 0. Not /proc/net/tcp: under a parallel run it holds
 * thousands of lines, and reading it took seconds (CI: a scan that ended
 * after the park saw the new descriptor both times).
 */
static unsigned long server_inode(const struct raw_conn *c)
{
    struct sockaddr_in me = {0}, peer = {0};
    socklen_t len = sizeof me, plen = sizeof peer;
    struct {
        struct nlmsghdr h;
        struct inet_diag_req_v2 r;
    } req = {
        .h = {.nlmsg_len = sizeof req,
              .nlmsg_type = SOCK_DIAG_BY_FAMILY,
              .nlmsg_flags = NLM_F_REQUEST},
        .r = {.sdiag_family = AF_INET,
              .sdiag_protocol = IPPROTO_TCP,
              .idiag_states = ~0U,
              .id.idiag_cookie = {INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE}},
    };
    union {
        struct nlmsghdr h;
        char b[8192];
    } ans;

    EXPECT(getsockname(c->fd, (struct sockaddr *)&me, &len) == 0 &&
               getpeername(c->fd, (struct sockaddr *)&peer, &plen) == 0,
           "the client's addresses: %s", strerror(errno));
    /* the server's end: local is the client's peer, remote the client */
    req.r.id.idiag_sport = peer.sin_port;
    req.r.id.idiag_dport = me.sin_port;
    req.r.id.idiag_src[0] = peer.sin_addr.s_addr;
    req.r.id.idiag_dst[0] = me.sin_addr.s_addr;
    int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    EXPECT(nl >= 0, "netlink socket: %s", strerror(errno));
    EXPECT(send(nl, &req, sizeof req, 0) == (ssize_t)sizeof req,
           "sock_diag request: %s", strerror(errno));
    ssize_t n = recv(nl, &ans, sizeof ans, 0);
    close(nl);
    EXPECT(n >= (ssize_t)sizeof ans.h, "sock_diag answer: %s",
           n < 0 ? strerror(errno) : "short");
    if (!NLMSG_OK(&ans.h, n) || ans.h.nlmsg_type != SOCK_DIAG_BY_FAMILY ||
        ans.h.nlmsg_len < NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
        return 0; /* NLMSG_ERROR: no such socket */
    return ((const struct inet_diag_msg *)NLMSG_DATA(&ans.h))->idiag_inode;
}

/*
 * The descriptor the serving process @pid holds for the connection whose
 * client end is @c (the fd that names its socket's inode), or -1.
 */
static int server_fd_of(pid_t pid, const struct raw_conn *c)
{
    unsigned long inode = server_inode(c);

    if (!inode)
        return -1;
    char *link = hfmt("socket:[%lu]", inode);
    /* the descriptors open, not every number: one pass is short, so it
     * seldom crosses the move from libmicrohttpd's descriptor to the
     * front's (a pass that does finds neither, and is made again) */
    DIR *d = opendir(hfmt("/proc/%d/fd", (int)pid));
    int found = -1;
    EXPECT(d, "opendir /proc/%d/fd: %s", (int)pid, strerror(errno));
    for (struct dirent *e; found < 0 && (e = readdir(d));) {
        char got[64];
        ssize_t n = readlinkat(dirfd(d), e->d_name, got, sizeof got - 1);
        if (n > 0) {
            got[n] = '\0';
            if (strcmp(got, link) == 0)
                found = (int)strtol(e->d_name, NULL, 10);
        }
    }
    closedir(d);
    return found;
}

/*
 * A connection kept open after one GET, and the descriptor libmicrohttpd
 * holds it on, seen before it can have been parked: a second after the
 * request was sent at the soonest (libmicrohttpd's last activity on it is
 * later). A test process the machine starves past that (CI: for 5 s) sees
 * nothing sure; it tries again on a new connection, up to 5 times.
 */
static struct raw_conn *held_unparked(const struct server *s, pid_t pid,
                                      int *fd)
{
    long long took = 0;

    for (int i = 0; i < 5; i++) {
        struct raw_conn *c = raw_open(s->port);
        long long t_send = now_ms();
        raw_send_str(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        struct http_response *r = raw_read(c, false, 5000);
        EXPECT_STATUS(r, 200, "a held connection's first request");
        EXPECT(!r->closed, "the held connection was closed (no keep-alive)");
        *fd = server_fd_of(pid, c);
        took = now_ms() - t_send;
        if (took < 900) {
            EXPECT(*fd >= 0,
                   "no descriptor of the server holds the connection");
            return c;
        }
        raw_close(c);
    }
    ck_abort_msg("5 times the request, its reply and a look at the server's "
                 "descriptors took 900 ms or more (the last %lld ms): the "
                 "machine starves this test",
                 took);
    return NULL;
}

/* beneath_parked_connections from @s's --metrics-listen, or -1. */
static long parked_gauge(const struct server *s)
{
    const char *needle = "beneath: metrics on http://127.0.0.1:";
    const char *p = strstr(server_stderr(s), needle);
    const char *series = "\nbeneath_parked_connections ";

    EXPECT(p != NULL, "no metrics line:\n%s", server_stderr(s));
    unsigned port = (unsigned)strtoul(p + strlen(needle), NULL, 10);
    struct http_response *r = raw_get(port, "/metrics");
    EXPECT(r->status == 200 && r->body, "GET /metrics: status %d", r->status);
    const char *v = strstr(r->body, series);
    return v ? strtol(v + strlen(series), NULL, 10) : -1;
}

/* Wait up to 5 s for the gauge to read @want; what it read last. */
static long parked_gauge_wait(const struct server *s, long want)
{
    long got = parked_gauge(s);
    for (long long end = now_ms() + 5000; got != want && now_ms() < end;) {
        sleep_ms(50);
        got = parked_gauge(s);
    }
    return got;
}

/*
 * A keep-alive connection that waits for its next request is parked:
 * after a second of silence libmicrohttpd lets it go (its pool freed) and
 * the front keeps the socket, on a descriptor of its own (so the number
 * changes); its next request is answered on the same TCP connection, and
 * --timeout after the last reply it is closed, not sooner. The metrics
 * count it parked (beneath_parked_connections) while it is, and not after.
 */
START_TEST(limit_waiting_parked)
{
    char *w = tree_site("PARK\n");
    /* parked after 1 s, closed after --timeout: a wide window, so that a
     * test process the machine starves for seconds still looks inside it */
    struct server *s = server_start(w, "--timeout", "8", "--metrics-listen",
                                    "127.0.0.1:0", NULL);
    pid_t pid = server_serving_pid(s);
    int before;
    struct raw_conn *c = held_unparked(s, pid, &before);
    long long t_held = now_ms();

    /* looked for until 6.5 s later (a scan of the descriptors that
     * crosses the move finds neither: it is asked again) */
    int after = -1, scans = 0, missed = 0;
    sleep_ms(1000);
    while ((after < 0 || after == before) && now_ms() - t_held < 6500) {
        sleep_ms(100);
        after = server_fd_of(pid, c);
        scans++;
        missed += after < 0;
    }
    EXPECT(after >= 0 && after != before,
           "6.5 s after the reply the connection is on descriptor %d, as "
           "it was (%d): not parked (%d scans of the serving process's "
           "descriptors, %d found none; the client's end %s)",
           after, before, scans, missed,
           raw_wait_closed(c, 0) ? "is closed" : "is open");
    long g = parked_gauge_wait(s, 1);
    EXPECT(g == 1, "parked: beneath_parked_connections %ld, want 1", g);
    long long t_send = now_ms();
    EXPECT(raw_send_str(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n") == 0, "send");
    struct http_response *r = raw_read(c, false, 5000);
    EXPECT(r->status == 200 && r->body && strcmp(r->body, "PARK\n") == 0,
           "the parked connection's next request: status %d", r->status);
    /* --timeout counts from the reply's end, after the request was sent:
     * a close sooner than 8 s after the send is early; one that never
     * comes is the failure (how late a starved test sees it is not) */
    EXPECT(raw_wait_closed(c, 15000),
           "a parked connection stayed open 15 s with --timeout 8");
    long long waited = now_ms() - t_send;
    EXPECT(waited >= 7900,
           "a waiting connection closed %lld ms after its request was sent, "
           "sooner than --timeout (8 s)",
           waited);
    g = parked_gauge_wait(s, 0);
    EXPECT(g == 0, "closed: beneath_parked_connections %ld, want 0", g);
    raw_close(c);
    server_stop_clean(s);
}
END_TEST

static const struct check_tcase tcase = {
    "limits", .tests = {&limit_per_ip, &limit_total, &limit_slowloris,
                        &limit_idle_timeout, &limit_waiting_parked}};

Suite *ops_limits_suite(void)
{
    return ops_suite(&tcase);
}
