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
 * proxy, never a value the client may have written. Forwarded wins when a
 * request carries both.
 */
#ifndef FORWARDED_H
#define FORWARDED_H

#include "http/cidr.h"

/*
 * forwarded_client - walk the hops of @forwarded (the Forwarded field
 * values joined with ", ", or NULL) or else of @xff (X-Forwarded-For, the
 * same) from *@client (the peer, trusted) and leave the client in *@client.
 *
 * Returns the number of hops taken (0: the peer stays the client).
 */
unsigned forwarded_client(const struct cidr_list *trusted,
                          const char *forwarded, const char *xff,
                          struct cidr_addr *client);

#endif
