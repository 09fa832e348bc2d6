/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Flow keys.  The CC builds them from a socket, the INT programs from
 * packets; both must agree, so the one rule lives here: an IPv4-mapped
 * IPv6 socket (::ffff:a.b.c.d) is keyed as IPv4, because its packets on
 * the wire are IPv4.
 */
#ifndef DCBPF_FLOW_H
#define DCBPF_FLOW_H

#include "types.h"

#define DC_AF_INET 2
#define DC_AF_INET6 10

/* ::ffff:0:0/96 in network byte order, as 32-bit words read on a
 * little- or big-endian host alike (0x0000ffff stored big endian). */
DC_INLINE bool dc_addr_is_v4mapped(const __u32 a[4])
{
	const __u8 *b = (const __u8 *)a;

	return !a[0] && !a[1] && b[8] == 0 && b[9] == 0 && b[10] == 0xff &&
	       b[11] == 0xff;
}

/* Rewrite a v4-mapped IPv6 key as the IPv4 key of the same flow. */
DC_INLINE void dc_flow_key_norm(struct dc_flow_key *k)
{
	if (k->family != DC_AF_INET6 || !dc_addr_is_v4mapped(k->saddr) ||
	    !dc_addr_is_v4mapped(k->daddr))
		return;
	k->family = DC_AF_INET;
	k->saddr[0] = k->saddr[3];
	k->daddr[0] = k->daddr[3];
	k->saddr[1] = k->saddr[2] = k->saddr[3] = 0;
	k->daddr[1] = k->daddr[2] = k->daddr[3] = 0;
}

#endif
