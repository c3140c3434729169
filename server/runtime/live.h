/* SPDX-License-Identifier: MIT */
/*
 * live.h - a value worker threads read, each with data of its own made for
 * it (a resolver directory cache that borrows the root's fd). The value is
 * immutable: a serving process serves one configuration for its life (a
 * SIGHUP starts a new serving process, server/process/keeper.h). It is
 * released (by the release function given to live_new) once the holder and
 * every thread that took it let go.
 */
#ifndef BENEATH_RUNTIME_LIVE_H
#define BENEATH_RUNTIME_LIVE_H

struct live;

/*
 * live_new - hold @first as the current value; @release frees a value no
 * thread uses any more. @out receives the holder, owned by the caller.
 *
 * Returns 0 or -ENOMEM (then @first is not released).
 */
int live_new(void *first, void (*release)(void *), struct live **out);

/*
 * live_set_local - give each thread data of its own for the value it holds
 * (a cache that borrows from the value): @make(value, @arg) makes it when a
 * thread's live_get takes a value, NULL meaning none, and @drop releases it
 * before the thread lets go of that value (on exit, in live_free). Call it
 * once, before any live_get.
 */
void live_set_local(struct live *l, void *(*make)(void *value, void *arg),
                    void (*drop)(void *local), void *arg);

/*
 * live_get - the calling thread's value (the fast path is one atomic load
 * once the thread holds its reference). It stays valid until the thread
 * exits.
 *
 * Returns the value, or NULL when no memory was left for the thread's
 * reference.
 */
void *live_get(struct live *l);

/*
 * live_local - the calling thread's data (live_set_local) for the value
 * live_get last returned to it, or NULL.
 */
void *live_local(struct live *l);

/*
 * live_free - release the holder and the current value. Every thread that
 * called live_get must have exited (libmicrohttpd stopped), except the
 * caller. NULL is accepted.
 */
void live_free(struct live *l);

#endif
