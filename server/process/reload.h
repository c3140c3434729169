/* SPDX-License-Identifier: MIT */
/*
 * reload.h - SIGHUP: read the configuration again and apply what can change
 * without a restart.
 */
#ifndef BENEATH_PROCESS_RELOAD_H
#define BENEATH_PROCESS_RELOAD_H

#include "process/generation.h"
#include "runtime/live.h"
#include "runtime/root.h"

/* What a reload reads and swaps; the main thread's, borrowed. */
struct reload {
    int argc; /* the command line of the start (and the environment) */
    char *const *argv;
    struct generation *boot; /* its restart-only values stay in force */
    struct generation *cur;  /* the current generation (held by live) */
    struct live *live;       /* of struct daemon_gen, for the workers */
    struct root *root;
    const struct respond_base *base;
};

/*
 * reload_run - load the configuration from the same command line,
 * environment and file as at start-up. When it has no error: open its access
 * log, open its root (a new path, or the same one again), load its
 * certificate, make it the generation of every request that starts from now
 * on (r->cur), and say on stderr what changed and which changes need a
 * restart (listen addresses, threads, limits, user, resolver, ETag mode:
 * the running values stay). When it has an error (each message with its
 * FILE:LINE), or its log or root cannot be opened, the old configuration
 * stays and only reopens its log, root and certificate (rotation). Every
 * line starts "beneath: SIGHUP: ".
 */
void reload_run(struct reload *r);

#endif
