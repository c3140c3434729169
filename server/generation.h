/* SPDX-License-Identifier: MIT */
/*
 * generation.h - one configuration generation: a struct conf and what
 * requests read of it (struct daemon_gen: the response policy and the access
 * log), built at start-up and again by each good SIGHUP, and held in a struct
 * live while worker threads use it.
 */
#ifndef GENERATION_H
#define GENERATION_H

#include "conf.h"
#include "daemon.h"
#include "etag_cache.h"
#include "lookup.h"
#include "metrics.h"

#include <stdatomic.h>
#include <stdbool.h>

/* What every generation shares with the server: made once at start-up. */
struct generation_base {
    struct etag_cache *etags;
    struct compress_cache *compress_cache; /* bodies compressed on the fly */
    struct metrics *metrics;
    files_resolved_fn *resolved; /* after every resolver call, or NULL */
    void *resolved_arg;
    const struct error_pages *error_pages; /* --error-page (access.c) */
    const struct mime_map *mime; /* --mime-types, --mime (restart-only) */
};

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
int generation_new(struct conf *c, const struct generation_base *base,
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
