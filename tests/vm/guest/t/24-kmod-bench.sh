# SPDX-License-Identifier: GPL-2.0-or-later
# tracerd_kmod in-kernel benchmarks return counted, consistent results in
# every mode: ops hook counts equal N x R (x reps) with no irrelevant hit (the module
# returns EPROTO otherwise), patch counts K for one hook on K functions and
# for K separate hooks. Times are reported, never asserted.
source ./lib.sh
load_kmod
n=$(size 2000 100000)
k=$(size 8 100)
modes=$(kmodctl features | sed -n 's/.*modes=\(0x[0-9a-f]*\).*/\1/p')
aflags=$(kmodctl features | sed -n 's/.*attach_flags=\(0x[0-9a-f]*\).*/\1/p')
[ $(( aflags & 1 )) != 0 ] && modes=$(( modes | (1 << 5) ))
has() { [ $(( modes & (1 << $1) )) != 0 ]; }
for spec in callops:1 callops-regs:5 direct:2 kprobe:3 kprobe-int3:4; do
	m=${spec%:*}
	has "${spec#*:}" || { echo "skip: $m not on this kernel"; continue; }
	for ri in "0 0" "0 3" "1 0" "1 3" "3 2"; do
		set -- $ri
		r=$1 i=$2
		[ "$m" = direct ] && [ "$r" -gt 1 ] && continue
		out=$(kmodctl bench-ops "$m" "$n" "$r" "$i") || fail "ops $m R=$r I=$i: $out"
		echo "$out" | grep -q " hits=$((n * r)) irrelevant_hits=0$" || fail "ops $m: $out"
		echo "ok: ops $m: $out"
	done
	# fastest of 3 runs: every run is counted
	out=$(kmodctl bench-ops "$m" "$n" 1 1 --reps 3) || fail "ops $m reps 3: $out"
	echo "$out" | grep -q " hits=$((n * 3)) irrelevant_hits=0$" || fail "ops $m reps 3: $out"
	echo "ok: ops $m: $out"
	out=$(kmodctl bench-patch "$m" "$k") || fail "patch $m: $out"
	echo "$out" | grep -q " one_hits=$k sep_hits=$k$" || fail "patch $m: $out"
	echo "ok: patch $m: $out"
done
kmodctl clean || fail "not clean after the test"
unload_mod tracerd_kmod
