/* SPDX-License-Identifier: MIT */
/*
 * trusted_proxy.h - the --trusted-proxy item: the networks of proxies whose
 * word about the client is believed, each tagged with the header its proxy
 * appends to ("CIDR[,CIDR...][=forwarded|x-forwarded-for]", X-Forwarded-For
 * without "=..."). forwarded.h walks the hops with them.
 */
#ifndef BENEATH_SYNTAX_TRUSTED_PROXY_H
#define BENEATH_SYNTAX_TRUSTED_PROXY_H

#include "syntax/cidr.h"

/* The header a trusted proxy appends to: the tag of its network. */
enum trusted_proxy_header {
    TRUSTED_PROXY_XFF,       /* X-Forwarded-For (the default) */
    TRUSTED_PROXY_FORWARDED, /* Forwarded (RFC 7239) */
    TRUSTED_PROXY_N_HEADERS,
};

/*
 * trusted_proxy_add - append the --trusted-proxy item @spec to @l, each
 * network tagged with the header its proxy writes.
 *
 * Returns 0, -EINVAL (a sentence in @err; @l unchanged) or -ENOMEM.
 */
int trusted_proxy_add(struct cidr_list *l, const char *spec, char *err,
                      size_t err_size);

#endif
