/* SPDX-License-Identifier: MIT */
/*
 * acme_checks.h - the ACME options' syntax checks for the option table
 * (each writes a sentence to @err, ERR_MAX bytes, and returns -EINVAL, or
 * returns 0), and their checks across options.
 */
#ifndef BENEATH_CONF_ACME_CHECKS_H
#define BENEATH_CONF_ACME_CHECKS_H

#include "internal.h"

int conf_check_acme(const char *item, char *err);
int conf_check_acme_email(const char *item, char *err);
int conf_check_acme_ca(const char *item, char *err);
int conf_check_acme_challenge(const char *item, char *err);
int conf_check_absolute(const char *item, char *err);

/*
 * conf_acme_finish - after the last source: no name in two --acme values;
 * tls-alpn-01 (chosen or by default) needs an https:// listener.
 * Returns 0 or -EINVAL (messages added to @diag), or -ENOMEM.
 */
int conf_acme_finish(const struct conf *c, struct conf_diag *diag);

#endif
