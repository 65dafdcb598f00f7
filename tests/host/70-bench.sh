#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tracectl bench on this kernel: every suite runs small (the CI profile)
# against a private daemon; where a mode is unavailable (fentry, kprobes
# and the module here) the point says why; the JSON validates against
# docs/bench.schema.json (python3-jsonschema) with exact counts; trigger
# results land in state_dir; compare gives ratios and refuses bad or
# mismatched inputs with clear errors. Never a timing assertion.
source "$(dirname "$0")/lib/daemon.bash"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
python3 -c 'import jsonschema' 2>/dev/null || skip "python3-jsonschema not installed"
V="python3 $SRC/tests/host/bench-validate.py $SRC/docs/bench.schema.json"
start_daemon "state_dir = $W/state"

for s in trigger ops attach workload; do
	$C bench $s --ci -r 2 -w 0 -o "$W/$s.json" > "$W/$s.txt" 2> "$W/$s.err" ||
		fail "bench $s: $(cat "$W/$s.err")"
	[ ! -s "$W/$s.err" ] || fail "bench $s wrote to stderr (not a TTY): $(cat "$W/$s.err")"
	$V "$W/$s.json" || fail "bench $s: JSON invalid"
	# every point that is not ok carries its reason in the table
	n_bad=$(jq '[.points[] | select(.status != "ok")] | length' < "$W/$s.json")
	n_txt=$(grep -c 'unavailable: .\|error: .' "$W/$s.txt")
	[ "$n_txt" -ge 1 ] || [ "$n_bad" = 0 ] || fail "bench $s: reasons missing from the table"
	ok "bench $s: $n_bad point(s) not measured here, each with a reason"
done
expect_eq "trigger baseline measured" "$(jq -r '.points[0].key + " " + .points[0].status' \
	< "$W/trigger.json")" "none ok"
expect_eq "trigger: fentry reason" "$(jq -r '.points[] | select(.key == "fentry/count") |
	(.status == "ok" or (.reason | length > 0))' < "$W/trigger.json")" true
[ -s "$W/state/bench-trigger.json" ] || fail "trigger results not kept in state_dir"
expect_eq "stored kernel" "$(jq -r .kernel < "$W/state/bench-trigger.json")" "$(uname -r)"

# --json: the document on stdout, nothing else
$C --json bench trigger --ci -r 1 -w 0 --modes fentry --variants count > "$W/tj.json" ||
	fail "bench --json"
$V "$W/tj.json" > /dev/null || fail "--json output invalid"

# --peers: the reference programs and bpftrace as points of their own; here
# the kernel refuses them (or bpftrace is absent): each says why
$C --json bench trigger --ci -r 1 -w 0 --modes fentry --variants count --peers > "$W/peers.json" \
	2> "$W/peers.err" || fail "bench trigger --peers (exit $?): $(cat "$W/peers.err")
	  points not ok: $(jq -c '[.points[] | select(.status != "ok" and .status != "unavailable") |
	  [.key, .status, .reason]]' < "$W/peers.json" 2>&1)"
$V "$W/peers.json" > /dev/null || fail "--peers output invalid"
expect_eq "peer points" "$(jq -c '[.points[] | select(.labels.peer) | .key]' < "$W/peers.json")" \
	'["ref-fentry/count","ref-kprobe/count","ref-kprobe-multi/count","bpftrace-kfunc/count","bpftrace-kprobe/count"]'
expect_eq "peers not measured here say why" "$(jq '[.points[] | select(.labels.peer) |
	select(.status == "ok" or (.reason | test("tracerd-ref|bpftrace")))] | length' < "$W/peers.json")" 5
# attach --kernel-funcs --peers: the kernel's functions per batching mode
# and bpftrace's kprobe:*; here no mode can hook them (nor can bpftrace):
# every point unavailable with its reason, the JSON valid
$C --json bench attach --kernel-funcs -k 1,all --peers -r 1 -w 0 > "$W/kf.json" \
	2> "$W/kf.err" || fail "bench attach --kernel-funcs (exit $?): $(cat "$W/kf.err")"
$V "$W/kf.json" > /dev/null || fail "--kernel-funcs output invalid"
expect_eq "kernel points" "$(jq -c '[.points[].key]' < "$W/kf.json")" \
	'["kprobe-multi/kernel/K1","kprobe-multi/kernel/all","kmod-callops/kernel/K1","kmod-callops/kernel/all","kmod-direct/kernel/K1","kmod-direct/kernel/all","fentry-multi/kernel/K1","fentry-multi/kernel/all","bpftrace-kprobe/kernel/all"]'
expect_eq "kernel points not measured here say why" "$(jq '[.points[] |
	select(.status == "ok" or (.reason | length > 0))] | length' < "$W/kf.json")" 9
$C bench attach --kernel-funcs -k 1,10,all,100 > /dev/null 2>&1 &&
	fail "bench attach -k with all not last: accepted"
# trigger --kernel-funcs: the hot function with K others hooked; here
# neither the others (kmod, kprobe-multi) nor the hot hooks can be made:
# every point unavailable with its reason, the JSON valid, the table's part
$C --json bench trigger --kernel-funcs -k 0,1,all -n 1000 -r 1 -w 0 > "$W/hk.json" \
	2> "$W/hk.err" || fail "bench trigger --kernel-funcs (exit $?): $(cat "$W/hk.err")"
$V "$W/hk.json" > /dev/null || fail "trigger --kernel-funcs output invalid"
expect_eq "hot points" "$(jq -c '[.points[].key]' < "$W/hk.json")" \
	'["none","kmod-callops/count/kmod-callops/K0","kmod-callops/count/kmod-callops/K1","kmod-callops/count/kmod-callops/all","kmod-direct/count/kmod-direct/K0","kmod-direct/count/kmod-direct/K1","kmod-direct/count/kmod-direct/all","kprobe-multi/count/kprobe-multi/K0","kprobe-multi/count/kprobe-multi/K1","kprobe-multi/count/kprobe-multi/all"]'
expect_eq "hot points not measured here say why" "$(jq '[.points[] |
	select(.status == "ok" or (.reason | length > 0))] | length' < "$W/hk.json")" 10
$C bench show "$W/hk.json" | grepq '^the hot function with K other' || fail "hot: no table"
$C bench trigger -k 1 > /dev/null 2>&1 && fail "bench trigger -k without --kernel-funcs: accepted"
$C bench trigger --with-hot > /dev/null 2>&1 && fail "bench trigger --with-hot alone: accepted"
# compare: same file -> ratios 1; mismatches refused; bad inputs clear
$C --json bench compare "$W/trigger.json" "$W/trigger.json" > "$W/cmp.json" || fail "compare"
expect_eq "compare ratios of a run with itself" \
	"$(jq '[.rows[] | select(.ratio != null) | .ratio] | unique' -c < "$W/cmp.json")" "[1]"
$C bench compare "$W/trigger.json" "$W/trigger.json" | grepq '^none  *ns_per_call' ||
	fail "compare table"
# by default only the compared figures; --all adds the rest
$C bench compare "$W/trigger.json" "$W/trigger.json" | grepq 'mcalls_per_s' &&
	fail "compare shows mcalls_per_s without --all"
$C bench compare --all "$W/trigger.json" "$W/trigger.json" | grepq '^none  *mcalls_per_s' ||
	fail "compare --all lacks mcalls_per_s"
expect_eq "compare --json rows: only overhead and ns/call" "$($C --json bench compare \
	"$W/trigger.json" "$W/trigger.json" | jq -c '[.rows[].value] | unique - [null] |
	(length > 0 and (. - ["ns_per_call", "overhead_ns"] == []))')" true
# the same syscall on another architecture is the same point; another one is not
fn=$(jq -r .options.function < "$W/trigger.json")
case $fn in __*_sys_*) ;; *) fail "trigger function '$fn' is not a syscall handler" ;; esac
jq --arg f "__arm64_sys_${fn#__*_sys_}" '.options.function = $f | .machine.arch = "arm64"' \
	< "$W/trigger.json" > "$W/arm.json"
$C bench compare "$W/trigger.json" "$W/arm.json" > /dev/null ||
	fail "compare across architectures needs --force"
jq '.options.function = "__arm64_sys_getppid"' < "$W/trigger.json" > "$W/other-fn.json"
# points only in one side: one line per mode
jq '.points |= map(select(.labels.mode != "fentry"))' < "$W/trigger.json" > "$W/nofentry.json"
n=$(jq '[.points[] | select(.labels.mode == "fentry")] | length' < "$W/trigger.json")
[ "$n" -ge 2 ] || fail "trigger has $n fentry points, want >= 2"
out=$($C bench compare "$W/trigger.json" "$W/nofentry.json")
expect_eq "only-in-A lines" "$(echo "$out" | grep -c 'only in A')" 1
echo "$out" | grepq "^fentry: $n points only in A (fentry/" || fail "only-in line: $out"
expect_eq "only_in_b (JSON)" "$($C --json bench compare "$W/nofentry.json" "$W/trigger.json" |
	jq '.only_in_b | length')" "$n"
refuse() {	# refuse WHAT EXIT PATTERN ARGS...
	local what=$1 want=$2 pat=$3 out rc
	shift 3
	out=$($C bench compare "$@" 2>&1); rc=$?
	expect_eq "compare $what: exit" "$rc" "$want"
	echo "$out" | grepq "$pat" || fail "compare $what: message '$out' lacks '$pat'"
}
refuse "different suites" 2 "different suites" "$W/trigger.json" "$W/ops.json"
refuse "different options" 2 "different options: option 'modes'" "$W/trigger.json" "$W/tj.json"
refuse "different syscall" 2 "option 'function'" "$W/trigger.json" "$W/other-fn.json"
$C bench compare --force "$W/trigger.json" "$W/tj.json" > /dev/null || fail "compare --force"
echo 'not json' > "$W/bad.json"
refuse "non-JSON" 2 "cannot read it as JSON" "$W/bad.json" "$W/ops.json"
echo '{"schema": "tracerd-metrics"}' > "$W/other.json"
refuse "other JSON" 2 "not a tracectl bench result" "$W/other.json" "$W/ops.json"
refuse "missing file" 2 "cannot read" "$W/nope.json" "$W/ops.json"
refuse "one file" 2 "usage" "$W/ops.json"

$C bench show "$W/ops.json" | grepq '^kmod-callops$' || fail "bench show ops"
$C bench show "$W/trigger.json" | grepq '^none ' || fail "bench show trigger"
$C bench show "$W/bad.json" > /dev/null 2>&1; expect_eq "bench show non-JSON: exit" "$?" 2

# --help after a suite prints the usage (exit 0) and runs nothing
for sfx in trigger "ops -n 5" "attach --help -k 1" workload; do
	# shellcheck disable=SC2086
	out=$($C bench $sfx --help 2>&1) || fail "bench $sfx --help: exit $?"
	echo "$out" | grepq -- '--producers=P' || fail "bench $sfx --help: no usage: $out"
done
# bad command lines and a missing daemon
for args in "nosuch" "trigger -r 0" "trigger -n x" "ops --relevant 1,x" "attach -k 3" \
	"workload --bogus"; do
	# shellcheck disable=SC2086
	$C bench $args > /dev/null 2>&1; rc=$?
	expect_eq "bench $args: exit" "$rc" 2
done
$TRACECTL --socket "$W/none.sock" bench trigger --ci > /dev/null 2> "$W/nod.err"; rc=$?
expect_eq "no daemon: exit" "$rc" 3
grep -q "tracerd" "$W/nod.err" || fail "no-daemon message: $(cat "$W/nod.err")"
# the daemon's bench command itself: bad arguments get stable error codes
raw() {	# raw ARGS_JSON: the error code of a bench request (or "ok")
	python3 - "$W/s.sock" "$1" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(json.dumps({"v": 1, "cmd": "bench", "args": json.loads(sys.argv[2])}).encode() + b"\n")
r = json.loads(s.makefile().readline())
print("ok" if r["ok"] else r["error"]["code"])
PY
}
expect_eq "bench op unknown" "$(raw '{"op": "nope"}')" bad_request
expect_eq "bench op missing" "$(raw '{}')" bad_request
expect_eq "bench hook without pid" "$(raw '{"op": "hook", "mode": "fentry"}')" bad_request
expect_eq "bench hook, mode tp-btf" "$(raw '{"op": "hook", "mode": "tp-btf", "pid": 1}')" bad_request
expect_eq "bench hook, save_regs on fentry" \
	"$(raw '{"op": "hook", "mode": "fentry", "pid": 1, "save_regs": true}')" bad_request
expect_eq "bench read, unknown handle" "$(raw '{"op": "read", "handle": 999}')" not_found
expect_eq "bench ops, no module" "$(raw '{"op": "ops", "mode": "kmod-callops", "calls": 10}')" \
	unavailable
expect_eq "bench ops, bad mode" "$(raw '{"op": "ops", "mode": "fentry"}')" bad_request
expect_eq "bench attach, K = 3 as one" \
	"$(raw '{"op": "attach", "mode": "fentry", "how": "one", "funcs": 3}')" bad_request
expect_eq "bench store, other kernel" \
	"$(raw '{"op": "store", "kernel": "0.0", "overhead_ns": {}}')" bad_request
expect_eq "bench store, bad overhead" \
	"$(raw "{\"op\": \"store\", \"kernel\": \"$(uname -r)\", \"overhead_ns\": {\"fentry\": 3}}")" \
	bad_request
expect_eq "hooks left after the runs" "$($C --json list | jq '.attachments | length')" 0
stop_daemon

# the metrics take the stored overhead of an attachment's mode and variant,
# for this kernel only (a stored tp-btf figure stands in: the host has no other mode)
command -v curl > /dev/null || skip "curl not installed (metrics part)"
port=$((20000 + RANDOM % 12000))	# below the ephemeral range (32768-)
printf 'state_dir = %s/state\n' "$W" > "$W/m.conf"
"$TRACERD" --config "$W/m.conf" --socket "$W/m.sock" --listen "127.0.0.1:$port" \
	2> "$W/daemon.log" &
DPID=$!
C="$TRACECTL --socket $W/m.sock"
for i in $(seq 1 100); do [ -S "$W/m.sock" ] && break; sleep 0.1; done
store() {	# store KERNEL: a trigger result as the daemon writes it
	jq -n --arg k "$1" --arg b "$(uname -v)" '{schema: "tracerd-bench-trigger-state/1",
		date: "2026-01-01T00:00:00Z", kernel: $k, kernel_build: $b,
		overhead_ns: {"tp-btf": {count: 250, latency: 900}}}' > "$W/state/bench-trigger.json"
}
ovh() { curl -sf "http://127.0.0.1:$port/metrics.json" | jq -c "[.attachments[0] |
	.overhead_ns_per_call, .overhead_cpu_seconds_total]"; }
$C attach tp:task/task_rename --pid $BASHPID > /dev/null || fail "attach for metrics"
for ((i = 0; i < 1000; i++)); do printf t70 > /proc/self/comm; done
store "$(uname -r)"
expect_eq "metrics overhead from the stored trigger result" "$(ovh)" "[250,0.00025]"
curl -sf "http://127.0.0.1:$port/metrics" > "$W/ovh.prom" || fail "GET /metrics"
line=$(grep '^tracerd_call_overhead_seconds{' "$W/ovh.prom")
expect_eq "prometheus overhead in seconds" "${line##* }" 2.5e-07
if command -v promtool > /dev/null; then	# promtool-clean with an overhead stored too
	out=$(promtool check metrics < "$W/ovh.prom" 2>&1) || fail "promtool: $out"
	[ -z "$out" ] || fail "promtool lint with an overhead stored: $out"
	ok "promtool check metrics with an overhead stored"
fi
store "0.0.0-other"
# scrapes within 250 ms share one rendered body (docs/metrics.md): the
# change shows in the next one
for i in $(seq 1 30); do [ "$(ovh)" = "[null,null]" ] && break; sleep 0.1; done
expect_eq "metrics overhead from another kernel's result" "$(ovh)" "[null,null]"
stop_daemon
