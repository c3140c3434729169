// SPDX-License-Identifier: MIT
/*
 * generation.c - build a configuration generation: the conf moved in, its
 * access log opened, and the response policy (struct respond_conf) pointing
 * into the conf's typed values, which stay put for the generation's life.
 * Counted references: one for the struct live that serves it, one more for
 * main, which keeps it for the serving process's life (a SIGHUP starts a
 * new serving process with a generation of its own).
 */
#include "process/generation.h"

#include "observe/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct generation_log {
    struct log *log;
};

static void log_unref(struct generation_log *gl)
{
    if (gl) {
        log_close(gl->log);
        free(gl);
    }
}

/* @c's access log, opened. */
static int log_for(const struct conf *c, const struct respond_base *b,
                   struct generation_log **out)
{
    struct generation_log *gl = calloc(1, sizeof *gl);
    int err;

    if (!gl)
        return -ENOMEM;
    err = log_open(c->access_log, c->log_format, &gl->log);
    if (err) {
        free(gl);
        return err;
    }
    if (b->metrics)
        log_count_drops(gl->log, &b->metrics->log_dropped);
    *out = gl;
    return 0;
}

int generation_new(struct conf *c, const struct respond_base *base,
                   struct generation **out)
{
    struct generation *g = calloc(1, sizeof *g);
    int err;

    if (!g)
        return -ENOMEM;
    err = log_for(c, base, &g->log);
    if (err) {
        free(g);
        return err;
    }
    g->gc.log = g->log->log;
    g->c = *c;
    memset(c, 0, sizeof *c);
    respond_policy(&g->c, base, &g->gc.respond);
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
    log_unref(g->log);
    conf_free(&g->c);
    free(g);
}
