/* SPDX-License-Identifier: MIT */
/*
 * acme_names.h - the ACME values that can be judged by their text: names
 * and the CA's URL. The option table (conf/) checks --acme and --acme-ca
 * with these, and server/acme/ orders with them, so the options accept
 * exactly what the library orders with.
 */
#ifndef BENEATH_SYNTAX_ACME_NAMES_H
#define BENEATH_SYNTAX_ACME_NAMES_H

#include <stdbool.h>

/* --acme-ca's short names. */
#define ACME_CA_LETSENCRYPT "https://acme-v02.api.letsencrypt.org/directory"
#define ACME_CA_LETSENCRYPT_STAGING                                            \
    "https://acme-staging-v02.api.letsencrypt.org/directory"

/* acme_is_name - a DNS name a CA may validate by HTTP-01 or TLS-ALPN-01:
 * two or more LDH labels, no wildcard. */
bool acme_is_name(const char *name);

/*
 * acme_ca_url - the directory URL of a --acme-ca value: "letsencrypt",
 * "letsencrypt-staging", or an https:// URL as given.
 * Returns the URL (static or @value), or NULL when @value is none of these.
 */
const char *acme_ca_url(const char *value);

#endif
