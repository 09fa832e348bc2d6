// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The switch port (dc-switch-queue-disc.h): admission through
 * DcSharedBuffer, strict priority, INT transit and ECN marking.
 */
#include "dc-switch-queue-disc.h"

#include "dc-tags.h"

#include <ns3/drop-tail-queue.h>
#include <ns3/simulator.h>
#include <ns3/uinteger.h>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(DcSwitchQueueDisc);

TypeId
DcPktTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::DcPktTag").SetParent<Tag>().AddConstructor<DcPktTag>();
    return tid;
}

TypeId
DcIntTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::DcIntTag").SetParent<Tag>().AddConstructor<DcIntTag>();
    return tid;
}

TypeId
DcSwitchQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DcSwitchQueueDisc")
            .SetParent<QueueDisc>()
            .AddConstructor<DcSwitchQueueDisc>()
            .AddAttribute("RateMbps", "port rate, reported in INT hops",
                          UintegerValue(1000),
                          MakeUintegerAccessor(&DcSwitchQueueDisc::m_rateMbps),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("EcnThreshBytes", "DCTCP marking threshold K (0: no marking)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&DcSwitchQueueDisc::m_ecnThreshBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddTraceSource("Verdict", "each arrival and the core's verdict (enum dc_verdict)",
                            MakeTraceSourceAccessor(&DcSwitchQueueDisc::m_traceVerdict),
                            "ns3::DcSwitchQueueDisc::VerdictCallback");
    return tid;
}

DcSwitchQueueDisc::DcSwitchQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::NO_LIMITS),
      m_port(0),
      m_rateMbps(1000),
      m_ecnThreshBytes(0),
      m_txBytes(0)
{
}

void
DcSwitchQueueDisc::SetBuffer(Ptr<DcSharedBuffer> buf, uint32_t port)
{
    m_buf = buf;
    m_port = port;
}

static uint64_t
NowNs()
{
    return (uint64_t)Simulator::Now().GetNanoSeconds();
}

/* bpf/int_transit.bpf.c's fill, on the tag's copy of the option. */
void
DcSwitchQueueDisc::StampInt(Ptr<QueueDiscItem> item)
{
    DcIntTag t;
    struct dc_int_hop_in h = {};
    uint32_t hops, slots;

    if (!item->GetPacket()->PeekPacketTag(t) ||
        dc_int_check(t.opt, DC_INT_MAX_OPT_LEN) != DC_INT_OK || (t.opt[2] & DC_INT_FLAG_ECHO))
        return;
    hops = dc_int_hops(t.opt[3]);
    slots = dc_int_slots(t.opt[1]);
    if (hops >= slots)
        t.opt[2] |= DC_INT_FLAG_OVERFLOW;
    else
    {
        h.rate_mbps = m_rateMbps;
        h.qlen_bytes = m_buf->PortBytes(m_port);
        h.tx_bytes = m_txBytes;
        h.ts_ns = NowNs();
        dc_int_store_be64(t.opt + DC_INT_BASE_LEN + (hops & 3) * DC_INT_HOP_LEN,
                          dc_int_hop_encode(&h));
        t.opt[3] = dc_int_b3(hops + 1, dc_int_path(t.opt[3]));
    }
    item->GetPacket()->RemovePacketTag(t);
    item->GetPacket()->AddPacketTag(t);
}

bool
DcSwitchQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    DcPktTag pt;
    uint32_t len = item->GetSize(), qi, k;
    enum dc_verdict v;

    item->GetPacket()->PeekPacketTag(pt);
    qi = m_buf->QueueOf(m_port, pt.prio);
    k = qi - m_port * m_buf->GetNQueues();
    /* the hop describes the queue the packet finds (the fabric stamps on
     * TC egress, before the qdisc takes it) */
    StampInt(item);
    v = m_buf->Admit(qi, len, pt.prio, pt.firstRtt, NowNs());
    m_traceVerdict(item, (uint32_t)v);
    if (v != DC_V_ADMIT)
    {
        DropBeforeEnqueue(item, v == DC_V_DROP_FULL ? DROP_FULL
                                : v == DC_V_DROP_PRED ? DROP_PRED
                                                      : DROP_THRESH);
        return false;
    }
    if (dc_ecn_mark(m_buf->QueueBytes(qi) - len, len, m_ecnThreshBytes))
    {
        if (item->Mark())
            m_ecnMarked++;
        else
            m_ecnNotEct++;
    }
    GetInternalQueue(k)->Enqueue(item);
    return true;
}

int32_t
DcSwitchQueueDisc::NextQueue() const
{
    for (int32_t k = (int32_t)GetNInternalQueues() - 1; k >= 0; k--)
        if (!GetInternalQueue(k)->IsEmpty())
            return k;
    return -1;
}

Ptr<QueueDiscItem>
DcSwitchQueueDisc::DoDequeue()
{
    int32_t k = NextQueue();
    Ptr<QueueDiscItem> item;

    if (k < 0)
        return nullptr;
    item = GetInternalQueue(k)->Dequeue();
    m_txBytes += item->GetSize();
    m_buf->Depart(m_port * m_buf->GetNQueues() + k, item->GetSize(), NowNs());
    return item;
}

Ptr<const QueueDiscItem>
DcSwitchQueueDisc::DoPeek()
{
    int32_t k = NextQueue();

    return k < 0 ? nullptr : GetInternalQueue(k)->Peek();
}

bool
DcSwitchQueueDisc::CheckConfig()
{
    if (!m_buf)
        return false;
    if (GetNInternalQueues() == 0)
    {
        /* admission decides; the FIFOs only hold what it admitted */
        for (uint32_t k = 0; k < m_buf->GetNQueues(); k++)
        {
            Ptr<InternalQueue> q =
                CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
                    "MaxSize", QueueSizeValue(QueueSize("1000000p")));
            AddInternalQueue(q);
        }
    }
    return GetNInternalQueues() == m_buf->GetNQueues();
}

void
DcSwitchQueueDisc::InitializeParams()
{
}

} // namespace ns3
