#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-record.sh [-n CALLS] [-r RUNS] [-t rename|sys_enter] — recording
# throughput on this host (a benchmark: it reports, it asserts nothing;
# docs/bench.md "Recording").
#
# Per run: a fresh tracerd from $O (default build/) records, through the
# tp-btf mode, to a file: with -t sys_enter (the default)
# tp:raw_syscalls/sys_enter of `trigger getpgid CALLS` (the cheapest
# syscall: the producer is not what limits), with -t rename
# tp:task/task_rename of `trigger rename CALLS` (prctl, as
# tests/host/67-ringbuf-flood.sh floods it). One producer
# (tests/prog/trigger.c), filtered by comm. It waits until
# recorded + dropped = calls, then prints per run: calls, recorded,
# dropped, the producer's calls/s, recorded events/s (recorded over the
# time from the first call until the file holds them all), the daemon's CPU
# per recorded event, and the file's bytes per event. Needs root (BPF).
set -uo pipefail
O=${O:-$(cd "$(dirname "$0")/.." && pwd)/build}
CALLS=4000000 RUNS=3 TP=sys_enter
while getopts n:r:t: opt; do
	case $opt in
	n) CALLS=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	t) TP=$OPTARG ;;
	*) echo "usage: $0 [-n CALLS] [-r RUNS] [-t rename|sys_enter]" >&2; exit 2 ;;
	esac
done
case $TP in
sys_enter) TARGET=tp:raw_syscalls/sys_enter ACTION=getpgid ;;
rename) TARGET=tp:task/task_rename ACTION=rename ;;
*) echo "bench-record: -t rename or sys_enter" >&2; exit 2 ;;
esac
for f in "$O/tracerd" "$O/tracectl" "$O/tests/trigger"; do
	[ -x "$f" ] || { echo "bench-record: no $f (make user O=$O)" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "bench-record: needs root (BPF)" >&2; exit 2; }
command -v jq > /dev/null || { echo "bench-record: needs jq" >&2; exit 2; }
W=$(mktemp -d /tmp/bench-record.XXXXXX)
DPID=
cleanup() {
	[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
now() { date +%s%N; }
cpu_ns() {	# utime + stime of the daemon, in ns
	awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) * 1000000000 / hz }' "/proc/$DPID/stat"
}

printf '%-4s %10s %10s %10s %7s %12s %12s %10s %9s\n' run calls recorded dropped 'drop%' \
	'calls/s' 'recorded/s' 'cpu ns/ev' 'bytes/ev'
for ((run = 1; run <= RUNS; run++)); do
	rm -rf "$W/rec" "$W/s.sock"
	mkdir -p "$W/rec"
	printf 'listen = off\nrecord_dir = %s\nrecord_max_bytes = 1G\n' "$W/rec" > "$W/tracerd.conf"
	"$O/tracerd" --config "$W/tracerd.conf" --socket "$W/s.sock" 2> "$W/daemon.log" &
	DPID=$!
	C="$O/tracectl --socket $W/s.sock"
	for i in $(seq 100); do [ -S "$W/s.sock" ] && break; sleep 0.1; done
	# --comm: only the producer
	id=$($C --json attach "$TARGET" --comm trigger --record bench | jq -r .attachment.id) ||
		{ echo "bench-record: attach failed: $(cat "$W/daemon.log")" >&2; exit 1; }
	c0=$(cpu_ns)
	t0=$(now)
	"$O/tests/trigger" "$ACTION" "$CALLS"
	t1=$(now)
	for i in $(seq 600); do	# up to 60 s for the consumer to catch up
		calls=$($C --json stats "$id" | jq -r '.stats[0].calls')
		rec=$($C --json list | jq -c ".attachments[] | select(.id == $id) | .recording")
		E=$(jq -r .events <<< "$rec") D=$(jq -r .dropped <<< "$rec")
		# (sys_enter: the trigger's own few other syscalls count too)
		[ $((E + D)) = "$calls" ] && [ "$calls" -ge "$CALLS" ] && break
		sleep 0.05
	done
	t2=$(now)
	c1=$(cpu_ns)
	kill -TERM "$DPID"; wait "$DPID"; DPID=
	bytes=$(stat -c %s "$W/rec/bench.trec")
	awk -v run="$run" -v calls="$calls" -v e="$E" -v d="$D" -v t0="$t0" -v t1="$t1" \
		-v t2="$t2" -v c0="$c0" -v c1="$c1" -v bytes="$bytes" 'BEGIN {
		# t2 is at most 50 ms late (the poll above): the rate is a lower bound
		printf "%-4s %10d %10d %10d %6.1f%% %12.0f %12.0f %10.0f %9.2f\n", run, calls, e, d,
			100 * d / calls, calls / ((t1 - t0) / 1e9), e / ((t2 - t0) / 1e9),
			e ? (c1 - c0) / e : 0, e ? bytes / e : 0 }'
	[ $((E + D)) = "$calls" ] || echo "  (recorded + dropped != calls after 60 s)"
done
