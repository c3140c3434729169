/* SPDX-License-Identifier: MIT */
/*
 * acme_clock.c - the manager's clock (the configuration's, or time(2)), its
 * sleeps (on the manager's condition variable, so acme_close wakes them),
 * the dates its lines give, and an item's next attempt from the renewal policy
 * (acme_renew.c). Below the manager's loop (acme.c), an attempt
 * (acme_attempt.c) and the replicas' challenge files (acme_share.c), which all
 * call it.
 */
#include "acme/internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

time_t acme_now(struct acme *a)
{
    return a->clock ? a->clock(a->arg) : time(NULL);
}

/* Wait on the condition variable until the monotonic instant @ts; with
 * @requests, only until acme_request has added one. */
static int sleep_to(struct acme *a, const struct timespec *ts, bool requests)
{
    int r = 0;

    pthread_mutex_lock(&a->mu);
    while (!atomic_load(&a->stop) && r == 0 && !(requests && a->n_requests))
        r = pthread_cond_timedwait(&a->cv, &a->mu, ts);
    pthread_mutex_unlock(&a->mu);
    return atomic_load(&a->stop) ? -ECANCELED : 0;
}

/* @until on the manager's clock, as a monotonic instant. */
static struct timespec monotonic_at(struct acme *a, time_t until)
{
    time_t delta = until - acme_now(a);
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += delta > 0 ? delta : 0;
    return ts;
}

int acme_sleep_until(void *arg, time_t until)
{
    struct acme *a = arg;
    struct timespec ts = monotonic_at(a, until);

    return sleep_to(a, &ts, false);
}

int acme_idle_until(struct acme *a, time_t until)
{
    struct timespec ts = monotonic_at(a, until);

    return sleep_to(a, &ts, true);
}

int acme_sleep_ms(void *arg, long ms)
{
    struct acme *a = arg;
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    if (ms > 0) {
        ts.tv_sec += ms / 1000;
        ts.tv_nsec += ms % 1000 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
    }
    return sleep_to(a, &ts, false);
}

void acme_date(time_t t, time_t now, char *buf, size_t size)
{
    struct tm tm;
    time_t away = t > now ? t - now : now - t;

    gmtime_r(&t, &tm);
    if (strftime(buf, size,
                 away < (time_t)2 * 86400 ? "%Y-%m-%d %H:%M:%S UTC"
                                          : "%Y-%m-%d",
                 &tm) == 0 &&
        size > 0)
        buf[0] = '\0';
}

void acme_item_schedule(struct acme *a, struct acme_item *it, time_t now)
{
    time_t renew = acme_renew_at(it->not_before, it->not_after, it->ari_start,
                                 it->ari_end, it->rnd);
    time_t retry = acme_retry_at(it->failed_at, it->failures, it->retry_after,
                                 a->backoff, it->rnd);

    it->next =
        acme_next_attempt(renew, it->not_after, retry, it->failures, now);
}
