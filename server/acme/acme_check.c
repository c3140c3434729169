/* SPDX-License-Identifier: MIT */
/*
 * acme_check.c - what can be said of an ACME configuration without the
 * network, the CA or the directory's contents: its names and the CA's URL
 * (their syntax is syntax/acme_names.c's), the trust anchor file. Its own
 * library (beneath_acme_check, libc only), so the server's --check links
 * neither libcurl nor OpenSSL's ACME code.
 */
#include "acme/acme.h"
#include "common/handed.h"
#include "syntax/acme_names.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

int acme_check(const struct acme_config *cfg, char *err, size_t errlen)
{
    char why[PATH_MAX + 64];

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
    if (handed_pem_certificate(cfg->ca_root, why, sizeof why) == 0)
        return 0;
    snprintf(err, errlen, "--acme-ca-root: %s", why);
    return -EINVAL;
}
