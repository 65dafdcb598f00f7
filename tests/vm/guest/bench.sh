#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench.sh "SUITE [OPTIONS]"...: guest side of `make demo` and of the
# host's bench checks: load the modules, start a private tracerd, run each
# suite with its options and print its table (`entry` needs only the test
# module, loaded here like tracerd_kmod); the JSON of each run is also
# printed between ==BENCH-JSON SUITE and ==BENCH-END so the host keeps it.
# The run "stacks" is no bench suite: it attaches the test module's
# tracerd_testmod_chain_c with --stacks (mode auto), drives its call chain
# (call_chain "A B": chain_a -> chain_b -> chain_c A times, chain_b ->
# chain_c B times: two stacks, counted A and B) and prints what
# `tracectl --json stats ID --stacks` says between ==STACKS-JSON and
# ==STACKS-END (the demo keeps it as stacks-KERNEL.json for the report's
# flame graph).
# Progress goes to a file (the serial console is a TTY, the host is not);
# each run's seconds to stderr (what demo.sh's estimates come from).
# On a host that can trace (make demo's host run), BENCH_KMOD_DIR names the
# modules built for it and tracerd, tracectl and jpath come from PATH.
source "$(dirname "$0")/lib.sh"
KMOD_DIR=${BENCH_KMOD_DIR:-$KMOD_DIR}
TD=/run/tracerd-bench
mkdir -p "$TD"
load_kmod
load_testmod
printf 'listen = off\nstate_dir = %s/state\nrecord_dir = %s/records\n' "$TD" "$TD" > "$TD/tracerd.conf"
tracerd --config "$TD/tracerd.conf" --socket "$TD/s.sock" 2> "$TD/daemon.log" &
dpid=$!
for i in $(seq 1 300); do [ -S "$TD/s.sock" ] && break; sleep 0.1; done
[ -S "$TD/s.sock" ] || { cat "$TD/daemon.log"; fail "tracerd did not start"; }
C="tracectl --socket $TD/s.sock"

# stacks A B: the call chain's stacks, as `tracectl --json stats ID --stacks` prints them
stacks() {
	local id
	id=$($C --json attach tracerd_testmod_chain_c --stacks | jpath .attachment.id) || return 1
	echo "$1 $2" > "$TESTMOD_DBG/call_chain" || return 1
	$C --json stats "$id" --stacks > "$TD/stacks.json" || return 1
	$C detach "$id" > /dev/null
}

rc=0
[ $# -gt 0 ] || set -- "trigger" "ops" "entry"
for run in "$@"; do
	suite=${run%% *}
	t0=$(date +%s)
	if [ "$suite" = stacks ]; then
		rm -f "$TD/stacks.json"
		stacks 3000 2000 2> "$TD/stacks.err" || { rc=1; echo "stacks: failed" >&2; }
		cat "$TD/stacks.err" >&2
		echo "==STACKS-JSON"
		cat "$TD/stacks.json" 2> /dev/null
		echo "==STACKS-END"
		echo "bench.sh: stacks in $(( $(date +%s) - t0 ))s" >&2
		continue
	fi
	# shellcheck disable=SC2086
	$C bench $run -o "$TD/$suite.json" 2> "$TD/$suite.err" || rc=1
	cat "$TD/$suite.err" >&2
	echo "bench.sh: $suite in $(( $(date +%s) - t0 ))s" >&2
	echo "==BENCH-JSON $suite"
	cat "$TD/$suite.json"
	echo "==BENCH-END"
	echo
done
kill -TERM "$dpid"
wait "$dpid" || rc=1
exit $rc
