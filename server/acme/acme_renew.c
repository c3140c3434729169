/* SPDX-License-Identifier: MIT */
/*
 * acme_renew.c - the renewal policy as pure functions (acme_renew.h): no
 * clock, no randomness of their own, no state.
 */
#include "acme/acme_renew.h"

#include <stddef.h>

/* @span * @rnd / 2^32, without overflow for any span of seconds. */
static time_t scaled(time_t span, uint32_t rnd)
{
    return (time_t)((unsigned long long)span / 65536 * (rnd >> 16) +
                    (unsigned long long)span % 65536 * (rnd >> 16) / 65536);
}

time_t acme_renew_at(time_t not_before, time_t not_after, time_t ari_start,
                     time_t ari_end, uint32_t rnd)
{
    time_t life = not_after - not_before;

    if (ari_end > ari_start && ari_start > 0)
        return ari_start + scaled(ari_end - ari_start, rnd);
    if (life <= 0)
        return not_before;
    /* two thirds in, earlier by up to a twentieth of the lifetime */
    return not_before + life / 3 * 2 - scaled(life / 20, rnd);
}

time_t acme_retry_at(time_t failed_at, unsigned failures, time_t retry_after,
                     struct acme_backoff backoff, uint32_t rnd)
{
    unsigned long long delay = backoff.first ? backoff.first : 1;
    time_t at;

    for (unsigned i = 1; i < failures && delay < backoff.max; i++)
        delay *= 2;
    if (delay > backoff.max)
        delay = backoff.max;
    at = failed_at + (time_t)delay + scaled((time_t)delay / 10, rnd);
    return retry_after > at ? retry_after : at;
}

time_t acme_next_attempt(time_t renew_at, time_t not_after, time_t retry_at,
                         unsigned failures, time_t now)
{
    time_t at = not_after == 0 ? now : renew_at;

    if (failures > 0 && retry_at > at)
        at = retry_at;
    return at;
}

long acme_poll_ms(unsigned polls, long retry_after_ms)
{
    long ms = ACME_POLL_FIRST_MS;

    for (unsigned i = 0; i < polls && ms < ACME_POLL_MAX_MS; i++)
        ms *= 2;
    if (ms > ACME_POLL_MAX_MS)
        ms = ACME_POLL_MAX_MS;
    if (retry_after_ms > ms && retry_after_ms < 3600L * 1000)
        ms = retry_after_ms;
    return ms;
}

enum acme_cert_state acme_cert_state_at(time_t not_after, time_t now)
{
    if (not_after == 0)
        return ACME_CERT_NONE;
    if (not_after <= now)
        return ACME_CERT_EXPIRED;
    if (not_after - now <= ACME_WARN_SECONDS)
        return ACME_CERT_WARNING;
    return ACME_CERT_VALID;
}

const char *acme_cert_state_name(enum acme_cert_state s)
{
    static const char *const names[] = {[ACME_CERT_NONE] = "none",
                                        [ACME_CERT_VALID] = "valid",
                                        [ACME_CERT_WARNING] = "warning",
                                        [ACME_CERT_EXPIRED] = "expired"};

    return (size_t)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

long long acme_expiry_seconds(time_t not_after, time_t now)
{
    return (long long)not_after - (long long)now;
}
