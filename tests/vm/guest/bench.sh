#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench.sh "SUITE [OPTIONS]"...: guest side of `make demo` and of the
# host's bench checks: load the modules, start a private tracerd, run each
# suite with its options and print its table (`entry` needs only the test
# module, loaded here like tracerd_kmod); the JSON of each run is also
# printed between ==BENCH-JSON SUITE and ==BENCH-END so the host keeps it.
# Progress goes to a file (the serial console is a TTY, the host is not).
source /opt/tracerd/tests/lib.sh
TD=/run/tracerd-bench
mkdir -p "$TD"
load_kmod
load_testmod
printf 'listen = off\nstate_dir = %s/state\n' "$TD" > "$TD/tracerd.conf"
tracerd --config "$TD/tracerd.conf" --socket "$TD/s.sock" 2> "$TD/daemon.log" &
dpid=$!
for i in $(seq 1 300); do [ -S "$TD/s.sock" ] && break; sleep 0.1; done
[ -S "$TD/s.sock" ] || { cat "$TD/daemon.log"; fail "tracerd did not start"; }
rc=0
[ $# -gt 0 ] || set -- "trigger" "ops" "entry"
for run in "$@"; do
	suite=${run%% *}
	# shellcheck disable=SC2086
	tracectl --socket "$TD/s.sock" bench $run -o "$TD/$suite.json" 2> "$TD/$suite.err" || rc=1
	cat "$TD/$suite.err" >&2
	echo "==BENCH-JSON $suite"
	cat "$TD/$suite.json"
	echo "==BENCH-END"
	echo
done
kill -TERM "$dpid"
wait "$dpid" || rc=1
exit $rc
