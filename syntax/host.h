/* SPDX-License-Identifier: MIT */
/*
 * host.h - host names: as a client sends them (Host, absolute-form
 * targets, the TLS server name) and as a configuration writes them
 * (--vhost, --tls NAME=FILE, the site directories of --sites), in one
 * normal form so that the two are compared alike.
 *
 * A Host value is normalised before it is compared: the port dropped,
 * letters lowered, one trailing dot dropped ("Docs.Example.COM.:8080" is
 * "docs.example.com"); an IPv6 literal keeps its brackets ("[::1]").
 * Anything that is not a reg-name of letters, digits, '-', '_' and '.', an
 * IPv4 address or a bracketed IPv6 literal, with an optional numeric port,
 * is garbage and answered 400 (RFC 9112 3.2).
 *
 * A virtual-host name is exact ("docs.example.com") or "*.suffix", which
 * matches any name ending in ".suffix" with at least one label before it
 * (not "suffix" itself). Exact names win over wildcards, and a longer
 * wildcard over a shorter one.
 */
#ifndef BENEATH_SYNTAX_HOST_H
#define BENEATH_SYNTAX_HOST_H

#include <stdbool.h>
#include <stddef.h>

/* Longest name (RFC 1035: 253 characters), with brackets of IPv6 room. */
#define HOST_MAX 256

/*
 * host_normalize - the Host field value @in as described above, into @out
 * (HOST_MAX bytes). An empty value gives "".
 *
 * Returns 0 or -EINVAL (garbage).
 */
int host_normalize(const char *in, char *out);

/* host_normalize_len - host_normalize of the @len bytes at @in. */
int host_normalize_len(const char *in, size_t len, char *out);

/*
 * host_site_name - whether the normalised host @h (host_normalize) names a
 * site directory (--sites): a DNS name, labels of [a-z0-9-] of 1 to 63
 * characters, none empty, at most 253 characters in all.
 *
 * Returns 1 for such a name; 0 for "" (no Host), an IPv4 address (a name
 * whose last label is all digits: no top-level domain is, RFC 3696 2) or a
 * bracketed IPv6 literal, none of which names a site; -EINVAL for anything
 * else ('_', a label over 63 characters), which no site can be named.
 */
int host_site_name(const char *h);

/*
 * host_pattern_check - whether @name is a virtual-host name ("a.example",
 * "*.example", "127.0.0.1", "[::1]"); writes its normalised form to @out
 * (HOST_MAX bytes).
 *
 * Returns 0 or -EINVAL with a sentence in @err.
 */
int host_pattern_check(const char *name, char *out, char *err, size_t err_size);

/*
 * host_pattern_match - how well the normalised @pattern matches the
 * normalised @host: 0 not at all, SIZE_MAX exactly, else the length of the
 * wildcard's suffix (longer is better).
 */
size_t host_pattern_match(const char *pattern, const char *host);

#endif
