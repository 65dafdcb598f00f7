# SPDX-License-Identifier: GPL-2.0-or-later
"""What the hostile clients of tests/host/8x-hostile-*.sh share (lib/hostile.bash
copies this next to each test's $W/hostile.py). argv: WHAT TARGET READY STOP
[ARGS...]; READY and STOP are flag files ("-" for clients run to their end)."""
import os
import select
import socket
import struct
import sys
import time

what, target, ready, stop = sys.argv[1:5]
extra = sys.argv[5:]


def signal_ready(msg=""):
    with open(ready, "w") as f:
        f.write(msg)


def wait_stop():
    while not os.path.exists(stop):
        time.sleep(0.05)


def open_many(conn, n):
    """up to n connections, fewer when connecting fails"""
    cs = []
    for i in range(n):
        try:
            cs.append(conn())
        except OSError as e:
            print(f"connect {i}: {e}")
            break
    return cs


def noread(s, data):
    """pipelines data (larger than the socket buffers) on s and never reads
    the replies; ready says "SENT TOTAL": how much the daemon read before it
    stopped reading (2 s without room to send)"""
    s.setblocking(False)
    sent = 0
    while sent < len(data):
        try:
            sent += s.send(data[sent:])
        except BlockingIOError:
            p = select.poll()
            p.register(s, select.POLLOUT)
            if not p.poll(2000):
                break
    signal_ready(f"{sent} {len(data)}")
    wait_stop()
    s.close()
    print("closed without reading")


def hang_up(conn, data, n=50):
    """n connections that send data (requests), read a little of the replies
    on every other one, then reset the connection"""
    for i in range(n):
        s = conn()
        s.sendall(data)
        if i % 2:
            s.recv(100)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()
    print(f"{n} connections hung up mid-reply")
