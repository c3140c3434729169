/* SPDX-License-Identifier: MIT */
/*
 * acme.h - certificates the server gets by itself (RFC 8555), the interface
 * the server (later its keeper process) calls.
 *
 * One struct acme manages the certificates of one configuration: each
 * certificate is a list of names (one --acme value: the first name is its
 * id and the CN, all of them SANs). acme_open reads what --acme-dir holds
 * and hands every stored certificate to the install callback, without any
 * network; acme_start runs one thread that orders what is missing, renews
 * what is due, picks up what another replica sharing the directory got, and
 * sleeps (a timed condition wait, no polling of the CA) in between.
 *
 * Threads and ownership:
 * - acme_open, acme_start, acme_close: the caller's thread (start-up, exit).
 * - the install and log callbacks: the ACME thread (and the caller's during
 *   acme_open); they borrow what they are given and must copy what they keep.
 * - acme_status: any thread.
 * - the challenge store (acme_challenges.h) is the caller's: it outlives the
 *   struct acme; the ACME thread writes it, the serving threads read it.
 *
 * The library knows nothing of the server: it takes plain values, calls
 * back with PEM text, and never prints or exits.
 */
#ifndef BENEATH_ACME_H
#define BENEATH_ACME_H

#include "acme/acme_renew.h"
#include "challenge/acme_challenges.h"
#include "syntax/acme_names.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* --acme-dir's default. */
#define ACME_DIR_DEFAULT "/var/lib/beneath/acme"

enum acme_challenge_type {
    ACME_HTTP01,
    ACME_TLSALPN01,
};

enum acme_log_level {
    ACME_LOG_ERROR,
    ACME_LOG_WARNING,
    ACME_LOG_INFO,
};

/* The names of one certificate (one --acme value, split at commas). */
struct acme_names {
    char *const *v;
    size_t n;
};

/*
 * struct acme_cert - a certificate handed to the install callback.
 * @id:           its first name, also its directory under certs/
 * @index:        its position in acme_config.certs (or past them: one of
 *                acme_request's)
 * @chain_pem:    leaf first, then the intermediates (NUL-terminated)
 * @key_pem:      its private key, PKCS#8 PEM (wiped after the callback)
 * @stored:       read from --acme-dir (start-up, or another replica's
 *                order), rather than just ordered by this process
 */
struct acme_cert {
    const char *id;
    size_t index;
    const struct acme_names *names;
    const char *chain_pem;
    size_t chain_len;
    const char *key_pem;
    size_t key_len;
    time_t not_before, not_after;
    bool stored;
};

/*
 * struct acme_config - what acme_open needs; every pointer is borrowed for
 * the call only (acme_open copies).
 * @directory:   the CA's directory URL (--acme-ca, short names resolved by
 *               acme_ca_url)
 * @ca_root:     PEM file of the CA's HTTPS trust anchor, or NULL (system)
 * @dir:         --acme-dir
 * @email:       the account contact, or NULL
 * @challenge:   the challenge type to answer
 * @certs:       the certificates, @n_certs of them
 * @challenges:  where challenge material goes (the caller's store)
 * @install:     called with each certificate to serve (new or stored)
 * @log:         called with each message (the CA's detail text included)
 * @clock:       the time (NULL: time()); tests move it to force renewal
 * @backoff:     retry delays after failures (zero: ACME_BACKOFF_DEFAULT)
 * @share_delay: seconds between publishing challenge material in --acme-dir
 *               and asking the CA to validate, when another replica uses
 *               the directory (0: 2 s); alone, no wait
 */
struct acme_config {
    const char *directory;
    const char *ca_root;
    const char *dir;
    const char *email;
    enum acme_challenge_type challenge;
    const struct acme_names *certs;
    size_t n_certs;
    struct acme_challenges *challenges;
    void (*install)(void *arg, const struct acme_cert *cert);
    void (*log)(void *arg, enum acme_log_level level, const char *msg);
    void *arg;
    time_t (*clock)(void *arg);
    struct acme_backoff backoff;
    unsigned share_delay;
};

/*
 * struct acme_status - one certificate's state, for /health and metrics.
 * @not_after:   0 when there is none yet
 * @next:        the next attempt to order (0: none planned)
 * @failures:    failed attempts since the last success
 * @last_error:  the last failure's message, "" after a success
 */
struct acme_status {
    char id[256];
    enum acme_cert_state state;
    time_t not_after;
    long long expiry_seconds;
    time_t next;
    unsigned failures;
    char last_error[256];
};

struct acme;

/*
 * acme_check - validate @cfg without touching the network or the
 * directory's contents (--check): the names, the URL, a readable PEM
 * trust anchor, an absolute --acme-dir whose existing part is a directory.
 * Returns 0, or -EINVAL with a sentence in @err.
 */
int acme_check(const struct acme_config *cfg, char *err, size_t errlen);

/*
 * acme_open - read --acme-dir (made 0700 if missing) and install every
 * stored certificate through @cfg->install before returning; no network.
 * Returns 0 with *@out owned by the caller (acme_close), or -errno with a
 * sentence in @err (the directory cannot be made or read).
 */
int acme_open(const struct acme_config *cfg, struct acme **out, char *err,
              size_t errlen);

/*
 * acme_challenges_put_tlsalpn01 - make the RFC 8737 certificate of @name
 * for @keyauth and hold it in @ch (acme_challenges_put_cert). 0 or -errno.
 */
int acme_challenges_put_tlsalpn01(struct acme_challenges *ch, const char *name,
                                  const char *keyauth);

/* Certificates acme_request may add, beyond the configuration's. */
#define ACME_REQUESTS_MAX 10000
/* Their orders: this many at once, then one each ACME_ONDEMAND_EVERY s. */
#define ACME_ONDEMAND_BURST 10
#define ACME_ONDEMAND_EVERY 6

/*
 * acme_request - a certificate of @name alone, on demand (a TLS handshake
 * asked for it): the ACME thread reads a stored one from --acme-dir, or
 * orders it, as it does the configuration's (new orders rate-limited:
 * ACME_ONDEMAND_BURST, then one each ACME_ONDEMAND_EVERY s); afterwards it
 * is renewed like them. Any thread; the caller decides whether @name deserves
 * one. Returns 0, -EEXIST (already asked, or a certificate of the
 * configuration's), -ENOSPC (ACME_REQUESTS_MAX already), or -ENOMEM.
 */
int acme_request(struct acme *a, const char *name);

/* acme_start - start the ACME thread. 0 or -errno. */
int acme_start(struct acme *a);

/*
 * acme_status - the state of certificate @i at @now. Returns 0, or -ENOENT
 * past the last certificate.
 */
int acme_status(struct acme *a, size_t i, time_t now, struct acme_status *st);

/*
 * acme_stop - ask the thread to stop, without waiting: an exchange in
 * flight is abandoned within a second, nothing new is begun. NULL is
 * allowed; acme_close still joins and frees.
 */
void acme_stop(struct acme *a);

/*
 * acme_close - stop the thread (an exchange in flight is abandoned within a
 * second), withdraw its challenge material, release everything. NULL is
 * allowed.
 */
void acme_close(struct acme *a);

#endif
