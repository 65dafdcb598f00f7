#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# BPF run-time statistics (bpf_stats = on: the daemon holds BPF_ENABLE_STATS):
# per attachment the kernel's run count and run time of its programs, in
# `tracectl stats`, /metrics.json and /metrics. The run count is every run
# of the program: exactly the calls of an unfiltered tp-btf attachment, at
# least the calls of a filtered one (the filter runs inside the program),
# and it grows with the calls. Off (the default, or reloaded off): the
# series are absent, JSON says null and why, `stats --bpf` says off.
source "$(dirname "$0")/lib/daemon.bash"
source "$(dirname "$0")/lib/service.bash"
command -v curl >/dev/null || skip "curl not installed"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"

# a bad value is an error naming the line
printf 'bpf_stats = maybe\n' > "$W/bad.conf"
out=$("$TRACERD" --config "$W/bad.conf" --check-config 2>&1) && fail "bpf_stats = maybe accepted"
case $out in *"bad.conf:1"*"bpf_stats 'maybe' is not on or off"*) ok "bad bpf_stats refused: $out" ;;
	*) fail "bad bpf_stats message: $out" ;; esac

N=300
conf_on="listen = 127.0.0.1:$PORT
bpf_stats = on"
start_daemon_conf "$conf_on"
for i in $(seq 50); do curl -sf "$U/healthz" >/dev/null && break; sleep 0.1; done
me=$BASHPID
id_all=$($C --json attach tp:task/task_rename | jq_get '.attachment.id') || fail "attach"
id_pid=$($C --json attach tp:task/task_rename --pid "$me" | jq_get '.attachment.id') ||
	fail "attach --pid"
for ((i = 0; i < N; i++)); do printf t88-$((i % 5)) > /proc/self/comm; done

$C --json stats > "$W/s.json" || fail "stats"
expect_eq "stats: bpf_stats enabled" "$(jq_get '.bpf_stats.enabled' < "$W/s.json")" true
att() { jq_get ".attachments[] | select(.id == $1) | $2" < "$W/s.json"; }
row() { jq_get ".stats[] | select(.id == $1) | $2" < "$W/s.json"; }
calls_pid=$(row "$id_pid" .calls)
calls_all=$(row "$id_all" .calls)
runs_pid=$(att "$id_pid" .bpf_run.count)
runs_all=$(att "$id_all" .bpf_run.count)
expect_eq "filtered attachment: calls" "$calls_pid" "$N"
expect_eq "unfiltered attachment: runs = calls" "$runs_all" "$calls_all"
[ "$runs_all" -ge "$N" ] || fail "unfiltered runs $runs_all < $N renames"
ok "unfiltered runs $runs_all >= $N"
[ "$runs_pid" -ge "$calls_pid" ] || fail "filtered runs $runs_pid < calls $calls_pid"
ok "filtered runs $runs_pid >= calls $calls_pid"
[ "$(att "$id_all" .bpf_run.time_ns)" -gt 0 ] || fail "run time 0"
ok "run time $(att "$id_all" .bpf_run.time_ns) ns > 0"
expect_eq "programs of a tp-btf attachment" "$(att "$id_all" .bpf_run.programs)" 1
expect_eq "no reason when known" "$(att "$id_all" .bpf_run_reason)" null

# the count grows with the calls
for ((i = 0; i < 50; i++)); do printf t88-more > /proc/self/comm; done
$C --json stats "$id_pid" > "$W/s.json" || fail "stats $id_pid"
expect_eq "stats ID: one attachment entry" "$(jq_get '.attachments | length' < "$W/s.json")" 1
runs2=$(att "$id_pid" .bpf_run.count)
[ "$runs2" -ge $((runs_pid + 50)) ] || fail "runs $runs_pid -> $runs2 after 50 more calls"
ok "runs grew $runs_pid -> $runs2"

$C stats > "$W/s.txt" || fail "stats (text)"
grep -q "BPF RUNS" "$W/s.txt" || fail "no BPF RUNS column: $(cat "$W/s.txt")"
grep -Eq "^$id_all +tp:task/task_rename +tp-btf +[0-9]+ " "$W/s.txt" ||
	fail "no BPF row for $id_all: $(cat "$W/s.txt")"
ok "tracectl stats shows the BPF runs"

curl -sf "$U/metrics.json" > "$W/m.json" || fail "GET /metrics.json"
python3 "$SRC/tests/host/metrics-validate.py" "$SRC/docs/metrics.schema.json" "$W/m.json" ||
	fail "/metrics.json does not validate"
mj=$(jq_get ".attachments[] | select(.id == $id_all) | .bpf_run.count" < "$W/m.json")
[ "$mj" -ge "$runs_all" ] || fail "metrics.json runs $mj < $runs_all"
ok "metrics.json bpf_run.count $mj"
curl -sf "$U/metrics" > "$W/m.prom" || fail "GET /metrics"
line=$(grep "^tracerd_bpf_runs_total{id=\"$id_all\",target=\"tp:task/task_rename\",mode=\"tp-btf\"} " "$W/m.prom") ||
	fail "no tracerd_bpf_runs_total for $id_all"
[ "${line##* }" -ge "$runs_all" ] || fail "prometheus runs ${line##* } < $runs_all"
ok "prometheus $line"
grep -q "^tracerd_bpf_run_seconds_total{id=\"$id_all\"," "$W/m.prom" || fail "no tracerd_bpf_run_seconds_total"
ok "tracerd_bpf_run_seconds_total present"
if command -v promtool >/dev/null; then
	out=$(promtool check metrics < "$W/m.prom" 2>&1) || fail "promtool: $out"
	[ -z "$out" ] || fail "promtool lint: $out"
	ok "promtool check metrics"
else
	echo "note: promtool missing (Debian package prometheus), live check skipped"
fi

# reloaded off: the fd is dropped, the series go, JSON says why
printf 'listen = 127.0.0.1:%s\n' "$PORT" > "$W/tracerd.conf"
$C reload > /dev/null || fail "reload (bpf_stats off)"
$C --json stats > "$W/s.json" || fail "stats"
expect_eq "off: bpf_stats enabled" "$(jq_get '.bpf_stats.enabled' < "$W/s.json")" false
expect_eq "off: bpf_run null" "$(att "$id_all" .bpf_run)" null
case $(att "$id_all" .bpf_run_reason) in *"bpf_stats = on"*) ok "off: reason given" ;;
	*) fail "off: reason '$(att "$id_all" .bpf_run_reason)'" ;; esac
curl -sf "$U/metrics" > "$W/m.prom" || fail "GET /metrics"
grep -q "^tracerd_bpf_run" "$W/m.prom" && fail "off: BPF run series still exported"
ok "off: no tracerd_bpf_run* series"
curl -sf "$U/metrics.json" > "$W/m.json" || fail "GET /metrics.json"
python3 "$SRC/tests/host/metrics-validate.py" "$SRC/docs/metrics.schema.json" "$W/m.json" ||
	fail "/metrics.json (off) does not validate"
expect_eq "off: metrics.json bpf_run" \
	"$(jq_get ".attachments[] | select(.id == $id_all) | .bpf_run" < "$W/m.json")" null
$C stats > "$W/s.txt" || fail "stats (text)"
grep -q "BPF RUNS" "$W/s.txt" && fail "off: BPF column shown"
$C stats --bpf > "$W/s.txt" || fail "stats --bpf"
grep -q "BPF run-time statistics are off" "$W/s.txt" || fail "stats --bpf (off): $(cat "$W/s.txt")"
ok "off: stats --bpf says so"

# on again by reload: counting restarts from where the kernel's counter is
printf '%s\n' "$conf_on" > "$W/tracerd.conf"
$C reload > /dev/null || fail "reload (bpf_stats on)"
for ((i = 0; i < 20; i++)); do printf t88-on > /proc/self/comm; done
$C --json stats "$id_pid" > "$W/s.json" || fail "stats"
runs3=$(att "$id_pid" .bpf_run.count)
[ "$runs3" -ge $((runs2 + 20)) ] || fail "on again: runs $runs2 -> $runs3 after 20 calls"
ok "on again: runs $runs2 -> $runs3"
stop_daemon
