#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# attach --stacks on tp:task/task_rename: a worker (comm tstk79) renames
# itself N times through /proc/self/comm (one kernel stack: comm_write)
# and then execs (another: the exec's rename). The stats request with
# "stacks": true (sent raw: the JSON every renderer reads) has exactly
# those two stacks, N and 1, symbolized, hottest first; counts + dropped
# = calls; "top" cuts the rows, not the counts; --merge adds the stacks
# of two attachments frame by frame; list and /metrics carry the
# dropped count. A tiny stack table (stack_max_entries = 1) keeps the
# first stack and counts the other as dropped, never lost; a detach
# frees its room. Bad depths and a mode without stacks are refused.
source "$(dirname "$0")/lib/daemon.bash"
source "$(dirname "$0")/lib/service.bash"
command -v curl >/dev/null || skip "curl not installed"
command -v python3 >/dev/null || skip "python3 not installed"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
N=7

# raw CMD ARGS_JSON: one request on the control socket, the reply line on stdout
cat > "$W/raw.py" <<'EOF'
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall((json.dumps({"v": 1, "cmd": sys.argv[2], "args": json.loads(sys.argv[3]),
                       "id": 1}) + "\n").encode())
buf = b""
while not buf.endswith(b"\n"):
    chunk = s.recv(65536)
    if not chunk:
        break
    buf += chunk
sys.stdout.write(buf.decode())
EOF
raw() { python3 "$W/raw.py" "$W/s.sock" "$1" "$2"; }

# one worker: N renames to tstk79 (counted: its comm is tstk79 before each),
# then an exec (counted: the comm before the exec's rename is tstk79)
worker() {
	(
		printf tstk79 > /proc/self/comm
		for ((i = 0; i < N; i++)); do printf tstk79 > /proc/self/comm; done
		exec /bin/true
	)
}

# --- refusals that need no daemon
printf 'attach = tp:task/task_rename stacks=0\n' > "$W/bad.conf"
out=$("$TRACERD" --config "$W/bad.conf" --check-config 2>&1) && fail "stacks=0 accepted"
case $out in *"bad.conf:1"*"invalid stack depth '0': out of range 1..127"*) ok "stacks=0: $out" ;;
	*) fail "stacks=0 message: $out" ;; esac
printf 'attach = tp:task/task_rename stacks=128\n' > "$W/bad.conf"
out=$("$TRACERD" --config "$W/bad.conf" --check-config 2>&1) && fail "stacks=128 accepted"
case $out in *"invalid stack depth '128': out of range 1..127"*) ok "stacks=128: $out" ;;
	*) fail "stacks=128 message: $out" ;; esac
printf 'stack_max_entries = 0\n' > "$W/bad.conf"
out=$("$TRACERD" --config "$W/bad.conf" --check-config 2>&1) && fail "stack_max_entries 0 accepted"
case $out in *"stack_max_entries '0': out of range 1..262144"*) ok "stack_max_entries 0: $out" ;;
	*) fail "stack_max_entries 0 message: $out" ;; esac

start_daemon_conf "listen = 127.0.0.1:$PORT"
for i in $(seq 50); do curl -sf "$U/healthz" >/dev/null && break; sleep 0.1; done

out=$($C attach tp:task/task_rename --stacks=0 2>&1); rc=$?
expect_eq "--stacks=0: usage status" "$rc" 2
case $out in *"--stacks"*) ok "--stacks=0: $out" ;; *) fail "--stacks=0 message: $out" ;; esac
out=$(raw attach '{"target": "tp:task/task_rename", "stacks": 500}')
expect_eq "stacks 500: refused" "$(jq_get .ok <<< "$out")" false
case $(jq_get .error.message <<< "$out") in
	"invalid stack depth '500': out of range 1..127 (frames, 1 to 127)") ok "stacks 500: $out" ;;
	*) fail "stacks 500 message: $out" ;; esac
out=$(raw attach '{"target": "tp:task/task_rename", "stacks": "32"}')
expect_eq "stacks as a string: refused" "$(jq_get .ok <<< "$out")" false
# a mode without stacks here: the module's (not loaded on this host, or
# without stack capture): refused with the reason, nothing attached
out=$($C attach vfs_read --mode kmod-callops --stacks 2>&1) && fail "kmod-callops --stacks attached"
case $out in *"mode kmod-callops has no stacks"* | *"mode kmod-callops is not available"* | \
	*"mode kmod-callops has no stacks here"*) ok "kmod-callops --stacks refused: $out" ;;
	*) fail "kmod-callops --stacks message: $out" ;; esac
expect_eq "nothing attached by the refusals" "$($C --json list | jq_get '.attachments | length')" 0

# --- two stacks, exact counts
id=$($C --json attach tp:task/task_rename --comm tstk79 --stacks | jq_get .attachment.id) ||
	fail "attach --stacks"
expect_eq "list: stacks.depth" "$($C --json list | jq_get ".attachments[0].stacks.depth")" 32
worker
raw stats "{\"id\": $id, \"stacks\": true}" > "$W/s.json"
expect_eq "stats ok" "$(jq_get .ok < "$W/s.json")" true
st() { jq_get ".result.stats[0] | $1" < "$W/s.json"; }
expect_eq "calls" "$(st .calls)" $((N + 1))
expect_eq "stacks.depth" "$(st .stacks.depth)" 32
expect_eq "stacks.distinct" "$(st .stacks.distinct)" 2
expect_eq "stacks.dropped" "$(st .stacks.dropped)" 0
expect_eq "stacks.total" "$(st .stacks.total)" $((N + 1))
expect_eq "rows" "$(st '.stacks.rows | length')" 2
expect_eq "hottest first: the renames" "$(st '.stacks.rows[0].count')" "$N"
expect_eq "then the exec" "$(st '.stacks.rows[1].count')" 1
expect_eq "sum of counts + dropped = calls" \
	"$(st '[.stacks.rows[].count] | add + '"$(st .stacks.dropped)")" $((N + 1))
# the frames, innermost first: the renames through comm_write, the exec's not
syms() { st "[.stacks.rows[$1].frames[].sym] | join(\" \")"; }
case " $(syms 0) " in *" __set_task_comm comm_write vfs_write "*) ok "row 0: $(syms 0)" ;;
	*) fail "row 0 frames: $(syms 0)" ;; esac
case " $(syms 1) " in *" comm_write "*) fail "row 1 has comm_write: $(syms 1)" ;;
	*" __set_task_comm "*) ok "row 1: $(syms 1)" ;; *) fail "row 1 frames: $(syms 1)" ;; esac
expect_eq "every frame an address" \
	"$(st '[.stacks.rows[].frames[] | select(.addr | test("^0x[0-9a-f]+$"))] | length')" \
	"$(st '[.stacks.rows[].frames[]] | length')"
expect_eq "a resolved frame has sym and off" \
	"$(st '[.stacks.rows[].frames[] | select(.sym != null and (.off | type) == "number")] | length')" \
	"$(st '[.stacks.rows[].frames[]] | length')"
expect_eq "vfs_write is the kernel's (no module)" \
	"$(st '[.stacks.rows[0].frames[] | select(.sym == "vfs_write") | has("module")] | .[0]')" false
# tracerd's own frames (its BPF program and subprogram) are not shown: the
# first is the tracepoint's BPF runner, then the code that hit the tracepoint
expect_eq "no BPF program frame" "$(st '[.stacks.rows[].frames[] | select(.module == "bpf")] | length')" 0
case $(st '.stacks.rows[0].frames[0].sym') in bpf_trace_run*) ok "first frame: $(st '.stacks.rows[0].frames[0].sym')" ;;
	*) fail "first frame: $(st '.stacks.rows[0].frames[0].sym')" ;; esac
# without "stacks": true, the counts only
raw stats "{\"id\": $id}" > "$W/s0.json"
expect_eq "no rows unless asked" "$(jq_get '.result.stats[0].stacks | has("rows")' < "$W/s0.json")" false
expect_eq "the counts without rows" "$(jq_get '.result.stats[0].stacks.distinct' < "$W/s0.json")" 2
# top: the rows cut, the counts whole
raw stats "{\"id\": $id, \"stacks\": true, \"top\": 1}" > "$W/s.json"
expect_eq "top 1: one row" "$(st '.stacks.rows | length')" 1
expect_eq "top 1: the hottest" "$(st '.stacks.rows[0].count')" "$N"
expect_eq "top 1: distinct still 2" "$(st .stacks.distinct)" 2
expect_eq "top 1: total still all" "$(st .stacks.total)" $((N + 1))

# --merge: two attachments (depths 32 and 16) count the same calls; their
# stacks differ only in tracerd's own BPF frames (not shown), so the merged
# row adds them frame by frame (the stacks are under 16 frames deep). Made
# before the calls: with two programs on it the tracepoint's path differs
# (__traceiter_task_rename between) from the one program's.
$C detach "$id" > /dev/null || fail "detach $id"
id=$($C --json attach tp:task/task_rename --comm tstk79 --stacks | jq_get .attachment.id) ||
	fail "attach --stacks"
id2=$($C --json attach tp:task/task_rename --comm tstk79 --stacks=16 | jq_get .attachment.id) ||
	fail "attach --stacks=16"
worker
raw stats '{"stacks": true}' > "$W/s.json"
expect_eq "unmerged: two rows" "$(jq_get '.result.stats | length' < "$W/s.json")" 2
expect_eq "unmerged: depth 16" "$(jq_get ".result.stats[] | select(.id == $id2) | .stacks.depth" < "$W/s.json")" 16
expect_eq "unmerged: each its two stacks" "$(jq_get '[.result.stats[].stacks.distinct] | join(",")' < "$W/s.json")" 2,2
raw stats '{"merge": true, "stacks": true}' > "$W/s.json"
expect_eq "merged: one row" "$(jq_get '.result.stats | length' < "$W/s.json")" 1
expect_eq "merged: calls" "$(st .calls)" $((2 * (N + 1)))
expect_eq "merged: distinct" "$(st .stacks.distinct)" 2
expect_eq "merged: the renames" "$(st '.stacks.rows[0].count')" $((2 * N))
expect_eq "merged: the execs" "$(st '.stacks.rows[1].count')" 2
expect_eq "merged: depth, the deepest" "$(st .stacks.depth)" 32

# /metrics and /metrics.json: the dropped calls per attachment
curl -sf "$U/metrics" > "$W/m.prom" || fail "GET /metrics"
grep -qx "tracerd_stacks_dropped_total{id=\"$id\",target=\"tp:task/task_rename\",mode=\"tp-btf\"} 0" \
	"$W/m.prom" || fail "no tracerd_stacks_dropped_total 0: $(grep stacks "$W/m.prom")"
ok "tracerd_stacks_dropped_total 0"
curl -sf "$U/metrics.json" > "$W/m.json" || fail "GET /metrics.json"
expect_eq "metrics.json stacks_dropped" \
	"$(jq_get ".attachments[] | select(.id == $id) | .stacks_dropped" < "$W/m.json")" 0
if command -v promtool >/dev/null; then
	out=$(promtool check metrics < "$W/m.prom" 2>&1) || fail "promtool: $out"
	[ -z "$out" ] || fail "promtool lint: $out"
	ok "promtool check metrics"
fi
$C detach "$id" > /dev/null && $C detach "$id2" > /dev/null || fail "detach"
stop_daemon

# --- a tiny stack table: the first stack is kept, the other dropped (counted)
start_daemon_conf "listen = 127.0.0.1:$PORT
stack_max_entries = 1"
for i in $(seq 50); do curl -sf "$U/healthz" >/dev/null && break; sleep 0.1; done
id=$($C --json attach tp:task/task_rename --comm tstk79 --stacks | jq_get .attachment.id) ||
	fail "attach (stack_max_entries 1)"
worker
raw stats "{\"id\": $id, \"stacks\": true}" > "$W/s.json"
expect_eq "full: calls" "$(st .calls)" $((N + 1))
expect_eq "full: one stack kept" "$(st .stacks.distinct)" 1
expect_eq "full: its count" "$(st '.stacks.rows[0].count')" "$N"
expect_eq "full: the exec's dropped" "$(st .stacks.dropped)" 1
expect_eq "full: total + dropped = calls" "$(($(st .stacks.total) + $(st .stacks.dropped)))" $((N + 1))
expect_eq "list: stacks.dropped" "$($C --json list | jq_get ".attachments[0].stacks.dropped")" 1
curl -sf "$U/metrics" > "$W/m.prom" || fail "GET /metrics"
grep -qx "tracerd_stacks_dropped_total{id=\"$id\",target=\"tp:task/task_rename\",mode=\"tp-btf\"} 1" \
	"$W/m.prom" || fail "no tracerd_stacks_dropped_total 1: $(grep stacks "$W/m.prom")"
ok "tracerd_stacks_dropped_total 1"
# a detach frees the table: the next attachment keeps the exec's stack
$C detach "$id" > /dev/null || fail "detach"
id=$($C --json attach tp:task/task_rename --comm tstk79 --stacks | jq_get .attachment.id) ||
	fail "attach again"
( printf tstk79 > /proc/self/comm; exec /bin/true )
raw stats "{\"id\": $id, \"stacks\": true}" > "$W/s.json"
expect_eq "after a detach: calls" "$(st .calls)" 1
expect_eq "after a detach: the exec's stack kept" "$(st .stacks.distinct)" 1
expect_eq "after a detach: nothing dropped" "$(st .stacks.dropped)" 0
case " $(syms 0) " in *" comm_write "*) fail "the old stack came back: $(syms 0)" ;;
	*) ok "the exec's stack: $(syms 0)" ;; esac
stop_daemon
