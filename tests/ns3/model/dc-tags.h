/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What a packet carries into the switch model besides its bytes.
 *
 * DcPktTag: its priority (0-7, the DSCP class the fabric's hosts set) and
 * whether it is a first-RTT packet (ABM's α_first_rtt, §4.2.3) — in the
 * fabric both come from the DSCP byte through dc_sw_cfg.dscp_prio.
 *
 * DcIntTag: the INT option, byte for byte as docs/int.md lays it out in
 * the IPv4 header (base word, then hop slots of dc_int_hop_encode words),
 * built and read with include/dcbpf/int.h.  ns-3's Ipv4Header has no
 * options, so the option rides as a packet tag: same fields, same units,
 * same wrap-around, but it adds no bytes on the wire (the fabric's data
 * packets are 36 bytes longer).
 */
#ifndef DC_NS3_TAGS_H
#define DC_NS3_TAGS_H

#include <cstring>

#include <ns3/tag.h>

extern "C" {
#include <dcbpf/int.h>
}

namespace ns3
{

class DcPktTag : public Tag
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override { return GetTypeId(); }
    uint32_t GetSerializedSize() const override { return 2; }
    void Serialize(TagBuffer i) const override
    {
        i.WriteU8(prio);
        i.WriteU8(firstRtt);
    }
    void Deserialize(TagBuffer i) override
    {
        prio = i.ReadU8();
        firstRtt = i.ReadU8();
    }
    void Print(std::ostream& os) const override
    {
        os << "prio=" << (unsigned)prio << " first_rtt=" << (unsigned)firstRtt;
    }
    uint8_t prio = 0;
    uint8_t firstRtt = 0;
};

class DcIntTag : public Tag
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override { return GetTypeId(); }
    uint32_t GetSerializedSize() const override { return DC_INT_MAX_OPT_LEN; }
    void Serialize(TagBuffer i) const override { i.Write(opt, DC_INT_MAX_OPT_LEN); }
    void Deserialize(TagBuffer i) override { i.Read(opt, DC_INT_MAX_OPT_LEN); }
    void Print(std::ostream& os) const override
    {
        os << "int hops=" << dc_int_hops(opt[3]) << " flags=" << (unsigned)opt[2];
    }
    /* The INT source's empty option with `slots` hop slots. */
    void Init(uint32_t slots)
    {
        std::memset(opt, 0, sizeof(opt));
        opt[0] = DC_INT_OPT_TYPE;
        opt[1] = (uint8_t)dc_int_opt_len(slots);
        opt[2] = dc_int_b2(0);
        opt[3] = dc_int_b3(0, 0);
    }
    uint8_t opt[DC_INT_MAX_OPT_LEN] = {};
};

} // namespace ns3

#endif
