/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * PowerTCP and θ-PowerTCP as an ns-3 congestion control: the laws of
 * include/dcbpf/powertcp.h (PowerTCP, NSDI'22, Algorithms 1 and 2) called
 * once per ACK from CongControl, fed what bpf/powertcp.bpf.c feeds them
 * on a Linux host (dc_cc_on_ack): snd_una, snd_nxt, the ACK's RTT sample,
 * the base RTT, the send unit, now in µs, the window's floor and cap, and
 * the flow's latest echoed INT stack when it is fresher than
 * int_stale_us — else the θ law, as the kernel CC falls back.
 *
 * The INT stack reaches the CC as the fabric's does: the switch model
 * stamps hops (DcSwitchQueueDisc), the receiver echoes them on its ACKs
 * and the sender's IP layer publishes them before TCP sees the ACK
 * (DcIntHost, dc-int-host.h), into the flow's CC with SetIntStack.
 *
 * Windows are bytes (m_cWnd), as the core's cwnd_bytes; ns-3 sends no
 * GSO batches, so the send unit is the segment size.
 */
#ifndef DC_NS3_POWERTCP_H
#define DC_NS3_POWERTCP_H

#include <ns3/tcp-congestion-ops.h>

extern "C" {
#include <dcbpf/powertcp.h>
}

namespace ns3
{

class DcPowerTcp : public TcpCongestionOps
{
  public:
    static TypeId GetTypeId();
    DcPowerTcp();
    DcPowerTcp(const DcPowerTcp& o);

    std::string GetName() const override { return m_theta ? "theta_powertcp" : "powertcp"; }
    void Init(Ptr<TcpSocketState> tcb) override;
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override {}
    bool HasCongControl() const override { return true; }
    void CongControl(Ptr<TcpSocketState> tcb, const TcpRateOps::TcpRateConnection& rc,
                     const TcpRateOps::TcpRateSample& rs) override;
    Ptr<TcpCongestionOps> Fork() override { return CopyObject<DcPowerTcp>(this); }

    /* The flow's newest echoed hop stack (decoded, updated_ns = when it
     * was published). */
    void SetIntStack(const struct dc_int_stack& s);
    const struct dc_ptcp_state& GetState() const { return m_st; }
    /* ACKs decided by the INT law and by the θ law. */
    uint64_t m_intAcks = 0, m_thetaAcks = 0;

    struct dc_cc_cfg m_cfg;

  private:
    uint32_t m_hostBwMbps, m_baseRttUs, m_expectedFlows, m_gammaQ16, m_intStaleUs;
    bool m_theta;
    bool m_haveStack;
    bool m_started;
    struct dc_int_stack m_stack;
    struct dc_ptcp_state m_st;
};

} // namespace ns3

#endif
