#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tracectl bench report: the screen make demo ends with fits 84 lines
# (seed 000's table, docs/origins.md, side by side: 14 rows at most, and its
# ratios; tests/host/72-report-seed000.sh checks that section), names the
# machine of each kernel and the cheapest path per kernel, and begins with
# the conclusions, the same sentences as the page's. The HTML page, rendered
# by a real browser (Debian's headless Chromium), loads without a console
# message (no script error, no resource it fails to load: it is
# self-contained); every plot carries one mark per data point of the
# results (tests/host/report-check.py counts them from the JSON); every
# number on it names the JSON value it came from and shows it, and the
# conclusions say what the JSON says (tests/host/report-trace.py, which a
# tampered result makes fail); at 1400 and 800 px wide no two texts of a
# chart overlap nor leave it, seed 000's table stands beside its plot at
# 1400 px, nothing is wider than the window at 800 px
# (tests/host/report-probe.js measures the text boxes in the page; also with
# six kernels, the seed 000 ops runs of data/seed000/ added), and
# screenshots are taken at both widths (REPORT_SHOTS=DIR keeps them). The
# flame graph: a stacks file beside the page (stacks-KERNEL.json, KERNEL
# the name of results KERNEL-SUITE.json, as make demo names them) is drawn
# inline, with the frames `tracectl flame` draws of the same stacks, and
# zooms on a click in the page (its own inline script).
# Inputs: results recorded in 6.1 x86_64 and 6.12 arm64 guests
# (tests/host/data/), and a real `tracectl --json stats ID --stacks --top
# 40` of tp:kmem/kmalloc attached with --stacks (mode tp-btf) on a 6.18
# x86_64 host (data/stacks-host-kmalloc.json), placed as the 6.1 kernel's.
# The "Entry sequence (seed 003)" section has the seed's figure and
# arm64's. With ops results only (make demo DEMO_SUITES=ops) the trigger
# table and the overhead and attach plots give way to a line saying there
# are none.
source "$(dirname "$0")/lib/daemon.bash"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
D=$SRC/tests/host/data
files=("$D"/bench-6.1-{trigger,ops,attach}.json "$D"/bench-6.12-arm64-{trigger,ops,attach,entry}.json)
mkdir -p "$W/demo"
for f in "${files[@]}"; do	# named as make demo names them: KERNEL-SUITE.json
	b=${f##*/}
	cp "$f" "$W/demo/${b#bench-}"
done
cp "$D/stacks-host-kmalloc.json" "$W/demo/stacks-6.1.json"
local_files=("$W"/demo/6.*.json)
$TRACECTL bench report --html "$W/demo/index.html" "${local_files[@]}" > "$W/screen.txt" ||
	fail "bench report"
n=$(grep -vc '^report page:' "$W/screen.txt")
[ "$n" -le 84 ] || fail "the screen has $n lines (at most 84)"
ok "summary screen: $n lines"
for k in "6.1 x86_64" "6.12 aarch64"; do
	sed -n '/^Overhead per traced call/,+1p' "$W/screen.txt" | grepq "$k" ||
		fail "screen lacks a column for $k"
done
grepq -xF '  6.1 x86_64     kernel 6.1.0-57-amd64, host tracerd-vm, CPU QEMU TCG CPU version 2.5+, 2 cores (hypervisor); 2026-12-01' \
	"$W/screen.txt" || fail "no machine line for 6.1: $(sed -n 3,5p "$W/screen.txt")"
expect_eq "conclusions first, after the machines" \
	"$(sed -n '/^What these results say/=' "$W/screen.txt")" 7
expect_eq "conclusions: 2 cheapest paths, the seed's, 2 effects" \
	"$(sed -n '/^What these results say/,/^$/p' "$W/screen.txt" | grep -c '^  - ')" 5
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
python3 "$SRC/tests/host/report-trace.py" "$W/dom.html" "$W/screen.txt" "${local_files[@]}" \
	"$W/demo/stacks-6.1.json" || fail "the page's numbers and conclusions against the JSON"
# the check can fail: one median changed after the page was made
mkdir -p "$W/tampered"
jq '(.points[] | select(.key == "kmod-direct/count") | .values.overhead_ns.median) |= . + 3' \
	"$W/demo/6.1-trigger.json" > "$W/tampered/6.1-trigger.json"
python3 "$SRC/tests/host/report-trace.py" "$W/dom.html" "$W/screen.txt" \
	"$W/tampered/6.1-trigger.json" "$W"/demo/6.1-{ops,attach}.json "$W"/demo/6.12-arm64-*.json \
	"$W/demo/stacks-6.1.json" > "$W/tampered.txt" && fail "a tampered median passed the check"
grepq -F 'FAIL: span data-v=6.1-trigger.json#points[key=kmod-direct/count].values.overhead_ns.median: shows' \
	"$W/tampered.txt" || fail "the tampered median not named: $(head -n 3 "$W/tampered.txt")"
ok "a tampered median is found"
timeout 120 "${CH[@]}" --dump-dom "file://$W/ops/index.html" > "$W/ops-dom.html" 2> "$W/chromium-ops.log" ||
	fail "chromium --dump-dom (ops only): $(tail -n 3 "$W/chromium-ops.log")"
if grep -E ':CONSOLE(:|\()' "$W/chromium-ops.log" | grep -F "index.html" > "$W/console.txt"; then
	fail "console messages on the ops-only page: $(head -n 5 "$W/console.txt")"
fi
python3 "$SRC/tests/host/report-check.py" "$W/ops-dom.html" "${ops_files[@]}" || fail "ops-only page plots"
python3 "$SRC/tests/host/report-trace.py" "$W/ops-dom.html" "$W/ops.txt" "${ops_files[@]}" ||
	fail "the ops-only page's numbers and conclusions"

# the flame graph: inline, the frames of tracectl flame of the same stacks (a fake daemon serves them)
python3 "$SRC/tests/host/lib/fake_daemon.py" "$W/f.sock" "$W/demo/stacks-6.1.json" "$W/requests" &
FAKE=$!
trap 'kill $FAKE 2>/dev/null; cleanup' EXIT
for i in $(seq 50); do [ -S "$W/f.sock" ] && break; sleep 0.1; done
$TRACECTL --socket "$W/f.sock" flame -o "$W/flame.svg" || fail "tracectl flame"
want=$(grep -c '<g class="frame"' "$W/flame.svg")
[ "$want" -gt 20 ] || fail "tracectl flame drew $want frames"
expect_eq "flame frames on the page" "$(grep -o '<g class="frame"' "$W/dom.html" | wc -l)" "$want"
grepq -F '<a class="stacks" href="stacks-6.1.json">' "$W/dom.html" || fail "no link to the stacks file"
grepq -F 'No stacks-KERNEL.json beside this page' "$W/ops-dom.html" ||
	fail "the ops-only page does not say it has no stacks"
# stacks files that are not stats replies with stacks: said in place of the graph
mkdir -p "$W/bad"
cp "$W/demo/6.1-ops.json" "$W/demo/6.12-arm64-ops.json" "$W/bad/"
printf '{"x": 1}\n' > "$W/bad/stacks-6.1.json"
cp "$D/stacks-none.json" "$W/bad/stacks-6.12-arm64.json"
$TRACECTL bench report --html "$W/bad/index.html" "$W"/bad/6.*.json > /dev/null ||
	fail "bench report with bad stacks files"
grepq -F 'Not the output of <code>tracectl --json stats ID --stacks</code> (no "stats" array): no flame graph.' \
	"$W/bad/index.html" || fail "a stacks file without stats not said"
grepq -F 'No stacks in it (its attachments were made without <code>--stacks</code>).' \
	"$W/bad/index.html" || fail "a stacks file without stacks not said"
grepq 'class="flame"' "$W/bad/index.html" && fail "a flame graph of no stacks"
ok "stacks files: a flame graph of each beside the page, a bad one said so"

# layout at 1400 and 800 px, measured in the page by a probe appended to a copy
{ sed 's|</body></html>$||' "$W/demo/index.html"; echo '<script>'
  cat "$SRC/tests/host/report-probe.js"; echo '</script></body></html>'; } > "$W/demo/probe.html"
for w in 1400 800; do
	timeout 120 "${CH[@]}" --window-size=$w,1000 --dump-dom "file://$W/demo/probe.html" \
		> "$W/probe-$w.html" 2> /dev/null || fail "chromium --dump-dom at $w px"
	python3 "$SRC/tests/host/report-layout.py" "$W/probe-$w.html" $w > "$W/probe-$w.txt" ||
		fail "layout at $w px: $(cat "$W/probe-$w.txt")"
	ok "layout at $w px: $(cat "$W/probe-$w.txt")"
	h=$(sed -n 's/.* \([0-9]*\) px high$/\1/p' "$W/probe-$w.txt")
	timeout 120 "${CH[@]}" --hide-scrollbars --window-size=$w,"$h" \
		--screenshot="$W/report-$w.png" "file://$W/demo/index.html" 2> /dev/null ||
		fail "chromium --screenshot at $w px"
	[ -s "$W/report-$w.png" ] || fail "no screenshot at $w px"
	if [ -n "${REPORT_SHOTS:-}" ]; then cp "$W/report-$w.png" "$REPORT_SHOTS/"; fi
done
ok "screenshots at 1400 and 800 px${REPORT_SHOTS:+ (in $REPORT_SHOTS)}"

# six kernels, as make demo-all reports them (the seed 000 ops runs beside the two
# above): seed 000's table of 8 columns still beside its plot at 1400 px, 13 lines
# in its legend, the conclusions and numbers as the JSON says
mkdir -p "$W/six"
cp "$W"/demo/6.*.json "$W/six/"
for k in 6.12-riscv64 7.2-riscv64 6.1-arm64 6.12; do cp "$D/seed000/bench-$k-ops.json" "$W/six/$k-ops.json"; done
six_files=("$W"/six/*.json)
$TRACECTL bench report --html "$W/six/index.html" "${six_files[@]}" > "$W/six.txt" || fail "six kernels"
python3 "$SRC/tests/host/report-trace.py" "$W/six/index.html" "$W/six.txt" "${six_files[@]}" ||
	fail "six kernels: the page's numbers and conclusions"
{ sed 's|</body></html>$||' "$W/six/index.html"; echo '<script>'
  cat "$SRC/tests/host/report-probe.js"; echo '</script></body></html>'; } > "$W/six/probe.html"
for w in 1400 800; do
	timeout 120 "${CH[@]}" --window-size=$w,1000 --dump-dom "file://$W/six/probe.html" \
		> "$W/six-$w.html" 2> /dev/null || fail "chromium --dump-dom at $w px (six kernels)"
	python3 "$SRC/tests/host/report-layout.py" "$W/six-$w.html" $w > "$W/six-$w.txt" ||
		fail "six kernels, layout at $w px: $(cat "$W/six-$w.txt")"
	ok "six kernels, layout at $w px: $(cat "$W/six-$w.txt")"
done
exit 0
