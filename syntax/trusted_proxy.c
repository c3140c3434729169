// SPDX-License-Identifier: MIT
/*
 * trusted_proxy.c - read a --trusted-proxy item into tagged networks.
 */
#include "syntax/trusted_proxy.h"

#include "syntax/errbuf.h"
#include "syntax/text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int trusted_proxy_add(struct cidr_list *l, const char *spec, char *err,
                      size_t err_size)
{
    const char *eq = strchr(spec, '=');
    unsigned tag = TRUSTED_PROXY_XFF;
    size_t before = l->n;
    char *cidrs;
    int r;

    if (eq) {
        const char *h = eq + 1, *end = h + strlen(h);

        text_trim(&h, &end);
        if (text_token_is(h, (size_t)(end - h), "forwarded")) {
            tag = TRUSTED_PROXY_FORWARDED;
        } else if (!text_token_is(h, (size_t)(end - h), "x-forwarded-for")) {
            errbuf_say(err, err_size,
                       "'%.64s': the header a proxy writes is forwarded or "
                       "x-forwarded-for",
                       eq + 1);
            return -EINVAL;
        }
    }
    cidrs = strndup(spec, eq ? (size_t)(eq - spec) : strlen(spec));
    if (!cidrs)
        return -ENOMEM;
    r = cidr_list_add(l, cidrs, err, err_size);
    free(cidrs);
    for (size_t i = before; r == 0 && i < l->n; i++)
        l->v[i].tag = tag;
    return r;
}
