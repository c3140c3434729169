// SPDX-License-Identifier: MIT
/*
 * acme_checks.c - every check of the ACME options (docs/acme.md): their
 * values, checked when they are read so that a bad one is reported with its
 * place before anything starts; the checks across options after the last
 * source; and what needs the file system (conf_acme_check: the
 * --acme-ca-root file, whether --acme-dir can be made or written), which a
 * start and --check ask before anything is bound, so that a start ends with
 * the reason rather than the ACME manager failing once the server listens.
 * Names and CA URLs are judged by syntax/acme_names.c, so an option accepts
 * exactly what the ACME library orders with. Nothing here contacts a CA or
 * creates anything.
 */
#include "acme_checks.h"

#include "common/handed.h"
#include "syntax/acme_names.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

int conf_check_acme(const char *item, char *err)
{
    const char *p = item;

    for (;;) {
        size_t len = strcspn(p, ",");
        char name[256];

        snprintf(name, sizeof name, "%.*s", (int)(len < 255 ? len : 255), p);
        if (len > 253 || !acme_is_name(name)) {
            snprintf(err, ERR_MAX,
                     "'%.*s' is not a DNS name a CA can validate (letters, "
                     "digits and '-' in two or more labels; no wildcard)",
                     (int)(len > 64 ? 64 : len), p);
            return -EINVAL;
        }
        if (p[len] == '\0')
            return 0;
        p += len + 1;
    }
}

int conf_check_acme_email(const char *item, char *err)
{
    const char *at = strchr(item, '@');

    if (!at || at == item || !at[1] || strchr(at + 1, '@') ||
        strpbrk(item, " ,;<>\"()[]\\") || strlen(item) > 254) {
        snprintf(err, ERR_MAX, "'%.64s' is not an e-mail address", item);
        return -EINVAL;
    }
    return 0;
}

int conf_check_acme_ca(const char *item, char *err)
{
    if (acme_ca_url(item))
        return 0;
    snprintf(err, ERR_MAX,
             "'%.64s' is not an https:// directory URL, letsencrypt or "
             "letsencrypt-staging",
             item);
    return -EINVAL;
}

int conf_check_acme_challenge(const char *item, char *err)
{
    if (strcmp(item, "http-01") == 0 || strcmp(item, "tls-alpn-01") == 0)
        return 0;
    snprintf(err, ERR_MAX, "'%.64s' is not http-01 or tls-alpn-01", item);
    return -EINVAL;
}

int conf_check_absolute(const char *item, char *err)
{
    if (item[0] == '/')
        return 0;
    snprintf(err, ERR_MAX, "'%.64s' is not an absolute path", item);
    return -EINVAL;
}

enum conf_acme_challenge conf_acme_challenge(const struct conf *c)
{
    if (c->acme_challenge)
        return strcmp(c->acme_challenge, "tls-alpn-01") == 0
                   ? CONF_ACME_TLSALPN01
                   : CONF_ACME_HTTP01;
    for (size_t i = 0; i < c->n_listen; i++) {
        if (c->listen[i].kind == CONF_LISTEN_TCP && c->listen[i].port == 443)
            return CONF_ACME_TLSALPN01;
    }
    return CONF_ACME_HTTP01;
}

/* Whether @name (@len bytes) is a name of the --acme value @item. */
static bool names_has(const char *item, const char *name, size_t len)
{
    for (const char *p = item;;) {
        size_t n = strcspn(p, ",");

        if (n == len && strncasecmp(p, name, len) == 0)
            return true;
        if (p[n] == '\0')
            return false;
        p += n + 1;
    }
}

/* Whether @c has an https:// listener. */
static bool has_https(const struct conf *c)
{
    for (size_t i = 0; i < c->n_listen; i++)
        if (c->listen[i].tls)
            return true;
    return false;
}

bool conf_https_redirect(const struct conf *c)
{
    if (c->https_redirect != CONF_SWITCH_AUTO)
        return c->https_redirect == CONF_SWITCH_ON;
    /* the certificates are for https://, and there is a listener to go to */
    return (c->acme.n > 0 || c->acme_on_demand) && has_https(c);
}

int conf_acme_finish(const struct conf *c, struct conf_diag *diag)
{
    bool https = has_https(c);
    int r = 0;

    /* one name, one certificate: the TLS front picks it by SNI */
    for (size_t i = 0; i < c->acme.n; i++) {
        for (const char *p = c->acme.v[i];;) {
            size_t n = strcspn(p, ",");

            for (size_t j = 0; j <= i; j++) {
                bool dup = j < i ? names_has(c->acme.v[j], p, n)
                                 : names_has(p + n, p, n);

                if (dup) {
                    worst(&r, diag_add(diag, "--acme: '%.*s' is named twice",
                                       (int)(n > 64 ? 64 : n), p));
                    break;
                }
            }
            if (p[n] == '\0')
                break;
            p += n + 1;
        }
    }
    if (c->https_redirect == CONF_SWITCH_ON && !https)
        worst(&r, diag_add(diag, "--https-redirect: there is no https:// "
                                 "listener to redirect to; add one (--listen "
                                 "https://HOST:PORT)"));
    if (c->acme_on_demand && !c->sites)
        worst(&r, diag_add(diag, "--acme-on-demand: the names it gets "
                                 "certificates for are the site directories "
                                 "of --sites; give --sites DIR"));
    if (c->acme_on_demand && !https)
        worst(&r, diag_add(diag, "--acme-on-demand: a certificate is asked "
                                 "for by a TLS handshake, and there is no "
                                 "https:// listener; add one"));
    if ((c->acme.n > 0 || c->acme_on_demand) &&
        conf_acme_challenge(c) == CONF_ACME_TLSALPN01 && !https)
        worst(&r, diag_add(diag, "--acme-challenge: tls-alpn-01 is answered "
                                 "on an https:// listener, and there is "
                                 "none; add one or choose http-01"));
    return r;
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
 * later, writable by the user it runs as. 0, or -EINVAL with a line in @d
 * saying why (under systemd, which unit setting to change), or -ENOMEM.
 */
static int check_dir(const struct conf *c, const char *dir, struct conf_diag *d)
{
    const char *unit = getenv("INVOCATION_ID") ? "; under systemd: " : NULL;
    char at[PATH_MAX];
    struct statvfs vfs;
    int r = existing_dir(dir, at, sizeof at);

    if (r == 0 && statvfs(at, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
        return diag_add(d,
                        "--acme-dir %s: %s is on a read-only file system, so "
                        "the account and certificates cannot be kept%s%s",
                        dir, at, unit ? unit : "",
                        unit ? "ProtectSystem=strict or ReadOnlyPaths= makes "
                               "it read-only for the service; the packaged "
                               "beneath.service has StateDirectory=beneath "
                               "for /var/lib/beneath, another directory needs "
                               "ReadWritePaths=DIR in a drop-in (systemctl "
                               "edit beneath)"
                             : "");
    if (r == 0 && (c->user == NULL || geteuid() != 0) &&
        faccessat(AT_FDCWD, at, W_OK | X_OK, AT_EACCESS) < 0)
        r = -errno;
    if (r == 0)
        return 0;
    if (r == -EACCES)
        return diag_add(d, "--acme-dir %s: %s is not writable by uid %ld: %s",
                        dir, at, (long)geteuid(), strerror(-r));
    return diag_add(d, "--acme-dir %s: %s", dir, strerror(-r));
}

int conf_acme_check(const struct conf *c, struct conf_diag *d)
{
    char why[PATH_MAX + 64];

    if (c->acme.n == 0 && !c->acme_on_demand)
        return 0;
    /* the names, the CA's URL and --acme-dir's form were checked as the
     * options were read (above) */
    if (c->acme_ca_root &&
        handed_pem_certificate(c->acme_ca_root, why, sizeof why) < 0)
        return diag_add(d, "--acme-ca-root: %s", why);
    return check_dir(c, c->acme_dir, d);
}
