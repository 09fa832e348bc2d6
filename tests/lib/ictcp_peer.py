#!/usr/bin/env python3
# Incast peers of tests/integ/ictcp.sh and tests/loader/ictcp_cli.sh.
#   agg IP PORT N LOG: accepts N connections on IP:PORT, reads each until
#       the sender closes; every 20 ms appends "t_s total_bytes" to LOG;
#       writes "done BYTES SECONDS" as the last line when all N closed
#   snd IP PORT N BYTES [SRC...]: N connections to IP:PORT (from the SRC
#       addresses in turn when given), each sends BYTES and closes
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
import selectors
import socket
import sys
import threading
import time


def agg(ip, port, n, log):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((ip, port))
    ls.listen(n)
    conns = [ls.accept()[0] for _ in range(n)]
    sel = selectors.DefaultSelector()
    for c in conns:
        c.setblocking(False)
        sel.register(c, selectors.EVENT_READ)
    total, t0, last = 0, time.monotonic(), 0.0
    with open(log, "w") as f:
        left = n
        while left:
            for key, _ in sel.select(timeout=0.02):
                try:
                    b = key.fileobj.recv(1 << 16)
                except BlockingIOError:
                    continue
                if not b:
                    sel.unregister(key.fileobj)
                    key.fileobj.close()
                    left -= 1
                total += len(b)
            t = time.monotonic() - t0
            if t - last >= 0.02:
                f.write("%.4f %d\n" % (t, total))
                f.flush()  # the test reads it while the incast runs
                last = t
        f.write("done %d %.4f\n" % (total, time.monotonic() - t0))


def snd(ip, port, n, size, srcs):
    buf = b"x" * (1 << 16)

    def one(i):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if srcs:
            s.bind((srcs[i % len(srcs)], 0))
        for _ in range(100):
            try:
                s.connect((ip, port))
                break
            except OSError:
                time.sleep(0.05)
        left = size
        while left:
            left -= s.send(buf[:min(left, len(buf))])
        s.close()

    th = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in th:
        t.start()
    for t in th:
        t.join()


if __name__ == "__main__":
    if sys.argv[1] == "agg":
        agg(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    else:
        snd(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6:])
