/* SPDX-License-Identifier: MIT */
/*
 * live.h - a value that is swapped at run time while worker threads read it:
 * the configuration generation after SIGHUP.
 *
 * The value is immutable once published. Each thread holds a reference to
 * the generation it last saw and moves to the current one only when it asks
 * again (between requests), so a request never sees its configuration change
 * under it, and an old generation is released (by the release function given
 * to live_new, on whichever thread drops the last reference) once no thread
 * uses it any more. An idle thread keeps the generation it last saw until
 * its next request: at most one old generation per thread stays alive.
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
 * before the thread lets go of that value (on moving to a newer one, on
 * exit, in live_free). Call it once, before any live_get.
 */
void live_set_local(struct live *l, void *(*make)(void *value, void *arg),
                    void (*drop)(void *local), void *arg);

/*
 * live_publish - make @next current for every thread's next live_get. The
 * previous value is released when the last thread holding it moves on.
 *
 * Returns 0 or -ENOMEM (then nothing changed and @next is not released).
 */
int live_publish(struct live *l, void *next);

/*
 * live_get - the calling thread's value: the current one (the fast path is
 * one atomic load when nothing was published since the thread's last call).
 * It stays valid until the same thread calls live_get again or exits.
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
