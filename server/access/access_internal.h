/* SPDX-License-Identifier: MIT */
/*
 * access_internal.h - what access_load.c (sites, address lists and rule
 * files, opened at start-up) and access.c (the questions asked per
 * connection and per request) share. access.h is the interface.
 */
#ifndef BENEATH_ACCESS_ACCESS_INTERNAL_H
#define BENEATH_ACCESS_ACCESS_INTERNAL_H

#include "access/access.h"
#include "access/auth.h"
#include "access/sites.h"
#include "syntax/cidr.h"
#include "syntax/headers_file.h"
#include "syntax/redirects.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* --follow-into directories at most (an fd and a Landlock rule each). */
#define ACCESS_FOLLOW_INTO_MAX 64
/* A _redirects or _headers file larger than this is refused. */
#define ACCESS_RULES_FILE_MAX ((size_t)16 << 20)

struct access_rules {
    struct redirects redirects;
    struct headers_file headers;
    bool has_redirects, has_headers;
    dev_t dev[2]; /* the site's own files: never served */
    ino_t ino[2];
    size_t n_ids;
};

/*
 * access_rules_load - /_redirects and /_headers beneath @root (borrowed),
 * each opened through the resolver with @confine; messages to stderr as
 * "beneath: @when@shown/_redirects:LINE: ...". *@out gets the rules (NULL
 * on failure; release with access_rules_free).
 *
 * Returns 0, the number of problems (a file refused, unreadable or with a
 * bad line), or -ENOMEM.
 */
int access_rules_load(uint64_t confine, int root, const char *shown,
                      const char *when, struct access_rules **out);
void access_rules_free(struct access_rules *r);

/*
 * access_rules_parse - @text (@len bytes) as a _redirects (@redirects) or
 * _headers file named @name into @r; messages to stderr after
 * "beneath: @when". Returns 0, -EINVAL or -ENOMEM.
 */
/*
 * access_rules_keep - the end of a load: @r into *@out when @problems is
 * 0, else @r freed and *@out NULL. Returns @problems (a count, or -ENOMEM).
 */
int access_rules_keep(struct access_rules *r, int problems,
                      struct access_rules **out);

/*
 * access_rules_take - what reading a rule file named @name gave: @err 0
 * and its @text (@len bytes, taken over and freed) parsed into @r, or
 * @err (a -errno of slurp_path / slurp_fd) said on stderr. Returns 0,
 * -EINVAL, -ENOMEM or @err.
 */
int access_rules_take(struct access_rules *r, bool redirects, int err,
                      char *text, size_t len, const char *name,
                      const char *when);
int access_rules_parse(struct access_rules *r, bool redirects, const char *text,
                       size_t len, const char *name, const char *when);

struct site {
    char *name; /* normalised vhost pattern; NULL: the --root site */
    char *path;
    struct root *root; /* NULL: none (421) */
    bool owned;
    struct access_rules *files; /* with --site-files, or NULL */
};

/* A --mount: the paths at and below prefix come from root. */
struct mount {
    char *prefix; /* "/_static/fonts": normalised, no trailing '/' */
    size_t len;
    char *path;        /* DIR (or FILE) as configured */
    char *file;        /* a file mount: its name in root, which is the
                          file's directory; NULL: root is DIR */
    struct root *root; /* NULL: could not be opened */
};

struct access {
    struct cidr_list allow, deny, trusted;
    struct auth *auth;
    char *redirects_path, *headers_path;
    struct access_rules *global; /* --redirects, --headers-file, or NULL */
    struct site *vhosts;
    size_t n_vhosts;
    struct site dflt;
    struct mount *mounts;
    size_t n_mounts;
    struct resolver_into *into; /* --follow-into, opened once */
    size_t n_into;
    struct sites *sites; /* --sites, or NULL */
    bool site_files;
    bool rules; /* respond has questions to ask (auth or rule files) */
    uint64_t confine;
    struct error_pages error_pages;
    struct metrics *metrics;
};

#endif
