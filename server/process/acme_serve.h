/* SPDX-License-Identifier: MIT */
/*
 * acme_serve.h - ACME in the serving process: beneath_acme's manager
 * thread gets and renews the --acme certificates and installs each into
 * the TLS front's store (tls/store.h) without a restart; the challenge
 * material it publishes is answered by respond/ (HTTP-01) and by the
 * store's challenge hook (TLS-ALPN-01).
 *
 * The manager is a thread of the serving process (no separate process
 * holds the keys and the outbound network yet): it must connect to the CA and
 * write --acme-dir, which the sandbox's walls forbid (seccomp allows no AF_INET
 * socket, Landlock connects nowhere and writes only the access log). So with
 * --acme the sandbox is not raised (a start-up line says so), and --sandbox
 * strict is refused.
 */
#ifndef BENEATH_PROCESS_ACME_SERVE_H
#define BENEATH_PROCESS_ACME_SERVE_H

#include "challenge/acme_challenges.h"
#include "conf.h"
#include "observe/metrics.h"
#include "tls/store.h"

struct acme_serve;

/*
 * acme_serve_check - what a start with @c's --acme refuses beyond the
 * options' own checks (--sandbox strict); each problem one line on
 * stderr. Returns the number of problems.
 */
int acme_serve_check(const struct conf *c);

/*
 * acme_serve_open - for @c's --acme (none: *@out stays NULL, 0): read
 * --acme-dir (made 0700 if missing) and install every stored certificate
 * into @store (NULL: no https:// listener, nothing served); every other
 * name's place is held so that its handshakes fail cleanly until its
 * first certificate; the store's TLS-ALPN-01 hook reads @ch; @m renders
 * beneath_tls_certificate_expiry_seconds. No network. After privileges
 * are dropped (the manager writes --acme-dir as the serving user).
 * Returns 0 or -errno after a line on stderr.
 */
int acme_serve_open(const struct conf *c, struct tls_store *store,
                    struct acme_challenges *ch, struct metrics *m,
                    struct acme_serve **out);

/* acme_serve_start - start the manager thread (once serving). 0 or -errno. */
int acme_serve_start(struct acme_serve *as);

/*
 * acme_serve_close - stop the thread and release everything (before the
 * store and @ch are freed). NULL is allowed.
 */
void acme_serve_close(struct acme_serve *as);

#endif
