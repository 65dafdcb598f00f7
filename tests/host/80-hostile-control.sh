#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile local clients on the control socket (docs/limits.md): a reader
# (uid 65534 in read_group) that opens 5000 connections, sends 1 byte a
# second, sends 100 MB, pipelines requests and never reads, or hangs up in
# the middle of replies. Meanwhile root and another reader (uid 65533) get
# their answers; afterwards the daemon's memory and fds are back in bounds.
source "$(dirname "$0")/lib/daemon.bash"
source "$(dirname "$0")/lib/hostile.bash"
[ "$(id -u)" = 0 ] || skip "needs root (to run clients as other uids)"
command -v setpriv >/dev/null || skip "setpriv not installed"
getent group nogroup >/dev/null || skip "no group 'nogroup'"
need_fds 5200

start_daemon "read_group = nogroup"
hostile() { # WHAT READY STOP ARGS...: a client as uid 65534, on the control socket
	setpriv --reuid=65534 --regid=65534 --clear-groups "$PY" "$W/hostile.py" "$1" "$W/s.sock" "${@:2}"
}
reader() { setpriv --reuid=65533 --regid=65534 --clear-groups "$@"; }
others_served() { # WHEN: root and another reader get a status reply
	$C status > /dev/null || fail "root: no status reply $1"
	reader $C status > /dev/null || fail "reader uid 65533: no status reply $1"
	ok "others served $1"
}

cat > "$W/hostile.py" <<'PY'
import os, select, socket, time
from hostile_clients import what, target, stop, extra, signal_ready, wait_stop, open_many, noread, hang_up

def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(target)
    return s

def closed_by_peer(s):
    p = select.poll()
    p.register(s, select.POLLIN)
    if not p.poll(0):
        return False
    try:
        return s.recv(4096) == b""
    except OSError:
        return True

def read_replies(s, n):
    buf = b""
    s.settimeout(60)
    while buf.count(b"\n") < n:
        c = s.recv(65536)
        if not c:
            break
        buf += c
    return buf.split(b"\n")[:n]

if what == "many":
    cs = open_many(conn, int(extra[0]))
    for _ in range(100):  # until the daemon has accepted or refused them all
        held = [s for s in cs if not closed_by_peer(s)]
        if len(held) <= 32:
            break
        time.sleep(0.1)
    signal_ready(f"{len(cs)} {len(held)}")
    wait_stop()
    # the held ones still work
    for s in held[:3]:
        s.sendall(b'{"v":1,"cmd":"status","id":"held"}\n')
        r = read_replies(s, 1)[0]
        assert b'"ok":true' in r and b'"id":"held"' in r, r
    print("held connections still answered")

elif what == "slow":
    req = b'{"v":1,"cmd":"status","id":"slow%d"}\n'
    cs = [conn() for _ in range(8)]
    for i, s in enumerate(cs):
        s.sendall((req % i)[:1])
    signal_ready()
    sent = 1
    while not os.path.exists(stop):  # one byte a second per connection
        time.sleep(1)
        for i, s in enumerate(cs):
            s.sendall((req % i)[sent:sent + 1])
        sent += 1
        if sent >= len(req % 0) - 1:
            break
    wait_stop()
    for i, s in enumerate(cs):
        s.sendall((req % i)[sent:])
        r = read_replies(s, 1)[0]
        assert b'"ok":true' in r and b'"id":"slow%d"' % i in r, r
    print(f"slow clients answered after {sent} bytes at 1 byte/s")

elif what == "big":
    s = conn()
    chunk = b"{" + b" " * ((1 << 20) - 1)
    total = 0
    try:
        for _ in range(100):
            s.sendall(chunk)
            total += len(chunk)
    except OSError as e:
        print(f"send stopped after {total} bytes: {e.strerror}")
    r = read_replies(s, 1)[0]
    assert b'"code":"too_large"' in r, r
    s.settimeout(10)
    try:
        assert s.recv(1) == b"", "connection not closed after too_large"
    except ConnectionResetError:
        pass
    print("100 MB request: too_large, connection closed")

elif what == "noread":
    noread(conn(), b'{"v":1,"cmd":"status"}\n' * 200000)

elif what == "hangup":
    # requests, then a reset before (all) the replies are read
    hang_up(conn, b'{"v":1,"cmd":"status"}\n' * 200)
PY
chmod 644 "$W/hostile.py"

$C status > /dev/null || fail "status"
fds0=$(nfds)

# 1. 5000 connections from one reader: at most 32 held, the rest refused
run_bg many 5000
read -r opened held < "$H/ready"
ok "reader opened $opened connections, daemon holds $held"
[ "$held" -ge 1 ] && [ "$held" -le 32 ] || fail "held $held connections of one uid, want 1..32"
others_served "while one reader holds $held connections"
finish_bg many
fds_back_to "$fds0"

# 2. 1 byte a second on 8 connections
run_bg slow
others_served "while 8 clients send 1 byte a second"
finish_bg slow

# 3. 100 MB in one request line
rss_mark
run_fg big
others_served "after a 100 MB request"
rss_bounded "after a 100 MB request"

# 4. pipelined requests, replies never read
check_noread

# 5. hang up in the middle of replies
run_fg hangup
others_served "after clients hung up mid-reply"

fds_back_to "$fds0"
stop_daemon
