#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tracectl bench report: the screen make demo ends with fits 66 lines (60
# before seed 000's table (docs/origins.md) side by side: 14 rows at most, and its ratios;
# tests/host/72-report-seed000.sh checks that section) and
# names the cheapest path per kernel; the HTML page, rendered by a real
# browser (Debian's headless Chromium), loads without a console message
# (no script error, no resource it fails to load: it is self-contained),
# and every plot carries one mark per data point of the results
# (tests/host/report-check.py counts them from the JSON). Inputs: results
# recorded in 6.1 x86_64 and 6.12 arm64 guests (tests/host/data/); the
# "Entry sequence (seed 003)" section has the seed's figure and arm64's.
# With ops results only (make demo DEMO_SUITES=ops) the trigger table and
# the overhead and attach plots give way to a line saying there are none.
source "$(dirname "$0")/lib/daemon.bash"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
D=$SRC/tests/host/data
files=("$D"/bench-6.1-{trigger,ops,attach}.json "$D"/bench-6.12-arm64-{trigger,ops,attach,entry}.json)
mkdir -p "$W/demo"
cp "${files[@]}" "$W/demo/"
local_files=("$W"/demo/*.json)
$TRACECTL bench report --html "$W/demo/index.html" "${local_files[@]}" > "$W/screen.txt" ||
	fail "bench report"
n=$(grep -vc '^report page:' "$W/screen.txt")
[ "$n" -le 66 ] || fail "the screen has $n lines (at most 66)"
ok "summary screen: $n lines"
for k in "6.1 x86_64" "6.12 aarch64"; do
	head -n 5 "$W/screen.txt" | grepq "$k" || fail "screen lacks a column for $k"
done
expect_eq "cheapest path per kernel" "$(grep -c '^  cheapest  *[a-z]' "$W/screen.txt")" 1
python3 "$SRC/tests/host/seed000-check.py" "$W/screen.txt" "$W/demo/index.html" "${local_files[@]}" ||
	fail "seed 000 section"
grep -q 'Unavailable here, and why' "$W/screen.txt" || fail "no unavailable section"
grep -q 'kprobe-multi (6.1 x86_64): .*CONFIG_FPROBE' "$W/screen.txt" ||
	fail "6.1's missing kprobe-multi not explained"
grep -q '^Entry sequence (seed 003)' "$W/screen.txt" || fail "no entry sequence section"
grep -q '43.899 s `nop; nop`, 44.835 s `mov x9, lr; nop`: "a ~2% hit"' "$W/screen.txt" ||
	fail "entry section lacks the seed's figure"
grep -q '^  6.12 aarch64 .*traceable `mov x9, x30; nop`: [-+][0-9.]* (.*); `mov x9, x30; nop` vs `nop; nop`: [-+][0-9]' \
	"$W/screen.txt" || fail "entry section lacks the arm64 figures"
grep -q '^  6.1 x86_64' <(sed -n '/^Entry sequence/,/^$/p' "$W/screen.txt") &&
	fail "entry section has a line for a kernel without entry results"
$TRACECTL bench report > /dev/null 2>&1
expect_eq "report without files: exit" "$?" 2

# ops results only (make demo DEMO_SUITES=ops): no empty trigger table, the
# page has no overhead nor attach plot but says why
mkdir -p "$W/ops"
cp "$D/bench-6.1-ops.json" "$D/bench-6.12-arm64-ops.json" "$W/ops/"
ops_files=("$W"/ops/*.json)
$TRACECTL bench report --html "$W/ops/index.html" "${ops_files[@]}" > "$W/ops.txt" ||
	fail "bench report, ops only"
expect_eq "ops only: the trigger section says there is none" \
	"$(sed -n '/^Overhead per traced call/,/^$/p' "$W/ops.txt" | sed 1d)" "  (no bench trigger results)"
grep -q '^  cheapest' "$W/ops.txt" && fail "ops only: a 'cheapest' row without trigger results"
grep -q '^Seed 000 side by side' "$W/ops.txt" || fail "ops only: no seed 000 section"
grep -q '<p>No bench trigger results.</p>' "$W/ops/index.html" || fail "ops only: page: no trigger note"
grep -q '<p>No bench attach results.</p>' "$W/ops/index.html" || fail "ops only: page: no attach note"
ok "ops only: the trigger and attach sections say there are no results"

command -v chromium > /dev/null || skip "chromium not installed (Debian package chromium; make deps)"
CH=(chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run
    --disable-background-networking --disable-component-update --disable-sync
    --user-data-dir="$W/profile" --enable-logging=stderr --v=0)
timeout 120 "${CH[@]}" --dump-dom "file://$W/demo/index.html" > "$W/dom.html" 2> "$W/chromium.log" ||
	fail "chromium --dump-dom: $(tail -n 3 "$W/chromium.log")"
[ -s "$W/dom.html" ] || fail "chromium rendered nothing"
if grep -E ':CONSOLE(:|\()' "$W/chromium.log" | grep -F "index.html" > "$W/console.txt"; then
	fail "console messages on the page: $(head -n 5 "$W/console.txt")"
fi
ok "page loaded in chromium with no console message"
python3 "$SRC/tests/host/report-check.py" "$W/dom.html" "${local_files[@]}" || fail "report page plots"
timeout 120 "${CH[@]}" --dump-dom "file://$W/ops/index.html" > "$W/ops-dom.html" 2> "$W/chromium-ops.log" ||
	fail "chromium --dump-dom (ops only): $(tail -n 3 "$W/chromium-ops.log")"
if grep -E ':CONSOLE(:|\()' "$W/chromium-ops.log" | grep -F "index.html" > "$W/console.txt"; then
	fail "console messages on the ops-only page: $(head -n 5 "$W/console.txt")"
fi
python3 "$SRC/tests/host/report-check.py" "$W/ops-dom.html" "${ops_files[@]}" || fail "ops-only page plots"
if [ -n "${REPORT_SCREENSHOT:-}" ]; then
	timeout 120 "${CH[@]}" --window-size=1300,3200 --screenshot="$REPORT_SCREENSHOT" \
		"file://$W/demo/index.html" 2> /dev/null
fi
exit 0
