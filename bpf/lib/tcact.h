/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one verdict every dcbpf TC program gives a packet it lets through.
 */
#ifndef DCBPF_BPF_TCACT_H
#define DCBPF_BPF_TCACT_H

/* Pass and let the next program on the hook run (tcx: TCX_NEXT; cls_bpf
 * direct-action: TC_ACT_UNSPEC, the next filter; at the end of either,
 * the packet passes).  TC_ACT_OK would end the hook: under tcx nothing
 * attached after a dcbpf program would see the packet. */
#define DC_TC_NEXT (-1)

#endif
