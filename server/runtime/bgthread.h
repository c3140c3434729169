/* SPDX-License-Identifier: MIT */
/*
 * bgthread.h - what the daemon's background threads share (the ETag and
 * compression caches' workers, the access log's writer): a lock and two
 * condition variables made and destroyed together, a thread started with
 * every signal blocked, and the deadline of a timed wait.
 */
#ifndef BENEATH_RUNTIME_BGTHREAD_H
#define BENEATH_RUNTIME_BGTHREAD_H

#include <pthread.h>
#include <time.h>

/*
 * bgthread_sync_init - initialise @lock, @a and @b; on failure none of them
 * is left initialised.
 *
 * Returns 0 or -ENOMEM.
 */
int bgthread_sync_init(pthread_mutex_t *lock, pthread_cond_t *a,
                       pthread_cond_t *b);

/* bgthread_sync_destroy - destroy what bgthread_sync_init made. */
void bgthread_sync_destroy(pthread_mutex_t *lock, pthread_cond_t *a,
                           pthread_cond_t *b);

/*
 * bgthread_start - start @fn(@arg) as @thread with every signal blocked: a
 * process-directed SIGTERM must reach the thread that waits for it (main's
 * signalfd), never kill the process through this one. The caller's mask is
 * unchanged.
 *
 * Returns 0 or the -errno of pthread_create (-EAGAIN: out of threads).
 */
int bgthread_start(pthread_t *thread, void *(*fn)(void *), void *arg);

/*
 * bgthread_deadline - the CLOCK_REALTIME time @ms milliseconds from now,
 * for pthread_cond_timedwait.
 */
struct timespec bgthread_deadline(long ms);

#endif
