/* SPDX-License-Identifier: MIT */
/*
 * acme_serve.h - ACME in the server: beneath_acme's manager thread gets
 * and renews the --acme certificates, each installed into the TLS front's
 * store (tls/store.h) without a restart; the challenge material it
 * publishes is answered by respond/ (HTTP-01) and by the store's challenge
 * hook (TLS-ALPN-01).
 *
 * With the sandbox on, the manager is a thread of the keeper (keeper.h),
 * which may connect to the CA and write --acme-dir: what it installs and
 * publishes goes over the socketpair as records (KEEPER_CERT, ...), which
 * the serving process applies to its store (acme_serve_take); a challenge
 * is acknowledged before the CA is told to look. With --sandbox off there
 * is one process and the manager is its thread.
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
 * acme_serve_open - for @c's --acme (none: *@out stays NULL, 0): read
 * --acme-dir (made 0700 if missing) and install every stored certificate
 * into @store (NULL: no https:// listener, nothing served); every other
 * name's place is held so that its handshakes fail cleanly until its
 * first certificate; the store's TLS-ALPN-01 hook reads @ch; @m renders
 * beneath_tls_certificate_expiry_seconds. No network. After privileges
 * are dropped (the manager writes --acme-dir as the serving user).
 * @kept: a keeper runs the manager (acme_serve_keep): nothing is read here,
 * its records are applied with acme_serve_take.
 * Returns 0 or -errno after a line on stderr.
 */
int acme_serve_open(const struct conf *c, struct tls_store *store,
                    struct acme_challenges *ch, struct metrics *m, bool kept,
                    struct acme_serve **out);

/*
 * acme_serve_keep - the keeper's manager for @c's --acme (none: *@out
 * NULL, 0): reads --acme-dir and hands every certificate and challenge to
 * the serving process over @fd. Start it with acme_serve_start.
 * Returns 0 or -errno after a line on stderr.
 */
int acme_serve_keep(const struct conf *c, int fd, struct acme_serve **out);

/*
 * acme_serve_take - apply record @m from the keeper to @as's store and
 * @ch. Returns whether it was an ACME record (acknowledge it then).
 */
struct keeper_msg;
bool acme_serve_take(struct acme_serve *as, struct acme_challenges *ch,
                     const struct keeper_msg *m);

/* acme_serve_start - start the manager thread (once serving). 0 or -errno. */
int acme_serve_start(struct acme_serve *as);

/*
 * acme_serve_close - stop the thread and release everything (before the
 * store and @ch are freed). NULL is allowed.
 */
void acme_serve_close(struct acme_serve *as);

#endif
