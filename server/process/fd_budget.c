// SPDX-License-Identifier: MIT
/*
 * fd_budget.c - the descriptors the serving process may hold, fitted to
 * RLIMIT_NOFILE (fd_budget.h).
 */
#include "process/fd_budget.h"

#include "conf.h"
#include "transport/h2/h2.h"

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

    const rlim_t margin = FD_BUDGET_MARGIN + (rlim_t)in->sites;

    if (limit < FD_BUDGET_PER_CONNECTION * conns + margin)
        conns = limit > margin + FD_BUDGET_PER_CONNECTION
                    ? (limit - margin) / FD_BUDGET_PER_CONNECTION
                    : 1;
    fixed = FD_BUDGET_PER_CONNECTION * conns + margin;
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

/*
 * --sites keeps a site directory open for each site it keeps: at most a
 * quarter of the limit, so that a small limit lowers the sites kept, not
 * --max-connections. Said when lowered.
 */
static void fit_sites(struct conf *c, rlim_t limit)
{
    unsigned fit = limit / 4 > 0 ? (unsigned)(limit / 4) : 1;

    if (!c->sites || (rlim_t)c->sites_cache <= limit / 4)
        return;
    fprintf(stderr,
            "beneath: warning: --sites-cache lowered from %u to %u: "
            "RLIMIT_NOFILE is %llu and each site kept holds an fd\n",
            c->sites_cache, fit, (unsigned long long)limit);
    c->sites_cache = fit;
}

void fd_budget_fit(struct conf *c, struct fd_budget *out)
{
    struct rlimit rl;
    struct fd_budget_in in = {
        .max_connections = c->max_connections,
        .resolver_cache = c->resolver_cache,
        .threads = c->threads,
        .roots = 1 + (unsigned)c->vhost.n + (unsigned)c->mount.n +
                 (c->sites ? 1 : 0),
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
    fit_sites(c, rl.rlim_cur);
    in.sites = c->sites ? c->sites_cache : 0;
    fd_budget_plan(&in, out);
    if (out->max_connections < c->max_connections) {
        fprintf(stderr,
                "beneath: warning: --max-connections lowered from %u to %u: "
                "RLIMIT_NOFILE is %llu and each connection needs 2 fds (plus "
                "%u)\n",
                c->max_connections, out->max_connections,
                (unsigned long long)rl.rlim_cur, FD_BUDGET_MARGIN + in.sites);
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
                                     FD_BUDGET_MARGIN + in.sites +
                                     out->h2_files));
}
