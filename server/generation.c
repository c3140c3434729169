// SPDX-License-Identifier: MIT
/*
 * generation.c - build a configuration generation: the conf moved in, its
 * access log opened, and the response policy (struct respond_conf) pointing
 * into the conf's typed values, which stay put for the generation's life.
 * Counted references: one for the struct live that serves it, one more for
 * whoever keeps it past that (main keeps the start-up generation, whose
 * values the restart-only settings keep).
 */
#include "generation.h"

#include "log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void policy(struct generation *g, const struct generation_base *b)
{
    const struct conf *c = &g->c;

    g->d.respond = (struct respond_conf){
        .files =
            {
                .confine = c->confine,
                .index = c->index.v,
                .n_index = c->index.n,
                .listing = c->listing,
                .dotfiles = c->dotfiles == CONF_DOTFILES_ALLOW,
                .precompressed = c->precompressed.v,
                .n_precompressed = c->precompressed.n,
                .try_html = c->try_html,
                .fallback = c->fallback,
                .resolved = b->resolved,
                .resolved_arg = b->resolved_arg,
            },
        .etags = b->etags,
        .hsts = c->hsts,
        .cache = &c->cache,
        .headers = &c->headers,
        .health = c->health,
        .metrics_path = c->metrics,
        .metrics = b->metrics,
        .server_timing = c->server_timing,
    };
}

int generation_new(struct conf *c, const struct generation_base *base,
                   struct generation **out)
{
    struct generation *g = calloc(1, sizeof *g);
    int err;

    if (!g)
        return -ENOMEM;
    err = log_open(c->access_log,
                   c->log_format == CONF_LOG_JSON ? LOG_JSON : LOG_COMBINED,
                   &g->d.log);
    if (err) {
        free(g);
        return err;
    }
    g->c = *c;
    memset(c, 0, sizeof *c);
    policy(g, base);
    atomic_init(&g->refs, 1);
    *out = g;
    return 0;
}

struct generation *generation_ref(struct generation *g)
{
    atomic_fetch_add(&g->refs, 1);
    return g;
}

void generation_unref(void *p)
{
    struct generation *g = p;

    if (!g || atomic_fetch_sub(&g->refs, 1) != 1)
        return;
    log_close(g->d.log);
    conf_free(&g->c);
    free(g);
}
