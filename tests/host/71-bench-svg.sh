#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The charts of tracectl bench: `bench show FILE --svg OUT` of every suite
# draws one mark per measured figure, keeps every legend and label inside
# the picture, and ticks log axes at 1, 2, 5 x 10^k (tests/host/svg-check.py).
# Inputs: results recorded in a 6.1 guest (tests/host/data/, every mode
# measured), bench entry in 6.12 x86_64 and arm64 guests, and a workload run on this host; an unknown option is refused.
source "$(dirname "$0")/lib/daemon.bash"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
for s in trigger ops attach; do
	f=$SRC/tests/host/data/bench-6.1-$s.json
	$TRACECTL bench show "$f" --svg "$W/$s.svg" > /dev/null || fail "bench show $s --svg"
	python3 "$SRC/tests/host/svg-check.py" "$f" "$W/$s.svg" || fail "$s chart"
done
for k in 6.12 6.12-arm64; do	# bench entry: a bar per variant (28-bench-entry.sh runs)
	f=$SRC/tests/host/data/bench-$k-entry.json
	$TRACECTL bench show "$f" --svg "$W/entry-$k.svg" > /dev/null || fail "bench show entry --svg"
	python3 "$SRC/tests/host/svg-check.py" "$f" "$W/entry-$k.svg" || fail "entry $k chart"
done
[ "$(id -u)" = 0 ] || skip "needs root to load BPF (the workload part)"
start_daemon
$C bench workload --ci -r 1 -w 0 -o "$W/wl.json" --svg "$W/wl.svg" > /dev/null ||
	fail "bench workload --svg"
python3 "$SRC/tests/host/svg-check.py" "$W/wl.json" "$W/wl.svg" || fail "workload chart"
$TRACECTL bench show "$W/wl.json" --bogus > /dev/null 2>&1
expect_eq "bench show with an unknown option: exit" "$?" 2
stop_daemon
