# SPDX-License-Identifier: GPL-2.0-or-later
# The metrics renderers' output (tests/unit/test_metrics samples) passes
# real validators: `promtool check metrics` (Debian package prometheus) and
# the JSON Schema in docs/metrics.schema.json (python3-jsonschema).
set -u
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
METRICS_SAMPLE_DIR=$d "$O/tests/unit/test_metrics" >/dev/null || { echo "test_metrics failed"; exit 1; }
python3 "$SRC/tests/host/metrics-validate.py" "$SRC/docs/metrics.schema.json" "$d/sample.json" "$d/empty.json" ||
	exit 1
command -v promtool >/dev/null || { echo "promtool missing (Debian package prometheus; make deps)"; exit 77; }
for f in sample empty process; do
	out=$(promtool check metrics < "$d/$f.prom" 2>&1) || { echo "promtool: $f.prom: $out"; exit 1; }
	[ -z "$out" ] || { echo "promtool lint: $f.prom: $out"; exit 1; }
	echo "ok: promtool $f.prom"
done
