/* SPDX-License-Identifier: MIT */
/*
 * test_live.c - the swappable value behind SIGHUP (server/runtime/live.c):
 * readers on several threads never see a released value while the main thread
 * publishes new ones, each thread sees the values in publication order, and
 * every value is released exactly once (the last at live_free). ASan (dev
 * preset) turns a use after release into a failure of its own. Publishing
 * starts once every reader has read, and the readers stop once each has
 * seen the last value (both bounded), so a busy machine that schedules a
 * reader late cannot leave it with nothing read.
 */
#include "check_main.h"
#include "runtime/live.h"

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#define READERS 4
#define PUBLISHES 2000
#define WAIT_MS 20000 /* for the readers to start, then to catch up */

struct value {
    unsigned seq;
    atomic_bool released;
};

static atomic_uint n_released;

static void release(void *p)
{
    struct value *v = p;

    ck_assert(!atomic_exchange(&v->released, true));
    atomic_fetch_add(&n_released, 1);
    free(v);
}

static struct value *value_new(unsigned seq)
{
    struct value *v = calloc(1, sizeof *v);

    ck_assert_ptr_nonnull(v);
    v->seq = seq;
    return v;
}

struct reader {
    struct live *l;
    atomic_bool *stop;
    unsigned reads, backwards, dead; /* read by the main thread after join */
    atomic_uint seen;                /* 1 + the last seq read, 0 before */
};

static void *reader(void *arg)
{
    struct reader *r = arg;
    unsigned last = 0;

    while (!atomic_load(r->stop)) {
        struct value *v = live_get(r->l);

        if (v == NULL || atomic_load(&v->released))
            r->dead++;
        else if (v->seq < last)
            r->backwards++;
        else
            last = v->seq;
        r->reads++;
        atomic_store(&r->seen, last + 1);
    }
    return NULL;
}

/* Up to WAIT_MS for every reader to have seen @seq or a later value; false
 * when one has not. */
static bool readers_saw(struct reader *rd, unsigned seq)
{
    struct timespec now;
    long long deadline;

    clock_gettime(CLOCK_MONOTONIC, &now);
    deadline = now.tv_sec * 1000LL + now.tv_nsec / 1000000 + WAIT_MS;
    for (;;) {
        int behind = 0;

        for (int i = 0; i < READERS; i++)
            behind += atomic_load(&rd[i].seen) < seq + 1;
        if (behind == 0)
            return true;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec * 1000LL + now.tv_nsec / 1000000 >= deadline)
            return false;
        nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
    }
}

START_TEST(publish_while_reading)
{
    struct live *l;
    pthread_t th[READERS];
    struct reader rd[READERS];
    atomic_bool stop = false;

    atomic_store(&n_released, 0);
    ck_assert_int_eq(live_new(value_new(0), release, &l), 0);
    for (int i = 0; i < READERS; i++) {
        rd[i] = (struct reader){.l = l, .stop = &stop};
        ck_assert_int_eq(pthread_create(&th[i], NULL, reader, &rd[i]), 0);
    }
    bool started = readers_saw(rd, 0);
    for (unsigned seq = 1; seq <= PUBLISHES; seq++)
        ck_assert_int_eq(live_publish(l, value_new(seq)), 0);
    bool caught_up = readers_saw(rd, PUBLISHES);
    atomic_store(&stop, true);
    for (int i = 0; i < READERS; i++)
        ck_assert_int_eq(pthread_join(th[i], NULL), 0);
    ck_assert_msg(started, "a reader read nothing in %d ms", WAIT_MS);
    ck_assert_msg(caught_up, "a reader did not see value %d in %d ms",
                  PUBLISHES, WAIT_MS);
    for (int i = 0; i < READERS; i++) {
        ck_assert_uint_gt(rd[i].reads, 0);
        ck_assert_uint_eq(rd[i].dead, 0);
        ck_assert_uint_eq(rd[i].backwards, 0);
    }
    /* the readers exited: only the current value is left */
    ck_assert_uint_eq(atomic_load(&n_released), PUBLISHES);
    ck_assert_uint_eq(((struct value *)live_get(l))->seq, PUBLISHES);
    live_free(l);
    ck_assert_uint_eq(atomic_load(&n_released), PUBLISHES + 1);
    live_free(NULL);
}
END_TEST

/* A thread keeps its value until it asks again, however often it changes. */
START_TEST(value_stays_until_asked)
{
    struct live *l;
    struct value *first;

    atomic_store(&n_released, 0);
    ck_assert_int_eq(live_new(value_new(0), release, &l), 0);
    first = live_get(l);
    ck_assert_int_eq(live_publish(l, value_new(1)), 0);
    ck_assert_int_eq(live_publish(l, value_new(2)), 0);
    /* value 1 was never held by a thread: released at once */
    ck_assert_uint_eq(atomic_load(&n_released), 1);
    ck_assert(!atomic_load(&first->released));
    ck_assert_uint_eq(first->seq, 0);
    ck_assert_uint_eq(((struct value *)live_get(l))->seq, 2);
    ck_assert_uint_eq(atomic_load(&n_released), 2);
    live_free(l);
    ck_assert_uint_eq(atomic_load(&n_released), 3);
}
END_TEST

const struct check_main check_main = {
    .suite = "live",
    .tcases = {
        {"live", .tests = {&publish_while_reading, &value_stays_until_asked}}}};
