/* SPDX-License-Identifier: MIT */
/*
 * fd_budget.h - the descriptors the serving process may hold at once,
 * fitted to RLIMIT_NOFILE (raised to its hard limit) at start-up:
 *
 *   64                       listeners, logs, the ETag thread, the keeper's
 *                            socket, a file each worker has open while it
 *                            answers
 * + 2 x --max-connections    a socket and the file it sends (HTTP/1.1: one
 *                            reply at a time; HTTP/2: the one file stream
 *                            every connection may always have)
 * + h2_files                 HTTP/2 streams holding a file beyond that one,
 *                            all connections together: a connection takes
 *                            them from this pool, at most
 *                            H2_FILES_PER_CONN - 1 (transport/h2/h2.h)
 * + sites                    --sites: the site directories kept
 *                            (--sites-cache, at most a quarter of the
 *                            limit: one fd each)
 * + dir caches               (--threads + 1) x roots x (--resolver-cache + 3),
 *                            --sites one root whatever its number of sites
 *
 * What does not fit is lowered, with a warning: --sites-cache to a quarter
 * of the limit, then --max-connections, then the pool and the caches, the
 * pool taking at most a quarter of what the connections leave.
 */
#ifndef BENEATH_PROCESS_FD_BUDGET_H
#define BENEATH_PROCESS_FD_BUDGET_H

#include <stdbool.h>
#include <sys/resource.h>

struct conf;

/* What the budget is made from (fd_budget_plan). */
struct fd_budget_in {
    rlim_t limit;             /* RLIMIT_NOFILE */
    unsigned max_connections; /* --max-connections */
    unsigned resolver_cache;  /* --resolver-cache (0: none) */
    unsigned threads;         /* --threads */
    unsigned roots;           /* the root, each vhost and mount: 1 + ...,
                                 and one for --sites */
    bool http2;               /* --http2 on */
    unsigned sites;           /* --sites-cache (0: no --sites) */
};

struct fd_budget {
    unsigned max_connections; /* what fits (<= asked) */
    unsigned dir_cache;       /* directories per thread's cache, per root */
    unsigned h2_files;        /* the HTTP/2 pool */
};

#define FD_BUDGET_MARGIN 64
#define FD_BUDGET_PER_CONNECTION 2

/* fd_budget_plan - the arithmetic alone: @in fitted into *@out. */
void fd_budget_plan(const struct fd_budget_in *in, struct fd_budget *out);

/*
 * fd_budget_fit - raise the soft RLIMIT_NOFILE to the hard one, plan the
 * budget of @c, and lower @c->max_connections to what fits; each value
 * lowered is said on stderr.
 */
void fd_budget_fit(struct conf *c, struct fd_budget *out);

#endif
