// SPDX-License-Identifier: MIT
/*
 * policy.c - a configuration's reply policy (respond.h): which options
 * shape a reply, read once per configuration generation.
 */
#include "access/access.h"
#include "respond/respond.h"

#include <stdatomic.h>

/* Numbers the generations: a reply cached under one is not sent under
 * another, whose headers may differ (reply_cache.h). */
static atomic_uint_fast64_t serials;

void respond_policy(const struct conf *c, const struct respond_base *b,
                    struct respond_conf *out)
{
    size_t n_into;
    const struct resolver_into *into = access_follow_into(b->access, &n_into);
    /* where clients reach https://: given, or the listener's own port */
    unsigned https_port =
        c->https_redirect_port ? c->https_redirect_port : b->https_port;

    *out = (struct respond_conf){
        .files =
            {
                .confine = c->confine,
                .into = into,
                .n_into = n_into,
                .index = c->index.v,
                .n_index = c->index.n,
                .listing = c->listing,
                .dotfiles = c->dotfiles == CONF_DOTFILES_ALLOW,
                .precompressed = c->precompressed.v,
                .n_precompressed = c->precompressed.n,
                .try_html = c->try_html,
                .fallback = c->fallback,
                .error_pages = b->error_pages,
                .mime = b->mime,
                /* Timed and counted only when shown. */
                .resolved = c->metrics || c->metrics_listen || c->server_timing
                                ? b->resolved
                                : NULL,
                .resolved_arg = b->resolved_arg,
            },
        .etags = b->etags,
        .hsts = c->hsts,
        .cache = &c->cache,
        .headers = &c->headers,
        .cors = &c->cors,
        .health = c->health,
        .metrics_path = c->metrics,
        /* counted when shown, at a path or on their own listener */
        .metrics = c->metrics || c->metrics_listen ? b->metrics : NULL,
        .server_timing = c->server_timing,
        .compress = c->compress.v,
        .n_compress = b->compress_cache ? c->compress.n : 0,
        .compress_cache = b->compress_cache,
        .access = b->access,
        .root = b->root,
        .acme = b->acme,
        .https_redirect = conf_https_redirect(c),
        .https_port = https_port == 443 ? 0 : https_port,
    };
    out->serial = atomic_fetch_add(&serials, 1) + 1;
}
