#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/vm/bench-check.sh [--from DIR]: the host half of the bench tests.
# Runs every bench suite small (CI profile) in the 6.1 and 6.12 guests (or
# takes DIR/KERNEL-SUITE.json from an earlier run, e.g. build/demo), checks
# each JSON against docs/bench.schema.json with python3-jsonschema (exact
# counts behind every ok point), then `tracectl bench compare` of the 6.1
# and 6.12 runs must give the ratios computed from the two files, and
# refuse a mismatched pair. Never a timing assertion.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
O=${O:-$src/build}
dir=$O/bench-check
suites="trigger ops attach workload"
if [ "${1:-}" = --from ]; then
	dir=$2
	suites=""
	for s in trigger ops attach workload; do
		[ -s "$dir/6.1-$s.json" ] && [ -s "$dir/6.12-$s.json" ] && suites="$suites $s"
	done
else
	mkdir -p "$dir"
	for k in 6.1 6.12; do
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
		"$dir/6.1-$s.json" "$dir/6.12-$s.json" || fail=1
	"$O/tracectl" --json bench compare "$dir/6.1-$s.json" "$dir/6.12-$s.json" \
		> "$dir/compare-$s.json" || { echo "FAIL: compare $s"; fail=1; continue; }
	python3 - "$dir/6.1-$s.json" "$dir/6.12-$s.json" "$dir/compare-$s.json" <<'PY' || fail=1
import json, math, sys
a, b, c = (json.load(open(p)) for p in sys.argv[1:])
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
print(f"ok: compare {a['suite']} 6.1 -> 6.12: {n} ratios agree with the JSON")
PY
done
set -- $suites
if [ $# -ge 2 ]; then
	out=$("$O/tracectl" bench compare "$dir/6.1-$1.json" "$dir/6.12-$2.json" 2>&1)
	[ $? = 2 ] && echo "$out" | grep -q "different suites" &&
		echo "ok: compare $1 vs $2 refused" || { echo "FAIL: mismatched compare: $out"; fail=1; }
fi
exit $fail
