// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A 10:1 incast onto a long flow through one shared-buffer switch, in
 * ns-3: the fabric's PowerTCP incast (tests/exp/ptcp_incast.sh, PowerTCP,
 * NSDI'22, Fig. 2.4 of Addanki's thesis) with the same shape — 11 senders
 * and a receiver on one switch, 1 Gbit/s ports, a 1 MB shared buffer
 * (--alg cs: all of it for one port, as the fabric's 1 MB TBF; dt, abm,
 * followlqd: the core's algorithms), one long flow, and at
 * --incast-ms ten flows of --bytes each from the other senders; all
 * flows use the same CC.
 *
 *   scen_incast --cc powertcp|theta_powertcp|dctcp|cubic [--out DIR]
 *               [--alg cs] [--rate-mbit 1000] [--buffer 1000000] [--bytes 65536]
 *               [--fanin 10] [--incast-ms 20] [--stop-ms 60] [--link-us 10]
 *
 * Writes DIR/CC.csv, one line per flow in the workload harness's
 * columns (docs/workload.md, schema dcbpf-workload/1), DIR/CC.json (its
 * summary: params, run, classes.incast and .bg with fct_us and slowdown
 * STATS, plus "queue" — the receiver port's queue sampled every 10 µs:
 * p50, p99, max —, "incast_ms", the time from the incast's start to its
 * last byte received, the INT and ECN counters and the switch's drops),
 * and DIR/CC.queue.csv (t_us,queue_bytes).
 */
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <ns3/applications-module.h>
#include <ns3/core-module.h>
#include <ns3/internet-module.h>
#include <ns3/network-module.h>
#include <ns3/point-to-point-module.h>
#include <ns3/traffic-control-module.h>

#include "model/dc-int-host.h"
#include "model/dc-powertcp.h"
#include "model/dc-shared-buffer.h"
#include "model/dc-switch-queue-disc.h"

extern "C" {
#include <dcbpf/workload.h>
}

using namespace ns3;

struct Flow
{
    uint32_t id, src;
    std::string cls;
    uint64_t size, sent = 0, rcvd = 0;
    uint64_t start_ns, fct_ns = 0;
    bool done = false;
    Ptr<Socket> sock;
    Ptr<TcpSocketBase> tcp;
};

static std::vector<Flow> flows;
static std::map<std::pair<uint32_t, uint16_t>, uint32_t> flowOf; /* (addr, port) → id */
static std::string ccName = "powertcp";
static uint32_t rateMbit = 1000;
static std::vector<Ptr<DcIntHost>> intHosts;
static std::vector<uint64_t> qSamples;
static FILE* qcsv;

static void
SendMore(Flow* f, Ptr<Socket> s, uint32_t avail)
{
    while (f->sent < f->size && s->GetTxAvailable() > 0)
    {
        uint32_t n = (uint32_t)std::min<uint64_t>({f->size - f->sent, s->GetTxAvailable(), 65536});
        int r = s->Send(Create<Packet>(n));

        if (r <= 0)
            break;
        f->sent += (uint64_t)r;
    }
}

static void
Connected(Flow* f, Ptr<Socket> s)
{
    SendMore(f, s, s->GetTxAvailable());
}

static void
StartFlow(Ptr<Node> src, Ipv4Address dst, uint32_t id)
{
    Flow* f = &flows[id];
    Ptr<Socket> s = Socket::CreateSocket(src, TcpSocketFactory::GetTypeId());
    Ptr<TcpSocketBase> tcp = DynamicCast<TcpSocketBase>(s);
    Address local;

    if (ccName == "powertcp" || ccName == "theta_powertcp")
    {
        Ptr<DcPowerTcp> cc = CreateObject<DcPowerTcp>();

        cc->SetAttribute("Theta", BooleanValue(ccName == "theta_powertcp"));
        cc->SetAttribute("HostBwMbps", UintegerValue(rateMbit));
        tcp->SetCongestionControlAlgorithm(cc);
        s->Bind();
        s->GetSockName(local);
        intHosts[f->src]->Register(InetSocketAddress::ConvertFrom(local).GetPort(), cc);
    }
    else
    {
        tcp->SetCongestionControlAlgorithm(ccName == "dctcp"
                                               ? (Ptr<TcpCongestionOps>)CreateObject<TcpDctcp>()
                                               : (Ptr<TcpCongestionOps>)CreateObject<TcpCubic>());
        s->Bind();
        s->GetSockName(local);
    }
    flowOf[{src->GetObject<Ipv4>()->GetAddress(1, 0).GetLocal().Get(),
            InetSocketAddress::ConvertFrom(local).GetPort()}] = id;
    f->start_ns = (uint64_t)Simulator::Now().GetNanoSeconds();
    f->sock = s;
    s->SetConnectCallback(MakeBoundCallback(&Connected, f), MakeNullCallback<void, Ptr<Socket>>());
    s->SetSendCallback(MakeBoundCallback(&SendMore, f));
    s->Connect(InetSocketAddress(dst, 9000));
}

static void
SinkRx(Ptr<const Packet> p, const Address& from)
{
    InetSocketAddress a = InetSocketAddress::ConvertFrom(from);
    auto it = flowOf.find({a.GetIpv4().Get(), a.GetPort()});

    if (it == flowOf.end())
        return;
    Flow* f = &flows[it->second];
    f->rcvd += p->GetSize();
    if (!f->done && f->rcvd >= f->size)
    {
        f->done = true;
        f->fct_ns = (uint64_t)Simulator::Now().GetNanoSeconds() - f->start_ns;
    }
}

static void
SampleQueue(Ptr<DcSharedBuffer> buf, uint32_t port, uint64_t stop_ns)
{
    uint64_t now = (uint64_t)Simulator::Now().GetNanoSeconds();

    qSamples.push_back(buf->PortBytes(port));
    if (qcsv)
        fprintf(qcsv, "%" PRIu64 ",%" PRIu64 "\n", now / 1000, buf->PortBytes(port));
    if (now + 10000 < stop_ns)
        Simulator::Schedule(MicroSeconds(10), &SampleQueue, buf, port, stop_ns);
}

/* STATS of docs/workload.md: n, p50, p95, p99, p999, mean (nearest rank). */
static std::string
Stats(std::vector<double> v)
{
    char b[256];
    double sum = 0;

    if (v.empty())
        return "null";
    std::sort(v.begin(), v.end());
    for (double x : v)
        sum += x;
    snprintf(b, sizeof(b),
             "{\"n\": %zu, \"p50\": %.3f, \"p95\": %.3f, \"p99\": %.3f, \"p999\": %.3f, \"mean\": %.3f}",
             v.size(), dc_wl_pct(v.data(), v.size(), 50), dc_wl_pct(v.data(), v.size(), 95),
             dc_wl_pct(v.data(), v.size(), 99), dc_wl_pct(v.data(), v.size(), 99.9),
             sum / (double)v.size());
    return b;
}

int
main(int argc, char** argv)
{
    std::string out = ".", alg = "cs";
    uint64_t buffer = 1000000, bytes = 65536;
    uint32_t fanin = 10, incastMs = 20, stopMs = 60, linkUs = 10, mss = 1448, hostMbit = 0;
    CommandLine cmd;

    cmd.AddValue("cc", "powertcp, theta_powertcp, dctcp or cubic", ccName);
    cmd.AddValue("out", "output directory", out);
    cmd.AddValue("rate-mbit", "the bottleneck's rate: the receiver's port", rateMbit);
    cmd.AddValue("host-mbit", "the senders' links (default 10 × rate-mbit)", hostMbit);
    cmd.AddValue("buffer", "shared buffer, bytes", buffer);
    cmd.AddValue("alg", "admission: cs (the fabric dumbbell's plain 1 MB buffer), dt, abm, followlqd",
                 alg);
    cmd.AddValue("bytes", "bytes per incast sender", bytes);
    cmd.AddValue("fanin", "incast senders", fanin);
    cmd.AddValue("incast-ms", "incast start", incastMs);
    cmd.AddValue("stop-ms", "end of the run", stopMs);
    cmd.AddValue("link-us", "propagation delay per link", linkUs);
    cmd.Parse(argc, argv);
    if (ccName != "powertcp" && ccName != "theta_powertcp" && ccName != "dctcp" &&
        ccName != "cubic")
    {
        fprintf(stderr, "scen_incast: --cc %s: not one of powertcp, theta_powertcp, dctcp, cubic\n",
                ccName.c_str());
        return 2;
    }

    /* the papers' TCP settings: full segments, every ACK timely */
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
    /* ns-3's DCTCP receiver side (ECE per CE, DCTCP, SIGCOMM'10, §3.1)
     * lives in TcpDctcp: the receiver's sockets need it too */
    if (ccName == "dctcp")
        Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpDctcp::GetTypeId()));

    const uint32_t nsend = fanin + 1;
    NodeContainer hosts, sw;
    hosts.Create(nsend + 1); /* senders 0..fanin, the receiver last */
    sw.Create(1);
    InternetStackHelper stack;
    stack.InstallAll();

    /* the fabric's shape: the senders' veths are fast and the switch's
     * egress to the receiver is the bottleneck, so queues form in the
     * switch, not in the senders' NICs */
    if (!hostMbit)
        hostMbit = 10 * rateMbit;
    PointToPointHelper p2p;
    p2p.SetChannelAttribute("Delay", TimeValue(MicroSeconds(linkUs)));
    /* what waits, waits in the switch's shared buffer */
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));

    Ptr<DcSharedBuffer> buf = CreateObject<DcSharedBuffer>();
    buf->m_alg = alg == "cs" ? DC_ALG_CS : alg == "dt" ? DC_ALG_DT : alg == "abm" ? DC_ALG_ABM
               : alg == "followlqd" ? DC_ALG_FOLLOWLQD : DC_ALG_MAX;
    if (buf->m_alg == DC_ALG_MAX)
    {
        fprintf(stderr, "scen_incast: --alg %s: not one of cs, dt, abm, followlqd\n", alg.c_str());
        return 2;
    }
    buf->m_B = buffer;
    buf->m_quantumBytes = 1500;
    buf->m_quantumNs = 1500ULL * 8000 / rateMbit; /* the bottleneck's (ABM's γ, Credence) */
    buf->Setup(nsend + 1, 1);

    Ipv4AddressHelper addr;
    std::vector<Ipv4Address> hostIp;
    std::vector<Ptr<DcSwitchQueueDisc>> ports;
    for (uint32_t i = 0; i <= nsend; i++)
    {
        uint32_t mbit = i == nsend ? rateMbit : hostMbit;
        char net[32], rate[32];

        snprintf(rate, sizeof(rate), "%uMbps", mbit);
        p2p.SetDeviceAttribute("DataRate", StringValue(rate));
        TrafficControlHelper swTc;
        swTc.SetRootQueueDisc("ns3::DcSwitchQueueDisc", "RateMbps", UintegerValue(mbit),
                              "EcnThreshBytes", UintegerValue(ccName == "dctcp" ? 30000 : 0));
        NetDeviceContainer d = p2p.Install(hosts.Get(i), sw.Get(0));

        snprintf(net, sizeof(net), "10.0.%u.0", i + 1);
        addr.SetBase(net, "255.255.255.0");
        Ipv4InterfaceContainer ifc = addr.Assign(d);
        hostIp.push_back(ifc.GetAddress(0));
        /* the switch side: the shared-buffer port i */
        TrafficControlHelper::Default().Uninstall(d.Get(1));
        QueueDiscContainer q = swTc.Install(d.Get(1));
        Ptr<DcSwitchQueueDisc> port = DynamicCast<DcSwitchQueueDisc>(q.Get(0));
        port->SetBuffer(buf, i);
        ports.push_back(port);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    for (uint32_t i = 0; i <= nsend; i++)
    {
        Ptr<DcIntHost> h = CreateObject<DcIntHost>();

        h->Install(hosts.Get(i), 4);
        intHosts.push_back(h);
    }

    PacketSinkHelper sinkH("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9000));
    ApplicationContainer sink = sinkH.Install(hosts.Get(nsend));
    sink.Start(Seconds(0));
    DynamicCast<PacketSink>(sink.Get(0))->TraceConnectWithoutContext("Rx", MakeCallback(&SinkRx));

    /* the long flow from sender fanin, the incast from senders 0..fanin-1 */
    Flow lf;
    lf.id = 0;
    lf.src = fanin;
    lf.cls = "bg";
    lf.size = (uint64_t)rateMbit * 1000 * stopMs / 8 * 2; /* does not finish */
    flows.push_back(lf);
    for (uint32_t i = 0; i < fanin; i++)
    {
        Flow f;

        f.id = i + 1;
        f.src = i;
        f.cls = "incast";
        f.size = bytes;
        flows.push_back(f);
    }
    Simulator::Schedule(MilliSeconds(1), &StartFlow, hosts.Get(fanin), hostIp[nsend], 0u);
    for (uint32_t i = 0; i < fanin; i++)
        Simulator::Schedule(MilliSeconds(incastMs), &StartFlow, hosts.Get(i), hostIp[nsend], i + 1);

    std::string base = out + "/" + ccName;
    qcsv = fopen((base + ".queue.csv").c_str(), "w");
    if (!qcsv)
    {
        fprintf(stderr, "scen_incast: cannot write %s.queue.csv\n", base.c_str());
        return 1;
    }
    fprintf(qcsv, "t_us,queue_bytes\n");
    const uint64_t stopNs = (uint64_t)stopMs * 1000000;
    Simulator::Schedule(MilliSeconds(1), &SampleQueue, buf, nsend, stopNs);
    uint64_t tx0 = 0;
    Simulator::Schedule(MilliSeconds(incastMs - 10 > 1 ? incastMs - 10 : 1),
                        [&]() { tx0 = ports[nsend]->GetTxBytes(); });
    uint64_t tx1 = 0;
    Simulator::Schedule(NanoSeconds(stopNs - 1), [&]() { tx1 = ports[nsend]->GetTxBytes(); });
    Simulator::Stop(NanoSeconds(stopNs));
    Simulator::Run();
    fclose(qcsv);

    /* per-flow CSV (docs/workload.md columns) and the summary */
    struct dc_wl_path path = {};
    path.rtt_ns = 4.0 * linkUs * 1000 + 2 * 66 * 8000.0 / rateMbit;
    path.rate_mbit = rateMbit;
    path.mss = mss;
    path.hops = 1; /* one rate-limited hop, as the fabric's dumbbell */
    FILE* csv = fopen((base + ".csv").c_str(), "w");
    std::vector<double> fct[2], slow[2];
    uint64_t incastEnd = 0, retrans = 0;
    bool incastAll = true;
    if (!csv)
        return 1;
    fprintf(csv, "id,class,cc,src,dst,size_bytes,start_ns,fct_ns,ideal_ns,slowdown,rto_count,"
                 "retrans,wait_ns\n");
    for (const Flow& f : flows)
    {
        double ideal = dc_wl_ideal_ns(f.size, &path);
        int c = f.cls == "incast";

        fprintf(csv, "%u,%s,%s,h%u,h%u,%" PRIu64 ",%" PRIu64 ",%" PRId64 ",%.0f,%.3f,-1,-1,0\n", f.id,
                f.cls.c_str(), ccName.c_str(), f.src, nsend, f.size, f.start_ns,
                f.done ? (int64_t)f.fct_ns : -1, ideal, f.done ? (double)f.fct_ns / ideal : -1.0);
        if (f.done)
        {
            fct[c].push_back(f.fct_ns / 1000.0);
            slow[c].push_back((double)f.fct_ns / ideal);
        }
        if (c)
        {
            incastAll = incastAll && f.done;
            incastEnd = std::max(incastEnd, f.start_ns + f.fct_ns);
        }
    }
    fclose(csv);
    (void)retrans;
    std::vector<double> q(qSamples.begin(), qSamples.end());
    std::sort(q.begin(), q.end());
    FILE* js = fopen((base + ".json").c_str(), "w");
    if (!js)
        return 1;
    uint64_t sourced = 0, echoed = 0, published = 0, marked = 0, notect = 0, drops = 0;
    for (auto& pt : ports)
    {
        marked += pt->m_ecnMarked;
        notect += pt->m_ecnNotEct;
        drops += pt->GetStats().nTotalDroppedPackets;
    }
    for (auto& h : intHosts)
    {
        sourced += h->m_sourced;
        echoed += h->m_echoed;
        published += h->m_published;
    }
    fprintf(js,
            "{\"schema\": \"dcbpf-workload/1\",\n"
            " \"params\": {\"cdf\": null, \"load\": 0, \"rate_mbit\": %u, \"capacity_mbit\": %u, "
            "\"incast\": {\"period_ms\": null, \"bytes\": %" PRIu64 ", \"fanin\": %u}, "
            "\"cc\": {\"bg\": \"%s\", \"incast\": \"%s\"}, \"hops\": 1, \"host_mbit\": %u, \"mtu\": 1500, \"mss\": %u, "
            "\"rto_min_ms\": 200, \"base_rtt_us\": %.1f, "
            "\"tags\": {\"simulator\": \"ns-3.37\", \"switch\": \"%s\", \"buffer_bytes\": %" PRIu64
            ", \"link_us\": %u}},\n"
            " \"run\": {\"flows\": %zu, \"elapsed_s\": %.3f, \"goodput_mbit\": %.1f, \"cc\": [\"%s\"]},\n"
            " \"classes\": {\"bg\": {\"fct_us\": %s, \"slowdown\": %s},\n"
            "             \"incast\": {\"flows\": %u, \"completed\": %zu, \"fct_us\": %s, \"slowdown\": %s}},\n"
            " \"incast_ms\": %s,\n"
            " \"queue\": {\"samples\": %zu, \"p50\": %.0f, \"p99\": %.0f, \"max\": %.0f},\n"
            " \"int\": {\"sourced\": %" PRIu64 ", \"echoed\": %" PRIu64 ", \"published\": %" PRIu64 "},\n"
            " \"ecn\": {\"marked\": %" PRIu64 ", \"not_ect\": %" PRIu64 "},\n"
            " \"switch_drops\": %" PRIu64 ",\n"
            " \"csv\": \"%s.csv\"}\n",
            rateMbit, rateMbit, bytes, fanin, ccName.c_str(), ccName.c_str(), hostMbit, mss,
            path.rtt_ns / 1000, alg.c_str(), buffer, linkUs, flows.size(), stopMs / 1000.0,
            (double)(tx1 - tx0) * 8 / ((double)(stopNs - (incastMs - 10 > 1 ? incastMs - 10 : 1) * 1000000ULL) / 1e9) / 1e6,
            ccName.c_str(), Stats(fct[0]).c_str(), Stats(slow[0]).c_str(), fanin, fct[1].size(),
            Stats(fct[1]).c_str(), Stats(slow[1]).c_str(),
            incastAll ? std::to_string((incastEnd - (uint64_t)incastMs * 1000000) / 1e6).c_str() : "null",
            q.size(), dc_wl_pct(q.data(), q.size(), 50), dc_wl_pct(q.data(), q.size(), 99),
            q.empty() ? 0.0 : q.back(), sourced, echoed, published, marked, notect, drops, ccName.c_str());
    fclose(js);
    Simulator::Destroy();
    return incastAll ? 0 : 1;
}
