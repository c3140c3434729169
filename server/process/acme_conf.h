/* SPDX-License-Identifier: MIT */
/*
 * acme_conf.h - the ACME options of struct conf as the struct acme_config
 * of beneath_acme (server/acme/acme.h): acme_serve.c builds the manager's
 * with acme_conf_build. Their checks are conf's (conf_acme_check).
 */
#ifndef BENEATH_PROCESS_ACME_CONF_H
#define BENEATH_PROCESS_ACME_CONF_H

#include "acme/acme.h"
#include "conf.h"

/* The options split into certificates; owned, release with acme_conf_free. */
struct acme_conf {
    struct acme_config cfg; /* points into the fields below and into conf */
    struct acme_names *certs;
    char **names; /* one copy of each --acme value, cut at its commas */
    char ***vecs; /* certs[i].v, owned */
    size_t n_certs;
};

/*
 * acme_conf_build - @out->cfg for @c (callbacks, clock and challenge store
 * left for the caller to set). @c must outlive @out.
 * Returns 0 or -ENOMEM.
 */
int acme_conf_build(const struct conf *c, struct acme_conf *out);
void acme_conf_free(struct acme_conf *ac);

/*
 * acme_conf_check - conf_acme_check for --check and for a start before it
 * binds, its message printed as "beneath: ...". Returns the number of
 * errors (0 or 1).
 */
int acme_conf_check(const struct conf *c);

#endif
