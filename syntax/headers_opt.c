/* SPDX-License-Identifier: MIT */
/*
 * headers_opt.c - validate and hold operator-supplied response headers.
 */
#include "syntax/headers_opt.h"

#include "common/elems.h"
#include "syntax/errbuf.h"
#include "syntax/text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * Set by the server per response, or by the connection; an operator's value
 * beside (or instead of) the server's would break HTTP, so they can be
 * neither added nor removed. Checked against RFC 9110, 9111, 9112, 9113
 * and 9530:
 * - message framing and the connection (RFC 9112 6, 9; RFC 9110 6.6.2,
 *   7.6.1, and the fields RFC 9113 8.2.2 forbids in HTTP/2): Content-Length,
 *   Transfer-Encoding, Trailer, Connection, Keep-Alive, Proxy-Connection,
 *   TE, Upgrade;
 * - representation metadata of the bytes sent (RFC 9110 8.3-8.4, 14.3-14.4):
 *   Content-Type, Content-Encoding, Content-Range, Accept-Ranges;
 * - validators (RFC 9110 8.8): ETag, Last-Modified;
 * - integrity (RFC 9530 2, 3): Repr-Digest, Content-Digest, and the fields
 *   they replace, Digest (RFC 3230) and Content-MD5 (RFC 2616 14.15,
 *   removed by RFC 7231): a second digest can only disagree with the
 *   server's, or with a range or coding of the body;
 * - what the server decides per request (RFC 9110 6.6.1, 10.2.2, 10.2.1,
 *   12.5.5, 11.6.1; RFC 9111 5.1): Date, Location, Allow, Vary,
 *   WWW-Authenticate (--auth-realm), Age (a cache's, never an origin's).
 */
static const char *const owned[] = {
    "Content-Length",
    "Transfer-Encoding",
    "Trailer",
    "Connection",
    "Keep-Alive",
    "Proxy-Connection",
    "TE",
    "Upgrade",
    "Content-Type",
    "Content-Encoding",
    "Content-Range",
    "Accept-Ranges",
    "ETag",
    "Last-Modified",
    "Repr-Digest",
    "Content-Digest",
    "Digest",
    "Content-MD5",
    "Date",
    "Location",
    "Allow",
    "Vary",
    "WWW-Authenticate",
    "Age",
};

static const struct {
    const char *name;
    const char *value;
} security[] = {
    {"X-Content-Type-Options", "nosniff"},
    {"Referrer-Policy", "strict-origin-when-cross-origin"},
    {"X-Frame-Options", "DENY"},
    {"Content-Security-Policy", "frame-ancestors 'none'"},
};

static int append(struct headers_opt *h, const char *name, size_t name_len,
                  const char *value, size_t value_len)
{
    struct headers_opt_header *grown;
    char *n = strndup(name, name_len);
    char *v = strndup(value, value_len);

    if (n == NULL || v == NULL)
        goto out_free;
    grown = realloc(h->v, (h->n + 1) * sizeof(*h->v));
    if (grown == NULL)
        goto out_free;
    h->v = grown;
    h->v[h->n].name = n;
    h->v[h->n].value = v;
    h->n++;
    return 0;

out_free:
    free(v);
    free(n);
    return -ENOMEM;
}

const char *headers_opt_owned(const char *name, size_t len)
{
    for (size_t i = 0; i < N_ELEMS(owned); i++)
        if (strlen(owned[i]) == len && strncasecmp(owned[i], name, len) == 0)
            return owned[i];
    return NULL;
}

int headers_opt_add(struct headers_opt *h, const char *spec, char *err,
                    size_t err_size)
{
    return headers_opt_add_flags(h, spec, 0, err, err_size);
}

int headers_opt_add_flags(struct headers_opt *h, const char *spec,
                          unsigned flags, char *err, size_t err_size)
{
    const char *colon = strchr(spec, ':');
    const char *v, *end;
    size_t name_len;

    if (colon == NULL || colon == spec) {
        errbuf_say(err, err_size, "%s", "expected \"Name: value\"");
        return -EINVAL;
    }
    name_len = (size_t)(colon - spec);
    for (size_t i = 0; i < name_len; i++) {
        if (!text_is_tchar((unsigned char)spec[i])) {
            errbuf_say(err, err_size, "%s",
                       "the header name must be a token (letters, digits, "
                       "!#$%&'*+-.^_`|~; no spaces)");
            return -EINVAL;
        }
    }
    if (!(flags & HEADERS_OPT_CACHE_CONTROL) &&
        name_len == strlen("Cache-Control") &&
        strncasecmp(spec, "Cache-Control", name_len) == 0) {
        errbuf_say(err, err_size, "%s",
                   "Cache-Control comes from --cache and --cache-default");
        return -EINVAL;
    }
    const char *own = headers_opt_owned(spec, name_len);
    if (own) {
        errbuf_say(err, err_size, "%s is set by the server and cannot be added",
                   own);
        return -EINVAL;
    }
    v = colon + 1;
    while (*v == ' ' || *v == '\t')
        v++;
    end = v + strlen(v);
    while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    for (const unsigned char *p = (const unsigned char *)v;
         p < (const unsigned char *)end; p++) {
        if ((*p < 0x20 && *p != '\t') || *p == 0x7f) {
            errbuf_say(err, err_size, "%s",
                       "the header value has a control byte (CR, LF, ...)");
            return -EINVAL;
        }
    }
    return append(h, spec, name_len, v, (size_t)(end - v));
}

const char *headers_opt_find(const struct headers_opt *h, const char *name)
{
    for (size_t i = 0; i < h->n; i++)
        if (strcasecmp(h->v[i].name, name) == 0)
            return h->v[i].value;
    return NULL;
}

int headers_opt_add_security(struct headers_opt *h)
{
    for (size_t i = 0; i < N_ELEMS(security); i++) {
        if (headers_opt_find(h, security[i].name) != NULL)
            continue;
        if (append(h, security[i].name, strlen(security[i].name),
                   security[i].value, strlen(security[i].value)) < 0)
            return -ENOMEM;
    }
    return 0;
}

void headers_opt_free(struct headers_opt *h)
{
    if (h == NULL)
        return;
    for (size_t i = 0; i < h->n; i++) {
        free(h->v[i].name);
        free(h->v[i].value);
    }
    free(h->v);
    h->v = NULL;
    h->n = 0;
}
