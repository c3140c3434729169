/* SPDX-License-Identifier: MIT */
/*
 * pebble.h - a real Pebble (the Let's Encrypt test CA) and
 * pebble-challtestsrv (its DNS, answering 127.0.0.1 for every name) on
 * 127.0.0.1 ports of their own, and acme_agent processes to point at them.
 * Every wait is bounded; every process started is stopped by
 * pebble_teardown.
 */
#ifndef BENEATH_TESTS_ACME_PEBBLE_H
#define BENEATH_TESTS_ACME_PEBBLE_H

#include <stdbool.h>
#include <sys/types.h>

struct pebble {
    char dir[128]; /* the test's scratch directory */
    int dns_port, api_port, mgmt_port, cts_port, http_port, tls_port;
    pid_t cts, pebble;
    int starts;          /* Pebbles started so far */
    char directory[128]; /* https://127.0.0.1:API/dir */
    char api_cert[256];  /* Pebble's own HTTPS certificate: --acme-ca-root */
    char root[256];      /* the issuing root of the running Pebble */
    char acme_dir[256];  /* the agents' --acme-dir */
    pid_t agents[8];     /* started, for the teardown */
    int n_agents;
};

struct agent_proc {
    pid_t pid;
    char out[256]; /* its standard output */
};

/* Scratch directory, ports, Pebble's HTTPS certificate, the mock DNS. */
void pebble_setup(struct pebble *p);
/* Start Pebble with extra "NAME=VALUE" variables (NULL-terminated list,
 * or NULL), wait for it, fetch its root into p->root. */
void pebble_start(struct pebble *p, const char *const *env);
void pebble_stop(struct pebble *p);
void pebble_teardown(struct pebble *p);

/* Start acme_agent against @p with the arguments @args (NULL-terminated)
 * after the common ones; its output goes to p->dir/@tag.out. */
void agent_start(struct pebble *p, struct agent_proc *a, const char *tag,
                 const char *const *args);
/*
 * Start the real server (BENEATH_BIN) against @p: its plain listener on
 * p->http_port and its https:// one on p->tls_port (the ports Pebble
 * validates on), --acme-ca/--acme-ca-root/--acme-dir set, serving
 * p->dir/www, with @args (NULL-terminated) after; its output goes to
 * p->dir/@tag.out. agent_wait and agent_stop work on it.
 */
void beneath_start(struct pebble *p, struct agent_proc *a, const char *tag,
                   const char *const *args);

/* Whether @needle appears in the agent's output within @seconds. */
bool agent_wait(const struct agent_proc *a, const char *needle, int seconds);
/* How many lines of its output contain @needle. */
int agent_count(const struct agent_proc *a, const char *needle);
/* SIGTERM and wait; returns its exit status, or -1. */
int agent_stop(struct agent_proc *a);
/* Its whole output, for failure messages (static buffer). */
const char *agent_output(const struct agent_proc *a);

/* Fails the test unless @needle appears in @a's output within @secs. */
#define EXPECT_LINE(a, needle, secs)                                           \
    ck_assert_msg(agent_wait((a), (needle), (secs)),                           \
                  "no \"%s\" within %d s; output:\n%s", (needle), (secs),      \
                  agent_output(a))

/*
 * pebble_installed - a check_main setup: 0 when pebble and
 * pebble-challtestsrv are installed (scripts/deps.sh test installs them),
 * else CHECK_SKIP after a line naming the suite (@argv[0]).
 */
int pebble_installed(int argc, char **argv);

/* openssl s_client -servername @name against the agent's TLS port: whether
 * the chain verifies against @root for @name. */
bool tls_verifies(const struct pebble *p, const char *root, const char *name);

#endif
