#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scrapers against a large /metrics.json (NATT attachments, ~1.9 MB):
#  - a burst of requests shares one render: identical bodies, and
#    tracerd_http_renders_total / http.renders grow by at most 2;
#  - NCLI clients that send GET /metrics.json and never read: the daemon's
#    RSS grows by less than RSS_SLACK (one shared body, not NCLI copies),
#    `tracectl status` and /healthz still answer, http.held_bytes stays
#    under the cap (HTTP_HELD_MAX in daemon/http.c) plus one body;
#  - clients that never read, one per snapshot interval, until more than
#    HTTP_HELD_MAX is held: the oldest are closed (tracerd_http_held_closes_total),
#    held_bytes stays under the cap plus a body, RSS bounded;
#  - HTTP/1.0 clients that half-close (shutdown SHUT_WR) after the request
#    get the whole reply (Content-Length bytes, the JSON parses).
# Old code: NCLI renders and copies (hundreds of MB, the loop stalled for
# seconds), and a half-closed client lost the tail.
source "$(dirname "$0")/lib/daemon.bash"
source "$(dirname "$0")/lib/service.bash"
source "$(dirname "$0")/lib/hostile.bash"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
command -v curl >/dev/null || skip "curl not installed"
NATT=4000
NCLI=${NCLI:-600}
HELD_MAX=$((32 << 20))	# HTTP_HELD_MAX
need_fds $((NCLI + 4 * NATT + 1000))

conf="listen = 127.0.0.1:$PORT"
for i in $(seq 1 $NATT); do conf+=$'\n'"attach = tp:task/task_rename pid=$((100000 + i))"; done
start_daemon_conf "$conf"
for i in $(seq 300); do
	[ "$($C --json status 2>/dev/null | jq_get .attachments)" = $NATT ] && break
	sleep 0.1
done
expect_eq "start-up attachments" "$($C --json status | jq_get .attachments)" $NATT
size=$(curl -sf -m 30 "$U/metrics.json" | wc -c)
[ "$size" -gt 300000 ] || fail "/metrics.json only $size bytes"
ok "/metrics.json is $size bytes"

hostile() { "$PY" "$W/hostile.py" "$1" "$PORT" "${@:2}"; }
cat > "$W/hostile.py" <<'PY'
import json, socket, sys, time
from hostile_clients import what, target, extra, signal_ready, wait_stop, open_many

def conn():
    return socket.create_connection(("127.0.0.1", int(target)))

def read_all(s):
    s.settimeout(60)
    buf = b""
    while True:
        c = s.recv(1 << 16)
        if not c:
            return buf
        buf += c

def parse(raw):
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    hdr = {k.lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:])}
    return int(lines[0].split()[1]), hdr, body

if what == "burst":   # N requests written before any reply is read
    path, n = extra[0], int(extra[1])
    cs = [conn() for _ in range(n)]
    req = f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()
    for s in cs:
        s.sendall(req)
    bodies = []
    for s in cs:
        code, hdr, body = parse(read_all(s))
        assert code == 200, code
        bodies.append(body)
    print(len(set(bodies)))

elif what == "noread":
    cs = open_many(conn, int(extra[0]))
    for s in cs:
        s.sendall(b"GET /metrics.json HTTP/1.1\r\nHost: x\r\n\r\n")
    signal_ready(str(len(cs)))
    wait_stop()
    print(f"{len(cs)} clients never read")

elif what == "waves":   # one client per snapshot interval, none reads
    cs = []
    for i in range(int(extra[0])):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", int(target)))
        s.sendall(b"GET /metrics.json HTTP/1.1\r\nHost: x\r\n\r\n")
        cs.append(s)
        time.sleep(0.3)
    signal_ready(str(len(cs)))
    wait_stop()
    print(f"{len(cs)} clients, one per snapshot, never read")

elif what == "halfclose":  # HTTP/1.0, shutdown(SHUT_WR) after the request
    path, n = extra[0], int(extra[1])
    for i in range(n):
        s = conn()
        s.sendall(f"GET {path} HTTP/1.0\r\n\r\n".encode())
        s.shutdown(socket.SHUT_WR)
        code, hdr, body = parse(read_all(s))
        assert code == 200, code
        want = hdr.get("content-length")
        assert want is None or len(body) == int(want), f"{path}: got {len(body)} of {want} bytes"
        if path.endswith(".json"):   # the whole document, every attachment in it
            got = len(json.loads(body)["attachments"])
            assert got == int(extra[2]), f"{got} attachments in {len(body)} bytes"
        else:                        # the last series, and the whole last line
            assert b"\ntracerd_open_fds " in body and body.endswith(b"\n"), body[-200:]
        s.close()
    print(f"{n} half-closed clients got the whole {path} ({len(body)} bytes)")
PY

renders() { curl -sf -m 30 "$U/metrics" | sed -n "s/^tracerd_http_renders_total{format=\"$1\"} //p"; }

# 1. a burst shares one render
for path in /metrics.json /metrics; do
	fmt=json; [ $path = /metrics ] && fmt=prometheus
	r0=$(renders $fmt)
	[ -n "$r0" ] || fail "no tracerd_http_renders_total{format=\"$fmt\"}"
	sleep 0.3	# past the snapshot interval: the burst renders anew
	distinct=$(hostile burst - - $path 30) || fail "burst client: $distinct"
	[ "$distinct" -le 2 ] || fail "30 scrapes of $path in a burst: $distinct different bodies"
	ok "30 scrapes of $path in a burst: $distinct distinct body"
	sleep 0.3
	r1=$(renders $fmt)
	# the burst, plus the render of the renders() call itself when format is prometheus
	[ $((r1 - r0)) -le 3 ] || fail "30 scrapes of $path rendered $((r1 - r0)) times"
	ok "30 scrapes of $path: $((r1 - r0)) renders"
done

# 2. clients that never read
rss_mark
run_bg noread $NCLI
expect_eq "clients connected" "$(cat "$H/ready")" $NCLI
timeout 10 $C status > /dev/null || fail "control socket: no status within 10 s under $NCLI unread scrapes"
ok "tracectl status answers"
expect_eq "healthz under unread scrapes" "$(curl -s -o /dev/null -m 10 -w '%{http_code}' "$U/healthz")" 200
sleep 1
rss_bounded "with $NCLI clients that never read /metrics.json"
held=$(curl -s -m 10 "$U/metrics.json" | jq_get '.http.held_bytes // empty')
if [ -n "$held" ]; then
	[ "$held" -le $((HELD_MAX + 2 * size)) ] || fail "held_bytes $held past the cap"
	ok "held_bytes $held"
fi
finish_bg noread

# 3. clients that never read, one per snapshot: each holds its own body
# (the kernel takes 128 KiB of it); past HELD_MAX the oldest are closed
waves=$((HELD_MAX / size + 14))
rss_mark
run_bg waves $waves
curl -sf -m 10 "$U/metrics" > "$W/w.prom" || fail "/metrics after $waves unread snapshots"
closes=$(sed -n 's/^tracerd_http_held_closes_total //p' "$W/w.prom")
held=$(sed -n 's/^tracerd_http_held_bytes //p' "$W/w.prom")
[ -n "$closes" ] && [ "$closes" -ge 1 ] || fail "no connection closed past the held cap (held_closes '$closes', held $held)"
[ "$held" -le $((HELD_MAX + 2 * size)) ] || fail "held_bytes $held past the cap"
ok "$waves unread snapshots: $closes connections closed, $held bytes held"
rss_bounded "with $waves unread snapshots"
timeout 10 $C status > /dev/null || fail "control socket: no status with $waves unread snapshots"
finish_bg waves

# 4. half-closed HTTP/1.0 clients get the whole reply
run_fg halfclose /metrics.json 5 $NATT
run_fg halfclose /metrics 5 $NATT
stop_daemon
