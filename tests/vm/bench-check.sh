#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/vm/bench-check.sh [--from DIR] [A B]: the host half of the bench
# tests. Runs every bench suite small (CI profile) in the guests of kernels
# A and B (default 6.1 and 6.12; e.g. 6.12 7.2), or takes
# DIR/KERNEL-SUITE.json from an earlier run (e.g. build/demo), checks each
# JSON against docs/bench.schema.json with python3-jsonschema (exact counts
# behind every ok point), then `tracectl bench compare` of the A and B runs
# must give the ratios computed from the two files, and refuse a
# mismatched pair. Never a timing assertion.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
O=${O:-$src/build}
dir=$O/bench-check
suites="trigger ops attach workload"
from=
if [ "${1:-}" = --from ]; then from=$2; shift 2; fi
ka=${1:-6.1} kb=${2:-6.12}
if [ -n "$from" ]; then
	dir=$from
	suites=""
	for s in trigger ops attach workload; do
		[ -s "$dir/$ka-$s.json" ] && [ -s "$dir/$kb-$s.json" ] && suites="$suites $s"
	done
else
	mkdir -p "$dir"
	for k in "$ka" "$kb"; do
		"$here/run" --kernel "$k" --timeout 1500 -- bash /opt/tracerd/tests/bench.sh \
			"trigger --ci -r 2 -w 0" "ops --ci -r 2 -w 0" "attach --ci -r 2 -w 0" \
			"workload --ci -r 2 -w 0" > "$dir/$k.log" 2> "$dir/$k.err" ||
			{ echo "FAIL: bench in the $k guest"; tail -n 30 "$dir/$k.log"; exit 1; }
		awk -v dir="$dir" -v name="$k" '
			/^==BENCH-JSON / { f = dir "/" name "-" $2 ".json"; printf "" > f; next }
			/^==BENCH-END/ { close(f); f = ""; next }
			f != "" { print > f }' "$dir/$k.log"
	done
fi
[ -n "$suites" ] || { echo "FAIL: no results in $dir"; exit 1; }
fail=0
for s in $suites; do
	python3 "$src/tests/host/bench-validate.py" "$src/docs/bench.schema.json" \
		"$dir/$ka-$s.json" "$dir/$kb-$s.json" || fail=1
	"$O/tracectl" --json bench compare "$dir/$ka-$s.json" "$dir/$kb-$s.json" \
		> "$dir/compare-$ka-$kb-$s.json" || { echo "FAIL: compare $s"; fail=1; continue; }
	python3 - "$dir/$ka-$s.json" "$dir/$kb-$s.json" "$dir/compare-$ka-$kb-$s.json" "$ka" "$kb" <<'PY' || fail=1
import json, math, sys
a, b, c = (json.load(open(p)) for p in sys.argv[1:4])
ka, kb = sys.argv[4:6]
pb = {p["key"]: p for p in b["points"]}
n = 0
for r in c["rows"]:
    if r["value"] is None:
        continue
    x = next(p for p in a["points"] if p["key"] == r["key"])["values"][r["value"]]["median"]
    y = pb[r["key"]]["values"][r["value"]]["median"]
    assert math.isclose(r["a"], x) and math.isclose(r["b"], y), r
    if x:
        assert math.isclose(r["ratio"], y / x, rel_tol=1e-9), (r, y / x)
    n += 1
missing = [p["key"] for p in a["points"] if p["key"] not in pb]
assert missing == c["only_in_a"], (missing, c["only_in_a"])
print(f"ok: compare {a['suite']} {ka} -> {kb}: {n} ratios agree with the JSON")
PY
done
set -- $suites
if [ $# -ge 2 ]; then
	out=$("$O/tracectl" bench compare "$dir/$ka-$1.json" "$dir/$kb-$2.json" 2>&1)
	[ $? = 2 ] && echo "$out" | grep -q "different suites" &&
		echo "ok: compare $1 vs $2 refused" || { echo "FAIL: mismatched compare: $out"; fail=1; }
fi
exit $fail
