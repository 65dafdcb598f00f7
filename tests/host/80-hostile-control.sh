#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile local clients on the control socket (docs/limits.md): a reader
# (uid 65534 in read_group) that opens 5000 connections, sends 1 byte a
# second, sends 100 MB, pipelines requests and never reads, or hangs up in
# the middle of replies. Meanwhile root and another reader (uid 65533) get
# their answers; afterwards the daemon's memory and fds are back in bounds.
source "$(dirname "$0")/lib/daemon.bash"
[ "$(id -u)" = 0 ] || skip "needs root (to run clients as other uids)"
command -v setpriv >/dev/null || skip "setpriv not installed"
PY=/usr/bin/python3	# not a per-user shim: the clients run as uid 65534
[ -x "$PY" ] || skip "no $PY"
getent group nogroup >/dev/null || skip "no group 'nogroup'"
[ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge 5200 ] ||
	skip "hard RLIMIT_NOFILE $(ulimit -Hn) < 5200: cannot open 5000 connections"
ulimit -n 5200
# SANITIZE=1 builds: a small ASan quarantine, so RSS says what the daemon holds
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=4

start_daemon "read_group = nogroup"
hostile() { setpriv --reuid=65534 --regid=65534 --clear-groups "$PY" "$W/hostile.py" "$@"; }
reader() { setpriv --reuid=65533 --regid=65534 --clear-groups "$@"; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$DPID/status"; }
nfds() { ls "/proc/$DPID/fd" | wc -l; }
others_served() { # WHEN: root and another reader get a status reply
	$C status > /dev/null || fail "root: no status reply $1"
	reader $C status > /dev/null || fail "reader uid 65533: no status reply $1"
	ok "others served $1"
}

cat > "$W/hostile.py" <<'PY'
import os, select, socket, sys, time
what, sock, ready, stop = sys.argv[1:5]

def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock)
    return s

def signal_ready(msg=""):
    with open(ready, "w") as f:
        f.write(msg)

def wait_stop():
    while not os.path.exists(stop):
        time.sleep(0.05)

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
    cs = []
    for i in range(int(sys.argv[5])):
        try:
            cs.append(conn())
        except OSError as e:
            print(f"connect {i}: {e}")
            break
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
    s = conn()
    s.setblocking(False)
    req = b'{"v":1,"cmd":"status"}\n' * 200000
    sent = 0
    while sent < len(req):
        try:
            sent += s.send(req[sent:])
        except BlockingIOError:
            p = select.poll()
            p.register(s, select.POLLOUT)
            if not p.poll(2000):
                break  # the daemon stopped reading from us
    signal_ready(f"{sent} {len(req)}")
    wait_stop()
    s.close()
    print("closed without reading")

elif what == "hangup":
    # requests, then a reset before (all) the replies are read
    import struct
    for i in range(50):
        s = conn()
        s.sendall(b'{"v":1,"cmd":"status"}\n' * 200)
        if i % 2:
            s.recv(100)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()
    print("50 connections hung up mid-reply")
PY
chmod 644 "$W/hostile.py"
H=$W/h	# the clients' ready/stop flags, writable by uid 65534
mkdir -m 1777 "$H"

run_bg() { # WHAT ARGS... : start a hostile client, wait until it is in place
	rm -f "$H/ready" "$H/stop"
	hostile "$1" "$W/s.sock" "$H/ready" "$H/stop" "${@:2}" > "$W/$1.out" 2>&1 &
	HPID=$!
	local i
	for i in $(seq 1 600); do
		[ -e "$H/ready" ] && return 0
		kill -0 $HPID 2>/dev/null || { cat "$W/$1.out"; fail "$1 client exited early"; }
		sleep 0.1
	done
	fail "$1 client never got ready"
}
finish_bg() { # WHAT
	touch "$H/stop"
	wait $HPID || { cat "$W/$1.out"; fail "$1 client failed"; }
	ok "$1: $(tail -n1 "$W/$1.out")"
}
# settle: fds/RSS are read once the daemon has dropped closed connections
fds_back_to() { # N
	local i
	for i in $(seq 1 100); do
		[ "$(nfds)" -le "$1" ] && return 0
		sleep 0.1
	done
	fail "daemon fds $(nfds), want <= $1 after the clients left"
}

$C status > /dev/null || fail "status"
RSS_SLACK=65536	# kB; the bugs this catches cost 100s of MB
fds0=$(nfds)
rss0=$(rss_kb)

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
rss0=$(rss_kb)
hostile big "$W/s.sock" - - > "$W/big.out" 2>&1 || { cat "$W/big.out"; fail "big client"; }
ok "big: $(tail -n1 "$W/big.out")"
others_served "after a 100 MB request"
rss=$(rss_kb)
[ $((rss - rss0)) -lt $RSS_SLACK ] || fail "daemon RSS grew from $rss0 to $rss kB after a 100 MB request"
ok "daemon RSS $rss0 -> $rss kB after a 100 MB request"

# 4. pipelined requests, replies never read
rss0=$(rss_kb)
run_bg noread
read -r sent total < "$H/ready"
[ "$sent" -lt "$total" ] || fail "the daemon read all $total request bytes without its replies being read"
ok "noread: the daemon stopped reading after $sent of $total request bytes"
others_served "while a client does not read its replies"
rss=$(rss_kb)
[ $((rss - rss0)) -lt $RSS_SLACK ] || fail "daemon RSS grew from $rss0 to $rss kB with unread replies"
ok "daemon RSS $rss0 -> $rss kB with unread replies"
finish_bg noread

# 5. hang up in the middle of replies
hostile hangup "$W/s.sock" - - > "$W/hangup.out" 2>&1 || { cat "$W/hangup.out"; fail "hangup client"; }
ok "hangup: $(tail -n1 "$W/hangup.out")"
others_served "after clients hung up mid-reply"

fds_back_to "$fds0"
ok "daemon fds back to $fds0"
stop_daemon
