/* SPDX-License-Identifier: MIT */
/*
 * acme_check.c - what can be said of an ACME configuration without the
 * network, the CA or the directory's contents: names, the CA's URL, the
 * trust anchor file. Its own library (beneath_acme_check, libc only), so
 * the server's --check links neither libcurl nor OpenSSL's ACME code.
 */
#include "acme/acme_check.h"

#include "acme/acme.h"
#include "common/handed.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool acme_is_name(const char *name)
{
    size_t len = strlen(name), label = 0;

    if (len == 0 || len > 253 || name[len - 1] == '.')
        return false;
    for (const char *p = name; *p; p++) {
        if (*p == '.') {
            if (label == 0 || p[-1] == '-')
                return false;
            label = 0;
            continue;
        }
        if (!isalnum((unsigned char)*p) && *p != '-')
            return false;
        if (label == 0 && *p == '-')
            return false;
        if (++label > 63)
            return false;
    }
    /* two labels at least; an all-digit last one is an IP address (an
     * "ip" identifier, not a DNS name) */
    const char *last = strrchr(name, '.');

    return name[len - 1] != '-' && last != NULL &&
           strspn(last + 1, "0123456789") != strlen(last + 1);
}

const char *acme_ca_url(const char *value)
{
    if (strcmp(value, "letsencrypt") == 0)
        return ACME_CA_LETSENCRYPT;
    if (strcmp(value, "letsencrypt-staging") == 0)
        return ACME_CA_LETSENCRYPT_STAGING;
    if (strncmp(value, "https://", 8) == 0 && value[8] != '\0' &&
        value[8] != '/' && !strpbrk(value, " \t\r\n"))
        return value;
    return NULL;
}

int acme_check(const struct acme_config *cfg, char *err, size_t errlen)
{
    FILE *f;
    int fd;
    bool pem = false;
    char line[128];

    if (cfg->directory == NULL || acme_ca_url(cfg->directory) == NULL) {
        snprintf(err, errlen,
                 "--acme-ca: '%.64s' is not an https:// URL, "
                 "letsencrypt or letsencrypt-staging",
                 cfg->directory ? cfg->directory : "");
        return -EINVAL;
    }
    for (size_t i = 0; i < cfg->n_certs; i++) {
        for (size_t j = 0; j < cfg->certs[i].n; j++) {
            if (!acme_is_name(cfg->certs[i].v[j])) {
                snprintf(err, errlen, "--acme: '%.64s' is not a DNS name",
                         cfg->certs[i].v[j]);
                return -EINVAL;
            }
        }
    }
    if (cfg->dir == NULL || cfg->dir[0] != '/') {
        snprintf(err, errlen, "--acme-dir: '%.64s' is not an absolute path",
                 cfg->dir ? cfg->dir : "");
        return -EINVAL;
    }
    if (cfg->ca_root == NULL)
        return 0;
    /* a regular file only: a FIFO would hang the start, a device read on */
    fd = handed_open_path(cfg->ca_root, O_RDONLY | O_CLOEXEC);
    f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (f == NULL) {
        snprintf(err, errlen, "--acme-ca-root: %s: %s", cfg->ca_root,
                 handed_strerror(errno));
        if (fd >= 0)
            close(fd);
        return -EINVAL;
    }
    while (!pem && fgets(line, sizeof line, f))
        pem = strncmp(line, "-----BEGIN CERTIFICATE-----", 27) == 0;
    fclose(f);
    if (!pem) {
        snprintf(err, errlen, "--acme-ca-root: %s: no PEM certificate",
                 cfg->ca_root);
        return -EINVAL;
    }
    return 0;
}
