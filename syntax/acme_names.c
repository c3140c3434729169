// SPDX-License-Identifier: MIT
/*
 * acme_names.c - the ACME values judged by their text alone: the names a
 * certificate is ordered for, and --acme-ca's URL (rules in acme_names.h).
 */
#include "syntax/acme_names.h"

#include <ctype.h>
#include <string.h>

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
