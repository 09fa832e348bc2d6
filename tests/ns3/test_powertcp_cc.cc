// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * The ns-3 congestion control (DcPowerTcp) moves the window exactly as
 * the core does when the kernel CC's glue calls it (bpf/powertcp.bpf.c,
 * dc_cc_on_ack) on the same feedback.
 *
 * Feedback: one sender on a 1 Gbit/s bottleneck with a 50 µs base RTT;
 * an ACK per 1500 B segment every 12 µs; the queue is what the window
 * holds beyond the BDP; the RTT is the base plus the queue's delay; the
 * INT hop (qlen, ts, tx bytes, rate) is encoded into the wire word and
 * decoded as the sender's INT sink does (include/dcbpf/int.h), so the
 * stack carries the wire's 32-byte and 256-ns quantisation.  The loop is
 * closed: the queue follows the window each side computes, so one wrong
 * step on either side changes every later input.
 *
 * Checked: the window after every ACK equals the reference's (PowerTCP
 * with INT; θ-PowerTCP; PowerTCP whose INT is stale, which must take
 * the θ law like the kernel CC), the law moves it, and from the initial
 * window HostBw·τ plus a standing queue of 20 segments it ends smaller.
 * The feedback is a caricature of a queue (it jumps with the window), so
 * nothing here measures where the law settles: the fabric and the
 * scenarios do (docs/results.md).
 */
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

#include <ns3/core-module.h>
#include <ns3/internet-module.h>

#include "model/dc-powertcp.h"
#include "model/dc-tags.h"

using namespace ns3;

/* CHECK, CHECK_EQ: the host unit tests' assertions */
#include "../lib/check.h"

static const uint32_t MSS = 1500, RATE_MBPS = 1000, BASE_US = 50, ACK_GAP_NS = 12000;
static const uint64_t BDP = (uint64_t)RATE_MBPS * BASE_US / 8; /* 6250 B */
static const uint64_t START_NS = 10000000;                      /* the first ACK at 10 ms */

enum Law { LAW_INT, LAW_THETA, LAW_STALE };

/* The feedback of one ACK, given the window in flight. */
struct Feedback
{
    uint32_t ack_seq, snd_nxt, rtt_us, in_flight;
    uint64_t now_ns, qlen;
    struct dc_int_stack stack;
};

struct Loop
{
    uint32_t una = 1000, k = 0;
    uint64_t tx = 0;
    struct dc_int_hop prev = {};
    bool have_prev = false;

    /* the ACK k given window w: queue, RTT, the hop as echoed */
    Feedback Next(uint32_t w, Law law)
    {
        Feedback f = {};
        struct dc_int_hop_in h = {};
        uint64_t w64 = w;

        f.qlen = w64 > BDP ? w64 - BDP : 0;
        f.now_ns = (uint64_t)(k + 1) * ACK_GAP_NS + START_NS;
        una += MSS;
        tx += MSS;
        f.ack_seq = una;
        f.snd_nxt = una + w;
        f.in_flight = w;
        f.rtt_us = BASE_US + (uint32_t)(f.qlen * 8 / RATE_MBPS);
        h.rate_mbps = RATE_MBPS;
        h.qlen_bytes = f.qlen;
        h.tx_bytes = tx;
        h.ts_ns = f.now_ns - f.rtt_us * 500ULL;
        dc_int_hop_decode(dc_int_hop_encode(&h), have_prev ? &prev : NULL, &f.stack.hop[0]);
        prev = f.stack.hop[0];
        have_prev = true;
        f.stack.nhops = 1;
        /* stale: published long before this ACK */
        f.stack.updated_ns = law == LAW_STALE ? f.now_ns - 3 * DC_DEFAULT_INT_STALE_US * 1000ULL
                                              : f.now_ns;
        k++;
        return f;
    }
};

static struct dc_cc_cfg
Cfg()
{
    struct dc_cc_cfg c;

    memset(&c, 0, sizeof(c));
    c.gamma_q16 = DC_DEFAULT_GAMMA_Q16;
    c.host_bw_mbps = RATE_MBPS;
    c.expected_flows = DC_DEFAULT_EXPECTED_FLOWS;
    c.int_stale_us = DC_DEFAULT_INT_STALE_US;
    c.min_cwnd_pkts = DC_DEFAULT_MIN_CWND_PKTS;
    c.pacing = 1;
    return c;
}

/* The reference: the core as dc_cc_on_ack calls it. */
static std::vector<uint32_t>
Reference(Law law, uint32_t nacks, uint64_t* last_q)
{
    struct dc_cc_cfg cfg = Cfg();
    struct dc_ptcp_state st;
    std::vector<uint32_t> w;
    Loop loop;

    dc_ptcp_state_init_path(&st, &cfg, law == LAW_THETA ? DC_CC_THETA : DC_CC_POWERTCP, 1000,
                            BASE_US, MSS, cfg.min_cwnd_pkts * MSS);
    /* a standing queue of 20 segments to begin with */
    st.cwnd_bytes += 20 * MSS;
    for (uint32_t i = 0; i < nacks; i++)
    {
        Feedback f = loop.Next(st.cwnd_bytes, law);
        struct dc_ptcp_ack a = {};

        a.ack_seq = f.ack_seq;
        a.snd_nxt = f.snd_nxt;
        a.rtt_us = f.rtt_us;
        a.now_us = f.now_ns / 1000;
        a.unit_bytes = MSS;
        a.min_cwnd_bytes = cfg.min_cwnd_pkts * MSS;
        a.max_cwnd_bytes = dc_ptcp_max_cwnd_bytes(st.cwnd_bytes, f.in_flight / MSS + 1, MSS,
                                                  DC_U32_MAX / MSS);
        a.min_rtt_us = BASE_US;
        if (law == LAW_INT)
            dc_powertcp_on_ack(&st, &cfg, &a, &f.stack);
        else
            dc_theta_on_ack(&st, &cfg, &a);
        w.push_back(st.cwnd_bytes);
        *last_q = f.qlen;
    }
    return w;
}

struct NsRun
{
    Ptr<DcPowerTcp> cc;
    Ptr<TcpSocketState> tcb;
    Loop loop;
    Law law;
    std::vector<uint32_t> w;
};

static void
OneAck(NsRun* r)
{
    Feedback f = r->loop.Next(r->tcb->m_cWnd.Get(), r->law);
    TcpRateOps::TcpRateConnection rc;
    TcpRateOps::TcpRateSample rs;

    NS_ABORT_IF((uint64_t)Simulator::Now().GetNanoSeconds() != f.now_ns);
    r->tcb->m_lastAckedSeq = SequenceNumber32(f.ack_seq);
    r->tcb->m_highTxMark = SequenceNumber32(f.snd_nxt);
    r->tcb->m_lastRtt = MicroSeconds(f.rtt_us);
    rs.m_priorInFlight = f.in_flight;
    if (r->law != LAW_THETA)
        r->cc->SetIntStack(f.stack);
    r->cc->CongControl(r->tcb, rc, rs);
    r->w.push_back(r->tcb->m_cWnd.Get());
}

/* The same ACKs through the ns-3 CC, at their times on ns-3's clock. */
static std::vector<uint32_t>
ThroughNs3(Law law, uint32_t nacks, Ptr<DcPowerTcp>* cc_out)
{
    NsRun r;

    r.law = law;
    r.cc = CreateObject<DcPowerTcp>();
    r.cc->SetAttribute("Theta", BooleanValue(law == LAW_THETA));
    r.cc->SetAttribute("HostBwMbps", UintegerValue(RATE_MBPS));
    r.tcb = CreateObject<TcpSocketState>();
    r.tcb->m_segmentSize = MSS;
    r.tcb->m_minRtt = MicroSeconds(BASE_US);
    r.tcb->m_highTxMark = SequenceNumber32(1000);
    r.tcb->m_lastAckedSeq = SequenceNumber32(1000);
    r.cc->Init(r.tcb);
    r.tcb->m_cWnd = r.tcb->m_cWnd.Get() + 20 * MSS;
    /* the glue keeps its own copy of the window: the standing queue's
     * extra segments go into the core's state as in the reference */
    const_cast<struct dc_ptcp_state&>(r.cc->GetState()).cwnd_bytes = r.tcb->m_cWnd.Get();
    for (uint32_t i = 0; i < nacks; i++)
        Simulator::Schedule(NanoSeconds((uint64_t)(i + 1) * ACK_GAP_NS + START_NS), &OneAck, &r);
    Simulator::Run();
    Simulator::Destroy();
    *cc_out = r.cc;
    return r.w;
}

int
main()
{
    static const struct
    {
        Law law;
        const char* name;
    } laws[] = {{LAW_INT, "powertcp (INT)"},
                {LAW_THETA, "theta_powertcp"},
                {LAW_STALE, "powertcp, INT stale: the θ law"}};
    const uint32_t nacks = 4000; /* 48 ms, ~800 base RTTs */
    char name[200];

    for (const auto& l : laws)
    {
        uint64_t last_q = 0;
        std::vector<uint32_t> ref = Reference(l.law, nacks, &last_q);
        Ptr<DcPowerTcp> cc;
        std::vector<uint32_t> ns = ThroughNs3(l.law, nacks, &cc);
        size_t first = ref.size();
        uint32_t wmin = UINT32_MAX, wmax = 0, changes = 0;

        for (size_t i = 0; i < ref.size() && i < ns.size(); i++)
            if (ref[i] != ns[i] && first == ref.size())
                first = i;
        for (size_t i = 0; i < ref.size(); i++)
        {
            wmin = ref[i] < wmin ? ref[i] : wmin;
            wmax = ref[i] > wmax ? ref[i] : wmax;
            changes += i && ref[i] != ref[i - 1];
        }
        snprintf(name, sizeof(name), "%s: the window after each of %u ACKs equals the core's", l.name,
                 nacks);
        CHECK(name, ns.size() == ref.size() && first == ref.size(),
              "%zu windows, first difference at ACK %zu: core %u, ns-3 %u", ns.size(), first,
              first < ref.size() ? ref[first] : 0, first < ns.size() ? ns[first] : 0);
        snprintf(name, sizeof(name), "%s: the law moved the window (%u changes, %u..%u B)", l.name,
                 changes, wmin, wmax);
        CHECK(name, changes >= 10 && wmax > wmin, "the window hardly moved");
        snprintf(name, sizeof(name), "%s: the standing queue shrank: window %u B at the start, %u B at the end",
                 l.name, ref.front(), ref.back());
        CHECK(name, ref.back() < ref.front() && last_q < 20 * MSS, "queue %" PRIu64 " B at the end", last_q);
        snprintf(name, sizeof(name), "%s: ACKs by law: %" PRIu64 " INT, %" PRIu64 " θ", l.name,
                 cc->m_intAcks, cc->m_thetaAcks);
        CHECK(name, l.law == LAW_INT ? cc->m_intAcks == nacks : cc->m_thetaAcks == nacks,
              "wrong law");
    }
    return check_failed;
}
