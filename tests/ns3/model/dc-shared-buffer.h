/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One switch's shared buffer in ns-3: every egress queue of every port
 * draws from one buffer of B bytes, and each arrival is admitted or
 * dropped by the admission core of include/dcbpf/admit.h — the code the
 * XDP program (bpf/switch.bpf.c) and `dcbpf sim` run, called unchanged.
 *
 * What this class adds around the core is the state the core is fed,
 * kept exactly as the simulator keeps it (loader/sim/simengine.c), so the
 * two make the same decisions on the same arrivals
 * (tests/ns3/test_admit_trace.cc):
 *   q_i  bytes of queue i (port · nq + k, k = the priority's queue),
 *   Q    bytes of all queues,
 *   ABM  n_p per priority class and γ per queue, refreshed once per
 *        period from the bytes each queue sent in it over what its port
 *        could send (rate · period): ABM, SIGCOMM'22, Eq. 4.9;
 *   Credence / FollowLQD  the virtual LQD queues T_i, drained by what a
 *        port sends in one drain quantum (Credence, NSDI'24, Alg. 1).
 * Time-driven updates are lazy: Advance(now) applies every period or
 * quantum boundary up to now before the event at now is handled, so a
 * boundary sees the state as it was at that instant (nothing changes
 * between events) and the arrivals at a boundary see the update, as in
 * the simulator's slot loop.
 *
 * Rates are given as bytes per quantum (quantum_bytes every quantum_ns):
 * the simulator's slot (slot_bytes every slot_ns) in a trace replay, one
 * MTU's serialisation time at the port rate in a scenario.
 */
#ifndef DC_NS3_SHARED_BUFFER_H
#define DC_NS3_SHARED_BUFFER_H

#include <vector>

#include <ns3/object.h>
#include <ns3/nstime.h>

extern "C" {
#include <dcbpf/admit.h>
}

namespace ns3
{

class DcSharedBuffer : public Object
{
  public:
    static TypeId GetTypeId();
    DcSharedBuffer();

    /* Ports × queues per port: call once before the first packet. */
    void Setup(uint32_t nports, uint32_t nqueues);
    uint32_t GetNQueues() const { return m_nq; }
    uint32_t QueueOf(uint32_t port, uint32_t prio) const;

    /* The decision for an arrival of len bytes to queue qi at time now:
     * the core's verdict; an admitted packet is counted in q_i and Q. */
    enum dc_verdict Admit(uint32_t qi, uint32_t len, uint32_t prio, bool firstRtt, uint64_t now_ns);
    /* A packet of queue qi left (its port sent it). */
    void Depart(uint32_t qi, uint32_t len, uint64_t now_ns);
    /* Apply every ABM period and Credence quantum that ended by now. */
    void Advance(uint64_t now_ns);

    uint64_t QueueBytes(uint32_t qi) const { return m_q[qi]; }
    uint64_t PortBytes(uint32_t port) const;
    uint64_t Occupancy() const { return m_Q; }
    uint64_t GetBuffer() const { return m_B; }

    /* Configuration (attributes; set before Setup). */
    uint32_t m_alg;
    uint64_t m_B;
    uint32_t m_alphaQ16[DC_SW_PRIOS];
    uint32_t m_alphaFirstRttQ16;
    uint64_t m_abmPeriodNs;
    uint64_t m_quantumNs;
    uint64_t m_quantumBytes;

  private:
    void AbmUpdate();
    uint32_t m_nports, m_nq, m_n;
    std::vector<__u64> m_q, m_winSent, m_winQ, m_T;
    std::vector<uint32_t> m_gamma;
    uint32_t m_ncong[DC_SW_QUEUES_MAX];
    __u64 m_Q, m_G;
    uint64_t m_nextAbmNs, m_nextDrainNs;
};

} // namespace ns3

#endif
