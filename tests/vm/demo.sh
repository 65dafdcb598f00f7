#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make demo: `tracectl bench trigger`, `ops`, `attach` and `entry` on each test
# kernel (QEMU TCG: the counts are real, the times are emulator times), one
# boot per suite with a progress line each, then `tracectl bench report`:
# one screen of what the runs found (with seed 000's table, docs/origins.md, side by side:
# its two columns, then riscv64 6.12, riscv64 7.2, arm64 6.1, arm64 6.12
# and x86 6.12, and its two effects as measured ratios), and
# build/demo/index.html with the plots. The full tables and the compare
# tables (6.1 -> 6.12, 6.12 -> 7.2, 6.12 -> 6.12-arm64, 6.1-arm64 ->
# 6.12-arm64, 6.12-riscv64 -> 7.2-riscv64) stay in build/demo/ files. With
# DEMO_HOST=1 and a host kernel that allows every path, the host kernel is
# used instead.
#   VM_KERNEL     kernels (default: 6.1 6.12 7.2 6.12-arm64 6.1-arm64 6.12-riscv64
#                 7.2-riscv64; DEMO_QUICK=1: 6.12)
#   DEMO_QUICK=1  small sizes on one kernel: a few minutes
#   DEMO_SUITES   suites to run (default: trigger ops attach entry;
#                 e.g. DEMO_SUITES=ops: seed 000's table only)
#   DEMO_REPORT_KERNELS  kernels whose results in build/demo the report takes (default:
#                 VM_KERNEL's; results of earlier runs stay there, one file per kernel
#                 and suite, so kernels run one at a time can be reported together:
#                 DEMO_REPORT_KERNELS="6.12-riscv64 7.2-riscv64 6.1-arm64 6.12-arm64 6.12")
#   DEMO_TRIGGER  trigger options (default: -n 50000 -r 5 -w 1 --peers and every
#                 mode, the session forms included: bpftrace and the reference
#                 programs on the same loop)
#   DEMO_OPS      ops options (default: -n 5000 -r 3 -w 0 --relevant 0,1,2,10
#                 --irrelevant 0,1,2,10,100,200: seed 000's cross, R = 0 and 1
#                 against every I, every R against I = 0; under TCG, attaching and
#                 detaching hundreds of ftrace_ops dominates; tracectl's defaults are
#                 the seed's whole grid, R up to 200)
#   DEMO_OPS_RISCV64  ops options on the riscv64 kernels (default: DEMO_OPS when set,
#                 else -n 2000 -r 3 -w 0 --modes kmod-callops,kmod-direct and the same
#                 cross up to I = 200: riscv64 TCG is some 3-5x slower than the
#                 others, and the seed's table needs kmod-callops only; kmod-direct
#                 for the report's second ratio)
#   DEMO_ENTRY    entry options (default: -n 1000000 --rounds 9 -w 1: the untraced
#                 entry sequence against its notrace twin, seed 003)
#   VM_ICOUNT=N   QEMU -icount: the guests' clocks count instructions (2^N ns
#                 each), so the times repeat from run to run (docs/bench.md)
#   DEMO_ATTACH   attach options (default: -k 1,16 -r 3 -w 1; K = 256 separate hooks
#                 take minutes per mode under TCG)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
O=${O:-$src/build}
out=$O/demo
mkdir -p "$out"
# every mode tracerd has (those the kernel lacks are reported unavailable):
# bench trigger's defaults, then the session forms and fentry-multi
all_modes=kprobe,kprobe-int3,kprobe-multi,kprobe-session,fentry,fentry-multi,fsession
all_modes=$all_modes,kmod-callops,kmod-callops+regs,kmod-direct,kmod-kprobe,kmod-kprobe-int3
if [ "${DEMO_QUICK:-0}" = 1 ]; then
	trig="trigger ${DEMO_TRIGGER:--n 5000 -r 3 -w 1 --peers}"
	ops="ops ${DEMO_OPS:--n 2000 -r 2 -w 0 --relevant 0,1,2 --irrelevant 0,1,10}"
	ops_riscv64="ops ${DEMO_OPS_RISCV64:-${ops#ops }}"
	att="attach ${DEMO_ATTACH:--k 1,16 -r 1 -w 0}"
	ent="entry ${DEMO_ENTRY:--n 100000 --rounds 3 -w 1}"
	kernels=${VM_KERNEL:-6.12}
else
	trig="trigger ${DEMO_TRIGGER:--n 50000 -r 5 -w 1 --peers --modes $all_modes}"
	cross="--relevant 0,1,2,10 --irrelevant 0,1,2,10,100,200"
	ops="ops ${DEMO_OPS:--n 5000 -r 3 -w 0 $cross}"
	ops_riscv64="ops ${DEMO_OPS_RISCV64:-${DEMO_OPS:--n 2000 -r 3 -w 0 --modes kmod-callops,kmod-direct $cross}}"
	att="attach ${DEMO_ATTACH:--k 1,16 -r 3 -w 1}"
	ent="entry ${DEMO_ENTRY:--n 1000000 --rounds 9 -w 1}"
	kernels=${VM_KERNEL:-6.1 6.12 7.2 6.12-arm64 6.1-arm64 6.12-riscv64 7.2-riscv64}
fi
suites=${DEMO_SUITES:-trigger ops attach entry}
for s in $suites; do
	case $s in trigger|ops|attach|entry) ;;
	*) echo "demo: DEMO_SUITES: unknown suite '$s' (trigger, ops, attach, entry)" >&2; exit 2 ;;
	esac
done
rc=0
t_start=$(date +%s)
# mm:ss since the demo started
elapsed() { local s=$(( $(date +%s) - t_start )); printf '%d:%02d' $((s / 60)) $((s % 60)); }

# split LOG into the printed tables and NAME-SUITE.json files
split_log() {
	awk -v dir="$out" -v name="$2" '
		/^==BENCH-JSON / { f = dir "/" name "-" $2 ".json"; printf "" > f; next }
		/^==BENCH-END/ { close(f); f = ""; next }
		f != "" { print > f; next }
		{ print }' "$1"
}

# the host kernel, when it allows every path (root, kmod, BPF, kprobes)
host_demo() {
	local sock=$out/host.sock d why
	[ "$(id -u)" = 0 ] || { echo "DEMO_HOST=1: not root"; return 1; }
	grep -qs '^tracerd_kmod ' /proc/modules || insmod "$O/kmod/tracerd_kmod.ko" 2>/dev/null ||
		{ echo "DEMO_HOST=1: cannot load tracerd_kmod.ko here; using the VM"; return 1; }
	grep -qs '^tracerd_testmod ' /proc/modules || insmod "$O/kmod/tracerd_testmod.ko" 2>/dev/null
	printf 'listen = off\nstate_dir = %s/state\n' "$out" > "$out/host.conf"
	"$O/tracerd" --config "$out/host.conf" --socket "$sock" 2> "$out/host-daemon.log" &
	d=$!
	for _ in $(seq 1 100); do [ -S "$sock" ] && break; sleep 0.1; done
	why=$("$O/tracectl" --socket "$sock" --json status | python3 -c '
import json, sys
f = json.load(sys.stdin)["features"]
print("; ".join(f"{m}: {v['"'"'reason'"'"']}" for m, v in f.items() if not v["available"] and m != "raw_tp"))')
	if [ -n "$why" ]; then
		echo "DEMO_HOST=1: the host kernel does not allow every path ($why); using the VM"
		kill "$d"; wait "$d"
		return 1
	fi
	echo "=== host kernel $(uname -r) ($(uname -m)) ==="
	# shellcheck disable=SC2086
	"$O/tracectl" --socket "$sock" bench $trig -o "$out/host-trigger.json"
	# shellcheck disable=SC2086
	"$O/tracectl" --socket "$sock" bench $ops -o "$out/host-ops.json"
	kill "$d"; wait "$d"
	return 0
}

if [ "${DEMO_HOST:-0}" = 1 ] && host_demo; then
	exit 0
fi

# minutes per kernel, warm on a 2-core TCG host (see README; riscv64: not
# measured at these sizes yet, a guess from its subset boot, 3-5x arm64's)
estimate() {
	local n=0 k
	for k in $kernels; do
		case ${DEMO_QUICK:-0}:$suites:$k in
		# DEMO_SUITES=ops, measured (2026-12-02, the host shared with another
		# guest): riscv64 6.12 23, 7.2 20; x86 6.12 11 and arm64 6.12 10, 6.1 5
		# with DEMO_OPS limited to --modes kmod-callops,kmod-direct
		0:ops:*riscv64*) n=$((n + 23)) ;;
		0:ops:*arm64*) n=$((n + 10)) ;;
		0:ops:*) n=$((n + 11)) ;;
		1:*riscv64*) n=$((n + 10)) ;;
		1:*) n=$((n + 4)) ;;
		*:*riscv64*) n=$((n + 25)) ;;
		*:*arm64*) n=$((n + 11)) ;;
		*) n=$((n + 9)) ;;
		esac
	done
	echo $n
}
echo "make demo: $(echo $suites | sed 's/ /, /g') on $(echo $kernels | wc -w) kernel(s) ($kernels), one QEMU boot per suite;"
echo "  expected about $(estimate) minutes with a warm cache (a cold one first downloads the kernels and builds the roots)."
echo "  results: $out/"
[ -n "${VM_ICOUNT:-}" ] &&
	echo "  VM_ICOUNT=$VM_ICOUNT: the guests' clocks count instructions, so every time below counts the guest's instructions, 2^$VM_ICOUNT ns each, the same from run to run (docs/bench.md, \"Counting instructions\")"
for k in $kernels; do
	o=$ops
	case $k in *riscv64*) o=$ops_riscv64 ;; esac
	for run in "$trig" "$o" "$att" "$ent"; do
		s=${run%% *}
		case " $suites " in *" $s "*) ;; *) continue ;; esac
		t0=$(date +%s)
		"$here/run" --kernel "$k" --timeout 3600 -- bash /opt/tracerd/tests/bench.sh "$run" \
			> "$out/$k-$s.log" 2> "$out/$k-$s.err" || { rc=1; tail -n 20 "$out/$k-$s.err"; }
		split_log "$out/$k-$s.log" "$k" > "$out/$k-$s.txt"
		status=ok
		"$O/tracectl" bench show "$out/$k-$s.json" > /dev/null 2>&1 || {
			status="FAILED (see $out/$k-$s.err)"; rc=1; rm -f "$out/$k-$s.json"; }
		printf '[%6s] %-12s %-9s %s in %ds\n' "$(elapsed)" "$k" "$s" "$status" $(( $(date +%s) - t0 ))
	done
done

# side by side: the same options on two kernels (files only; the screen has the summary)
pair() {
	local s
	for s in trigger ops attach entry; do
		[ -s "$out/$1-$s.json" ] && [ -s "$out/$2-$s.json" ] || continue
		"$O/tracectl" bench compare "$out/$1-$s.json" "$out/$2-$s.json" \
			> "$out/compare-$1-$2-$s.txt" 2>&1
	done
}
pair 6.1 6.12
pair 6.12 7.2
pair 6.12 6.12-arm64
pair 6.1-arm64 6.12-arm64
pair 6.12-riscv64 7.2-riscv64
echo
results=()
for k in ${DEMO_REPORT_KERNELS:-$kernels}; do
	for s in trigger ops attach entry; do [ -f "$out/$k-$s.json" ] && results+=("$out/$k-$s.json"); done
done
[ ${#results[@]} -gt 0 ] || { echo "demo: no results (see $out/*.err)"; exit 1; }
"$O/tracectl" bench report --html "$out/index.html" "${results[@]}" | tee "$out/summary.txt" || rc=1
echo "full tables: $out/KERNEL-SUITE.txt, side by side: $out/compare-*.txt, JSON: $out/*.json"
echo "demo finished in $(elapsed)"
exit $rc
