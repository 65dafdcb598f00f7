# SPDX-License-Identifier: GPL-2.0-or-later
"""A stand-in for tracerd's control socket: fake_daemon.py SOCKET RESULT_FILE LOG.

Each request line is appended to LOG; the reply is {"v":1,"ok":true,
"result": <the JSON in RESULT_FILE, read anew per request>}: tests feed
tracectl hand-written replies (tests/host/data/stacks-*.json) without a
daemon or a kernel that can produce them."""
import json
import socket
import sys

sock, result_file, log = sys.argv[1:4]
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(sock)
srv.listen(16)
while True:
    c, _ = srv.accept()
    c.settimeout(5)
    buf = b""
    try:
        while b"\n" not in buf:
            d = c.recv(65536)
            if not d:
                break
            buf += d
        with open(log, "ab") as f:
            f.write(buf.split(b"\n")[0] + b"\n")
        with open(result_file) as f:
            result = json.load(f)
        c.sendall(json.dumps({"v": 1, "ok": True, "result": result}).encode() + b"\n")
    except OSError:
        pass
    c.close()
