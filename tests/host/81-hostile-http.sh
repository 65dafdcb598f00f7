#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile HTTP clients on the metrics port (docs/limits.md): 5000
# connections, 1 byte a second (answered while within the request deadline,
# disconnected past it, and counted in tracerd_http_deadline_closes_total
# and /metrics.json), 100 MB of headers or body, pipelined requests
# never read, hang-ups mid-reply. Meanwhile /healthz and the control socket
# answer; memory and fds come back. Then the same flood against a daemon
# with a small RLIMIT_NOFILE: HTTP stops accepting at its fd budget, the
# control socket keeps working, HTTP recovers afterwards.
source "$(dirname "$0")/lib/daemon.bash"
source "$(dirname "$0")/lib/service.bash"
source "$(dirname "$0")/lib/hostile.bash"
[ "$(id -u)" = 0 ] || skip "needs root"
command -v curl >/dev/null || skip "curl not installed"
need_fds 5200
DEADLINE=10	# s, HTTP_REQUEST_DEADLINE_S in daemon/http.c

hostile() { "$PY" "$W/hostile.py" "$1" "$PORT" "${@:2}"; }	# WHAT READY STOP ARGS...
code() { curl -s -o /dev/null -m 30 -w '%{http_code}' "$@"; }
others_served() { # WHEN
	expect_eq "healthz $1" "$(code "$U/healthz")" 200
	$C status > /dev/null || fail "control: no status reply $1"
}
deadline_closes() { # PVAR JVAR: set to the request deadline closes in /metrics, /metrics.json
	local p j
	p=$(curl -sf -m 30 "$U/metrics" |
		sed -n 's/^tracerd_http_deadline_closes_total{deadline="request"} //p')
	j=$(curl -sf -m 30 "$U/metrics.json" | jq_get '.http.deadline_closes.request')
	[ -n "$p" ] && [ -n "$j" ] || fail "no request deadline_closes in /metrics ('$p') or /metrics.json ('$j')"
	printf -v "$1" %s "$p"
	printf -v "$2" %s "$j"
}
cat > "$W/hostile.py" <<'PY'
import os, socket, time
from hostile_clients import what, target, stop, extra, signal_ready, wait_stop, open_many, noread, hang_up

def conn():
    return socket.create_connection(("127.0.0.1", int(target)))

def response(s):
    """status code of the first response, or 0 when closed without one"""
    s.settimeout(60)
    buf = b""
    try:
        while b"\r\n" not in buf:
            c = s.recv(4096)
            if not c:
                break
            buf += c
    except (ConnectionResetError, socket.timeout):
        pass
    parts = buf.split(b" ")
    return int(parts[1]) if buf.startswith(b"HTTP/") and len(parts) > 1 else 0

if what == "many":
    cs = open_many(conn, int(extra[0]))
    signal_ready(str(len(cs)))
    wait_stop()
    print(f"held {len(cs)} connections")

elif what == "slow":
    req = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    cs = [conn() for _ in range(8)]
    for s in cs:
        s.sendall(req[:1])
    signal_ready()
    sent = 1
    while not os.path.exists(stop) and sent < len(req) - 1:
        time.sleep(1)
        for s in cs:
            s.sendall(req[sent:sent + 1])
        sent += 1
    wait_stop()
    codes = []
    for s in cs:
        s.sendall(req[sent:])
        codes.append(response(s))
    assert codes == [200] * len(cs), codes
    print(f"slow clients answered 200 after {sent} bytes at 1 byte/s")

elif what == "trickle":
    # N connections send a request's headers 1 byte a second and never end
    # them (connection 0 after a whole first request, kept alive): each must
    # be closed, with no answer, within the deadline + margin
    limit, n = float(extra[0]), int(extra[1])
    cs = [conn() for _ in range(n)]
    cs[0].sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    cs[0].settimeout(30)
    buf = b""
    while not buf.endswith(b"\r\n\r\nok\n"):
        c = cs[0].recv(4096)
        assert c, f"first request: closed after {buf!r}"
        buf += c
    assert buf.startswith(b"HTTP/1.1 200 "), buf
    for s in cs:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Trickle: ")
        s.setblocking(False)
    signal_ready()
    t0 = time.monotonic()
    left, closed = set(range(len(cs))), []
    while left and time.monotonic() - t0 < limit:
        time.sleep(1)
        for i in sorted(left):
            try:
                c = cs[i].recv(4096)
                assert not c, f"connection {i}: answered {c!r}, not closed"
                gone = True
            except BlockingIOError:
                try:
                    cs[i].send(b"a")
                    gone = False
                except OSError:
                    gone = True
            except ConnectionResetError:
                gone = True
            if gone:
                left.discard(i)
                closed.append(time.monotonic() - t0)
    assert not left, f"connections {sorted(left)} still open after {limit:.0f} s at 1 byte/s"
    wait_stop()
    print(f"{len(cs)} clients sending 1 header byte a second disconnected after "
          f"{min(closed):.0f}-{max(closed):.0f} s")

elif what in ("bighdr", "bigbody"):
    s = conn()
    if what == "bighdr":
        head = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: "
    else:
        head = b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 104857600\r\n\r\n"
    total = 0
    try:
        s.sendall(head)
        chunk = b"a" * (1 << 20)
        for _ in range(100):
            s.sendall(chunk)
            total += len(chunk)
    except OSError as e:
        pass
    c = response(s)
    assert c in (0, 400, 413, 431), c
    print(f"{what}: refused ({c or 'closed'}) after {total} of 104857600 bytes")

elif what == "noread":
    s = conn()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    noread(s, b"GET /metrics.json HTTP/1.1\r\nHost: x\r\n\r\n" * 1000000)  # > socket buffers

elif what == "hangup":
    hang_up(conn, b"GET /metrics.json HTTP/1.1\r\nHost: x\r\n\r\n" * 20)
PY
wait_http() {
	local i
	for i in $(seq 50); do curl -sf "$U/healthz" > /dev/null && return 0; sleep 0.1; done
	fail "no HTTP on $U"
}

start_daemon_conf "listen = 127.0.0.1:$PORT"
wait_http
others_served "at start"
fds0=$(nfds)

run_bg many 5000
ok "opened $(cat "$H/ready") connections"
others_served "with 5000 idle connections"
finish_bg many
fds_back_to "$fds0"

run_bg slow
others_served "while 8 clients send 1 byte a second"
finish_bg slow

# past the request deadline: disconnected, whatever they still trickle;
# and each of those closes counted (the daemon counts, then closes)
TRICKLE=4
deadline_closes prom0 json0
run_bg trickle $((DEADLINE + 20)) "$TRICKLE"
others_served "while $TRICKLE clients trickle headers past the deadline"
finish_bg trickle
others_served "after the trickling clients were disconnected"
deadline_closes prom1 json1
[ $((prom1 - prom0)) -ge "$TRICKLE" ] ||
	fail "tracerd_http_deadline_closes_total{deadline=\"request\"} went from $prom0 to $prom1 for $TRICKLE closes"
[ $((json1 - json0)) -ge "$TRICKLE" ] ||
	fail "/metrics.json http.deadline_closes.request went from $json0 to $json1 for $TRICKLE closes"
ok "request deadline closes counted: /metrics $prom0 -> $prom1, /metrics.json $json0 -> $json1"

rss_mark
run_fg bighdr
run_fg bigbody
others_served "after 100 MB requests"
rss_bounded "after 100 MB requests"

check_noread

run_fg hangup
others_served "after clients hung up mid-reply"
fds_back_to "$fds0"
stop_daemon

# A small fd budget: HTTP stops accepting, the control socket does not.
(ulimit -n 512; start_daemon_conf "listen = 127.0.0.1:$PORT"; echo "$DPID" > "$W/dpid"; wait "$DPID") &
for i in $(seq 100); do [ -s "$W/dpid" ] && [ -S "$W/s.sock" ] && break; sleep 0.1; done
DPID=$(cat "$W/dpid")
C="$TRACECTL --socket $W/s.sock"
wait_http
run_bg many 450	# > the 384-fd budget, < budget + listen backlog: no connect waits
$C status > /dev/null || fail "control: no status reply while HTTP is over its fd budget"
ok "control socket served while HTTP is at its fd budget ($(nfds) fds open)"
[ "$(nfds)" -le 512 ] || fail "daemon has $(nfds) fds open, limit 512"
finish_bg many
expect_eq "healthz once the flood has gone" "$(code -m 60 "$U/healthz")" 200
kill -TERM "$DPID"
for i in $(seq 100); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$DPID" 2>/dev/null && fail "daemon did not stop"
DPID=
grep -q "not accepting connections" "$W/daemon.log" || fail "no log line about pausing HTTP accepts"
ok "HTTP paused and resumed"
