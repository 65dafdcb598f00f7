#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# attach --slower-than (issue #32 item 3) in tp-btf's syscall pair, timed
# from sys_enter_nanosleep to sys_exit_nanosleep: a process named trigger
# makes 3 nanosleep() of 20 ms and 50 of 0 ns. Every call is counted and
# timed (53), only the 3 slower than 10 ms are recorded and counted as
# slow (stats, /metrics), each with its duration (over the threshold),
# return value, task and kernel stack (frames that /proc/kallsyms
# resolves, none of tracerd's own BPF frames) in every dump format, read
# after the daemon is gone. Refused, with the reason: without --latency,
# without --record, a bad duration (client and daemon), a mode without
# the capability.
source "$(dirname "$0")/lib/daemon.bash"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
command -v python3 > /dev/null || skip "python3 not installed"
command -v curl > /dev/null || skip "curl not installed"
T=$O/tests/trigger
mkdir -p "$W/rec"
PORT=$((20000 + RANDOM % 20000))
printf 'listen = 127.0.0.1:%s\nrecord_dir = %s\n' "$PORT" "$W/rec" > "$W/tracerd.conf"
"$TRACERD" --config "$W/tracerd.conf" --socket "$W/s.sock" 2> "$W/daemon.log" &
DPID=$!
C="$TRACECTL --socket $W/s.sock"
for i in $(seq 1 100); do [ -S "$W/s.sock" ] && break; sleep 0.1; done
[ -S "$W/s.sock" ] || fail "tracerd did not start"
tp=tp:syscalls/sys_enter_nanosleep

# --- refusals: the reason, nothing attached
refused() {	# WANT_STATUS WANT_MSG ARGS...
	local want=$1 msg=$2 rc
	shift 2
	$C attach "$@" > "$W/r.out" 2>&1; rc=$?
	expect_eq "refused ($*): status" "$rc" "$want"
	grep -qF -- "$msg" "$W/r.out" || fail "refused ($*): '$(cat "$W/r.out")' lacks '$msg'"
}
refused 2 "--slower-than needs --latency" $tp --slower-than 10ms --record s
refused 2 "--slower-than needs --record NAME: slow calls are recorded" $tp --latency --slower-than 10ms
refused 2 "--slower-than: invalid duration '10': the unit is ns, us, ms or s" $tp --latency --record s --slower-than 10
refused 2 "--slower-than: invalid duration '0ms': 1 ns to 3600 s" $tp --latency --record s --slower-than 0ms
python3 - "$W/s.sock" > "$W/raw.json" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b'{"v":1,"cmd":"attach","id":1,"args":{"target":"tp:syscalls/sys_enter_nanosleep",'
          b'"latency":true,"record":"s","slower_than":"5 ms"}}\n')
print(s.makefile().readline().strip())
PY
expect_eq "daemon: bad duration" "$(jq -r .error.message < "$W/raw.json")" \
	"invalid duration '5 ms': the unit is ns, us, ms or s (e.g. 10us)"
refused 2 "has no" vfs_read --mode kmod-kprobe --latency --record s --slower-than 10ms
expect_eq "nothing attached" "$($C --json list | jq '.attachments | length')" 0

# --- 3 slow calls of 53
$C --json attach $tp --latency --slower-than 10ms --record slow --stacks --comm trigger \
	> "$W/a.json" || fail "attach --slower-than: $(cat "$W/a.json")"
id=$(jq_get .attachment.id < "$W/a.json")
expect_eq "list: slower_than_ns" "$(jq_get .attachment.slower_than_ns < "$W/a.json")" 10000000
"$T" sleep20 3 || fail "trigger sleep20"
"$T" sleep0 50 || fail "trigger sleep0"
$C --json stats "$id" > "$W/s.json" || fail "stats"
expect_eq "calls" "$(jq_get '.stats[0].calls' < "$W/s.json")" 53
expect_eq "timed" "$(jq_get '.stats[0].latency.count' < "$W/s.json")" 53
expect_eq "slow" "$(jq_get '.stats[0].slow' < "$W/s.json")" 3
$C stats "$id" | grep -qx '     slow: 3 (slower than --slower-than, recorded)' ||
	fail "stats text: $($C stats "$id")"
curl -sf "http://127.0.0.1:$PORT/metrics" > "$W/m.prom" || fail "/metrics"
grep -qx "tracerd_slow_calls_total{id=\"$id\",target=\"$tp\",mode=\"tp-btf\"} 3" "$W/m.prom" ||
	fail "/metrics: $(grep slow "$W/m.prom")"
curl -sf "http://127.0.0.1:$PORT/metrics.json" | jq -e ".attachments[0].slow_calls == 3" > /dev/null ||
	fail "/metrics.json slow_calls"
ok "/metrics: tracerd_slow_calls_total 3, slow_calls 3"
$C detach "$id" > /dev/null || fail "detach"
stop_daemon	# the file is read without the daemon

# --- the recording: exactly the 3 slow calls, each with its stack
f=$W/rec/slow.trec
expect_eq "format 5" "$(od -An -tu4 -j8 -N4 "$f" | tr -d ' ')" 5
$TRACECTL dump --json "$f" > "$W/d.json" || fail "dump --json"
expect_eq "recorded" "$(wc -l < "$W/d.json")" 3
expect_eq "over the threshold" "$(jq -s '[.[] | select(.duration_ns > 10000000)] | length' < "$W/d.json")" 3
expect_eq "return values (nanosleep: 0)" "$(jq -r .ret < "$W/d.json" | sort -u)" 0
expect_eq "comm" "$(jq -r .comm < "$W/d.json" | sort -u)" trigger
expect_eq "one task" "$(jq -r '"\(.pid)/\(.tid)"' < "$W/d.json" | sort -u | wc -l)" 1
# frames: kernel addresses that /proc/kallsyms resolves, none in [bpf]
jq -r '.stack[]' < "$W/d.json" > "$W/ips.txt"
[ "$(wc -l < "$W/ips.txt")" -ge 3 ] || fail "stacks: $(cat "$W/ips.txt")"
python3 - "$W/ips.txt" > "$W/syms.txt" <<'PY' || fail "symbolize: $(cat "$W/syms.txt")"
import bisect, sys
syms = []
for line in open("/proc/kallsyms"):
    p = line.split()
    if p[1] in "tTwW" and int(p[0], 16):
        syms.append((int(p[0], 16), p[2], p[3] if len(p) > 3 else ""))
syms.sort()
addrs = [s[0] for s in syms]
for ip in open(sys.argv[1]).read().split():
    i = bisect.bisect_right(addrs, int(ip, 16)) - 1
    if i < 0:
        sys.exit("unresolved " + ip)
    print(syms[i][1], syms[i][2])
PY
grep -q '\[bpf\]' "$W/syms.txt" && fail "tracerd's own frames kept: $(grep bpf "$W/syms.txt")"
grep -q '^do_syscall_64 ' "$W/syms.txt" || fail "no do_syscall_64 in the stacks: $(cat "$W/syms.txt")"
ok "the 3 slow calls' stacks: $(head -n 4 "$W/syms.txt" | cut -d' ' -f1 | tr '\n' ' ')..."
# every format shows duration, retval, task and the frames
$TRACECTL dump "$f" > "$W/d.txt" || fail "dump text"
expect_eq "text: events" "$(grep -c ' trigger ' "$W/d.txt")" 3
expect_eq "text: frame lines" "$(grep -c '^    #[0-9]' "$W/d.txt")" "$(wc -l < "$W/ips.txt")"
$TRACECTL dump --format csv "$f" > "$W/d.csv" || fail "dump csv"
expect_eq "csv: header" "$(head -n 1 "$W/d.csv" | tr -d '\r')" \
	"ts_ns,realtime_ns,cpu,pid,tid,comm,slot,target,duration_ns,ret,stack,args"
expect_eq "csv: frames" "$(tail -n +2 "$W/d.csv" | tr -d '\r' | awk -F, '{ print $(NF - 1) }' | tr ';' '\n' | wc -l)" \
	"$(wc -l < "$W/ips.txt")"
$TRACECTL dump --format chrome "$f" > "$W/d.chrome" || fail "dump chrome"
expect_eq "chrome: X events with stacks" \
	"$(jq '[.traceEvents[] | select(.ph == "X" and (.args.stack | length) > 0 and .dur > 10000 and .args.ret == 0)] | length' < "$W/d.chrome")" 3
ok "dump: text, json, csv and chrome carry duration, retval, task and frames"
