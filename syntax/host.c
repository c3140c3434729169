// SPDX-License-Identifier: MIT
/*
 * host.c - Host normalisation and virtual-host name matching.
 */
#include "syntax/host.h"

#include "syntax/errbuf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* ":" then up to 5 digits (an empty port is allowed, RFC 3986 3.2.3) */
static bool port_ok(const char *p, size_t len)
{
    if (len == 0)
        return true;
    if (p[0] != ':' || len > 6)
        return false;
    for (size_t i = 1; i < len; i++)
        if (p[i] < '0' || p[i] > '9')
            return false;
    return true;
}

int host_normalize_len(const char *in, size_t len, char *out)
{
    size_t n;

    if (len == 0) {
        out[0] = '\0';
        return 0;
    }
    if (in[0] == '[') {
        const char *close = memchr(in, ']', len);
        char addr[64];
        unsigned char bin[16];

        if (!close)
            return -EINVAL;
        n = (size_t)(close - in) - 1;
        if (n == 0 || n >= sizeof addr || !port_ok(close + 1, len - n - 2))
            return -EINVAL;
        memcpy(addr, in + 1, n);
        addr[n] = '\0';
        if (inet_pton(AF_INET6, addr, bin) != 1)
            return -EINVAL;
        out[0] = '[';
        for (size_t i = 0; i < n; i++)
            out[i + 1] = lower(addr[i]);
        out[n + 1] = ']';
        out[n + 2] = '\0';
        return 0;
    }
    const char *colon = memchr(in, ':', len);
    n = colon ? (size_t)(colon - in) : len;
    if (!port_ok(in + n, len - n))
        return -EINVAL;
    /* one trailing dot: the root label, the same name */
    if (n > 1 && in[n - 1] == '.')
        n--;
    if (n == 0 || n > 253 || in[0] == '.')
        return -EINVAL;
    for (size_t i = 0; i < n; i++) {
        if (!name_char(in[i]) || (in[i] == '.' && in[i + 1] == '.'))
            return -EINVAL;
        out[i] = lower(in[i]);
    }
    out[n] = '\0';
    return 0;
}

int host_normalize(const char *in, char *out)
{
    return host_normalize_len(in, strlen(in), out);
}

int host_site_name(const char *h)
{
    size_t label = 0, n = 0;
    bool digits = true; /* the current label is all digits so far */

    if (!h[0] || h[0] == '[')
        return 0;
    for (; h[n]; n++) {
        char c = h[n];

        if (c == '.') {
            if (label == 0)
                return -EINVAL;
            label = 0;
            digits = true;
            continue;
        }
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
            return -EINVAL;
        digits = digits && c >= '0' && c <= '9';
        if (++label > 63)
            return -EINVAL;
    }
    if (label == 0 || n > 253)
        return -EINVAL;
    return digits ? 0 : 1;
}

int host_pattern_check(const char *name, char *out, char *err, size_t err_size)
{
    bool wild = strncmp(name, "*.", 2) == 0;
    const char *n = wild ? name + 2 : name;
    size_t len = strlen(n), off = wild ? 2 : 0;
    const char *port = n[0] == '[' ? strchr(n, ']') : n;

    if (port && strchr(port, ':')) {
        errbuf_say(err, err_size, "'%.64s': a virtual host has no port", name);
        return -EINVAL;
    }
    if (len == 0 || len >= HOST_MAX - 3 ||
        host_normalize_len(n, len, out + off) < 0 ||
        (wild && out[off] == '[')) {
        errbuf_say(err, err_size,
                   "'%.64s' is not a host name (NAME, *.SUFFIX, an IPv4 "
                   "address or [IPv6])",
                   name);
        return -EINVAL;
    }
    if (wild)
        memcpy(out, "*.", 2);
    return 0;
}

size_t host_pattern_match(const char *pattern, const char *host)
{
    if (strncmp(pattern, "*.", 2) != 0)
        return strcmp(pattern, host) == 0 ? SIZE_MAX : 0;
    size_t plen = strlen(pattern) - 1, hlen = strlen(host); /* ".suffix" */
    if (hlen <= plen || strcmp(host + hlen - plen, pattern + 1) != 0)
        return 0;
    return plen;
}
