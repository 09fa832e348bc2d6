// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * PowerTCP / θ-PowerTCP for ns-3 (dc-powertcp.h): the per-ACK glue of
 * bpf/powertcp.bpf.c (dc_cc_init, dc_cc_on_ack, dc_apply) with ns-3's
 * socket state in place of struct tcp_sock.
 */
#include "dc-powertcp.h"

#include <cstring>

#include <ns3/boolean.h>
#include <ns3/simulator.h>
#include <ns3/uinteger.h>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(DcPowerTcp);

TypeId
DcPowerTcp::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DcPowerTcp")
            .SetParent<TcpCongestionOps>()
            .AddConstructor<DcPowerTcp>()
            .AddAttribute("Theta", "θ-PowerTCP (RTT only) instead of PowerTCP (INT)",
                          BooleanValue(false), MakeBooleanAccessor(&DcPowerTcp::m_theta),
                          MakeBooleanChecker())
            .AddAttribute("HostBwMbps", "HostBw of the law (the NIC's rate)",
                          UintegerValue(DC_DEFAULT_HOST_BW_MBPS),
                          MakeUintegerAccessor(&DcPowerTcp::m_hostBwMbps),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("BaseRttUs", "τ; 0 = the measured base RTT",
                          UintegerValue(0), MakeUintegerAccessor(&DcPowerTcp::m_baseRttUs),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ExpectedFlows", "N in β = HostBw·τ/N",
                          UintegerValue(DC_DEFAULT_EXPECTED_FLOWS),
                          MakeUintegerAccessor(&DcPowerTcp::m_expectedFlows),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("GammaQ16", "EWMA weight γ, Q16",
                          UintegerValue(DC_DEFAULT_GAMMA_Q16),
                          MakeUintegerAccessor(&DcPowerTcp::m_gammaQ16),
                          MakeUintegerChecker<uint32_t>(1, DC_Q16_ONE))
            .AddAttribute("IntStaleUs", "INT older than this: the θ law",
                          UintegerValue(DC_DEFAULT_INT_STALE_US),
                          MakeUintegerAccessor(&DcPowerTcp::m_intStaleUs),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

DcPowerTcp::DcPowerTcp()
    : m_hostBwMbps(DC_DEFAULT_HOST_BW_MBPS),
      m_baseRttUs(0),
      m_expectedFlows(DC_DEFAULT_EXPECTED_FLOWS),
      m_gammaQ16(DC_DEFAULT_GAMMA_Q16),
      m_intStaleUs(DC_DEFAULT_INT_STALE_US),
      m_theta(false),
      m_haveStack(false),
      m_started(false)
{
    std::memset(&m_cfg, 0, sizeof(m_cfg));
    m_cfg.gamma_q16 = DC_DEFAULT_GAMMA_Q16;
    m_cfg.host_bw_mbps = DC_DEFAULT_HOST_BW_MBPS;
    m_cfg.expected_flows = DC_DEFAULT_EXPECTED_FLOWS;
    m_cfg.int_stale_us = DC_DEFAULT_INT_STALE_US;
    m_cfg.min_cwnd_pkts = DC_DEFAULT_MIN_CWND_PKTS;
    m_cfg.pacing = DC_DEFAULT_PACING;
    std::memset(&m_stack, 0, sizeof(m_stack));
    std::memset(&m_st, 0, sizeof(m_st));
}

DcPowerTcp::DcPowerTcp(const DcPowerTcp& o)
    : TcpCongestionOps(o),
      m_cfg(o.m_cfg),
      m_hostBwMbps(o.m_hostBwMbps),
      m_baseRttUs(o.m_baseRttUs),
      m_expectedFlows(o.m_expectedFlows),
      m_gammaQ16(o.m_gammaQ16),
      m_intStaleUs(o.m_intStaleUs),
      m_theta(o.m_theta),
      m_haveStack(false),
      m_started(false)
{
    std::memset(&m_stack, 0, sizeof(m_stack));
    std::memset(&m_st, 0, sizeof(m_st));
}

static uint32_t
MinRttUs(Ptr<const TcpSocketState> tcb)
{
    return tcb->m_minRtt == Time::Max() ? 0 : (uint32_t)tcb->m_minRtt.GetMicroSeconds();
}

/* dc_apply: the window and, with pacing, the rate cwnd/τ. */
static void
Apply(Ptr<TcpSocketState> tcb, const struct dc_ptcp_state& st, const struct dc_cc_cfg& cfg)
{
    tcb->m_cWnd = st.cwnd_bytes;
    if (cfg.pacing && tcb->m_pacing && st.tau_us)
        tcb->m_pacingRate = DataRate(dc_ptcp_pacing_Bps(st.cwnd_bytes, st.tau_us) * 8);
}

void
DcPowerTcp::Init(Ptr<TcpSocketState> tcb)
{
    uint32_t mss = tcb->m_segmentSize ? tcb->m_segmentSize : 1;

    /* the attributes, into the config the core reads (dc_cc_cfg) */
    m_cfg.host_bw_mbps = m_hostBwMbps;
    m_cfg.base_rtt_us = m_baseRttUs;
    m_cfg.expected_flows = m_expectedFlows;
    m_cfg.gamma_q16 = m_gammaQ16;
    m_cfg.int_stale_us = m_intStaleUs;
    /* an active open has the handshake's RTT by now (dc_cc_init) */
    dc_ptcp_state_init_path(&m_st, &m_cfg, m_theta ? DC_CC_THETA : DC_CC_POWERTCP,
                            tcb->m_highTxMark.Get().GetValue(), MinRttUs(tcb), mss,
                            m_cfg.min_cwnd_pkts * mss);
    m_started = true;
    Apply(tcb, m_st, m_cfg);
}

uint32_t
DcPowerTcp::GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight)
{
    /* only ns-3's recovery bookkeeping reads it; the window is the law's */
    return m_st.cwnd_bytes ? m_st.cwnd_bytes : tcb->m_cWnd.Get();
}

void
DcPowerTcp::SetIntStack(const struct dc_int_stack& s)
{
    m_stack = s;
    m_haveStack = true;
}

void
DcPowerTcp::CongControl(Ptr<TcpSocketState> tcb, const TcpRateOps::TcpRateConnection& rc,
                        const TcpRateOps::TcpRateSample& rs)
{
    uint32_t mss = tcb->m_segmentSize ? tcb->m_segmentSize : 1;
    uint64_t now_ns = (uint64_t)Simulator::Now().GetNanoSeconds();
    struct dc_ptcp_ack a = {};
    /* ns-3 keeps the last RTT sample; with timestamps (its default)
     * every ACK carries a fresh one */
    int64_t rtt = tcb->m_lastRtt.Get().GetMicroSeconds();
    uint32_t out_pkts = rs.m_priorInFlight / mss + 1;

    if (!m_started)
        Init(tcb);
    a.ack_seq = tcb->m_lastAckedSeq.GetValue();
    a.snd_nxt = tcb->m_highTxMark.Get().GetValue();
    a.rtt_us = rtt > 0 ? (uint32_t)rtt : 0;
    a.now_us = now_ns / 1000;
    a.unit_bytes = mss;
    a.min_cwnd_bytes = m_cfg.min_cwnd_pkts * mss;
    a.max_cwnd_bytes = dc_ptcp_max_cwnd_bytes(m_st.cwnd_bytes, out_pkts, mss, DC_U32_MAX / mss);
    a.min_rtt_us = MinRttUs(tcb);
    if (!m_theta && m_haveStack &&
        now_ns - m_stack.updated_ns <= (uint64_t)m_cfg.int_stale_us * DC_NSEC_PER_USEC)
    {
        m_intAcks++;
        dc_powertcp_on_ack(&m_st, &m_cfg, &a, &m_stack);
    }
    else
    {
        m_thetaAcks++;
        dc_theta_on_ack(&m_st, &m_cfg, &a);
    }
    Apply(tcb, m_st, m_cfg);
}

} // namespace ns3
