/* SPDX-License-Identifier: MIT */
/*
 * test_live.c - the swappable value behind SIGHUP (server/runtime/live.c):
 * readers on several threads never see a released value while the main thread
 * publishes new ones, each thread sees the values in publication order, and
 * every value is released exactly once (the last at live_free). ASan (dev
 * preset) turns a use after release into a failure of its own.
 */
#include "check_main.h"
#include "runtime/live.h"

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#define READERS 4
#define PUBLISHES 2000

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
    unsigned reads, backwards, dead;
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
    }
    return NULL;
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
    for (unsigned seq = 1; seq <= PUBLISHES; seq++)
        ck_assert_int_eq(live_publish(l, value_new(seq)), 0);
    atomic_store(&stop, true);
    for (int i = 0; i < READERS; i++) {
        ck_assert_int_eq(pthread_join(th[i], NULL), 0);
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
