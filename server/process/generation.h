/* SPDX-License-Identifier: MIT */
/*
 * generation.h - one configuration generation: a struct conf and what
 * requests read of it (struct daemon_gen: the response policy and the access
 * log), built at start-up and again by each good SIGHUP, and held in a struct
 * live while worker threads use it.
 */
#ifndef BENEATH_PROCESS_GENERATION_H
#define BENEATH_PROCESS_GENERATION_H

#include "conf.h"
#include "files/etag_cache.h"
#include "files/lookup.h"
#include "observe/metrics.h"
#include "transport/daemon.h"

#include <stdatomic.h>
#include <stdbool.h>

struct generation_log; /* an access log shared by generations */

struct generation {
    struct daemon_gen d; /* first: what the daemon reads */
    struct conf c;       /* what d points into */
    struct generation_log *log;
    atomic_uint refs;
};

/*
 * generation_new - take over @c (zeroed on success; kept by the caller on
 * failure) and open its access log, or share @prev's (NULL: none) when the
 * path and format are the same: one fd per log file however many
 * generations are alive. The generation holds one reference.
 *
 * Returns 0, -ENOMEM, or the -errno of opening the access log.
 */
int generation_new(struct conf *c, const struct respond_base *base,
                   const struct generation *prev, struct generation **out);

/* generation_shares_log - whether @g writes to @prev's access log. */
bool generation_shares_log(const struct generation *g,
                           const struct generation *prev);

/* generation_ref - one more reference to @g; returns @g. */
struct generation *generation_ref(struct generation *g);

/*
 * generation_unref - drop a reference to @g (a struct generation *; void for
 * live_new's release); the last one frees it and closes its log. NULL ok.
 */
void generation_unref(void *g);

#endif
