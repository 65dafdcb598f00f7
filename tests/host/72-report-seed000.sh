#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tracectl bench report: seed 000's table (docs/origins.md) side by side. Inputs: ops runs
# of riscv64 6.12 (no CALL_OPS) and 7.2 (CALL_OPS), arm64 6.1 and 6.12 and
# x86 6.12 (tests/host/data/seed000/: the arm64 and x86 ones recorded in
# guests, the riscv64 ones synthetic, gen-riscv64.py), given in a shuffled
# order. tests/host/seed000-check.py computes from the JSON every cell of
# the screen's table and of the page's, the column order, and both ratios
# under the table, and compares; this script adds the cases the fixtures
# alone do not have: a missing kernel, an overhead at or below 0 (noise),
# an unavailable kmod-callops, an error point, and the rows left out when
# nothing is in them.
source "$(dirname "$0")/lib/daemon.bash"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
D=$SRC/tests/host/data/seed000
CHECK="python3 $SRC/tests/host/seed000-check.py"
rv612=$D/bench-6.12-riscv64-ops.json rv72=$D/bench-7.2-riscv64-ops.json
a61=$D/bench-6.1-arm64-ops.json a612=$D/bench-6.12-arm64-ops.json x612=$D/bench-6.12-ops.json

# report NAME FILE...: screen to $W/NAME.txt, page to $W/NAME.html, then the check
report() {
	local name=$1
	shift
	$TRACECTL bench report --html "$W/$name.html" "$@" > "$W/$name.txt" ||
		fail "$name: bench report exited $?"
	$CHECK "$W/$name.txt" "$W/$name.html" "$@" || { sed -n '/^Seed 000 side/,/^$/p' \
		"$W/$name.txt"; fail "$name: the seed 000 section disagrees with the JSON"; }
	# the conclusions (seed 000's effect per kernel: shows, within noise, n/a) and every
	# number of the page against the JSON
	python3 "$SRC/tests/host/report-trace.py" "$W/$name.html" "$W/$name.txt" "$@" ||
		fail "$name: the conclusions or the page's numbers disagree with the JSON"
}
# effect KERNEL: the conclusion on seed 000's effect on KERNEL, in NAME's screen
effect() { sed -n '/^What these results say/,/^$/p' "$W/$1.txt" | tr '\n' ' ' | sed 's/  */ /g; s/ - /\n/g' |
	grep "^On $2 .*seed 000's effect"; }
# section NAME: the screen's seed 000 section
section() { sed -n '/^Seed 000 side by side/,/^$/p' "$W/$1.txt"; }

# all five, shuffled: the columns come in the demo's order
report all "$x612" "$a61" "$rv72" "$a612" "$rv612"
expect_eq "columns" "$(section all | sed -n 2p | sed 's/  */ /g')" \
	" R/I seed 000 K1 seed 000 K1 6.12 riscv64 7.2 riscv64 6.1 aarch64 6.12 aarch64 6.12 x86_64"
section all | grepq '^    6.12 riscv64  *kmod-callops 1/200 over 1/0: [0-9]* / [0-9]* = [0-9.]*x' ||
	fail "no 1/200 ratio for riscv64 6.12"
section all | grepq '^    6.1 aarch64  *kmod-callops 1/2 over 1/0 (Imax 2, not 200): ' ||
	fail "Imax other than 200 not stated"
section all | grepq '^    riscv64: 7.2 riscv64 over 6.12 riscv64: [0-9]* / [0-9]* = 0\.[0-9]*x$' ||
	fail "no riscv64 CALL_OPS ratio"
section all | grepq '^    aarch64: 6.12 aarch64 over 6.1 aarch64: ' || fail "no aarch64 CALL_OPS ratio"
section all | grepq 'no .* run' && fail "a kernel said missing although all five are there"
effect all "6.12 riscv64" | grepq "seed 000's effect shows: 200 irrelevant tracers make a kmod-callops call cost [0-9]*x what it costs with none" ||
	fail "riscv64 6.12's effect: $(effect all "6.12 riscv64")"
expect_eq "conclusions on seed 000's effect" "$(sed -n '/^What these results say/,/^$/p' "$W/all.txt" |
	grep -c "^  - On .* seed 000's effect")" 5

# riscv64 6.12 missing: said under the table and for the riscv64 ratio
report missing "$rv72" "$a61" "$a612" "$x612"
expect_eq "missing kernel, under the table" "$(section missing | grep -c '^    no 6.12-riscv64 run$')" 1
expect_eq "missing kernel, riscv64 ratio" \
	"$(section missing | grep -c '^    riscv64: no 6.12-riscv64 run$')" 1
section missing | grepq '6.12 riscv64' && fail "a column for the missing kernel"

# noise: 7.2 riscv64's 1/0 overhead at or below 0 (every sample negative)
python3 - "$rv72" "$W/noise.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["points"]:
    if p["key"] == "kmod-callops/R1/I0":
        v = p["values"]["overhead_ns"]
        v["samples"] = [-s / 100 - 1 for s in v["samples"]]
        v["min"], v["median"], v["max"] = sorted(v["samples"])
json.dump(d, open(sys.argv[2], "w"))
EOF
report noise "$W/noise.json" "$rv612"
section noise | grepq '^    7.2 riscv64 (CALL_OPS)  *kmod-callops 1/200 over 1/0: noise: 1/200 [0-9.]* ns, 1/0 -[0-9.]* ns' ||
	fail "7.2 riscv64's noise not said"
section noise | grepq '^    riscv64: 7.2 riscv64 over 6.12 riscv64: noise: 7.2 riscv64 -[0-9.]* ns' ||
	fail "riscv64's CALL_OPS ratio: noise not said"
effect noise "7.2 riscv64" | grepq "seed 000's effect is within noise: 200 irrelevant tracers make a kmod-callops call cost no ratio" ||
	fail "7.2 riscv64's noise in the conclusions: $(effect noise "7.2 riscv64")"
expect_eq "noise: missing arm64 and x86 kernels" \
	"$(section noise | grep -c '^    no 6.1-arm64 run; no 6.12-arm64 run; no 6.12 (x86_64) run$')" 1

# negligible: 6.12 x86_64's 1/Imax 2 % over its 1/0, every sample apart
# (icount's steady runs): not called an effect
python3 - "$x612" "$W/negl.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
pts = {p["key"]: p for p in d["points"]}
imax = max(p["labels"]["irrelevant"] for p in d["points"] if p["labels"].get("mode") ==
           "kmod-callops" and p["labels"].get("relevant") == 1 and p["status"] == "ok")
for key, x in (("kmod-callops/R1/I0", 100.0), (f"kmod-callops/R1/I{imax}", 102.0)):
    v = pts[key]["values"]["overhead_ns"]
    v["samples"] = [x] * len(v["samples"])
    v["min"] = v["median"] = v["max"] = x
json.dump(d, open(sys.argv[2], "w"))
EOF
report negl "$W/negl.json"
effect negl "6.12 x86_64" | grepq "seed 000's effect is negligible (under 5 %, the samples apart): [0-9]* irrelevant tracers make a kmod-callops call cost 1.02x" ||
	fail "a 2 % difference called an effect: $(effect negl "6.12 x86_64")"

# runs of I <= 2 only (the arm64 ones): the rows nothing measured and the
# seed gives no figure for (0/10, 0/100, 0/200) are left out
report small "$a612" "$a61"
expect_eq "rows of the small runs" "$(section small | grep -c '^  [0-9]*/[0-9]* ')" 11
section small | grepq '^  0/10 ' && fail "a row of '-' only"

# unavailable: x86 6.12 without kmod-callops (its 0/0 point unavailable, no
# other); an error point on arm64 6.1 (1/2): Imax falls back to 1
python3 - "$x612" "$W/na.json" "$a61" "$W/err.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["points"] = [p for p in d["points"] if not p["key"].startswith("kmod-callops/")
               or p["key"] == "kmod-callops/R0/I0"]
p0 = next(p for p in d["points"] if p["key"] == "kmod-callops/R0/I0")
p0.update(status="unavailable", reason="kmod ops benchmark: Operation not supported (EOPNOTSUPP)",
          values={}, counts={})
json.dump(d, open(sys.argv[2], "w"))
d = json.load(open(sys.argv[3]))
p = next(p for p in d["points"] if p["key"] == "kmod-callops/R1/I2")
p.update(status="error", reason="hooks counted 1 + 0 irrelevant, expected 2000", values={})
json.dump(d, open(sys.argv[4], "w"))
EOF
report na "$W/na.json" "$W/err.json" "$a612"
expect_eq "n/a cells of the x86 column" \
	"$(section na | awk 'NR > 3 && NR <= 17 { print $NF }' | sort | uniq -c | sed 's/^ *//')" "14 n/a"
section na | grepq '^  1/2 .* error ' || fail "no error cell"
section na | grepq '^    6.12 x86_64  *kmod-callops n/a: kmod ops benchmark: Operation not supported' ||
	fail "unavailable kmod-callops not said"
section na | grepq '^    6.1 aarch64  *kmod-callops 1/1 over 1/0 (Imax 1, not 200): ' ||
	fail "Imax not the largest measured I"
effect na "6.12 x86_64" | grepq "seed 000's effect: n/a (kmod-callops unavailable: kmod ops benchmark: Operation not supported (EOPNOTSUPP))." ||
	fail "the unavailable kmod-callops in the conclusions: $(effect na "6.12 x86_64")"
exit 0
