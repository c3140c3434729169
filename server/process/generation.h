/* SPDX-License-Identifier: MIT */
/*
 * generation.h - the configuration generation a serving process serves: a
 * struct conf and what requests read of it (struct gen_conf: the response
 * policy and the access log), built at its start (each SIGHUP starts a new
 * serving process) and held in a struct live the worker threads read.
 */
#ifndef BENEATH_PROCESS_GENERATION_H
#define BENEATH_PROCESS_GENERATION_H

#include "conf.h"
#include "files/etag_cache.h"
#include "files/lookup.h"
#include "observe/metrics.h"
#include "transport/conn/gen_conf.h"

#include <stdatomic.h>
#include <stdbool.h>

struct generation_log; /* an access log shared by generations */

struct generation {
    struct gen_conf gc; /* first: what every connection reads */
    struct conf c;      /* what gc points into */
    struct generation_log *log;
    atomic_uint refs;
};

/*
 * generation_new - take over @c (zeroed on success; kept by the caller on
 * failure) and open its access log. The generation holds one reference.
 *
 * Returns 0, -ENOMEM, or the -errno of opening the access log.
 */
int generation_new(struct conf *c, const struct respond_base *base,
                   struct generation **out);

/* generation_ref - one more reference to @g; returns @g. */
struct generation *generation_ref(struct generation *g);

/*
 * generation_unref - drop a reference to @g (a struct generation *; void for
 * live_new's release); the last one frees it and closes its log. NULL ok.
 */
void generation_unref(void *g);

#endif
