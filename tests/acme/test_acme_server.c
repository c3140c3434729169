/* SPDX-License-Identifier: MIT */
/*
 * test_acme_server.c - the real beneath binary gets its certificates from
 * a real Pebble on 127.0.0.1 (tests/acme/pebble.h): HTTP-01 answered by
 * respond() ahead of an --auth rule over the whole site, TLS-ALPN-01 by
 * the TLS front's challenge hook; openssl s_client -servername then
 * verifies the served chain against Pebble's root. The manager runs in the
 * keeper (server/process/keeper.h) while the serving process stays under
 * --sandbox strict (or on); with --sandbox off it is a thread of the one
 * process. Plain HTTP is redirected to https:// by default with --acme,
 * the challenge path excepted. Also: before the first certificate a
 * handshake for the name fails cleanly while plain HTTP serves (with
 * --https-redirect off), a restart serves the stored
 * certificate with Pebble gone (one process, --sandbox off), and an
 * --acme-dir that cannot be written ends the start before anything
 * listens, with exit status 2 and the reason. --acme-on-demand: the first
 * handshake naming a site of --sites waits for the certificate it causes
 * and verifies; a name no site has orders nothing (nor do 50 of them), and
 * past ACME_ONDEMAND_BURST names the orders are spaced out.
 */
#include "check_main.h"
#include "fixture.h"
#include "pebble.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Seconds an issuance may take here (validation, finalize, polls). */
#define ISSUANCE_SECONDS 60

/* "user:pw", SHA-512-crypt (openssl passwd -6 -salt beneath pw) */
#define HTPASSWD_LINE                                                          \
    "user:$6$beneath$gajy9LxUjjsRaYByzk8i8/5BEZsRh2WuTjMDBB4hKIZyu."           \
    "n94geuOk8/Ui2FyuqpwOuaDcv3fi.UuypirGw.X0\n"

static struct pebble pb;
static char auth_rule[320];

static void setup(void)
{
    FILE *f;
    char path[256];

    fixture_dir_setup();
    pebble_setup(&pb);
    snprintf(path, sizeof path, "%s/users", pb.dir);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(HTPASSWD_LINE, f);
    fclose(f);
    /* every path needs a password: the challenge must pass anyway */
    snprintf(auth_rule, sizeof auth_rule, "/**=%s", path);
}

static void teardown(void)
{
    pebble_teardown(&pb);
    fixture_dir_teardown();
}

/* curl's output for @url (with @opts) into @out; its exit status. */
static int fetch(const char *opts, const char *url, char *out, size_t size)
{
    char cmd[768];
    FILE *f;
    size_t n;

    snprintf(cmd, sizeof cmd, "timeout 10 curl -s %s '%s' 2>&1", opts, url);
    f = popen(cmd, "r");
    ck_assert_ptr_nonnull(f);
    n = fread(out, 1, size - 1, f);
    out[n] = '\0';
    return pclose(f);
}

START_TEST(http01_real_server)
{
    struct agent_proc b;
    const char *args[] = {
        "--acme",  "a.test,b.test", "--acme-challenge", "http-01",   "--auth",
        auth_rule, "--metrics",     "/metrics",         "--sandbox", "strict",
        NULL};
    char url[128], body[16384];

    pebble_start(&pb, NULL);
    beneath_start(&pb, &b, "http01", args);
    EXPECT_LINE(&b, "beneath: keeper: pid", 10);
    EXPECT_LINE(&b, "sandbox: landlock", 10);
    EXPECT_LINE(&b, "acme: a.test: certificate issued", ISSUANCE_SECONDS);
    ck_assert_msg(tls_verifies(&pb, pb.root, "a.test"), "%s", agent_output(&b));
    ck_assert(tls_verifies(&pb, pb.root, "b.test"));
    ck_assert(!tls_verifies(&pb, pb.api_cert, "a.test"));
    /* the CA's fetches passed the --auth rule; a stranger's path did not */
    ck_assert_msg(agent_count(&b, "GET /.well-known/acme-challenge/") >= 2,
                  "%s", agent_output(&b));
    /* with --acme and an https:// listener, plain HTTP is redirected
     * (--https-redirect auto), the challenge path excepted: the CA's
     * fetches above came over HTTP */
    snprintf(url, sizeof url, "http://127.0.0.1:%d/x?y", pb.http_port);
    fetch("-o /dev/null -w '%{http_code} %{redirect_url}'", url, body,
          sizeof body);
    char want[128];
    snprintf(want, sizeof want, "308 https://127.0.0.1:%d/x?y", pb.tls_port);
    ck_assert_str_eq(body, want);
    char opts[128];
    snprintf(opts, sizeof opts,
             "-o /dev/null -w '%%{http_code}' -k --resolve a.test:%d:127.0.0.1",
             pb.tls_port);
    snprintf(url, sizeof url, "https://a.test:%d/", pb.tls_port);
    fetch(opts, url, body, sizeof body);
    ck_assert_str_eq(body, "401");
    snprintf(opts, sizeof opts, "-u user:pw -k --resolve a.test:%d:127.0.0.1",
             pb.tls_port);
    snprintf(url, sizeof url, "https://a.test:%d/metrics", pb.tls_port);
    fetch(opts, url, body, sizeof body);
    ck_assert_msg(strstr(body, "beneath_tls_certificate_expiry_seconds{name="
                               "\"a.test\"} "),
                  "%s", body);
    ck_assert_int_eq(agent_stop(&b), 0);

    /* a restart serves the stored certificate without the CA (one
     * process: the manager a thread of the server) */
    pebble_stop(&pb);
    args[9] = "off";
    beneath_start(&pb, &b, "restart", args);
    EXPECT_LINE(&b, "acme: a.test: certificate from --acme-dir", 10);
    EXPECT_LINE(&b, "listening on", 10);
    ck_assert(tls_verifies(&pb, pb.root, "b.test"));
    ck_assert_int_eq(agent_stop(&b), 0);
}
END_TEST

START_TEST(tlsalpn01_real_server)
{
    struct agent_proc b;
    const char *args[] = {"--acme", "c.test", "--acme-challenge", "tls-alpn-01",
                          NULL};

    pebble_start(&pb, NULL);
    beneath_start(&pb, &b, "tlsalpn01", args);
    EXPECT_LINE(&b, "beneath: keeper: pid", 10);
    EXPECT_LINE(&b, "sandbox: landlock", 10);
    EXPECT_LINE(&b, "acme: c.test: certificate issued", ISSUANCE_SECONDS);
    ck_assert_msg(tls_verifies(&pb, pb.root, "c.test"), "%s", agent_output(&b));
    ck_assert_int_eq(agent_count(&b, "acme-challenge"), 0);
    ck_assert_int_eq(agent_stop(&b), 0);
}
END_TEST

/* No CA reachable: no certificate yet, HTTPS for the name fails, HTTP serves */
START_TEST(before_first_certificate)
{
    struct agent_proc b;
    /* plain HTTP serves, not redirected to an HTTPS that has no
     * certificate yet */
    const char *args[] = {"--acme", "d.test", "--https-redirect", "off", NULL};
    char url[128], body[4096], path[256];
    FILE *f;

    /* Pebble is not started: its directory URL refuses connections */
    snprintf(path, sizeof path, "%s/www/index.html", pb.dir);
    beneath_start(&pb, &b, "nocert", args);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("plain\n", f);
    fclose(f);
    EXPECT_LINE(&b, "attempt 1 failed; no certificate yet", 20);
    /* (no root yet: any CA file will do, the handshake fails first) */
    ck_assert(!tls_verifies(&pb, pb.api_cert, "d.test"));
    snprintf(path, sizeof path, "%s/s_client.out", pb.dir);
    f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(body, 1, sizeof body - 1, f);
    body[n] = '\0';
    fclose(f);
    ck_assert_msg(strstr(body, "handshake failure"), "%s", body);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", pb.http_port);
    ck_assert_int_eq(fetch("", url, body, sizeof body), 0);
    ck_assert_str_eq(body, "plain\n");
    ck_assert_int_eq(agent_stop(&b), 0);
}
END_TEST

/* @cmd's output into @out (bounded), its exit status (-1: no exit). */
static int run_out(const char *cmd, char *out, size_t size)
{
    FILE *f = popen(cmd, "r");
    size_t n;
    int st;

    ck_assert_ptr_nonnull(f);
    n = fread(out, 1, size - 1, f);
    out[n] = '\0';
    st = pclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* --acme-dir under a file, or on a read-only mount (in a mount namespace
 * of its own, where this may mount): refused before listening, exit 2. */
START_TEST(acme_dir_unwritable)
{
    const char *bin = getenv("BENEATH_BIN");
    char cmd[1536], out[4096], file[256], ro[256];
    FILE *f;
    int st;

    snprintf(file, sizeof file, "%s/plain-file", pb.dir);
    f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "timeout 10 %s --listen 127.0.0.1:0 --acme a.test --acme-dir "
             "%s/acme %s 2>&1",
             bin ? bin : "beneath", file, pb.dir);
    st = run_out(cmd, out, sizeof out);
    ck_assert_msg(st == 2 && strstr(out, "/plain-file/acme: Not a directory") &&
                      !strstr(out, "listening on"),
                  "exit %d: %s", st, out);

    snprintf(ro, sizeof ro, "%s/ro", pb.dir);
    ck_assert_int_eq(mkdir(ro, 0755), 0);
    if (system("unshare -m true 2>/dev/null") != 0) {
        fprintf(stderr, "acme_dir_unwritable: no mount namespace here; the "
                        "read-only case is not run\n");
        return;
    }
    /* a start, then --check (its lines only: stdout is the config) */
    for (int check = 0; check < 2; check++) {
        snprintf(cmd, sizeof cmd,
                 "timeout 10 unshare -m sh -c 'mount -t tmpfs -o ro tmpfs "
                 "\"$0\" && exec \"$@\"' %s %s %s --listen 127.0.0.1:0 "
                 "--acme a.test --acme-dir %s/state/acme %s 2>&1 %s",
                 ro, bin ? bin : "beneath", check ? "--check" : "", ro, pb.dir,
                 check ? ">/dev/null" : "");
        st = run_out(cmd, out, sizeof out);
        ck_assert_msg(st == 2 &&
                          strstr(out, "/ro is on a read-only file system") &&
                          !strstr(out, "listening on"),
                      "%s: exit %d: %s", check ? "--check" : "start", st, out);
    }
}
END_TEST

/* A site directory @name under @sites, its index.html saying @name. */
static void site(const char *sites, const char *name)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", sites, name);
    ck_assert(mkdir(path, 0755) == 0 || errno == EEXIST);
    snprintf(path, sizeof path, "%s/%s/index.html", sites, name);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "%s\n", name);
    ck_assert_int_eq(fclose(f), 0);
}

/* How many lines of Pebble's log (this start) mention @needle. */
static int pebble_mentions(const char *needle)
{
    char cmd[512];

    snprintf(cmd, sizeof cmd, "grep -c -F '%s' %s/pebble-%d.log >/dev/null",
             needle, pb.dir, pb.starts);
    return system(cmd) == 0;
}

START_TEST(on_demand_sites)
{
    struct agent_proc b;
    char sites[256], cmd[1024], out[4096], url[128], opts[512];
    const char *args[] = {"--sites",          sites, "--acme-on-demand",
                          "--https-redirect", "off", "--sandbox",
                          "strict",           NULL};

    snprintf(sites, sizeof sites, "%s/sites", pb.dir);
    ck_assert_int_eq(mkdir(sites, 0755), 0);
    site(sites, "e.test");
    pebble_start(&pb, NULL);
    beneath_start(&pb, &b, "ondemand", args);
    EXPECT_LINE(&b, "sandbox: landlock", 10);
    EXPECT_LINE(&b, "listening on", 10);
    ck_assert_int_eq(agent_count(&b, "e.test"), 0);

    /* the first handshake naming the site waits for its certificate
     * (ordered, validated over HTTP-01 on the plain listener, handed
     * over) and verifies against Pebble's root */
    snprintf(cmd, sizeof cmd,
             "timeout 40 openssl s_client -connect 127.0.0.1:%d -servername "
             "e.test -verify_hostname e.test -CAfile %s -verify_return_error "
             "</dev/null 2>&1",
             pb.tls_port, pb.root);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int st = run_out(cmd, out, sizeof out);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ck_assert_msg(st == 0, "exit %d: %s\n%s", st, out, agent_output(&b));
    fprintf(stderr, "on_demand_sites: the first handshake took %.2f s\n",
            (double)(t1.tv_sec - t0.tv_sec) +
                (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    EXPECT_LINE(&b, "acme: e.test: a certificate asked for by a handshake", 5);
    EXPECT_LINE(&b, "acme: e.test: certificate issued", 5);
    ck_assert(pebble_mentions("e.test"));
    snprintf(opts, sizeof opts, "--cacert %s --resolve e.test:%d:127.0.0.1",
             pb.root, pb.tls_port);
    snprintf(url, sizeof url, "https://e.test:%d/", pb.tls_port);
    ck_assert_int_eq(fetch(opts, url, out, sizeof out), 0);
    ck_assert_str_eq(out, "e.test\n");

    /* a name with no site directory orders nothing: the handshake fails
     * at once, neither the server nor Pebble hears of the name */
    ck_assert(!tls_verifies(&pb, pb.root, "nosite.test"));
    snprintf(cmd, sizeof cmd,
             "for i in $(seq 1 50); do timeout 10 openssl s_client -connect "
             "127.0.0.1:%d -servername x$i.test </dev/null >/dev/null 2>&1 "
             "& done; wait",
             pb.tls_port);
    ck_assert_int_eq(run_out(cmd, out, sizeof out), 0);
    ck_assert(tls_verifies(&pb, pb.root, "e.test"));
    ck_assert_int_eq(agent_count(&b, "nosite.test"), 0);
    ck_assert_int_eq(agent_count(&b, "x1.test"), 0);
    ck_assert_int_eq(agent_count(&b, "asked for by a handshake"), 1);
    ck_assert(!pebble_mentions("nosite.test"));
    ck_assert(!pebble_mentions("x1.test"));
    ck_assert(!pebble_mentions("x50.test"));

    /* 12 new sites asked for at once: the first ones are ordered now
     * (ACME_ONDEMAND_BURST, less e.test's if it is recent), the rest
     * spaced out */
    for (int i = 1; i <= 12; i++) {
        char name[32];

        snprintf(name, sizeof name, "r%d.test", i);
        site(sites, name);
    }
    snprintf(cmd, sizeof cmd,
             "for i in $(seq 1 12); do timeout 10 openssl s_client -connect "
             "127.0.0.1:%d -servername r$i.test </dev/null >/dev/null 2>&1 "
             "& done; wait",
             pb.tls_port);
    (void)run_out(cmd, out, sizeof out);
    EXPECT_LINE(&b, "s (at most 10 orders on demand a minute)", 10);
    ck_assert_int_eq(agent_count(&b, "asked for by a handshake"), 13);
    /* 10 a burst: 2 or 3 wait, as e.test's slot has come back or not */
    int waited = agent_count(&b, "orders on demand a minute");
    ck_assert_msg(waited == 2 || waited == 3, "%d: %s", waited,
                  agent_output(&b));

    /* stopped while handshakes wait for their certificates (the burst is
     * spent: they are parked, asking again every 100 ms): the server
     * exits at once and cleanly (it once freed the table they ask first) */
    for (int i = 1; i <= 4; i++) {
        char name[32];

        snprintf(name, sizeof name, "late%d.test", i);
        site(sites, name);
    }
    snprintf(cmd, sizeof cmd,
             "for i in 1 2 3 4; do timeout 20 openssl s_client -connect "
             "127.0.0.1:%d -servername late$i.test </dev/null >/dev/null "
             "2>&1 & done",
             pb.tls_port);
    ck_assert_int_eq(system(cmd), 0);
    EXPECT_LINE(&b, "late4.test: a certificate asked for", 10);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(agent_stop(&b), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    fprintf(stderr, "on_demand_sites: stopped in %.2f s\n",
            (double)(t1.tv_sec - t0.tv_sec) +
                (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
}
END_TEST

const struct check_main check_main = {
    .suite = "acme_server",
    .setup = pebble_installed,
    .fixture = {.setup = setup, .teardown = teardown, .timeout = 150},
    .tcases = {{"server", .tests = {&http01_real_server, &tlsalpn01_real_server,
                                    &before_first_certificate,
                                    &acme_dir_unwritable, &on_demand_sites}}},
};
