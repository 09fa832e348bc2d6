/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One egress port of a shared-buffer switch: strict-priority queues
 * (queue k served before j < k; priority p joins queue min(p, nq − 1),
 * include/dcbpf/admit.h "Priority queues") whose packets all count in
 * one DcSharedBuffer, which admits or drops each arrival with the core's
 * algorithm.  The port stamps the INT hop of docs/int.md into packets
 * that carry an INT option (DcIntTag), as bpf/int_transit.bpf.c does on
 * the fabric's switch egress: the port's rate, its backlog as the packet
 * joins, the time, and the bytes the port has sent.  DCTCP's ECN mark
 * (dc_ecn_mark) sets CE on ECT packets whose queue, with them, exceeds K.
 *
 * The device below must not queue on its own (a PointToPointNetDevice
 * with a 1-packet queue): what waits, waits here, in the shared buffer.
 */
#ifndef DC_NS3_SWITCH_QUEUE_DISC_H
#define DC_NS3_SWITCH_QUEUE_DISC_H

#include <ns3/queue-disc.h>

#include "dc-shared-buffer.h"

namespace ns3
{

class DcSwitchQueueDisc : public QueueDisc
{
  public:
    static TypeId GetTypeId();
    DcSwitchQueueDisc();

    /* Before the first packet: the buffer this port draws from, and its
     * index there. */
    void SetBuffer(Ptr<DcSharedBuffer> buf, uint32_t port);
    uint64_t GetTxBytes() const { return m_txBytes; }
    /* ECN: packets marked CE, and packets over K that were not ECN-capable */
    uint64_t m_ecnMarked = 0, m_ecnNotEct = 0;

    static constexpr const char* DROP_THRESH = "admission: over threshold";
    static constexpr const char* DROP_FULL = "admission: buffer full";
    static constexpr const char* DROP_PRED = "admission: predicted drop";

    /* Verdict of every arrival, in order (for the trace replay test). */
    TracedCallback<Ptr<const QueueDiscItem>, uint32_t> m_traceVerdict;

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    Ptr<const QueueDiscItem> DoPeek() override;
    bool CheckConfig() override;
    void InitializeParams() override;
    int32_t NextQueue() const;
    void StampInt(Ptr<QueueDiscItem> item);

    Ptr<DcSharedBuffer> m_buf;
    uint32_t m_port;
    uint32_t m_rateMbps;
    uint32_t m_ecnThreshBytes;
    uint64_t m_txBytes;
};

} // namespace ns3

#endif
