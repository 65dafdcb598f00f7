#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tracectl stats for humans against a live daemon with a tp-btf attachment:
# --interval S --count K prints K blocks of what happened in each interval
# (exact calls of this shell's renames, their sum is every rename done
# while it watched, calls/s = calls / interval); ^C ends a watch without
# --count with status 0; one-shot stats keeps its table; --help and bad
# options. (Histogram rendering: tests/unit/test_quantile.c; latency
# percentiles from a real daemon: 75-classic-tp.sh, syscall latency.)
source "$(dirname "$0")/lib/daemon.bash"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
N=700
start_daemon
me=$BASHPID
$C --json attach tp:task/task_rename --pid "$me" > "$W/a.json" || fail "attach"
id=$(jq_get '.attachment.id' < "$W/a.json")
for ((i = 0; i < 5; i++)); do printf t74 > /proc/self/comm; done

$C stats "$id" > "$W/once.txt" || fail "stats"
expect_eq "one-shot header" "$(head -n 1 "$W/once.txt" | tr -s ' ')" "ID FUNCTION MODE CALLS MISSES"
expect_eq "one-shot calls" "$(awk -v id="$id" '$1 == id { print $4 }' "$W/once.txt")" 5

# the watch: renames only after its first block (interval 1 is quiet)
$C stats "$id" --interval 0.5 --count 4 > "$W/watch.txt" 2> "$W/watch.err" &
wpid=$!
for ((i = 0; i < 100; i++)); do
	grep -q '^ID ' "$W/watch.txt" 2> /dev/null && break
	sleep 0.05
done
[ "$i" -lt 100 ] || fail "no first block from stats --interval"
for ((i = 0; i < N; i++)); do printf t74 > /proc/self/comm; done
wait "$wpid" || fail "stats --interval --count 4: $(cat "$W/watch.err")"
expect_eq "blocks" "$(grep -c '  interval 0.5' "$W/watch.txt")" 4
expect_eq "block header" "$(grep -m1 '^ID ' "$W/watch.txt" | tr -s ' ')" \
	"ID FUNCTION MODE CALLS CALLS/S MISSES"
rows() { awk -v id="$id" '$1 == id' "$W/watch.txt"; }
expect_eq "one row per block" "$(rows | wc -l)" 4
expect_eq "first interval quiet" "$(rows | head -n 1 | awk '{ print $4, $5 }')" "0 0.0"
expect_eq "calls of the intervals add up to the renames" "$(rows | awk '{ s += $4 } END { print s }')" "$N"
# calls/s is the interval's calls over its length (0.5 s, give or take the round trip)
rows | awk '$4 > 0 { r = $5 / $4; if (r < 1.5 || r > 2.05) bad = 1; n++ }
	END { exit bad || !n }' || fail "calls/s is not calls / 0.5 s: $(rows)"
ok "calls/s = calls / interval"
expect_eq "totals unchanged" "$($C --json stats "$id" | jq_get '.stats[0].calls')" $((N + 5))

# ^C ends a watch without --count, status 0, after what it printed
$C stats --interval 0.2 > "$W/int.txt" 2>&1 &
wpid=$!
for ((i = 0; i < 100; i++)); do
	grep -q '^ID ' "$W/int.txt" 2> /dev/null && break
	sleep 0.05
done
kill -INT "$wpid"
wait "$wpid"
expect_eq "status after ^C" "$?" 0
grep -q "^$id .*task_rename" "$W/int.txt" || fail "watch printed no row: $(cat "$W/int.txt")"

# --hist on an attachment without latency: the table, no histogram
$C stats "$id" --hist > "$W/hist.txt" || fail "stats --hist"
grep -q '^@ns' "$W/hist.txt" && fail "histogram for an untimed tracepoint"
ok "no histogram without latency"

$C stats --help > "$W/help.txt" || fail "stats --help: status $?"
grep -q '^Usage: tracectl stats .*--interval' "$W/help.txt" || fail "stats --help: no usage line"
for args in "--count 2" "--interval 0" "--interval x" "--interval 1 --count 0" "--bogus"; do
	# shellcheck disable=SC2086
	$C stats $args > /dev/null 2> "$W/err.txt"
	expect_eq "stats $args: status" "$?" 2
done
$C --json stats --interval 1 > /dev/null 2>&1
expect_eq "--json with --interval refused" "$?" 2
stop_daemon
