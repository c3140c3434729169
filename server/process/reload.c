// SPDX-License-Identifier: MIT
/*
 * reload.c - SIGHUP. The new configuration is built beside the running one
 * and checked (conf_load with every message, its TLS options, its access log,
 * its root); only then is it published for the workers, who move to it
 * between requests (live.c), and the old generation is freed when the last
 * request using it is done. A configuration with an error changes nothing
 * but what rotation needs: the old log, root and certificate are reopened.
 *
 * What only a restart changes (the listening sockets, the worker pool and
 * its limits, the user, the resolver, the ETag cache) is compared with the
 * start-up configuration, so the log says so after every SIGHUP until the
 * server is restarted.
 */
#include "process/reload.h"

#include "observe/log.h"
#include "process/certs.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* Options the running daemons cannot take without a restart. */
static const char *const restart_only[] = {
    /* access.c's sites and rules (their files are re-read on SIGHUP) */
    "allow",
    "auth",
    "auth-realm",
    "deny",
    "error-page",
    "headers-file",
    "mount",
    "redirects",
    "site-files",
    "trusted-proxy",
    "vhost",
    /* read at start-up (conf_mime_load) */
    "default-type",
    "mime",
    "mime-types",
    /* the daemons */
    "etag",
    "header-timeout",
    "http2",
    "listen",
    "max-connections",
    "max-connections-per-ip",
    "max-header-size",
    "metrics-listen",
    "resolver",
    "resolver-cache",
    "sandbox",
    "state-dir",
    "threads",
    "timeout",
    "tls-ciphers",
    "tls-self-signed",
    "user",
};

static bool needs_restart(const char *name)
{
    for (size_t i = 0; i < sizeof restart_only / sizeof *restart_only; i++)
        if (strcmp(name, restart_only[i]) == 0)
            return true;
    return false;
}

/* A comma list of option names, for one line. */
struct names {
    bool restart; /* collect the restart-only ones, or the others */
    char buf[512];
    size_t len;
};

static void collect(const char *name, void *arg)
{
    struct names *n = arg;

    if (needs_restart(name) != n->restart || n->len >= sizeof n->buf)
        return;
    int w = snprintf(n->buf + n->len, sizeof n->buf - n->len, "%s%s",
                     n->len ? ", " : "", name);
    if (w > 0)
        n->len += (size_t)w;
}

/* Whether the server has a certificate to reload now. */
static bool reloads_cert(const struct reload *r)
{
    return certs_reload_due(&r->boot->c);
}

/* The old configuration stays: reopen what rotation renews. */
static void keep_old(struct reload *r, const char *why, bool root_tried)
{
    const struct conf *c = &r->cur->c;
    int err = root_tried || !r->root ? 0 : root_reload(r->root);

    fprintf(stderr, "beneath: SIGHUP: %s; keeping the old configuration\n",
            why);
    if (err)
        fprintf(stderr,
                "beneath: SIGHUP: cannot reopen the root %s: %s; keeping the "
                "old root\n",
                c->root, strerror(-err));
    else if (!root_tried && r->root)
        fprintf(stderr, "beneath: SIGHUP: root %s reopened\n", c->root);
    err = log_reopen(r->cur->d.log);
    if (err)
        fprintf(stderr,
                "beneath: SIGHUP: cannot reopen the access log %s: %s; "
                "keeping the old file\n",
                c->access_log, strerror(-err));
    if (reloads_cert(r))
        certs_load(c, "SIGHUP: ");
}

/* The messages of conf_load, each on its own line. */
static void say(const struct conf_diag *d)
{
    for (size_t i = 0; i < d->n_warnings; i++)
        fprintf(stderr, "beneath: SIGHUP: %s\n", d->warnings[i]);
    for (size_t i = 0; i < d->n; i++)
        fprintf(stderr, "beneath: SIGHUP: %s\n", d->msgs[i]);
}

/* What changed, and what would need a restart. */
static void report(const struct reload *r, const struct generation *g)
{
    struct names changed = {.restart = false};
    struct names restart = {.restart = true};

    conf_diff(&r->cur->c, &g->c, collect, &changed);
    conf_diff(&r->boot->c, &g->c, collect, &restart);
    fprintf(stderr, "beneath: SIGHUP: configuration applied; %s%s\n",
            changed.len ? "changed: " : "nothing changed",
            changed.len ? changed.buf : "");
    if (restart.len)
        fprintf(stderr,
                "beneath: SIGHUP: needs a restart to change: %s (the running "
                "values stay)\n",
                restart.buf);
}

/* Open @g's root in place of the current one. 0, or -errno after a line. */
static int switch_root(struct reload *r, const struct generation *g)
{
    const char *path = g->c.root;
    char why[512];

    /* virtual hosts only (access.c): no --root, before or after */
    if (!path || !r->root) {
        if (!path && !r->root)
            return 0;
        keep_old(r, "adding or removing --root beside --vhost needs a restart",
                 false);
        return -EINVAL;
    }
    bool moved = strcmp(path, r->cur->c.root) != 0;
    int err = moved ? root_move(r->root, path) : root_reload(r->root);

    if (err) {
        snprintf(why, sizeof why, "root %s: %s", path, strerror(-err));
        keep_old(r, why, true);
        return err;
    }
    fprintf(stderr, "beneath: SIGHUP: root %s %s\n", path,
            moved ? "opened" : "reopened");
    return 0;
}

void reload_run(struct reload *r)
{
    struct conf c;
    struct conf_diag d = {0};
    struct generation *g = NULL;
    char why[512];
    int err = conf_load(&c, r->argc, r->argv, environ, &d);

    say(&d);
    conf_diag_free(&d);
    if (err == 0 && certs_wanted(&r->boot->c) && certs_check(&c, "SIGHUP: "))
        err = -EINVAL;
    if (err) {
        conf_free(&c);
        keep_old(r,
                 err == -ENOMEM ? "out of memory"
                                : "the configuration has errors",
                 false);
        return;
    }
    err = generation_new(&c, r->base, r->cur, &g);
    if (err) {
        snprintf(why, sizeof why, "access-log %s: %s", c.access_log,
                 strerror(-err));
        conf_free(&c);
        keep_old(r, why, false);
        return;
    }
    if (switch_root(r, g) != 0) {
        generation_unref(g);
        return;
    }
    /* the same log file: reopened in place (rotation), the fd stays */
    err = generation_shares_log(g, r->cur) ? log_reopen(g->d.log) : 0;
    if (err)
        fprintf(stderr,
                "beneath: SIGHUP: cannot reopen the access log %s: %s; "
                "keeping the old file\n",
                g->c.access_log, strerror(-err));
    if (reloads_cert(r))
        certs_load(&g->c, "SIGHUP: ");
    report(r, g);
    if (live_publish(r->live, g) != 0) {
        generation_unref(g);
        keep_old(r, "out of memory", true);
        return;
    }
    r->cur = g;
}
