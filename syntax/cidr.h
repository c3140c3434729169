/* SPDX-License-Identifier: MIT */
/*
 * cidr.h - IPv4 and IPv6 addresses and networks: --allow, --deny and
 * --trusted-proxy.
 *
 * A network is "ADDR/BITS" or a lone address (all bits). An IPv4-mapped
 * IPv6 address (::ffff:10.1.2.3, what a dual-stack socket reports for an
 * IPv4 client) is the IPv4 address, both in rules and in clients, so one
 * rule covers a client however it connected. A network with host bits set
 * ("10.0.0.1/8") is refused: it is a typo more often than not, and the
 * message names the network that was probably meant. Zone ids ("%eth0")
 * are refused: a rule about one link is not expressible here.
 */
#ifndef BENEATH_SYNTAX_CIDR_H
#define BENEATH_SYNTAX_CIDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct cidr_addr {
    int family; /* AF_INET (4 bytes of b used) or AF_INET6 */
    uint8_t b[16];
};

struct cidr {
    struct cidr_addr a;
    unsigned bits;
    unsigned tag; /* the list owner's (0 when parsed): forwarded.c keeps the
                     header a trusted proxy writes there */
};

struct cidr_list {
    struct cidr *v;
    size_t n;
};

/* Room for any address as text, with brackets and a /128. */
#define CIDR_TEXT_MAX 64

/*
 * cidr_addr_parse - the textual IPv4 or IPv6 address of @len bytes at @s
 * (no brackets, no port) into @out.
 *
 * Returns 0 or -EINVAL.
 */
int cidr_addr_parse(const char *s, size_t len, struct cidr_addr *out);

/*
 * cidr_addr_from_sockaddr - the address of an AF_INET or AF_INET6 @sa.
 *
 * Returns 0, or -EAFNOSUPPORT (AF_UNIX and others, or a short @len).
 */
int cidr_addr_from_sockaddr(const struct sockaddr *sa, socklen_t len,
                            struct cidr_addr *out);

/* cidr_addr_format - @a as text ("10.0.0.1", "2001:db8::1") into @out. */
void cidr_addr_format(const struct cidr_addr *a, char *out, size_t size);

/*
 * cidr_parse - "ADDR[/BITS]" of @len bytes at @s into @out.
 *
 * Returns 0 or -EINVAL with a sentence in @err (not an address, a prefix
 * length out of range or not a number, host bits set).
 */
int cidr_parse(const char *s, size_t len, struct cidr *out, char *err,
               size_t err_size);

/*
 * cidr_list_add - append the comma list @spec ("10.0.0.0/8, ::1") to @l.
 * Spaces around items are ignored; an empty item is an error.
 *
 * Returns 0, -EINVAL (a sentence in @err; @l unchanged) or -ENOMEM.
 */
int cidr_list_add(struct cidr_list *l, const char *spec, char *err,
                  size_t err_size);

/* cidr_list_match - whether @a lies in any network of @l. */
bool cidr_list_match(const struct cidr_list *l, const struct cidr_addr *a);

/*
 * cidr_list_best - the most specific network of @l that @a lies in (the
 * longest prefix; the first of equals), or NULL.
 */
const struct cidr *cidr_list_best(const struct cidr_list *l,
                                  const struct cidr_addr *a);

/* cidr_list_free - release what @l owns; @l may be zeroed or NULL. */
void cidr_list_free(struct cidr_list *l);

#endif
