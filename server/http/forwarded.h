/* SPDX-License-Identifier: MIT */
/*
 * forwarded.h - the client behind trusted proxies, from Forwarded (RFC
 * 7239) or X-Forwarded-For.
 *
 * Only a request whose peer is a trusted proxy is asked (the caller checks
 * the peer). Each proxy appends the address it received the request from,
 * so the list reads client, proxy1, proxy2, ... and only its right end can
 * be believed: the walk starts at the peer and moves left while the address
 * in hand is a trusted proxy's. The first untrusted address is the client.
 * A hop that is not an address ("unknown", an obfuscated "_name", garbage)
 * stops the walk at the trusted proxy before it: the client is then that
 * proxy, never a value the client may have written.
 *
 * Which list a hop is read from is the choice of the proxy that wrote it,
 * never of the request: each trusted network says which header its proxy
 * appends (--trusted-proxy CIDR=forwarded|x-forwarded-for, read by
 * trusted_proxy.c; X-Forwarded-For by default, as nginx's proxy_params,
 * HAProxy's "option forwardfor" and most load balancers write it). The other
 * header is the client's own words and is never read for that proxy: a proxy
 * that appends to X-Forwarded-For and passes a client's Forwarded untouched
 * cannot be made to vouch for "Forwarded: for=10.1.1.1". The two are never
 * combined into one list; a chain of proxies that write different headers is
 * walked hop by hop, each hop from the list its own proxy writes.
 */
#ifndef BENEATH_HTTP_FORWARDED_H
#define BENEATH_HTTP_FORWARDED_H

#include "syntax/cidr.h"
#include "syntax/trusted_proxy.h"

/*
 * forwarded_client - walk the hops from *@client (the peer, trusted in
 * @trusted) and leave the client in *@client: each trusted hop gives the
 * next one from the right end of what is left of @values[tag of its
 * network] (that header's field values joined with ", ", or NULL).
 *
 * Returns the number of hops taken (0: the peer stays the client).
 */
unsigned forwarded_client(const struct cidr_list *trusted,
                          const char *const values[TRUSTED_PROXY_N_HEADERS],
                          struct cidr_addr *client);

#endif
