#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# probe SOCKET FLAG: status every 10 ms until FLAG exists; prints
# "ANSWERED LATE" (late: more than 50 ms after the request was sent)
import json, os, select, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
sent, buf, answered, late, n, worst = {}, b"", 0, 0, 0, 0
nxt = start = time.monotonic()
while not os.path.exists(sys.argv[2]) or sent:
    if time.monotonic() - start > 900:
        sys.exit("probe: no stop flag after 900 s")
    now = time.monotonic()
    if now >= nxt and not os.path.exists(sys.argv[2]):
        n += 1
        s.sendall(b'{"v":1,"id":%d,"cmd":"status","args":{}}\n' % n)
        sent[n] = now
        nxt = now + 0.01
    r, _, _ = select.select([s], [], [], max(0, min(nxt - time.monotonic(), 0.01)))
    if r:
        c = s.recv(1 << 16)
        if not c:
            sys.exit("daemon closed the probe's connection")
        buf += c
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            rep = json.loads(line)
            if not rep.get("ok"):
                sys.exit("status failed: %s" % line)
            t = sent.pop(rep["id"])
            answered += 1
            dt = time.monotonic() - t
            late += dt > 0.05
            worst = max(worst, dt)
print(answered, late, int(worst * 1000))
