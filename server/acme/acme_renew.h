/* SPDX-License-Identifier: MIT */
/*
 * acme_renew.h - when to renew, when to retry, when to warn: pure functions
 * of a certificate's dates, the failures so far and a clock value given as
 * an argument (tests pass any instant; the manager passes its clock).
 *
 * Renewal falls at two thirds of the lifetime, moved earlier by a jitter of
 * up to a twentieth of the lifetime (so replicas and sites do not all come
 * at once), or inside the CA's ACME Renewal Information window (RFC 9773)
 * when the CA offers one. A failure keeps the old certificate and retries
 * after an exponential backoff, never later than the CA's Retry-After asks
 * for less and never sooner than it asks.
 */
#ifndef BENEATH_ACME_ACME_RENEW_H
#define BENEATH_ACME_ACME_RENEW_H

#include <stdint.h>
#include <time.h>

/* A certificate expiring within this many seconds is a warning. */
#define ACME_WARN_SECONDS ((time_t)7 * 86400)

/* The backoff after failures: first delay, ceiling (seconds). */
struct acme_backoff {
    unsigned first;
    unsigned max;
};
#define ACME_BACKOFF_DEFAULT                                                   \
    {                                                                          \
        .first = 60, .max = 6 * 3600                                           \
    }

enum acme_cert_state {
    ACME_CERT_NONE,    /* no certificate yet */
    ACME_CERT_VALID,   /* more than ACME_WARN_SECONDS left */
    ACME_CERT_WARNING, /* expires within ACME_WARN_SECONDS */
    ACME_CERT_EXPIRED,
};

/*
 * acme_renew_at - when a certificate valid from @not_before to @not_after
 * is due: inside [@ari_start, @ari_end) when the CA gave that window
 * (@ari_end > @ari_start), else at two thirds of its lifetime less a jitter.
 * @rnd is a random 32-bit value (fixed per certificate, so the answer does
 * not move between calls).
 * Returns the instant; @not_before when the dates make no sense.
 */
time_t acme_renew_at(time_t not_before, time_t not_after, time_t ari_start,
                     time_t ari_end, uint32_t rnd);

/*
 * acme_retry_at - after @failures (>= 1) failed attempts, the last ending
 * at @failed_at: @failed_at + backoff.first * 2^(failures-1), at most
 * backoff.max, plus up to a tenth of jitter from @rnd; not before
 * @retry_after (the CA's Retry-After, 0 when none).
 */
time_t acme_retry_at(time_t failed_at, unsigned failures, time_t retry_after,
                     struct acme_backoff backoff, uint32_t rnd);

/*
 * acme_next_attempt - when to order next: now when there is no certificate
 * (@not_after == 0) and no failure; else the later of the renewal instant and
 * the retry instant after failures.
 */
time_t acme_next_attempt(time_t renew_at, time_t not_after, time_t retry_at,
                         unsigned failures, time_t now);

/* The pace of polling an authorization or an order (milliseconds). */
#define ACME_POLL_FIRST_MS 50L
#define ACME_POLL_MAX_MS 1000L

/*
 * acme_poll_ms - how long to wait before poll number @polls (0 for the
 * first) of an authorization or order the CA is still working on:
 * ACME_POLL_FIRST_MS, doubling up to ACME_POLL_MAX_MS; never sooner than
 * @retry_after_ms, what the CA's Retry-After asked for (0: none; an hour or
 * more is not believed).
 */
long acme_poll_ms(unsigned polls, long retry_after_ms);

/* acme_cert_state_at - the state of a certificate expiring at @not_after. */
enum acme_cert_state acme_cert_state_at(time_t not_after, time_t now);
/* The state's name: "none", "valid", "warning", "expired". */
const char *acme_cert_state_name(enum acme_cert_state s);

/*
 * acme_expiry_seconds - seconds from @now until @not_after (negative when
 * expired), the value of beneath_tls_certificate_expiry_seconds{name}.
 */
long long acme_expiry_seconds(time_t not_after, time_t now);

#endif
