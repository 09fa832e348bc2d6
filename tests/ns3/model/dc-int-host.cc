// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A host's INT source, sink, echo and publisher (dc-int-host.h). */
#include "dc-int-host.h"

#include <cstring>

#include <ns3/ipv4-l3-protocol.h>
#include <ns3/simulator.h>
#include <ns3/tcp-header.h>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(DcIntHost);

TypeId
DcIntHost::GetTypeId()
{
    static TypeId tid = TypeId("ns3::DcIntHost").SetParent<Object>().AddConstructor<DcIntHost>();
    return tid;
}

DcIntHost::DcIntHost()
    : m_slots(DC_INT_WIRE_MAX_SLOTS)
{
}

void
DcIntHost::Install(Ptr<Node> node, uint32_t slots)
{
    Ptr<Ipv4L3Protocol> ip = node->GetObject<Ipv4L3Protocol>();

    m_slots = slots;
    ip->TraceConnectWithoutContext("SendOutgoing", MakeCallback(&DcIntHost::OnSend, this));
    ip->TraceConnectWithoutContext("LocalDeliver", MakeCallback(&DcIntHost::OnDeliver, this));
}

void
DcIntHost::Register(uint16_t localPort, Ptr<DcPowerTcp> cc)
{
    m_cc[localPort] = cc;
}

void
DcIntHost::OnSend(const Ipv4Header& h, Ptr<const Packet> p, uint32_t iface)
{
    TcpHeader th;
    DcIntTag t;

    if (h.GetProtocol() != 6 || !p->PeekHeader(th) || p->PeekPacketTag(t))
        return;
    if (p->GetSize() > th.GetSerializedSize())
    {
        /* a data segment: the source's empty option */
        t.Init(m_slots);
        p->AddPacketTag(t);
        m_sourced++;
        return;
    }
    auto it = m_kept.find(Key(th.GetSourcePort(), h.GetDestination().Get(), th.GetDestinationPort()));
    if (it == m_kept.end())
        return;
    /* an ACK of a flow with telemetry: the echo */
    t = it->second;
    t.opt[2] |= DC_INT_FLAG_ECHO;
    p->AddPacketTag(t);
    m_echoed++;
}

void
DcIntHost::OnDeliver(const Ipv4Header& h, Ptr<const Packet> p, uint32_t iface)
{
    TcpHeader th;
    DcIntTag t;

    if (h.GetProtocol() != 6 || !p->PeekPacketTag(t) || !p->PeekHeader(th) ||
        dc_int_check(t.opt, DC_INT_MAX_OPT_LEN) != DC_INT_OK)
        return;
    if (!(t.opt[2] & DC_INT_FLAG_ECHO))
    {
        m_kept[Key(th.GetDestinationPort(), h.GetSource().Get(), th.GetSourcePort())] = t;
        return;
    }
    auto cc = m_cc.find(th.GetDestinationPort());
    if (cc == m_cc.end())
        return;
    struct dc_int_stack& prev = m_prev[th.GetDestinationPort()];
    struct dc_int_stack s;
    uint32_t n = dc_int_hops(t.opt[3]);
    uint64_t now = (uint64_t)Simulator::Now().GetNanoSeconds();
    /* unwrap against the previous stack only within half a wrap (int.h) */
    bool fresh = prev.nhops && now - prev.updated_ns < DC_INT_UNWRAP_MAX_NS;

    std::memset(&s, 0, sizeof(s));
    n = n > DC_INT_MAX_HOPS ? DC_INT_MAX_HOPS : n;
    for (uint32_t i = 0; i < n; i++)
        dc_int_hop_decode(dc_int_load_be64(t.opt + DC_INT_BASE_LEN + i * DC_INT_HOP_LEN),
                          fresh && i < prev.nhops ? &prev.hop[i] : nullptr, &s.hop[i]);
    s.nhops = n;
    s.flags = (t.opt[2] & DC_INT_FLAG_OVERFLOW) ? DC_INT_F_OVERFLOW : 0;
    s.updated_ns = now;
    prev = s;
    cc->second->SetIntStack(s);
    m_published++;
}

} // namespace ns3
