/* SPDX-License-Identifier: MIT */
/*
 * headers_opt.c - validate and hold operator-supplied response headers.
 */
#include "http/headers_opt.h"

#include "http/errbuf.h"
#include "http/field.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Set by the server per response; an operator override would break HTTP. */
static const char *const owned[] = {
    "Content-Length", "Transfer-Encoding", "Connection",
    "Content-Range",  "Content-Encoding",  "Content-Type",
    "ETag",           "Last-Modified",     "Date",
    "Accept-Ranges",  "Keep-Alive",        "Upgrade",
    "Trailer",        "Location",          "Vary",
    "Allow",
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

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

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
        if (!field_is_tchar((unsigned char)spec[i])) {
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
    for (size_t i = 0; i < N_ELEMS(owned); i++) {
        if (strlen(owned[i]) == name_len &&
            strncasecmp(owned[i], spec, name_len) == 0) {
            errbuf_say(err, err_size,
                       "%s is set by the server and cannot be added", owned[i]);
            return -EINVAL;
        }
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
