#!/usr/bin/env python3
# Request/response peers of tests/integ/icon.sh, on one persistent connection.
#   sink   listen|connect IP PORT ROUNDS RESP DIR: round i (1..ROUNDS) waits for
#          DIR/go<i>, sends a 1-byte request, reads RESP bytes, creates DIR/done<i>
#   sender listen|connect IP PORT RESP: answers every request with RESP bytes
#          until the sink closes
# "listen" accepts one connection on IP:PORT; "connect" connects to IP:PORT.
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
import os
import socket
import sys
import time


def conn(mode, ip, port):
    if mode == "listen":
        ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind((ip, port))
        ls.listen(1)
        s, _ = ls.accept()
        ls.close()
        return s
    for _ in range(100):
        try:
            return socket.create_connection((ip, port), timeout=10)
        except OSError:
            time.sleep(0.05)
    sys.exit("connect %s:%d failed" % (ip, port))


def main():
    role, mode, ip, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    s = conn(mode, ip, port)
    s.settimeout(30)
    if role == "sink":
        rounds, resp, d = int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
        for i in range(1, rounds + 1):
            while not os.path.exists("%s/go%d" % (d, i)):
                time.sleep(0.02)
            s.sendall(b"Q")
            got = 0
            while got < resp:
                b = s.recv(65536)
                if not b:
                    sys.exit("sender closed early")
                got += len(b)
            open("%s/done%d" % (d, i), "w").close()
    else:
        resp = int(sys.argv[5])
        data = b"x" * resp
        while s.recv(1):
            s.sendall(data)
    s.close()


main()
