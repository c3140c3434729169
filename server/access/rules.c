// SPDX-License-Identifier: MIT
/*
 * rules.c - a site's rule files (_redirects, _headers): parsed from text
 * with every message said, or read beneath a site's root fd through the
 * resolver; shared by the sites loaded at start-up (access_load.c) and
 * those --sites finds while serving (sites.c).
 */
#include "access/access_internal.h"
#include "access/slurp.h"
#include "resolver.h"
#include "syntax/lines.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void access_rules_free(struct access_rules *r)
{
    if (!r)
        return;
    redirects_free(&r->redirects);
    headers_file_free(&r->headers);
    free(r);
}

int access_rules_parse(struct access_rules *r, bool redirects, const char *text,
                       size_t len, const char *name, const char *when)
{
    struct lines_diag d = {0};
    int err = redirects ? redirects_parse(&r->redirects, text, len, name, &d)
                        : headers_file_parse(&r->headers, text, len, name, &d);

    for (size_t i = 0; i < d.n_warnings; i++)
        fprintf(stderr, "beneath: %swarning: %s\n", when, d.warnings[i]);
    for (size_t i = 0; i < d.n; i++)
        fprintf(stderr, "beneath: %s%s\n", when, d.msgs[i]);
    if (d.warnings_dropped)
        fprintf(stderr, "beneath: %swarning: %s: %zu more lines ignored\n",
                when, name, d.warnings_dropped);
    if (d.dropped)
        fprintf(stderr, "beneath: %s%s: %zu more problems\n", when, name,
                d.dropped);
    lines_diag_free(&d);
    if (err == 0) {
        if (redirects)
            r->has_redirects = true;
        else
            r->has_headers = true;
    }
    return err;
}

int access_rules_keep(struct access_rules *r, int problems,
                      struct access_rules **out)
{
    *out = problems ? NULL : r;
    if (problems)
        access_rules_free(r);
    return problems;
}

int access_rules_take(struct access_rules *r, bool redirects, int err,
                      char *text, size_t len, const char *name,
                      const char *when)
{
    char why[64];

    if (err == 0)
        err = access_rules_parse(r, redirects, text, len, name, when);
    else
        fprintf(stderr, "beneath: %s%s: %s\n", when, name,
                slurp_error(err, ACCESS_RULES_FILE_MAX, why, sizeof why));
    free(text);
    return err;
}

int access_rules_load(uint64_t confine, int root, const char *shown,
                      const char *when, struct access_rules **out)
{
    static const char *const names[2] = {"_redirects", "_headers"};
    struct access_rules *r = calloc(1, sizeof *r);
    int problems = 0;

    *out = NULL;
    if (!r)
        return -ENOMEM;
    for (int k = 0; k < 2; k++) {
        struct resolver_how how = {
            .open_flags = O_RDONLY | O_NONBLOCK,
            .resolve = confine,
            .backend = RESOLVER_BACKEND_DEFAULT,
        };
        char name[4200], *text = NULL;
        size_t len = 0;
        struct stat st;
        int fd = resolver_open_how(root, names[k], &how, NULL), err;

        snprintf(name, sizeof name, "%s%s%s", shown,
                 shown[0] && shown[strlen(shown) - 1] == '/' ? "" : "/",
                 names[k]);
        if (fd == -ENOENT)
            continue;
        if (fd < 0) {
            const char *e = resolver_errno_name(-fd);
            fprintf(stderr, "beneath: %s%s: %s (%s)\n", when, name,
                    strerror(-fd), e ? e : "?");
            problems++;
            continue;
        }
        err = fstat(fd, &st) != 0 ? -errno : 0;
        if (err == 0)
            err = slurp_fd(fd, ACCESS_RULES_FILE_MAX, &text, &len);
        close(fd);
        if (err == 0) {
            r->dev[r->n_ids] = st.st_dev;
            r->ino[r->n_ids++] = st.st_ino;
        }
        err = access_rules_take(r, k == 0, err, text, len, name, when);
        if (err == -ENOMEM)
            return access_rules_keep(r, -ENOMEM, out);
        problems += err != 0;
    }
    return access_rules_keep(r, problems, out);
}
