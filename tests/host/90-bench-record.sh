#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tracectl bench record (#16 target 5) against a private daemon, small
# (--ci): the JSON validates against docs/bench.schema.json; the counts
# balance exactly: the hook counted the calls the writer threads made, and
# recorded + dropped = calls (read back from the daemon, not only from the
# bench's word); the file the run wrote dumps to exactly the recorded
# events; bad options are refused with exit 2. Never a timing assertion.
source "$(dirname "$0")/lib/daemon.bash"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
python3 -c 'import jsonschema' 2>/dev/null || skip "python3-jsonschema not installed"
V="python3 $SRC/tests/host/bench-validate.py $SRC/docs/bench.schema.json"
mkdir -p "$W/rec"
start_daemon "record_dir = $W/rec"

$C bench record --ci -o "$W/r.json" > "$W/r.txt" 2> "$W/r.err" ||
	fail "bench record --ci: $(cat "$W/r.err") $(cat "$W/r.txt")"
[ ! -s "$W/r.err" ] || fail "bench record wrote to stderr (not a TTY): $(cat "$W/r.err")"
$V "$W/r.json" || fail "bench record: JSON invalid"
expect_eq "suite" "$(jq -r .suite < "$W/r.json")" record
expect_eq "point status" "$(jq -r '.points[0].status' < "$W/r.json")" ok
# --ci: 20000 calls per run, 5 runs after 1 warm-up, all recorded to one file
calls=$(jq '.points[0].counts.calls.counted' < "$W/r.json")
expect_eq "calls the hook counted" "$calls" 120000
expect_eq "calls made" "$(jq '.points[0].counts.calls.expected' < "$W/r.json")" 120000
expect_eq "recorded + dropped" "$(jq '.points[0].counts.events.counted' < "$W/r.json")" "$calls"
rec=$(jq '.points[0].counts.file.expected' < "$W/r.json")
[ "$rec" -ge 1 ] && [ "$rec" -le "$calls" ] || fail "recorded $rec of $calls calls"
for v in made_per_s recorded_per_s dropped_pct bytes_per_event daemon_cpu_ns_per_event; do
	[ "$(jq ".points[0].values.$v.samples | length" < "$W/r.json")" = 5 ] ||
		fail "value $v: not 5 samples"
done
ok "bench record --ci: 5 runs measured, every value present"
grep -q "calls $calls = recorded + dropped" "$W/r.txt" || fail "table: $(cat "$W/r.txt")"

# the file, read by tracectl dump: exactly the recorded events, read cleanly
f=$W/rec/bench-record.trec
n=$($O/tracectl dump --json "$f" 2> "$W/dump.err" | wc -l); rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] && [ ! -s "$W/dump.err" ] || fail "dump $f: exit $rc: $(cat "$W/dump.err")"
expect_eq "events in the file (dump)" "$n" "$rec"
# every one the writer threads' (comm), of task_rename
expect_eq "events of other tasks or targets" "$($O/tracectl dump --json "$f" |
	jq -r 'select(.comm != "trec-bench" or .target != "tp:task/task_rename") | .comm' | wc -l)" 0
# the daemon has nothing left attached
expect_eq "attachments after the bench" "$($C --json list | jq '.attachments | length')" 0

# a second run moves the first file aside and checks only its own
$C --json bench record --ci -r 1 -w 0 -n 3000 -p 3 > "$W/r2.json" || fail "second run"
$V "$W/r2.json" > /dev/null || fail "second run: JSON invalid"
expect_eq "second run: calls" "$(jq '.points[0].counts.calls.counted' < "$W/r2.json")" 3000
n=$($O/tracectl dump --json "$f" | wc -l)
expect_eq "second run: events in its file" "$n" "$(jq '.points[0].counts.file.expected' < "$W/r2.json")"
expect_eq "first file kept as .1" "$($O/tracectl dump --json "$f.1" | wc -l)" "$rec"

# --args: each call recorded with its arguments (task_rename's comm: the
# writers' name), the point's key and variant say so
$C --json bench record --ci -r 1 -w 0 -n 2000 --args --name bench-args > "$W/ra.json" ||
	fail "bench record --args"
$V "$W/ra.json" > /dev/null || fail "--args: JSON invalid"
expect_eq "--args: key" "$(jq -r '.points[0].key' < "$W/ra.json")" "tp:task/task_rename/2/args"
expect_eq "--args: variant" "$(jq -r '.points[0].labels.variant' < "$W/ra.json")" args
expect_eq "--args: option" "$(jq -r '.options.args' < "$W/ra.json")" true
expect_eq "--args: calls" "$(jq '.points[0].counts.calls.counted' < "$W/ra.json")" 2000
fa=$(dirname "$f")/bench-args.trec
expect_eq "--args: events with the writers' comm as an argument" \
	"$($O/tracectl dump --json "$fa" | jq -r 'select(.args.comm == "trec-bench") | .comm' | wc -l)" \
	"$(jq '.points[0].counts.file.expected' < "$W/ra.json")"
expect_eq "the first run: no arguments" "$(jq '.points[0].labels.variant' < "$W/r.json")" '"count"'

# bad options: exit 2, a reason
for a in "-n 0" "-p 0" "-p 65" "-d 0" "-d x" "-n 10 -d 1" "-n 2 -p 3" "--bogus"; do
	$C bench record $a > /dev/null 2> "$W/bad.err"; rc=$?
	[ "$rc" = 2 ] && [ -s "$W/bad.err" ] || fail "bench record $a: exit $rc, '$(cat "$W/bad.err")'"
done
ok "bad options refused with exit 2 and a reason"
# a target the daemon refuses: the point is an error with the daemon's reason
$C --json bench record --ci -r 1 -w 0 --target tp:nosuch/event > "$W/bad.json"; rc=$?
expect_eq "unknown target: exit" "$rc" 1
$V "$W/bad.json" > /dev/null || fail "unknown target: JSON invalid"
jq -r '.points[0].reason' < "$W/bad.json" | grepq 'nosuch' || fail "reason: $(jq -r '.points[0].reason' < "$W/bad.json")"
ok "unknown target: error point with the daemon's reason"
stop_daemon
