// SPDX-License-Identifier: MIT
/*
 * bgthread.c - the set-up the background threads share: their lock and
 * condition variables, and a start with every signal blocked.
 */
#include "runtime/bgthread.h"

#include <errno.h>
#include <signal.h>

int bgthread_sync_init(pthread_mutex_t *lock, pthread_cond_t *a,
                       pthread_cond_t *b)
{
    if (pthread_mutex_init(lock, NULL) != 0)
        return -ENOMEM;
    if (pthread_cond_init(a, NULL) != 0)
        goto out_destroy_lock;
    if (pthread_cond_init(b, NULL) != 0)
        goto out_destroy_a;
    return 0;
out_destroy_a:
    pthread_cond_destroy(a);
out_destroy_lock:
    pthread_mutex_destroy(lock);
    return -ENOMEM;
}

void bgthread_sync_destroy(pthread_mutex_t *lock, pthread_cond_t *a,
                           pthread_cond_t *b)
{
    pthread_cond_destroy(b);
    pthread_cond_destroy(a);
    pthread_mutex_destroy(lock);
}

int bgthread_start(pthread_t *thread, void *(*fn)(void *), void *arg)
{
    sigset_t all, old;
    int rc;

    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(thread, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return -rc;
}

struct timespec bgthread_deadline(long ms)
{
    struct timespec t;

    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}
