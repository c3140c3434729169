/* SPDX-License-Identifier: MIT */
/*
 * acme_conf.c - from struct conf to beneath_acme's struct acme_config: each
 * --acme value is one certificate, its names split at the commas; the
 * challenge is conf_acme_challenge's. The options themselves are checked in
 * conf (conf/src/acme_checks.c: their values, across options, and with
 * conf_acme_check the trust anchor file and --acme-dir), which
 * acme_conf_check says; the library checks what it is given again
 * (acme_check).
 */
#include "process/acme_conf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    /* n_certs counts only once both arrays are there */
    for (size_t i = 0; ac->vecs && ac->names && i < ac->n_certs; i++) {
        free(ac->vecs[i]);
        free(ac->names[i]);
    }
    free(ac->vecs);
    free(ac->certs);
    free(ac->names);
    *ac = (struct acme_conf){0};
}

int acme_conf_check(const struct conf *c)
{
    struct conf_diag d = {0};
    int r = conf_acme_check(c, &d);

    for (size_t i = 0; i < d.n; i++)
        fprintf(stderr, "beneath: %s\n", d.msgs[i]);
    if (r == -ENOMEM && d.n == 0)
        fprintf(stderr, "beneath: acme: out of memory\n");
    conf_diag_free(&d);
    return r < 0;
}
