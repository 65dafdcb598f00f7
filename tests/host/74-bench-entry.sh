#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tracectl bench entry on this host, which cannot load modules: without
# the test module it says exactly what to load (exit 1, before and with a
# daemon; --json: {"error": {"code": "no_module"}}) and loads nothing; bad
# options exit 2. Results recorded in 6.12 x86_64 and arm64 guests
# (tests/host/data/, tests/vm/guest/t/28-bench-entry.sh) validate against
# the schema with exact counts, `bench show` prints the table with the seed
# 003 line, and `compare` puts the two arches side by side.
source "$(dirname "$0")/lib/daemon.bash"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
D=$SRC/tests/host/data
entry=("$D/bench-6.12-entry.json" "$D/bench-6.12-arm64-entry.json")

$TRACECTL bench entry -n 0 > /dev/null 2>&1
expect_eq "bench entry -n 0: exit" "$?" 2
$TRACECTL bench entry --rounds 0 > /dev/null 2>&1
expect_eq "bench entry --rounds 0: exit" "$?" 2
$TRACECTL bench entry extra > /dev/null 2>&1
expect_eq "bench entry with an extra argument: exit" "$?" 2
$TRACECTL bench entry --help | grepq '^  entry ' || fail "bench --help lacks entry"

if [ -e /sys/module/tracerd_testmod ]; then
	ok "tracerd_testmod is loaded here: the module-absent checks are skipped"
else
	for daemon in without with; do
		cl=$TRACECTL
		[ $daemon = with ] && { start_daemon; cl=$C; }
		out=$($cl bench entry 2>&1)
		expect_eq "no module, $daemon a daemon: exit" "$?" 1
		grep -q "load it with 'insmod tracerd_testmod.ko'" <<< "$out" ||
			fail "no module: does not say what to load: $out"
		expect_eq "no module, $daemon a daemon: --json code" \
			"$($cl --json bench entry 2>/dev/null | jq -r .error.code)" no_module
	done
	[ -e /sys/module/tracerd_testmod ] && fail "bench entry loaded the module"
	stop_daemon
	ok "without the module: what to load, nothing loaded"
fi

if python3 -c 'import jsonschema' 2>/dev/null; then
	python3 "$SRC/tests/host/bench-validate.py" "$SRC/docs/bench.schema.json" "${entry[@]}" ||
		fail "recorded entry results do not validate"
fi
for f in "${entry[@]}"; do
	$TRACECTL bench show "$f" > "$W/show.txt" || fail "bench show $f"
	grep -q '^seed 003: ' "$W/show.txt" || fail "bench show $f: no seed 003 line"
	expect_eq "$(basename "$f"): table rows" "$(grep -c '^\(traceable\|notrace\|asm-\)' \
		"$W/show.txt")" "$(jq '.points | length' < "$f")"
done
$TRACECTL bench compare "${entry[@]}" > "$W/cmp.txt" || fail "bench compare x86_64 arm64"
grep -q 'traceable' "$W/cmp.txt" || fail "compare lacks the traceable twin"
ok "show and compare of recorded entry results"
