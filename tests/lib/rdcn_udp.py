#!/usr/bin/env python3
# Stamped UDP datagrams for the reconfigurable-network tests (tests/integ/rdcn.sh,
# rdcn_voq.sh), port 5077: each carries its sequence number and send time
# (CLOCK_MONOTONIC ns, the clock the circuit switch's schedule runs on).
#   recv ADDR SECS OUT DONE: writes OUT.ready, then "seq stamp arrival_ns" per datagram
#        into OUT, until the sender's DONE file exists and every datagram it lists
#        is in (or 1 s more), or SECS
#   send SRC DST SECS GAP_US OUT: one datagram every GAP_US for SECS, then
#        "seq stamp" per datagram into OUT (written whole, then renamed)
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
import os, socket, struct, sys, time
role = sys.argv[1]
if role == "recv":
    # until the sender is done and every datagram it sent is in (or 1 s more)
    addr, secs, out, done = sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((addr, 5077))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    s.settimeout(0.05)
    end = time.monotonic() + secs
    got = []
    want = None
    open(out + ".ready", "w").close()
    while time.monotonic() < end and (want is None or len(got) < want):
        if want is None and os.path.exists(done):
            try:
                want = sum(1 for _ in open(done))
                end = min(end, time.monotonic() + 1.0)
            except OSError:
                pass
        try:
            b = s.recv(64)
        except socket.timeout:
            continue
        seq, stamp = struct.unpack("!QQ", b[:16])
        got.append((seq, stamp, time.monotonic_ns()))
    with open(out, "w") as f:
        for g in got:
            f.write("%d %d %d\n" % g)
else:
    src, dst, secs, gap_us, out = sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((src, 0))
    sent = []
    t0 = time.monotonic_ns()
    nxt = t0
    seq = 0
    while nxt - t0 < secs * 1e9:
        now = time.monotonic_ns()
        if now < nxt:
            time.sleep((nxt - now) / 1e9)
        stamp = time.monotonic_ns()
        s.sendto(struct.pack("!QQ", seq, stamp) + b"x" * 48, (dst, 5077))
        sent.append((seq, stamp))
        seq += 1
        nxt += gap_us * 1000
    with open(out + ".tmp", "w") as f:
        for g in sent:
            f.write("%d %d\n" % g)
    os.rename(out + ".tmp", out)
