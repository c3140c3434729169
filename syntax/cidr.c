// SPDX-License-Identifier: MIT
/*
 * cidr.c - parse and match IPv4/IPv6 networks (rules in cidr.h).
 *
 * inet_pton does the address syntax; the only additions are the prefix
 * length, the host-bits check and the IPv4-mapped normalisation. Matching a
 * list is a linear walk: address lists are short, and the walk compares at
 * most 16 bytes per network.
 */
#include "syntax/cidr.h"

#include "syntax/errbuf.h"
#include "syntax/text.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

/* ::ffff:a.b.c.d is a.b.c.d */
static void unmap(struct cidr_addr *a)
{
    if (a->family == AF_INET6 && memcmp(a->b, v4mapped, 12) == 0) {
        memmove(a->b, a->b + 12, 4);
        memset(a->b + 4, 0, 12);
        a->family = AF_INET;
    }
}

int cidr_addr_parse(const char *s, size_t len, struct cidr_addr *out)
{
    char buf[INET6_ADDRSTRLEN];

    memset(out, 0, sizeof *out);
    if (len == 0 || len >= sizeof buf)
        return -EINVAL;
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (inet_pton(AF_INET, buf, out->b) == 1) {
        out->family = AF_INET;
        return 0;
    }
    if (inet_pton(AF_INET6, buf, out->b) == 1) {
        out->family = AF_INET6;
        unmap(out);
        return 0;
    }
    return -EINVAL;
}

int cidr_addr_from_sockaddr(const struct sockaddr *sa, socklen_t len,
                            struct cidr_addr *out)
{
    memset(out, 0, sizeof *out);
    if (sa && sa->sa_family == AF_INET &&
        len >= (socklen_t)sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *in = (const void *)sa;

        out->family = AF_INET;
        memcpy(out->b, &in->sin_addr, 4);
        return 0;
    }
    if (sa && sa->sa_family == AF_INET6 &&
        len >= (socklen_t)sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *in6 = (const void *)sa;

        out->family = AF_INET6;
        memcpy(out->b, &in6->sin6_addr, 16);
        unmap(out);
        return 0;
    }
    return -EAFNOSUPPORT;
}

void cidr_addr_format(const struct cidr_addr *a, char *out, size_t size)
{
    if (size == 0)
        return;
    if (!inet_ntop(a->family, a->b, out, (socklen_t)size))
        out[0] = '\0';
}

static unsigned max_bits(const struct cidr_addr *a)
{
    return a->family == AF_INET ? 32 : 128;
}

/* Whether the first @bits bits of @x and @y are equal. */
static bool prefix_eq(const uint8_t *x, const uint8_t *y, unsigned bits)
{
    unsigned whole = bits / 8, rest = bits % 8;

    if (memcmp(x, y, whole) != 0)
        return false;
    if (rest == 0)
        return true;
    uint8_t mask = (uint8_t)(0xff << (8 - rest));
    return ((x[whole] ^ y[whole]) & mask) == 0;
}

int cidr_parse(const char *s, size_t len, struct cidr *out, char *err,
               size_t err_size)
{
    const char *slash = memchr(s, '/', len);
    size_t alen = slash ? (size_t)(slash - s) : len;
    struct cidr_addr net;
    unsigned long bits = 0;
    bool mapped;

    memset(out, 0, sizeof *out);
    if (memchr(s, '%', alen)) {
        errbuf_say(err, err_size,
                   "'%.*s': zone ids (%%...) are not supported in rules",
                   (int)(len > 64 ? 64 : len), s);
        return -EINVAL;
    }
    if (cidr_addr_parse(s, alen, &out->a) < 0) {
        errbuf_say(err, err_size, "'%.*s' is not an IPv4 or IPv6 address",
                   (int)(alen > 64 ? 64 : alen), s);
        return -EINVAL;
    }
    /* a mapped rule's prefix counts the 96 bits of ::ffff: */
    mapped = out->a.family == AF_INET && memchr(s, ':', alen) != NULL;
    if (!slash) {
        out->bits = max_bits(&out->a);
        return 0;
    }
    const char *p = slash + 1, *end = s + len;
    if (p == end || end - p > 3) {
        errbuf_say(err, err_size, "'%.*s': the prefix length is not a number",
                   (int)(len > 64 ? 64 : len), s);
        return -EINVAL;
    }
    for (; p < end; p++) {
        if (*p < '0' || *p > '9') {
            errbuf_say(err, err_size,
                       "'%.*s': the prefix length is not a number",
                       (int)(len > 64 ? 64 : len), s);
            return -EINVAL;
        }
        bits = bits * 10 + (unsigned long)(*p - '0');
    }
    if (mapped) {
        if (bits < 96 || bits > 128) {
            errbuf_say(err, err_size,
                       "'%.*s': an IPv4-mapped prefix is /96 to /128",
                       (int)(len > 64 ? 64 : len), s);
            return -EINVAL;
        }
        bits -= 96;
    }
    if (bits > max_bits(&out->a)) {
        errbuf_say(err, err_size, "'%.*s': the prefix length is 0..%u",
                   (int)(len > 64 ? 64 : len), s, max_bits(&out->a));
        return -EINVAL;
    }
    out->bits = (unsigned)bits;
    net = out->a;
    for (unsigned i = out->bits; i < max_bits(&net); i++)
        net.b[i / 8] &= (uint8_t) ~(0x80u >> (i % 8));
    if (memcmp(net.b, out->a.b, 16) != 0) {
        char text[CIDR_TEXT_MAX];

        cidr_addr_format(&net, text, sizeof text);
        errbuf_say(err, err_size,
                   "'%.*s' has host bits set (the network is %s/%u)",
                   (int)(len > 64 ? 64 : len), s, text, out->bits);
        return -EINVAL;
    }
    return 0;
}

int cidr_list_add(struct cidr_list *l, const char *spec, char *err,
                  size_t err_size)
{
    const char *p = spec;
    size_t cap = 1, n = 0;
    struct cidr *v;

    for (const char *c = spec; *c; c++)
        cap += *c == ',';
    v = realloc(l->v, (l->n + cap) * sizeof *v);
    if (!v)
        return -ENOMEM;
    l->v = v;
    for (;;) {
        const char *e = strchr(p, ',');
        const char *stop = e ? e : p + strlen(p);

        text_trim(&p, &stop);
        if (stop == p) {
            errbuf_say(err, err_size, "%s", "empty item in the address list");
            return -EINVAL;
        }
        if (cidr_parse(p, (size_t)(stop - p), &v[l->n + n], err, err_size) < 0)
            return -EINVAL;
        n++;
        if (!e)
            break;
        p = e + 1;
    }
    l->n += n;
    return 0;
}

bool cidr_list_match(const struct cidr_list *l, const struct cidr_addr *a)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].a.family == a->family &&
            prefix_eq(l->v[i].a.b, a->b, l->v[i].bits))
            return true;
    return false;
}

const struct cidr *cidr_list_best(const struct cidr_list *l,
                                  const struct cidr_addr *a)
{
    const struct cidr *best = NULL;

    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].a.family == a->family &&
            prefix_eq(l->v[i].a.b, a->b, l->v[i].bits) &&
            (!best || l->v[i].bits > best->bits))
            best = &l->v[i];
    return best;
}

void cidr_list_free(struct cidr_list *l)
{
    if (!l)
        return;
    free(l->v);
    l->v = NULL;
    l->n = 0;
}
