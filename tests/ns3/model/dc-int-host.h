/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A host's INT programs (docs/int.md) in ns-3, on the IP layer's trace
 * points of one node:
 *   source  (SendOutgoing, data segments): an empty option of `slots` hop
 *           slots, as the sender's TC egress adds it;
 *   sink    (LocalDeliver, data with the option): keep the flow's newest
 *           stack, as the receiver's TC ingress does;
 *   echo    (SendOutgoing, ACKs of such a flow): the kept stack, marked
 *           echo so switches leave it alone;
 *   publish (LocalDeliver, an echo): decode the hops against the flow's
 *           previous ones (dc_int_hop_decode) and hand the stack to the
 *           flow's CC before TCP processes the ACK (LocalDeliver runs
 *           before the L4 protocol's Receive), as the sender's TC ingress
 *           publishes to dc_int_flows before the CC's cong_control.
 * Flows are keyed by local port and peer (address, port).
 */
#ifndef DC_NS3_INT_HOST_H
#define DC_NS3_INT_HOST_H

#include <map>
#include <tuple>

#include <ns3/ipv4-header.h>
#include <ns3/node.h>
#include <ns3/object.h>
#include <ns3/packet.h>

#include "dc-powertcp.h"
#include "dc-tags.h"

namespace ns3
{

class DcIntHost : public Object
{
  public:
    static TypeId GetTypeId();
    DcIntHost();
    /* Hook the node's Ipv4L3Protocol (after the internet stack). */
    void Install(Ptr<Node> node, uint32_t slots);
    /* The CC of the local port's connection, which the echoes feed. */
    void Register(uint16_t localPort, Ptr<DcPowerTcp> cc);
    uint64_t m_sourced = 0, m_echoed = 0, m_published = 0;

  private:
    typedef std::tuple<uint16_t, uint32_t, uint16_t> Key; /* local port, peer addr, peer port */
    void OnSend(const Ipv4Header& h, Ptr<const Packet> p, uint32_t iface);
    void OnDeliver(const Ipv4Header& h, Ptr<const Packet> p, uint32_t iface);
    uint32_t m_slots;
    std::map<Key, DcIntTag> m_kept;
    std::map<uint16_t, Ptr<DcPowerTcp>> m_cc;
    std::map<uint16_t, struct dc_int_stack> m_prev;
};

} // namespace ns3

#endif
