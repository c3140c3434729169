// SPDX-License-Identifier: MIT
/*
 * forwarded.c - parse the hops of Forwarded / X-Forwarded-For from the
 * right and stop at the first untrusted one.
 *
 * Hop syntax accepted: "192.0.2.1", "192.0.2.1:8080", "2001:db8::1",
 * "[2001:db8::1]", "[2001:db8::1]:8080"; in Forwarded the for= value, which
 * may be a quoted string (RFC 7239 4: IPv6 must be quoted and bracketed).
 * Anything else is "not an address" and ends the walk.
 */
#include "http/forwarded.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

/* One node ("1.2.3.4", "[v6]:port", "1.2.3.4:80") as an address. */
static bool node_addr(const char *s, size_t len, struct cidr_addr *out)
{
    while (len > 0 && (*s == ' ' || *s == '\t')) {
        s++;
        len--;
    }
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    if (len >= 2 && s[0] == '"' && s[len - 1] == '"') {
        s++;
        len -= 2;
    }
    if (len > 0 && s[0] == '[') {
        const char *close = memchr(s, ']', len);

        if (!close)
            return false;
        /* after ']' only ":port" */
        size_t rest = len - (size_t)(close - s) - 1;
        if (rest > 0 && close[1] != ':')
            return false;
        return cidr_addr_parse(s + 1, (size_t)(close - s) - 1, out) == 0;
    }
    if (cidr_addr_parse(s, len, out) == 0)
        return true;
    /* "1.2.3.4:80": one colon, IPv4 before it */
    const char *colon = memchr(s, ':', len);
    if (colon && !memchr(colon + 1, ':', len - (size_t)(colon - s) - 1) &&
        cidr_addr_parse(s, (size_t)(colon - s), out) == 0 &&
        out->family == AF_INET)
        return true;
    return false;
}

/*
 * The for= value of one Forwarded element ("for=1.2.3.4;proto=https"), in
 * *@v / *@vlen. False when the element has none.
 */
static bool element_for(const char *e, size_t len, const char **v, size_t *vlen)
{
    const char *p = e, *end = e + len;

    while (p < end) {
        const char *semi = memchr(p, ';', (size_t)(end - p));
        const char *stop = semi ? semi : end;

        while (p < stop && (*p == ' ' || *p == '\t'))
            p++;
        if (stop - p > 4 && strncasecmp(p, "for=", 4) == 0) {
            *v = p + 4;
            *vlen = (size_t)(stop - p - 4);
            return true;
        }
        p = stop + (semi != NULL);
    }
    return false;
}

/*
 * The last comma-separated item of @s[0..*@len) not inside quotes: its
 * start; *@len becomes the length before its comma (or 0 at the first).
 */
static const char *last_item(const char *s, size_t *len, size_t *item_len)
{
    bool quoted = false;
    size_t cut = 0;
    bool found = false;

    for (size_t i = 0; i < *len; i++) {
        if (s[i] == '"')
            quoted = !quoted;
        else if (s[i] == ',' && !quoted) {
            cut = i;
            found = true;
        }
    }
    if (!found) {
        *item_len = *len;
        *len = 0;
        return s;
    }
    *item_len = *len - cut - 1;
    *len = cut;
    return s + cut + 1;
}

unsigned forwarded_client(const struct cidr_list *trusted,
                          const char *const values[TRUSTED_PROXY_N_HEADERS],
                          struct cidr_addr *client)
{
    size_t left[TRUSTED_PROXY_N_HEADERS];
    const struct cidr *proxy;
    unsigned hops = 0;

    for (int h = 0; h < TRUSTED_PROXY_N_HEADERS; h++)
        left[h] = values[h] ? strlen(values[h]) : 0;
    /* each step consumes the rightmost item of one list: it ends */
    while ((proxy = cidr_list_best(trusted, client)) != NULL) {
        unsigned h = proxy->tag < TRUSTED_PROXY_N_HEADERS ? proxy->tag : 0;
        size_t ilen;
        const char *item, *v;
        size_t vlen;
        struct cidr_addr a;

        if (left[h] == 0 || !values[h])
            break; /* the proxy wrote nothing (more): it is the client */
        item = last_item(values[h], &left[h], &ilen);
        v = item;
        vlen = ilen;
        if (h == TRUSTED_PROXY_FORWARDED && !element_for(item, ilen, &v, &vlen))
            break;
        if (!node_addr(v, vlen, &a))
            break;
        *client = a;
        hops++;
    }
    return hops;
}
