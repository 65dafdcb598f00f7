#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A live recording under logrotate's copytruncate (#33, class 3): the file
# copied, then cut to 0 under the writer. The writer sees the cut and starts
# a new segment in place: `dump` reads the file from its start again, with
# every event since the cut; the copy holds those before it; the cut is
# counted (record.truncations) and logged, the recording stays active with
# no error. Before, the writer went on at its old offset: a file `dump`
# rejected from the start, while metrics said active, 0 errors.
# With logrotate installed, the same through logrotate itself.
source "$(dirname "$0")/lib/daemon.bash"
source "$(dirname "$0")/lib/service.bash"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
me=$BASHPID
mkdir -p "$W/rd"
start_daemon_conf "listen = 127.0.0.1:$PORT
record_dir = $W/rd"
F=$W/rd/ct.trec
D="$TRACECTL"
wait_events() {	# FILE N: dump --json FILE gives N events (flushes come within a second)
	local i n
	for i in $(seq 60); do
		n=$($D dump --json "$1" 2>/dev/null | wc -l)
		[ "$n" = "$2" ] && return 0
		sleep 0.1
	done
	fail "$1: $n events, want $2 ($($D dump "$1" 2>&1 > /dev/null | tail -n1))"
}
rec() {	# FIELD: the attachment's record field in /metrics.json
	curl -sf "$U/metrics.json" | jq_get ".attachments[] | select(.id == $id) | .record.$1"
}
$C --json attach tp:task/task_rename --pid "$me" --record ct > "$W/a.json" || fail "attach"
id=$(jq_get '.attachment.id' < "$W/a.json")
for ((i = 0; i < 300; i++)); do printf "a$i" > /proc/self/comm; done
wait_events "$F" 300

# copytruncate, as logrotate does it: copy, then truncate in place
cp "$F" "$W/copy.trec"
truncate -s 0 "$F"
for ((i = 0; i < 200; i++)); do printf "b$i" > /proc/self/comm; done
wait_events "$F" 200
$D dump --json "$F" > "$W/after.json" || fail "dump of the file after the cut"
expect_eq "first event after the cut: its comm before the rename" \
	"$(head -n1 "$W/after.json" | jq_get .comm)" a299
expect_eq "events in the copy" "$($D dump --json "$W/copy.trec" 2>/dev/null | wc -l)" 300
expect_eq "record.truncations" "$(rec truncations)" 1
expect_eq "record.active" "$(rec active)" true
expect_eq "record.errors" "$(rec errors)" 0
for i in $(seq 30); do grepq "recording 'ct' .* was cut short under the writer" "$W/daemon.log" && break; sleep 0.1; done
grepq "recording 'ct' .* was cut short under the writer" "$W/daemon.log" || fail "the cut is not logged"
ok "copytruncate: a new segment, 200 events after the cut, 300 in the copy, counted and logged"

if command -v logrotate > /dev/null; then
	cat > "$W/lr.conf" <<EOC
$F {
	copytruncate
	rotate 2
	nocompress
	missingok
}
EOC
	logrotate -f -s "$W/lr.state" "$W/lr.conf" || fail "logrotate"
	for ((i = 0; i < 100; i++)); do printf "c$i" > /proc/self/comm; done
	wait_events "$F" 100
	expect_eq "logrotate copytruncate: events in $F.1" "$($D dump --json "$F.1" 2>/dev/null | wc -l)" 200
	expect_eq "record.truncations after logrotate" "$(rec truncations)" 2
	ok "logrotate copytruncate: the rotated file and the live one both read whole"
else
	echo "logrotate not installed: its own run skipped (the copy and truncate above are what it does)"
fi
stop_daemon
