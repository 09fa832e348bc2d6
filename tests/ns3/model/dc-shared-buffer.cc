// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The shared buffer's bookkeeping around include/dcbpf/admit.h (model in
 * dc-shared-buffer.h).  Every quantity is fed to the core the way
 * loader/sim/simengine.c feeds it; where the simulator counts in slots,
 * this class counts in ns of simulated time.
 */
#include "dc-shared-buffer.h"

#include <ns3/uinteger.h>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(DcSharedBuffer);

TypeId
DcSharedBuffer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DcSharedBuffer")
            .SetParent<Object>()
            .AddConstructor<DcSharedBuffer>()
            .AddAttribute("Algorithm", "enum dc_alg: 0 CS, 1 DT, 2 ABM, 4 Credence, 5 FollowLQD",
                          UintegerValue(DC_ALG_DT),
                          MakeUintegerAccessor(&DcSharedBuffer::m_alg),
                          MakeUintegerChecker<uint32_t>(0, DC_ALG_MAX - 1))
            .AddAttribute("BufferBytes", "B, the shared buffer (< 2^32)",
                          UintegerValue(DC_DEFAULT_BUFFER_BYTES),
                          MakeUintegerAccessor(&DcSharedBuffer::m_B),
                          MakeUintegerChecker<uint64_t>(1, 0xffffffffULL))
            .AddAttribute("AbmPeriodNs", "ABM: n_p and γ refresh period",
                          UintegerValue(DC_DEFAULT_ABM_PERIOD_US * 1000ULL),
                          MakeUintegerAccessor(&DcSharedBuffer::m_abmPeriodNs),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("QuantumNs", "a port sends QuantumBytes every QuantumNs",
                          UintegerValue(12000),
                          MakeUintegerAccessor(&DcSharedBuffer::m_quantumNs),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("QuantumBytes", "see QuantumNs (1500 B per 12 µs = 1 Gbit/s)",
                          UintegerValue(1500),
                          MakeUintegerAccessor(&DcSharedBuffer::m_quantumBytes),
                          MakeUintegerChecker<uint64_t>(1));
    return tid;
}

DcSharedBuffer::DcSharedBuffer()
    : m_alg(DC_ALG_DT),
      m_B(DC_DEFAULT_BUFFER_BYTES),
      m_alphaFirstRttQ16(DC_DEFAULT_ALPHA_FIRST_RTT_Q16),
      m_abmPeriodNs(DC_DEFAULT_ABM_PERIOD_US * 1000ULL),
      m_quantumNs(12000),
      m_quantumBytes(1500),
      m_nports(0),
      m_nq(1),
      m_n(0),
      m_Q(0),
      m_G(0),
      m_nextAbmNs(0),
      m_nextDrainNs(0)
{
    for (uint32_t p = 0; p < DC_SW_PRIOS; p++)
        m_alphaQ16[p] = DC_DEFAULT_ALPHA_Q16;
    for (uint32_t k = 0; k < DC_SW_QUEUES_MAX; k++)
        m_ncong[k] = 1;
}

void
DcSharedBuffer::Setup(uint32_t nports, uint32_t nqueues)
{
    m_nports = nports;
    m_nq = dc_nq(nqueues);
    m_n = nports * m_nq;
    NS_ABORT_MSG_IF(!m_n || m_n > DC_CRED_QUEUES_MAX, "ports × queues must be 1.." << DC_CRED_QUEUES_MAX);
    m_q.assign(m_n, 0);
    m_winSent.assign(m_n, 0);
    m_winQ.assign(m_n, 0);
    m_T.assign(m_n, 0);
    m_gamma.assign(m_n, (uint32_t)DC_Q16_ONE);
    m_Q = m_G = 0;
    /* the simulator's first ABM refresh is at slot 0, its first drain of
     * the virtual queues at the end of slot 0 */
    m_nextAbmNs = 0;
    m_nextDrainNs = m_quantumNs;
}

uint32_t
DcSharedBuffer::QueueOf(uint32_t port, uint32_t prio) const
{
    return port * m_nq + dc_queue_of_prio(prio & DC_SW_DSCP_PRIO_MASK, m_nq);
}

uint64_t
DcSharedBuffer::PortBytes(uint32_t port) const
{
    uint64_t s = 0;

    for (uint32_t k = 0; k < m_nq; k++)
        s += m_q[port * m_nq + k];
    return s;
}

/* ABM's refresh (simengine.c, "once per period"): γ of each queue from
 * what it sent over what its port could send, n_p per class from the
 * queues at ≥ 0.9 of their threshold. */
void
DcSharedBuffer::AbmUpdate()
{
    uint32_t cong[DC_SW_QUEUES_MAX] = {0};
    uint64_t could = m_abmPeriodNs / m_quantumNs * m_quantumBytes;

    for (uint32_t i = 0; i < m_n; i++)
    {
        uint32_t cls = i % m_nq;

        m_gamma[i] = dc_abm_gamma_from(m_winSent[i], could, m_q[i] || m_winQ[i]);
        if (dc_abm_congested(m_q[i], dc_abm_threshold(m_B, m_Q, m_alphaQ16[cls], m_ncong[cls],
                                                      m_gamma[i])))
            cong[cls]++;
        m_winSent[i] = 0;
        m_winQ[i] = m_q[i];
    }
    for (uint32_t k = 0; k < m_nq; k++)
        m_ncong[k] = dc_abm_n(cong[k]);
}

void
DcSharedBuffer::Advance(uint64_t now_ns)
{
    if (m_alg == DC_ALG_ABM)
    {
        while (m_nextAbmNs <= now_ns)
        {
            AbmUpdate();
            m_nextAbmNs += m_abmPeriodNs;
        }
    }
    if (m_alg == DC_ALG_CREDENCE || m_alg == DC_ALG_FOLLOWLQD)
    {
        if (m_nextDrainNs <= now_ns)
        {
            /* k quanta at once: T floors at 0 after each, so k drains of
             * b are one of k·b */
            uint64_t k = (now_ns - m_nextDrainNs) / m_quantumNs + 1;

            for (uint32_t i = 0; i < m_n; i++)
                dc_cred_depart(m_T.data(), &m_G, i, k * m_quantumBytes);
            m_nextDrainNs += k * m_quantumNs;
        }
    }
}

enum dc_verdict
DcSharedBuffer::Admit(uint32_t qi, uint32_t len, uint32_t prio, bool firstRtt, uint64_t now_ns)
{
    enum dc_verdict v;
    prio &= DC_SW_DSCP_PRIO_MASK;

    Advance(now_ns);
    if (m_alg == DC_ALG_CREDENCE || m_alg == DC_ALG_FOLLOWLQD)
    {
        struct dc_cred_in ci = {};
        bool ask;

        dc_cred_arrival(m_T.data(), &m_G, m_n, qi, m_B, len);
        ci.q = m_q[qi];
        ci.Q = m_Q;
        ci.B = m_B;
        ci.T = m_T[qi];
        ci.n = m_n;
        ci.len = len;
        for (uint32_t i = 0; i < m_n; i++)
            if (m_q[i] > ci.longest)
                ci.longest = m_q[i];
        /* Credence's prediction: "accept" until the forest is wired in
         * (tests/ns3/README.md, "What is left") */
        v = dc_cred_decide(m_alg, &ci, &ask);
    }
    else
    {
        struct dc_adm_in in = {};
        __u64 thr;

        in.q = m_q[qi];
        in.Q = m_Q;
        in.B = m_B;
        in.len = len;
        in.alpha_q16 = dc_adm_alpha(m_alg, m_alphaQ16[prio], m_alphaFirstRttQ16, firstRtt);
        in.gamma_q16 = m_gamma[qi];
        in.n_congested = m_ncong[qi % m_nq];
        v = dc_adm_decide(m_alg, &in, &thr);
    }
    if (v == DC_V_ADMIT)
    {
        m_q[qi] += len;
        m_Q += len;
    }
    return v;
}

void
DcSharedBuffer::Depart(uint32_t qi, uint32_t len, uint64_t now_ns)
{
    Advance(now_ns);
    m_q[qi] -= len < m_q[qi] ? len : m_q[qi];
    m_Q -= len < m_Q ? len : m_Q;
    m_winSent[qi] += len;
}

} // namespace ns3
