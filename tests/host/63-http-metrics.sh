#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# HTTP metrics of a live daemon while tracing a tracepoint: the counts in
# /metrics.json and /metrics agree with `tracectl stats`; the live output
# passes promtool and the JSON Schema; 404/405/HEAD; an oversized request
# is refused; 1000 concurrent idle connections and a client that never
# reads do not stop the daemon answering (HTTP and the control socket).
source "$(dirname "$0")/lib/daemon.bash"
source "$(dirname "$0")/lib/service.bash"
command -v curl >/dev/null || skip "curl not installed"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
N=500
start_daemon_conf "listen = 127.0.0.1:$PORT"
for i in $(seq 50); do curl -sf "$U/healthz" >/dev/null && break; sleep 0.1; done
expect_eq "healthz" "$(curl -sf "$U/healthz")" ok

me=$BASHPID
$C --json attach tp:task/task_rename --pid "$me" > "$W/a.json" || fail "attach"
id=$(jq_get '.attachment.id' < "$W/a.json")
for ((i = 0; i < N; i++)); do printf t63-$((i % 7)) > /proc/self/comm; done

calls=$($C --json stats "$id" | jq_get '.stats[0].calls')
expect_eq "tracectl stats calls" "$calls" "$N"
curl -sf "$U/metrics.json" > "$W/m.json" || fail "GET /metrics.json"
expect_eq "metrics.json calls" "$(jq_get ".attachments[] | select(.id == $id) | .calls" < "$W/m.json")" "$N"
expect_eq "metrics.json function calls" \
	"$(jq_get ".attachments[] | select(.id == $id) | .functions[0].calls" < "$W/m.json")" "$N"
expect_eq "metrics.json misses agree" \
	"$(jq_get ".attachments[] | select(.id == $id) | .misses" < "$W/m.json")" \
	"$($C --json stats "$id" | jq_get '.stats[0].misses')"
python3 "$SRC/tests/host/metrics-validate.py" "$SRC/docs/metrics.schema.json" "$W/m.json" ||
	fail "live /metrics.json does not validate"
curl -sf "$U/metrics" > "$W/m.prom" || fail "GET /metrics"
line=$(grep "^tracerd_calls_total{id=\"$id\"," "$W/m.prom")
expect_eq "prometheus calls" "${line##* }" "$N"
line=$(grep "^tracerd_function_calls_total{id=\"$id\",.*function=\"task_rename\"}" "$W/m.prom")
expect_eq "prometheus function calls" "${line##* }" "$N"
if command -v promtool >/dev/null; then
	out=$(promtool check metrics < "$W/m.prom" 2>&1) || fail "promtool: $out"
	[ -z "$out" ] || fail "promtool lint: $out"
	ok "promtool check metrics"
else
	echo "note: promtool missing (Debian package prometheus), live check skipped"
fi
ctype=$(curl -s -o /dev/null -w '%{content_type}' "$U/metrics")
case $ctype in text/plain*version=0.0.4*) ok "content type $ctype" ;; *) fail "content type '$ctype'" ;; esac

# detach + attach again: a new id, a new series from 0; the old one is gone
$C --json detach "$id" > /dev/null || fail "detach"
$C --json attach tp:task/task_rename --pid "$me" > "$W/a2.json" || fail "attach again"
id2=$(jq_get '.attachment.id' < "$W/a2.json")
[ "$id2" != "$id" ] || fail "re-attach reused id $id"
for ((i = 0; i < 7; i++)); do printf t63-again > /proc/self/comm; done
curl -sf "$U/metrics" > "$W/m2.prom" || fail "GET /metrics"
grep -q "^tracerd_calls_total{id=\"$id\"," "$W/m2.prom" && fail "series of detached id $id still exported"
line=$(grep "^tracerd_calls_total{id=\"$id2\"," "$W/m2.prom")
expect_eq "re-attached series starts from 0" "${line##* }" 7
grep -q "^tracerd_attachment_start_time_seconds{id=\"$id2\"," "$W/m2.prom" || fail "no start time for $id2"
id=$id2

# methods and paths
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
expect_eq "404" "$(code "$U/nope")" 404
expect_eq "404 /metrics/" "$(code "$U/metrics/")" 404
for m in POST PUT DELETE PATCH OPTIONS; do
	expect_eq "$m -> 405" "$(code -X "$m" "$U/metrics")" 405
done
allow=$(curl -s -D - -o /dev/null -X POST "$U/metrics" | tr -d '\r' | sed -n 's/^Allow: //p')
expect_eq "Allow header" "$allow" "GET, HEAD"
expect_eq "HEAD 200" "$(code -I "$U/metrics.json")" 200
expect_eq "HEAD has no body" "$(curl -s -I "$U/metrics.json" | tr -d '\r' | sed -n '/^$/,$p' | wc -c)" 1
expect_eq "query string ignored" "$(code "$U/metrics?x=1")" 200
# a POST with a small body is a wrong method too (405 with Allow), not 413
expect_eq "POST with a body -> 405" "$(code -X POST --data x "$U/metrics")" 405
# HEAD on a keep-alive connection: the length GET would send, no body, so
# the next response on the connection is read as itself (#33 class 5)
python3 - "$PORT" <<'PY' || fail "HEAD then GET on one connection"
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(b"HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
data = b""
while data.count(b"\r\n\r\n") < 2 or not data.endswith(b"ok\n"):
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
head, rest = data.split(b"\r\n\r\n", 1)
assert head.startswith(b"HTTP/1.1 200"), head
assert b"\r\nContent-Length: 3" in head, head
assert rest.startswith(b"HTTP/1.1 200"), rest[:80]	# no body between the two
assert rest.endswith(b"\r\n\r\nok\n"), rest[-40:]
print("HEAD: Content-Length 3, no body; the GET after it read whole")
PY
ok "HEAD on keep-alive: a length, no body, the next response intact"

# oversized: 16 KiB of headers, and a body
big=$(head -c 16384 /dev/zero | tr '\0' a)
c=$(code -H "X-Big: $big" "$U/metrics")
case $c in 400|413|431|000) ok "oversized headers refused ($c)" ;; *) fail "oversized headers: $c" ;; esac
c=$(code -X GET --data-binary "@$SRC/README.md" "$U/metrics")
case $c in 400|413|000) ok "request body refused ($c)" ;; *) fail "request body: $c" ;; esac
expect_eq "still answering after oversized requests" "$(code "$U/healthz")" 200

# 1000 idle connections + a client that pipelines requests and never reads
python3 - "$PORT" "$W" <<'PY' &
import socket, sys, time, os
port, w = int(sys.argv[1]), sys.argv[2]
conns = []
for i in range(1000):
    s = socket.create_connection(("127.0.0.1", port))
    conns.append(s)
hog = socket.create_connection(("127.0.0.1", port))
hog.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
hog.setblocking(False)
req = b"GET /metrics.json HTTP/1.1\r\nHost: x\r\n\r\n" * 200
try:
    hog.send(req)
except BlockingIOError:
    pass
open(os.path.join(w, "idle.ready"), "w").close()
time.sleep(6)
PY
PYPID=$!
for i in $(seq 100); do [ -e "$W/idle.ready" ] && break; sleep 0.1; done
[ -e "$W/idle.ready" ] || fail "could not open 1000 connections"
open=$(curl -sf "$U/metrics.json" | jq_get '.http.open_fds')
[ "$open" -ge 1000 ] || fail "open fds: $open, want >= 1000"
ok "daemon answers with $open fds open"
expect_eq "healthz with 1000 idle connections" "$(code "$U/healthz")" 200
expect_eq "control socket with 1000 idle connections" \
	"$($C --json stats "$id" | jq_get '.stats[0].calls')" 7
wait "$PYPID"
expect_eq "healthz after they left" "$(code "$U/healthz")" 200
curl -sf "$U/metrics.json" > "$W/m2.json" || fail "metrics.json after"
[ "$(jq_get '.http.not_found' < "$W/m2.json")" -ge 2 ] || fail "not_found not counted"
[ "$(jq_get '.http.bad_method' < "$W/m2.json")" -ge 5 ] || fail "bad_method not counted"
ok "http counters"
stop_daemon

# --listen is checked like the config key; off serves nothing; a
# non-loopback address is served but logged
printf '\n' > "$W/empty.conf"
"$TRACERD" --config "$W/empty.conf" --listen bogus --check-config > /dev/null 2>&1 &&
	fail "--listen bogus accepted"
ok "--listen bogus refused"
start_daemon_conf "listen = off"
grep -q 'metrics server off' "$W/daemon.log" || [ "$(code "$U/healthz")" = 000 ] || fail "listen = off still serves"
expect_eq "listen = off: nothing on the port" "$(code "$U/healthz")" 000
stop_daemon
start_daemon_conf "listen = 0.0.0.0:$PORT"
for i in $(seq 50); do [ "$(code "$U/healthz")" = 200 ] && break; sleep 0.1; done
expect_eq "0.0.0.0 serves" "$(code "$U/healthz")" 200
grep -q 'non-loopback address 0.0.0.0' "$W/daemon.log" || fail "non-loopback listen not logged"
ok "non-loopback listen logged"
stop_daemon
