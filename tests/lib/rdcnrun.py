# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""What the circuit-switch fabric tests (tests/integ/rdcn.sh, rdcn_voq.sh)
read back from their run directory: the attach answer, the slots in which
ToR 0's uplink 0 is matched to ToR 2 (rr.sched), the sender's and the
receiver's packet lines, and the switch's per-port counters (bpftool's
dump of dc_rd_pcnt, keyed by port x 8)."""
import json


def load(d):
    att = json.load(open(d + "/attach.json"))
    match = {}
    for line in open(d + "/rr.sched"):
        w = line.split("#")[0].split()
        if w and w[0] == "match":
            match[(int(w[1]), int(w[2]))] = [int(x) for x in w[3:]]
    up = [t for t in range(att["period"]) if match[(t, 0)][0] == 2]
    sent = [tuple(map(int, l.split())) for l in open(d + "/sent.txt")]
    recv = [tuple(map(int, l.split())) for l in open(d + "/recv.txt")]
    pc = {e["formatted"]["key"]: e["formatted"]["value"] for e in json.load(open(d + "/pcnt.json"))}
    return att, up, sent, recv, pc
