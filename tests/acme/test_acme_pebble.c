/* SPDX-License-Identifier: MIT */
/*
 * test_acme_pebble.c - beneath_acme against a real ACME server: Pebble and
 * its mock DNS on 127.0.0.1, acme_agent processes (the library with real
 * HTTP-01 and TLS-ALPN-01 listeners) as the client, openssl s_client
 * verifying what they serve against the root Pebble's management interface
 * gives. Pebble refuses about 5% of nonces by default, so every issuance
 * here also exercises the badNonce retry.
 */
#include "check_main.h"
#include "fixture.h"
#include "pebble.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Seconds an issuance may take here (validation, finalize, polls). */
#define ISSUANCE_SECONDS 45

static struct pebble pb;

static void setup(void)
{
    fixture_dir_setup();
    pebble_setup(&pb);
}

static void teardown(void)
{
    pebble_teardown(&pb);
    fixture_dir_teardown();
}

static mode_t mode_of(const char *rel)
{
    char path[512];
    struct stat st;

    snprintf(path, sizeof path, "%s/%s", pb.acme_dir, rel);
    ck_assert_msg(stat(path, &st) == 0, "%s missing", path);
    return st.st_mode & 07777;
}

/* Obtain a certificate for @names with @challenge; the agent keeps running. */
static void obtain(struct agent_proc *a, const char *names,
                   const char *challenge, const char *id)
{
    const char *args[] = {"--names", names, "--challenge", challenge, NULL};
    char want[128];

    agent_start(&pb, a, "first", args);
    snprintf(want, sizeof want, "installed %s stored=0", id);
    EXPECT_LINE(a, want, ISSUANCE_SECONDS);
}

START_TEST(http01_san)
{
    struct agent_proc a;
    char acct[128];

    pebble_start(&pb, NULL);
    obtain(&a, "a.test,b.test", "http-01", "a.test");
    ck_assert(tls_verifies(&pb, pb.root, "a.test"));
    ck_assert(tls_verifies(&pb, pb.root, "b.test"));
    ck_assert(!tls_verifies(&pb, pb.api_cert, "a.test"));
    ck_assert_int_eq(agent_count(&a, "answering http-01"), 2);
    ck_assert_msg(agent_count(&a, "log ERROR") == 0, "%s", agent_output(&a));
    /* alone on its directory: it asked the CA at once */
    ck_assert_msg(agent_count(&a, "another replica shares") == 0, "%s",
                  agent_output(&a));
    /* the stored files and their modes */
    ck_assert_uint_eq(mode_of(""), 0700);
    ck_assert_uint_eq(mode_of("certs/a.test/key.pem"), 0600);
    ck_assert_uint_eq(mode_of("certs/a.test/cert.pem"), 0644);
    ck_assert_uint_eq(mode_of("certs/a.test/state.json"), 0600);
    snprintf(acct, sizeof acct, "accounts/127.0.0.1_%d_dir/key.pem",
             pb.api_port);
    ck_assert_uint_eq(mode_of(acct), 0600);
    ck_assert_int_eq(agent_stop(&a), 0);
}
END_TEST

/*
 * TLS-ALPN-01 (its certificate chosen by ALPN); HTTP-01 with 30% of the
 * nonces refused (the retries carry the order through; at 50% the client's
 * 8 tries ran out on one of an issuance's ~10 requests in about one run of
 * 25). Six names there, so that the order's requests (about 20) meet a
 * refusal but once in thousands of runs (0.7^20; one name's ~8 requests
 * went through unrefused in about one run of 20: CI saw it).
 */
static const struct {
    const char *env, *names, *name, *challenge, *line;
} issuances[] = {
    {NULL, "alpn.test", "alpn.test", "tls-alpn-01", "answering tls-alpn-01"},
    {"PEBBLE_WFE_NONCEREJECT=30", "a.test,b.test,c.test,d.test,e.test,f.test",
     "a.test", "http-01", "badNonce, retrying"},
};

LOOP_TEST(issue_case, issuances)
{
    const char *env[] = {issuances[_i].env, NULL};
    struct agent_proc a;

    pebble_start(&pb, env);
    obtain(&a, issuances[_i].names, issuances[_i].challenge,
           issuances[_i].name);
    ck_assert_int_ge(agent_count(&a, issuances[_i].line), 1);
    ck_assert(tls_verifies(&pb, pb.root, issuances[_i].name));
    ck_assert_int_eq(agent_stop(&a), 0);
}
END_TEST

/* A restart reads the account and certificate and asks the CA nothing:
 * Pebble is gone, and nothing is logged but the stored install. */
START_TEST(restart_offline)
{
    struct agent_proc a, b;
    const char *args[] = {"--names", "a.test", NULL};

    pebble_start(&pb, NULL);
    obtain(&a, "a.test", "http-01", "a.test");
    ck_assert_int_eq(agent_stop(&a), 0);
    pebble_stop(&pb);
    agent_start(&pb, &b, "restart", args);
    EXPECT_LINE(&b, "installed a.test stored=1", 10);
    EXPECT_LINE(&b, "ready", 10);
    sleep(3);
    ck_assert(tls_verifies(&pb, pb.root, "a.test"));
    ck_assert_msg(agent_count(&b, "log ") == 0, "%s", agent_output(&b));
    ck_assert_int_eq(agent_stop(&b), 0);
}
END_TEST

/* Three days before the five-year certificate ends (a clock moved on):
 * a warning, the renewal, the new certificate installed. */
START_TEST(renewal_forced)
{
    struct agent_proc a, b;
    const char *args[] = {"--names", "a.test", "--clock-offset", "157507200",
                          NULL};

    pebble_start(&pb, NULL);
    obtain(&a, "a.test", "http-01", "a.test");
    ck_assert_int_eq(agent_stop(&a), 0);
    agent_start(&pb, &b, "renew", args);
    EXPECT_LINE(&b, "installed a.test stored=1", 10);
    EXPECT_LINE(&b, "log WARNING acme: a.test: the certificate expires on", 10);
    EXPECT_LINE(&b, "a.test: renewing", 10);
    EXPECT_LINE(&b, "installed a.test stored=0", ISSUANCE_SECONDS);
    ck_assert(tls_verifies(&pb, pb.root, "a.test"));
    ck_assert_int_eq(agent_count(&b, "log ERROR"), 0);
    ck_assert_int_eq(agent_stop(&b), 0);
}
END_TEST

/*
 * A renewal the CA refuses keeps the old certificate: every nonce refused
 * (PEBBLE_WFE_NONCEREJECT=100, so the retries run out), then a challenge
 * answered wrongly (its detail text in the log). The backoff is written
 * where replicas read it.
 */
START_TEST(refusals_keep_old)
{
    const char *reject[] = {"PEBBLE_WFE_NONCEREJECT=100", NULL};
    const char *args[] = {"--names",   "a.test",    "--clock-offset",
                          "126230400", "--backoff", "3600",
                          NULL};
    const char *bad[] = {"--names",   "a.test", "--clock-offset", "126230400",
                         "--backoff", "3600",   "--sabotage",     NULL};
    struct agent_proc a, b, c;
    char old_root[256], path[512], *state;
    FILE *f;

    pebble_start(&pb, NULL);
    obtain(&a, "a.test", "http-01", "a.test");
    ck_assert_int_eq(agent_stop(&a), 0);
    snprintf(old_root, sizeof old_root, "%s", pb.root);
    pebble_stop(&pb);
    pebble_start(&pb, reject);
    agent_start(&pb, &b, "nonce", args);
    EXPECT_LINE(&b, "attempt 1 failed; keeping the certificate",
                ISSUANCE_SECONDS);
    ck_assert_int_ge(agent_count(&b, "badNonce, retrying"), 3);
    ck_assert_int_ge(agent_count(&b, "urn:ietf:params:acme:error:badNonce"), 1);
    ck_assert(tls_verifies(&pb, old_root, "a.test"));
    ck_assert_int_eq(agent_stop(&b), 0);
    snprintf(path, sizeof path, "%s/certs/a.test/state.json", pb.acme_dir);
    f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    state = calloc(1, 4096);
    ck_assert_uint_gt(fread(state, 1, 4095, f), 0);
    fclose(f);
    ck_assert_msg(strstr(state, "\"failures\": 1"), "%s", state);
    free(state);

    /* the same backoff holds after a restart: no attempt before it ends */
    agent_start(&pb, &c, "backoff", args);
    EXPECT_LINE(&c, "installed a.test stored=1", 10);
    sleep(3);
    ck_assert_int_eq(agent_count(&c, "renewing"), 0);
    ck_assert_int_eq(agent_stop(&c), 0);

    /* an invalid challenge, past the backoff (a later clock) */
    pebble_stop(&pb);
    pebble_start(&pb, NULL);
    bad[3] = "126237600"; /* two hours later */
    agent_start(&pb, &c, "invalid", bad);
    EXPECT_LINE(&c, "attempt 2 failed; keeping the certificate",
                ISSUANCE_SECONDS);
    EXPECT_LINE(&c,
                "challenge http-01: urn:ietf:params:acme:error:"
                "unauthorized",
                1);
    ck_assert(tls_verifies(&pb, old_root, "a.test"));
    ck_assert_int_eq(agent_stop(&c), 0);
}
END_TEST

/*
 * Two replicas on one directory and (SO_REUSEPORT) the same ports: one
 * orders, waiting first for the other to see its challenge files (a lone
 * server does not wait: http01_san); the other waits on the lock, answers
 * the validations that reach it from the shared challenge files, and
 * installs the stored result. Replica a joins the directory and holds its
 * manager until b is up, so that whichever orders has the other to wait
 * for (on a busy machine a started alone could order before b joined).
 */
START_TEST(two_replicas)
{
    const char *args[] = {"--names", "r.test,s.test", NULL};
    const char *held[] = {"--names", "r.test,s.test", "--hold", NULL};
    struct agent_proc a, b;
    int ordered;

    pebble_start(&pb, NULL);
    agent_start(&pb, &a, "replica-a", held);
    EXPECT_LINE(&a, "held", 10);
    agent_start(&pb, &b, "replica-b", args);
    EXPECT_LINE(&b, "ready", 10);
    ck_assert_int_eq(kill(a.pid, SIGUSR1), 0);
    EXPECT_LINE(&a, "installed r.test", ISSUANCE_SECONDS);
    EXPECT_LINE(&b, "installed r.test", ISSUANCE_SECONDS);
    ordered = agent_count(&a, "installed r.test stored=0") +
              agent_count(&b, "installed r.test stored=0");
    ck_assert_msg(ordered == 1, "ordered %d times\nA:\n%s", ordered,
                  agent_output(&a));
    ck_assert_int_eq(
        agent_count(&a, ": order https") + agent_count(&b, ": order https"), 1);
    ck_assert_int_eq(agent_count(&a, "another replica is ordering") +
                         agent_count(&b, "another replica is ordering"),
                     1);
    ck_assert_int_eq(agent_count(&a, "another replica shares --acme-dir") +
                         agent_count(&b, "another replica shares --acme-dir"),
                     1);
    ck_assert_int_eq(
        agent_count(&a, "account https") + agent_count(&b, "account https"), 1);
    ck_assert(tls_verifies(&pb, pb.root, "s.test"));
    ck_assert_int_eq(agent_stop(&a), 0);
    ck_assert_int_eq(agent_stop(&b), 0);
}
END_TEST

const struct check_main check_main = {
    .suite = "acme_pebble",
    .setup = pebble_installed,
    .fixture = {.setup = setup, .teardown = teardown, .timeout = 150},
    .tcases = {{"issue", .loops = {LOOP(issue_case)}, .tests = {&http01_san}},
               {"restart", .tests = {&restart_offline, &renewal_forced}},
               {"refuse", .tests = {&refusals_keep_old}},
               {"replicas", .tests = {&two_replicas}}},
};
