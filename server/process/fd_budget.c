// SPDX-License-Identifier: MIT
/*
 * fd_budget.c - the descriptors the serving process may hold, fitted to
 * RLIMIT_NOFILE (fd_budget.h).
 */
#include "process/fd_budget.h"

#include "conf.h"
#include "transport/h2.h"

#include <stdio.h>

void fd_budget_plan(const struct fd_budget_in *in, struct fd_budget *out)
{
    const rlim_t limit = in->limit;
    rlim_t conns = in->max_connections;
    rlim_t fixed;
    rlim_t left;
    rlim_t pool;
    rlim_t caches;
    rlim_t per_cache = (rlim_t)(in->threads + 1) * (in->roots ? in->roots : 1);

    if (limit < FD_BUDGET_PER_CONNECTION * conns + FD_BUDGET_MARGIN)
        conns = limit > FD_BUDGET_MARGIN + FD_BUDGET_PER_CONNECTION
                    ? (limit - FD_BUDGET_MARGIN) / FD_BUDGET_PER_CONNECTION
                    : 1;
    fixed = FD_BUDGET_PER_CONNECTION * conns + FD_BUDGET_MARGIN;
    left = limit > fixed ? limit - fixed : 0;
    pool = in->http2 ? conns * (H2_FILES_PER_CONN - 1) : 0;
    caches =
        in->resolver_cache ? per_cache * ((rlim_t)in->resolver_cache + 3) : 0;
    if (pool + caches > left) {
        /* the pool gives way first, down to a quarter of what is left */
        rlim_t share = caches ? left / 4 : left;
        pool = pool < share ? pool : share;
        caches = left - pool;
    }
    out->max_connections = (unsigned)conns;
    out->h2_files = (unsigned)pool;
    out->dir_cache = in->resolver_cache;
    if (in->resolver_cache &&
        caches / per_cache < (rlim_t)in->resolver_cache + 3)
        out->dir_cache =
            caches / per_cache > 3 ? (unsigned)(caches / per_cache - 3) : 0;
}

void fd_budget_fit(struct conf *c, struct fd_budget *out)
{
    struct rlimit rl;
    struct fd_budget_in in = {
        .max_connections = c->max_connections,
        .resolver_cache = c->resolver_cache,
        .threads = c->threads,
        .roots = 1 + (unsigned)c->vhost.n + (unsigned)c->mount.n,
        .http2 = c->http2,
    };

    if (getrlimit(RLIMIT_NOFILE, &rl) < 0) {
        *out = (struct fd_budget){c->max_connections, c->resolver_cache, 0};
        return;
    }
    if (rl.rlim_cur < rl.rlim_max) {
        struct rlimit want = {rl.rlim_max, rl.rlim_max};

        if (setrlimit(RLIMIT_NOFILE, &want) == 0)
            rl.rlim_cur = rl.rlim_max;
    }
    in.limit = rl.rlim_cur;
    fd_budget_plan(&in, out);
    if (out->max_connections < c->max_connections) {
        fprintf(stderr,
                "beneath: warning: --max-connections lowered from %u to %u: "
                "RLIMIT_NOFILE is %llu and each connection needs 2 fds (plus "
                "64)\n",
                c->max_connections, out->max_connections,
                (unsigned long long)rl.rlim_cur);
        c->max_connections = out->max_connections;
    }
    if (out->dir_cache < c->resolver_cache)
        fprintf(stderr,
                "beneath: warning: --resolver-cache lowered from %u to %u per "
                "thread: RLIMIT_NOFILE is %llu and %u connections may need "
                "%llu\n",
                c->resolver_cache, out->dir_cache,
                (unsigned long long)rl.rlim_cur, c->max_connections,
                (unsigned long long)(FD_BUDGET_PER_CONNECTION *
                                         (rlim_t)c->max_connections +
                                     FD_BUDGET_MARGIN + out->h2_files));
}
