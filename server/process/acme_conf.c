/* SPDX-License-Identifier: MIT */
/*
 * acme_conf.c - from struct conf to beneath_acme's struct acme_config: each
 * --acme value is one certificate, its names split at the commas; the
 * challenge is conf_acme_challenge's. The library checks what it is given
 * again (acme_check), so --check reports exactly what a start would refuse.
 * Before anything is bound, a start and --check also ask whether --acme-dir
 * can be made or written at all (a read-only mount, the wrong owner), so
 * that this ends the start with the reason rather than the ACME manager
 * failing once the server listens.
 */
#include "process/acme_conf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Cut a copy of @item at its commas into @v (room for every name). */
static size_t split(char *copy, char **v)
{
    size_t n = 0;

    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t;
         t = strtok_r(NULL, ",", &save))
        v[n++] = t;
    return n;
}

int acme_conf_build(const struct conf *c, struct acme_conf *out)
{
    *out = (struct acme_conf){0};
    out->certs = calloc(c->acme.n ? c->acme.n : 1, sizeof *out->certs);
    out->names = calloc(c->acme.n ? c->acme.n : 1, sizeof *out->names);
    out->vecs = calloc(c->acme.n ? c->acme.n : 1, sizeof *out->vecs);
    if (out->certs == NULL || out->names == NULL || out->vecs == NULL)
        goto out_free;
    for (size_t i = 0; i < c->acme.n; i++) {
        size_t commas = 1;
        char **v;

        for (const char *p = c->acme.v[i]; *p; p++)
            commas += *p == ',';
        out->names[i] = strdup(c->acme.v[i]);
        out->vecs[i] = v = calloc(commas, sizeof *v);
        out->n_certs = i + 1;
        if (out->names[i] == NULL || v == NULL)
            goto out_free;
        out->certs[i] =
            (struct acme_names){.v = v, .n = split(out->names[i], v)};
    }
    out->cfg = (struct acme_config){
        .directory = c->acme_ca,
        .ca_root = c->acme_ca_root,
        .dir = c->acme_dir,
        .email = c->acme_email,
        .challenge = conf_acme_challenge(c) == CONF_ACME_TLSALPN01
                         ? ACME_TLSALPN01
                         : ACME_HTTP01,
        .certs = out->certs,
        .n_certs = out->n_certs,
    };
    return 0;
out_free:
    acme_conf_free(out);
    return -ENOMEM;
}

void acme_conf_free(struct acme_conf *ac)
{
    for (size_t i = 0; i < ac->n_certs; i++) {
        free(ac->vecs[i]);
        free(ac->names[i]);
    }
    free(ac->vecs);
    free(ac->certs);
    free(ac->names);
    *ac = (struct acme_conf){0};
}

/* The deepest directory of @path that exists, into @buf. 0 or -errno. */
static int existing_dir(const char *path, char *buf, size_t size)
{
    struct stat st;

    if (snprintf(buf, size, "%s", path) >= (int)size)
        return -ENAMETOOLONG;
    while (stat(buf, &st) < 0) {
        char *slash = strrchr(buf, '/');

        if (errno != ENOENT || slash == NULL)
            return -errno;
        slash[slash == buf] = '\0'; /* "/a" becomes "/" */
    }
    return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

/*
 * Whether --acme-dir @dir can be made (or written, when it is there) by this
 * process: not on a read-only mount, and, unless root is to become --user
 * later, writable by the user it runs as. 0, or 1 after a line saying why
 * (under systemd, which unit setting to change).
 */
static int check_dir(const struct conf *c, const char *dir)
{
    const char *unit = getenv("INVOCATION_ID") ? "; under systemd: " : NULL;
    char at[PATH_MAX];
    struct statvfs vfs;
    int r = existing_dir(dir, at, sizeof at);

    if (r == 0 && statvfs(at, &vfs) == 0 && (vfs.f_flag & ST_RDONLY)) {
        fprintf(stderr,
                "beneath: --acme-dir %s: %s is on a read-only file system, so "
                "the account and certificates cannot be kept%s%s\n",
                dir, at, unit ? unit : "",
                unit ? "ProtectSystem=strict or ReadOnlyPaths= makes it "
                       "read-only for the service; the packaged "
                       "beneath.service has StateDirectory=beneath for "
                       "/var/lib/beneath, another directory needs "
                       "ReadWritePaths=DIR in a drop-in (systemctl edit "
                       "beneath)"
                     : "");
        return 1;
    }
    if (r == 0 && (c->user == NULL || geteuid() != 0) &&
        faccessat(AT_FDCWD, at, W_OK | X_OK, AT_EACCESS) < 0)
        r = -errno;
    if (r == 0)
        return 0;
    if (r == -EACCES)
        fprintf(stderr,
                "beneath: --acme-dir %s: %s is not writable by uid %ld: %s\n",
                dir, at, (long)geteuid(), strerror(-r));
    else
        fprintf(stderr, "beneath: --acme-dir %s: %s\n", dir, strerror(-r));
    return 1;
}

int acme_conf_check(const struct conf *c)
{
    struct acme_conf ac;
    char err[512];
    int errors = 0;

    if (c->acme.n == 0 && !c->acme_on_demand)
        return 0;
    if (acme_conf_build(c, &ac) < 0) {
        fprintf(stderr, "beneath: acme: out of memory\n");
        return 1;
    }
    if (acme_check(&ac.cfg, err, sizeof err) < 0) {
        fprintf(stderr, "beneath: %s\n", err);
        errors++;
    } else {
        errors += check_dir(c, ac.cfg.dir);
    }
    acme_conf_free(&ac);
    return errors;
}
