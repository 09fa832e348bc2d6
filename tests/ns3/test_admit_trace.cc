// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// kernel-independent: a pure core or user-space code, no BPF in the kernel
/*
 * The ns-3 switch model decides like `dcbpf sim` on the same arrivals.
 *
 * Each arrival of a trace is enqueued into the model's port
 * (DcSwitchQueueDisc over one DcSharedBuffer) at slot × slot_ns, in the
 * trace's order; each port sends slot_bytes per slot, whole packets, at
 * the middle of the slot — the simulator's service (loader/sim/sim.h):
 * arrivals of a slot, then its departures, credit kept only while the
 * port is backlogged.  The simulator's engine (dc_sim_run_ex, linked in
 * from loader/sim/) runs the same arrivals; the test compares every
 * arrival's fate (dropped or not), and per queue the admissions, the drops
 * by reason, the packets sent and the longest queue.
 *
 *   test_admit_trace                 generated traces, every algorithm
 *   test_admit_trace --trace FILE --alg NAME --ports N --buffer B
 *                    [--queues Q] [--abm-period SLOTS]
 *                    prints the replay's totals as JSON, the keys of
 *                    `dcbpf sim --json` (tests/ns3/check.sh compares them)
 */
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <ns3/core-module.h>
#include <ns3/network-module.h>

#include "model/dc-shared-buffer.h"
#include "model/dc-switch-queue-disc.h"
#include "model/dc-tags.h"

extern "C" {
#include "sim/sim.h"
}

using namespace ns3;

/* CHECK, CHECK_EQ: the host unit tests' assertions */
#include "../lib/check.h"

/* A queue-disc item with no header of its own: its size is the trace's. */
class TraceItem : public QueueDiscItem
{
  public:
    TraceItem(Ptr<Packet> p)
        : QueueDiscItem(p, Address(), 0)
    {
    }
    void AddHeader() override {}
    bool Mark() override { return false; }
};

struct Replay
{
    std::vector<uint8_t> fate;  /* 1 = dropped */
    struct dc_sim_result r;     /* the counters the test compares */
};

struct ReplayCtx
{
    const struct dc_sim_cfg* c;
    const struct dc_sim_arrival* a;
    size_t n, idx;
    std::vector<Ptr<DcSwitchQueueDisc>> disc;
    std::vector<uint64_t> credit;
    Ptr<DcSharedBuffer> buf;
    Replay* out;
};

static void Slot(ReplayCtx* x, uint64_t t);

/* Departures of slot t: each port sends slot_bytes (simengine.c's rule). */
static void
Departures(ReplayCtx* x, uint64_t t)
{
    const uint32_t nq = dc_nq(x->c->nqueues);
    bool busy = false;

    for (uint32_t p = 0; p < x->c->nports; p++)
    {
        Ptr<DcSwitchQueueDisc> d = x->disc[p];

        if (!d->Peek())
            continue;
        x->credit[p] += x->c->slot_bytes;
        while (d->Peek() && d->Peek()->GetSize() <= x->credit[p])
        {
            DcPktTag tag;
            Ptr<QueueDiscItem> it = d->Dequeue();
            uint32_t qi;

            it->GetPacket()->PeekPacketTag(tag);
            qi = x->buf->QueueOf(p, tag.prio);
            x->credit[p] -= it->GetSize();
            x->out->r.port[qi].sent_pkts++;
            x->out->r.port[qi].sent_bytes += it->GetSize();
        }
        if (!d->Peek())
            x->credit[p] = 0;
    }
    (void)nq;
    for (uint32_t p = 0; p < x->c->nports; p++)
        busy = busy || x->buf->PortBytes(p);
    if (x->idx < x->n || (x->c->drain && busy))
        Simulator::Schedule(NanoSeconds(x->c->slot_ns / 2), &Slot, x, t + 1);
}

/* Slot t: its arrivals at t × slot_ns, its departures half a slot later. */
static void
Slot(ReplayCtx* x, uint64_t t)
{
    for (; x->idx < x->n && x->a[x->idx].slot == t; x->idx++)
    {
        const struct dc_sim_arrival* p = &x->a[x->idx];
        Ptr<Packet> pkt = Create<Packet>(p->bytes);
        DcPktTag tag;
        uint32_t qi = x->buf->QueueOf(p->port, p->prio);
        struct dc_sim_port_res* pr = &x->out->r.port[qi];

        tag.prio = p->prio;
        tag.firstRtt = p->first_rtt;
        pkt->AddPacketTag(tag);
        pr->arrivals++;
        if (!x->disc[p->port]->Enqueue(Create<TraceItem>(pkt)))
            x->out->fate[x->idx] = 1;
        else
            pr->admitted++;
        if (x->buf->QueueBytes(qi) > pr->max_q)
            pr->max_q = x->buf->QueueBytes(qi);
    }
    Simulator::Schedule(NanoSeconds(x->c->slot_ns / 2), &Departures, x, t);
}

static void
CountDrop(Replay* out, Ptr<DcSharedBuffer> buf, uint32_t port, Ptr<const QueueDiscItem> item,
          uint32_t v)
{
    DcPktTag tag;
    uint32_t qi;

    if (v == DC_V_ADMIT)
        return;
    item->GetPacket()->PeekPacketTag(tag);
    qi = buf->QueueOf(port, tag.prio);
    if (v == DC_V_DROP_FULL)
        out->r.port[qi].drop_full++;
    else if (v == DC_V_DROP_PRED)
        out->r.port[qi].drop_pred++;
    else
        out->r.port[qi].drop_thresh++;
}

/* The model on the arrivals a[0..n) under settings c (byte mode). */
static void
ReplayNs3(const struct dc_sim_cfg* c, const struct dc_sim_arrival* a, size_t n, Replay* out)
{
    ReplayCtx x;
    const uint32_t N = c->nports * dc_nq(c->nqueues);

    memset(&out->r, 0, sizeof(out->r));
    out->fate.assign(n, 0);
    x.c = c;
    x.a = a;
    x.n = n;
    x.idx = 0;
    x.out = out;
    x.buf = CreateObject<DcSharedBuffer>();
    x.buf->m_alg = c->alg;
    x.buf->m_B = c->buffer;
    for (uint32_t p = 0; p < DC_SW_PRIOS; p++)
        x.buf->m_alphaQ16[p] = c->alpha_q16[p];
    x.buf->m_alphaFirstRttQ16 = c->alpha_first_rtt_q16;
    x.buf->m_quantumNs = c->slot_ns;
    x.buf->m_quantumBytes = c->slot_bytes;
    x.buf->m_abmPeriodNs = (uint64_t)(c->abm_period_slots ? c->abm_period_slots : 1) * c->slot_ns;
    x.buf->Setup(c->nports, c->nqueues);
    x.credit.assign(c->nports, 0);
    for (uint32_t p = 0; p < c->nports; p++)
    {
        Ptr<DcSwitchQueueDisc> d = CreateObject<DcSwitchQueueDisc>();

        d->SetBuffer(x.buf, p);
        d->TraceConnectWithoutContext("Verdict", MakeBoundCallback(&CountDrop, out, x.buf, p));
        d->Initialize();
        x.disc.push_back(d);
    }
    out->r.nports = N;
    Simulator::Schedule(NanoSeconds(0), &Slot, &x, (uint64_t)0);
    Simulator::Run();
    Simulator::Destroy();
    for (uint32_t i = 0; i < N; i++)
    {
        struct dc_sim_port_res* pr = &out->r.port[i];

        pr->final_q = x.buf->QueueBytes(i);
        out->r.arrivals += pr->arrivals;
        out->r.admitted += pr->admitted;
        out->r.sent_pkts += pr->sent_pkts;
        out->r.sent_bytes += pr->sent_bytes;
        out->r.drops += pr->drop_thresh + pr->drop_full + pr->drop_pred;
    }
}

/* The model and the simulator on the same arrivals: every fate and every
 * per-queue counter equal. */
static void
Compare(const char* what, const struct dc_sim_cfg* c, const struct dc_sim_arrival* a, size_t n)
{
    static struct dc_sim_result sr;
    std::vector<uint8_t> fate(n ? n : 1);
    struct dc_err err = {};
    Replay m;
    size_t first = n, diff = 0;
    char name[200];
    uint32_t N = c->nports * dc_nq(c->nqueues), bad = N;

    if (dc_sim_run_ex(c, a, n, 0, &sr, NULL, fate.data(), &err))
    {
        snprintf(name, sizeof(name), "%s: simulator runs", what);
        CHECK(name, 0, "%s", err.msg);
        return;
    }
    ReplayNs3(c, a, n, &m);
    for (size_t k = 0; k < n; k++)
        if (fate[k] != m.fate[k])
        {
            diff++;
            if (first == n)
                first = k;
        }
    snprintf(name, sizeof(name), "%s: the same fate for each of %zu arrivals (%" PRIu64 " dropped)",
             what, n, (uint64_t)sr.drops);
    CHECK(name, diff == 0, "%zu differ, first arrival %zu (slot %u port %u): sim %u, ns-3 %u", diff,
          first, first < n ? a[first].slot : 0, first < n ? a[first].port : 0,
          first < n ? fate[first] : 0, first < n ? m.fate[first] : 0);
    for (uint32_t i = 0; i < N && bad == N; i++)
    {
        const struct dc_sim_port_res *s = &sr.port[i], *q = &m.r.port[i];

        if (s->arrivals != q->arrivals || s->admitted != q->admitted ||
            s->drop_thresh != q->drop_thresh || s->drop_full != q->drop_full ||
            s->drop_pred != q->drop_pred || s->sent_pkts != q->sent_pkts ||
            s->sent_bytes != q->sent_bytes || s->max_q != q->max_q || s->final_q != q->final_q)
            bad = i;
    }
    snprintf(name, sizeof(name), "%s: per queue admitted, drops by reason, sent, max and final queue",
             what);
    CHECK(name, bad == N,
          "queue %u: sim adm %" PRIu64 " thr %" PRIu64 " full %" PRIu64 " sent %" PRIu64
          " maxq %" PRIu64 ", ns-3 adm %" PRIu64 " thr %" PRIu64 " full %" PRIu64 " sent %" PRIu64
          " maxq %" PRIu64,
          bad, (uint64_t)sr.port[bad % N].admitted, (uint64_t)sr.port[bad % N].drop_thresh,
          (uint64_t)sr.port[bad % N].drop_full, (uint64_t)sr.port[bad % N].sent_pkts,
          (uint64_t)sr.port[bad % N].max_q, (uint64_t)m.r.port[bad % N].admitted,
          (uint64_t)m.r.port[bad % N].drop_thresh, (uint64_t)m.r.port[bad % N].drop_full,
          (uint64_t)m.r.port[bad % N].sent_pkts, (uint64_t)m.r.port[bad % N].max_q);
}

static const struct
{
    const char* name;
    uint32_t alg;
} algs[] = {{"cs", DC_ALG_CS},
            {"dt", DC_ALG_DT},
            {"abm", DC_ALG_ABM},
            {"followlqd", DC_ALG_FOLLOWLQD},
            {"credence", DC_ALG_CREDENCE}};

/* Byte-mode settings of the generated traces: 8 ports, 100 packets of
 * buffer, a web-search and incast mix that fills it. */
static void
BaseCfg(struct dc_sim_cfg* c, uint32_t alg)
{
    dc_sim_cfg_defaults(c);
    c->alg = alg;
    c->mode = DC_SIM_BYTE;
    c->nports = 8;
    c->buffer = 150000;
    c->drain = true;
    c->abm_period_slots = 4;
    c->predictor = DC_SIM_PRED_ACCEPT;
}

static int
Generated()
{
    struct dc_sim_workload w;
    struct dc_sim_cfg c;
    struct dc_err err = {};
    struct dc_sim_arrival* a = NULL;
    size_t n = 0;
    char what[120];

    for (int variant = 0; variant < 3; variant++)
    {
        BaseCfg(&c, DC_ALG_DT);
        dc_sim_workload_defaults(&w);
        w.kind = "mix";
        w.seed = 7 + variant;
        w.slots = 6000;
        w.load = 0.5;
        w.incast_frac = 0.6;
        w.incast_senders = 7;
        w.incast_period = 400;
        w.first_rtt_pkts = 4;
        if (variant == 1)
        {
            /* mixed sizes: 64 B .. 1500 B packets, so bytes, not packets, count */
            w.mtu = 1000;
        }
        if (variant == 2)
        {
            /* two strict-priority queues per port, incast on the higher */
            c.nqueues = 2;
            w.incast_prio = 1;
        }
        if (dc_sim_generate(&c, &w, &a, &n, &err))
        {
            CHECK("generate a trace", 0, "%s", err.msg);
            return 1;
        }
        if (variant == 1)
            for (size_t k = 0; k < n; k++)
                a[k].bytes = 64 + (uint32_t)((k * 2654435761u) % 1437);
        for (const auto& al : algs)
        {
            uint32_t nq = c.nqueues;

            BaseCfg(&c, al.alg);
            c.nqueues = nq;
            snprintf(what, sizeof(what), "%s, trace %d (%s)", al.name, variant,
                     variant == 0 ? "mtu 1500" : variant == 1 ? "mixed sizes" : "2 queues");
            Compare(what, &c, a, n);
        }
        free(a);
        a = NULL;
    }
    return check_failed;
}

/* One trace file and algorithm, totals as JSON (the keys of `dcbpf sim
 * --json` that the check compares). */
static int
OneTrace(int argc, char** argv)
{
    struct dc_sim_cfg c;
    struct dc_sim_arrival* a = NULL;
    struct dc_err err = {};
    const char *trace = NULL, *alg = "dt";
    size_t n = 0;
    Replay m;

    BaseCfg(&c, DC_ALG_DT);
    for (int i = 1; i + 1 < argc; i += 2)
    {
        std::string o = argv[i];
        const char* v = argv[i + 1];

        if (o == "--trace")
            trace = v;
        else if (o == "--alg")
            alg = v;
        else if (o == "--ports")
            c.nports = (uint32_t)strtoul(v, NULL, 10);
        else if (o == "--buffer")
            c.buffer = strtoull(v, NULL, 10);
        else if (o == "--queues")
            c.nqueues = (uint32_t)strtoul(v, NULL, 10);
        else if (o == "--abm-period")
            c.abm_period_slots = (uint32_t)strtoul(v, NULL, 10);
        else
        {
            fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    c.alg = DC_ALG_MAX;
    for (const auto& al : algs)
        if (!strcmp(al.name, alg))
            c.alg = al.alg;
    if (!trace || c.alg == DC_ALG_MAX)
    {
        fprintf(stderr, "usage: %s --trace FILE --alg cs|dt|abm|followlqd|credence ...\n", argv[0]);
        return 2;
    }
    if (dc_sim_read_trace(trace, c.slot_ns, &a, &n, &err))
    {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    ReplayNs3(&c, a, n, &m);
    printf("{\"alg\":\"%s\",\"arrivals\":%" PRIu64 ",\"admitted\":%" PRIu64 ",\"drops\":%" PRIu64
           ",\"sent_pkts\":%" PRIu64 ",\"sent_units\":%" PRIu64 "}\n",
           alg, (uint64_t)m.r.arrivals, (uint64_t)m.r.admitted, (uint64_t)m.r.drops,
           (uint64_t)m.r.sent_pkts, (uint64_t)m.r.sent_bytes);
    free(a);
    return 0;
}

int
main(int argc, char** argv)
{
    if (argc > 1)
        return OneTrace(argc, argv);
    return Generated();
}
