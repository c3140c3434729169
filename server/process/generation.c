// SPDX-License-Identifier: MIT
/*
 * generation.c - build a configuration generation: the conf moved in, its
 * access log opened, and the response policy (struct respond_conf) pointing
 * into the conf's typed values, which stay put for the generation's life.
 * Counted references: one for the struct live that serves it, one more for
 * whoever keeps it past that (main keeps the start-up generation, whose
 * values the restart-only settings keep). The access log is counted too:
 * generations with the same log share one open file, so reloads do not
 * multiply fds while idle workers still hold an older generation.
 */
#include "process/generation.h"

#include "observe/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct generation_log {
    struct log *log;
    atomic_uint refs;
};

static void log_unref(struct generation_log *gl)
{
    if (gl && atomic_fetch_sub(&gl->refs, 1) == 1) {
        log_close(gl->log);
        free(gl);
    }
}

/* @prev's log when @c names the same one, or a newly opened one. */
static int log_for(const struct conf *c, const struct generation *prev,
                   const struct respond_base *b, struct generation_log **out)
{
    struct generation_log *gl;
    int err;

    if (prev && strcmp(prev->c.access_log, c->access_log) == 0 &&
        strcmp(prev->c.log_format, c->log_format) == 0) {
        atomic_fetch_add(&prev->log->refs, 1);
        *out = prev->log;
        return 0;
    }
    gl = calloc(1, sizeof *gl);
    if (!gl)
        return -ENOMEM;
    err = log_open(c->access_log, c->log_format, &gl->log);
    if (err) {
        free(gl);
        return err;
    }
    if (b->metrics)
        log_count_drops(gl->log, &b->metrics->log_dropped);
    atomic_init(&gl->refs, 1);
    *out = gl;
    return 0;
}

int generation_new(struct conf *c, const struct respond_base *base,
                   const struct generation *prev, struct generation **out)
{
    struct generation *g = calloc(1, sizeof *g);
    int err;

    if (!g)
        return -ENOMEM;
    err = log_for(c, prev, base, &g->log);
    if (err) {
        free(g);
        return err;
    }
    g->d.log = g->log->log;
    g->c = *c;
    memset(c, 0, sizeof *c);
    respond_policy(&g->c, base, &g->d.respond);
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

bool generation_shares_log(const struct generation *g,
                           const struct generation *prev)
{
    return prev && g->log == prev->log;
}
