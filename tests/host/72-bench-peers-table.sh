#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The peers table of bench trigger --peers (bench show, bench report): a
# session form (kprobe-session here) gets its row beside the peers of the
# hook it shares (ref-kprobe, bpftrace-kprobe) when it was measured, and
# no row when it was not (the 6.1 result has no session form); the modes
# of the main rows keep theirs, measured or not ("-"). Input: a latency
# run recorded in a 6.12 x86_64 guest (tests/host/data/bench-6.12-peers.json:
# fentry, kprobe and kprobe-session, 1M calls x 5 runs).
source "$(dirname "$0")/lib/daemon.bash"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
D=$SRC/tests/host/data
$TRACECTL bench show "$D/bench-6.12-peers.json" > "$W/show.txt" || fail "bench show"
grep -Eq '^  kprobe-session latency +tracerd +5303 +ref-kprobe 5348 \(0\.99\) +bpftrace-kprobe 13247 \(0\.40\)$' \
	"$W/show.txt" || fail "no kprobe-session row: $(grep -A8 'against its peers' "$W/show.txt")"
ok "kprobe-session beside ref-kprobe and bpftrace-kprobe"
grep -Eq '^  kmod-callops latency +tracerd +- +ref-fentry 3418' "$W/show.txt" ||
	fail "kmod-callops row (not measured) lost: $(grep -A8 'against its peers' "$W/show.txt")"
grep -Eq '^  (fsession|fentry-multi) ' "$W/show.txt" && fail "a row for a session form not measured"
ok "rows of modes not measured: main rows only"
$TRACECTL bench report "$D/bench-6.12-peers.json" > "$W/report.txt" || fail "bench report"
sed -n '/^tracerd \/ peer/,/^$/p' "$W/report.txt" > "$W/peers.txt"
grep -Eq '^  kprobe-session latency +0\.99 / 0\.40$' "$W/peers.txt" ||
	fail "report: no kprobe-session row: $(cat "$W/peers.txt")"
grep -Eq '^  (fsession|fentry-multi) ' "$W/peers.txt" && fail "report: a row for a session form not measured"
ok "bench report: kprobe-session row"
$TRACECTL bench show "$D/bench-6.1-trigger.json" > "$W/show61.txt" || fail "bench show 6.1"
grep -q 'session' "$W/show61.txt" && fail "6.1 table names a session form: $(grep session "$W/show61.txt")"
ok "no session rows where none was measured"
