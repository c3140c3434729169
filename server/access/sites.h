/* SPDX-License-Identifier: MIT */
/*
 * sites.h - --sites DIR: each Host names a directory DIR/HOST, opened
 * confined beneath DIR and resolved again on every request; the request's
 * paths are then resolved beneath that site's own directory fd. Nothing is
 * read at start-up but DIR itself: a bounded cache keeps the site
 * directories in use (an O_PATH fd each, with their _redirects and
 * _headers), each used only while DIR/HOST still names the same directory.
 * sites.c says why it is safe; docs/sites.md how to use it.
 */
#ifndef BENEATH_ACCESS_SITES_H
#define BENEATH_ACCESS_SITES_H

#include <stdbool.h>
#include <stdint.h>

struct sites;
struct sites_entry; /* one site directory in use: a reference */
struct access_rules;
struct resolver_cache;

struct sites_conf {
    const char *dir;    /* DIR, opened by path (the operator's: trusted) */
    uint64_t confine;   /* --confine: paths beneath each site */
    unsigned cache;     /* site directories kept (>= 1) */
    unsigned dir_cache; /* per thread, the emulated resolver's cache of
                           the site it served last (0: none) */
    bool site_files;    /* read each site's /_redirects and /_headers */
};

/*
 * sites_open - open DIR of @sc (O_PATH|O_DIRECTORY; its listing is not
 * read). *@out is owned by the caller.
 *
 * Returns 0, -ENOMEM, or the -errno of open(2) (-ENOENT, -ENOTDIR, ...).
 */
int sites_open(const struct sites_conf *sc, struct sites **out);

/* sites_free - release @s (no request holds an entry); NULL is accepted. */
void sites_free(struct sites *s);

/*
 * sites_get - the site directory @name (host_site_name said 1): DIR/@name
 * opened beneath DIR now, with the entry kept for that directory (its rule
 * files read the first time). *@out is a reference: sites_put it.
 *
 * Returns 0; -ENOENT or -ENOTDIR: no such site; -EXDEV, -ELOOP, -EACCES
 * (a site directory that is a link out of DIR, or not searchable): refused;
 * -EINVAL: its _redirects or _headers is refused (said on stderr once, as
 * each file is read); -ENOMEM, -EMFILE, ...
 */
int sites_get(struct sites *s, const char *name, struct sites_entry **out);

/* sites_put - release a reference of sites_get; NULL is accepted. */
void sites_put(struct sites_entry *e);

/* sites_entry_fd - the site directory's O_PATH fd (valid while held). */
int sites_entry_fd(const struct sites_entry *e);

/* sites_entry_name - the site's name (valid while held). */
const char *sites_entry_name(const struct sites_entry *e);

/* sites_entry_rules - the site's rule files, or NULL: none. */
const struct access_rules *sites_entry_rules(const struct sites_entry *e);

/*
 * sites_thread_cache - the calling thread's resolver directory cache for
 * @e's fd (emulated backend), or NULL: none configured, or no memory. It
 * follows the site the thread served last: one per thread, whatever the
 * number of sites.
 */
struct resolver_cache *sites_thread_cache(struct sites *s,
                                          struct sites_entry *e);

/*
 * sites_exists - whether DIR/@name is a site directory now, as sites_get
 * would find it, without reading or keeping anything (one openat2): for
 * what must not act on a name without a site (a certificate on demand).
 *
 * Returns 1, 0 (no such directory), or -errno (refused, as sites_get).
 */
int sites_exists(struct sites *s, const char *name);

/* sites_counts - requests that found their site kept, and that did not. */
void sites_counts(void *s, uint64_t *hits, uint64_t *misses);

/* sites_dir - DIR as configured. */
const char *sites_dir(const struct sites *s);

#endif
