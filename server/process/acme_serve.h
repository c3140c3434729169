/* SPDX-License-Identifier: MIT */
/*
 * acme_serve.h - ACME in the server: beneath_acme's manager thread gets
 * and renews the --acme certificates, each installed into the TLS front's
 * store (tls/store.h) without a restart; the challenge material it
 * publishes is answered by respond/ (HTTP-01) and by the store's challenge
 * hook (TLS-ALPN-01).
 *
 * The manager is a thread of the keeper (keeper.h), which may connect to
 * the CA and write --acme-dir: what it installs and publishes goes to the
 * serving processes as records (KEEPER_CERT, ...), which each applies to
 * its store (acme_serve_take); a challenge is acknowledged before the CA is
 * told to look.
 */
#ifndef BENEATH_PROCESS_ACME_SERVE_H
#define BENEATH_PROCESS_ACME_SERVE_H

#include "challenge/acme_challenges.h"
#include "conf.h"
#include "observe/metrics.h"
#include "tls/store.h"

#include <stdbool.h>

struct acme_serve;

/*
 * acme_serve_open - the serving process's side of @c's --acme (none: *@out
 * stays NULL, 0): every name's place in @store (NULL: no https://
 * listener, nothing served) is held so that its handshakes fail cleanly
 * until the keeper's manager (acme_serve_keep) hands its certificate over,
 * applied with acme_serve_take; the store's TLS-ALPN-01 hook reads @ch; @m
 * renders beneath_tls_certificate_expiry_seconds. Nothing is read here.
 * With --acme-on-demand, a handshake naming a site of @access that has no
 * certificate asks the keeper (KEEPER_ONDEMAND over @keeper_fd) and waits
 * for it, at most ONDEMAND_WAIT_S (acme_serve.c).
 * Returns 0 or -errno after a line on stderr.
 */
struct access;
int acme_serve_open(const struct conf *c, struct tls_store *store,
                    struct acme_challenges *ch, struct metrics *m,
                    struct access *access, int keeper_fd,
                    struct acme_serve **out);

/*
 * acme_serve_keep - the keeper's manager for @c's --acme (none: *@out
 * NULL, 0): reads --acme-dir and posts every certificate and challenge to
 * the serving processes (keeper_post: those started later are given what
 * is in force), each certificate with its key's public half: the key goes
 * into @keys (the keeper's, tls/keyless.h). Start it with
 * acme_serve_start.
 * Returns 0 or -errno after a line on stderr.
 */
struct keyless_keys;
int acme_serve_keep(const struct conf *c, struct keyless_keys *keys,
                    struct acme_serve **out);

/*
 * acme_serve_take - apply record @m from the keeper to @as's store and
 * @ch. Returns whether it was an ACME record (acknowledge it then).
 */
struct keeper_msg;
bool acme_serve_take(struct acme_serve *as, struct acme_challenges *ch,
                     const struct keeper_msg *m);

/*
 * acme_serve_request - the keeper's side of --acme-on-demand: a serving
 * process asked for @name's certificate. Ordered (acme_request) when @c
 * has --acme-on-demand and @name is a DNS name with a directory in --sites
 * DIR (its order rate-limited by the manager: acme_request). Refusals are
 * said on stderr, a line a minute at most.
 * Returns 0, -EEXIST (asked already: it comes, or is retried by the
 * manager), or -errno of the refusal (tell the serving process).
 */
int acme_serve_request(struct acme_serve *as, const struct conf *c,
                       const char *name);

/* acme_serve_start - start the manager thread (once serving). 0 or -errno. */
int acme_serve_start(struct acme_serve *as);

/*
 * acme_serve_stop - the process stops: the manager's thread is told to
 * (acme_stop), not waited for. NULL is allowed.
 */
void acme_serve_stop(struct acme_serve *as);

/*
 * acme_serve_close - stop the thread and release everything (before the
 * store and @ch are freed). NULL is allowed.
 */
void acme_serve_close(struct acme_serve *as);

#endif
