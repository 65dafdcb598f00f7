#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# vm-check.sh [BOOT...] — run the in-VM test suite once per BOOT (default:
# $VM_BOOTS_ALL), up to VM_JOBS (default: nproc) side by side — each VM is
# single-threaded TCG. Results go to $O/results/vm-BOOT.tsv; the kernel log
# of every boot is checked by dmesg-check.sh, and a WARN/oops/lockup outside
# the expected self-test window fails the run.
# BOOT is a kernel name (6.1, 6.12, 6.12-arm64), or KERNEL@ARG[,ARG] for a
# variant boot with extra kernel arguments (e.g. 6.12@retbleed=stuff) that
# runs only the tests in VM_VARIANT_TESTS (the trampoline tests);
# KERNEL@systemd boots systemd as PID 1 for VM_SYSTEMD_TESTS;
# KERNEL@mttcg runs VM_MTTCG_TESTS with the vCPUs truly parallel
# (multi-threaded TCG under VM_MTTCG_QEMU's QEMU).
#   VM_ONLY="t1 t2"  run only these guest tests     VM_TIMEOUT=S  boot timeout
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
kernels=${*:-$VM_BOOTS_ALL}
mkdir -p "$O/results" "$VM_DIR/run"

one() {
	local b=$1 k=${1%%@*} run=$VM_DIR/run/check-$1.$$ res=$O/results/vm-$1.tsv
	# one run dir per invocation (several checkouts may share build/vm);
	# check-BOOT points at the latest
	rm -rf "$run"; mkdir -p "$run"
	ln -sfn "$(basename "$run")" "$VM_DIR/run/check-$1"
	: > "$res"
	if [ "${b#*@}" = systemd ]; then
		VM_CMDLINE="${VM_CMDLINE:-} $VM_SYSTEMD_CMDLINE" VM_ONLY=${VM_ONLY:-$VM_SYSTEMD_TESTS} \
			"$here/boot.sh" "$k" "$run" test > "$run/harness.log" 2>&1
	elif [ "${b#*@}" = mttcg ]; then
		VM_TCG_THREAD=multi VM_QEMU=$VM_MTTCG_QEMU VM_BOOT_NAME=$b \
			VM_ONLY=${VM_ONLY:-$VM_MTTCG_TESTS} \
			"$here/boot.sh" "$k" "$run" test > "$run/harness.log" 2>&1
	elif [ "$b" != "$k" ]; then
		local t only=""
		local extra=VM_VARIANT_TESTS_$(vm_arch "$k")
		for t in $VM_VARIANT_TESTS ${!extra:-}; do
			[ -f "$here/guest/t/$t.sh" ] && only="$only $t"
		done
		VM_CMDLINE="${VM_CMDLINE:-} $(tr , ' ' <<< "${b#*@}")" VM_ONLY=${VM_ONLY:-$only} \
			"$here/boot.sh" "$k" "$run" test > "$run/harness.log" 2>&1
	elif [ "${PROFILE:-ci}" != full ] && [[ " $VM_SUBSET_KERNELS " == *" $k "* ]]; then
		local sub=VM_SUBSET_TESTS_${k//[.-]/_}
		VM_ONLY=${VM_ONLY:-${!sub:-$VM_SUBSET_TESTS}} "$here/boot.sh" "$k" "$run" test \
			> "$run/harness.log" 2>&1
	else
		"$here/boot.sh" "$k" "$run" test > "$run/harness.log" 2>&1
	fi
	k=$b
	local out; out=$(tr -d '\r' < "$run/out.log" 2>/dev/null)
	# bench results the guest handed over (t/9*-bench-*.sh: emit_bench)
	mkdir -p "$O/results/bench"
	printf '%s\n' "$out" | awk -v dir="$O/results/bench" -v name="$k" '
		/^ *==BENCH-JSON / { f = dir "/" name "-" $2 ".json"; printf "" > f; next }
		/^ *==BENCH-END/ { close(f); f = ""; next }
		f != "" { sub(/^    /, ""); print > f }'
	printf '%s\n' "$out" | sed -n '/^@@TEST /{s/^@@TEST \([^ ]*\) \([A-Z]*\) *\(.*\)$/vm-'"$k"'\/\1\t\2\t\3/;p}' >> "$res"
	local why=""
	if ! grep -q '^@@EXIT' <<< "$out"; then
		why="guest did not finish ($(grep -o '@@TIMEOUT.*' <<< "$out" || echo 'crashed or failed to boot'))"
	fi
	# kernel log: the guest's dmesg dump when it finished, the console always
	printf '%s\n' "$out" | sed -n '/^@@DMESG-BEGIN/,/^@@DMESG-END/p' > "$run/dmesg.log"
	local dm
	dm=$("$here/dmesg-check.sh" "$run/console.log"; "$here/dmesg-check.sh" "$run/dmesg.log")
	if [ -n "$dm" ]; then
		printf 'vm-%s/kernel-log\tFAIL\t%s\n' "$k" "$(head -n1 <<< "$dm")" >> "$res"
	else
		printf 'vm-%s/kernel-log\tPASS\t\n' "$k" >> "$res"
	fi
	[ -n "$why" ] && printf 'vm-%s/boot\tFAIL\t%s\n' "$k" "$why" >> "$res"
	{
		echo "=== vm $k ==="
		sed 's/^/  /' "$run/harness.log"
		printf '%s\n' "$out" | sed -n '/^@@BOOTED/,/^@@EXIT/p' |
			sed '/^ *==BENCH-JSON /,/^ *==BENCH-END/d; s/^/  /'
		[ -n "$dm" ] && printf '%s\n' "$dm" | sed 's/^/  /'
		[ -n "$why" ] && { echo "  $why; console tail:"; tail -n 30 "$run/console.log" | tr -d '\r' | sed 's/^/    /'; }
	} > "$run/report.txt"
}

jobs_max=${VM_JOBS:-$(nproc)}
for k in $kernels; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
	one "$k" &
done
wait
fail=0
# what make check's prefetch did before these boots (cold stages, timings)
if [ -s "$VM_DIR/prefetch.log" ] && [ -n "$(find "$VM_DIR/prefetch.log" -mmin -180)" ]; then
	echo "=== vm prefetch ==="
	sed 's/^/  /' "$VM_DIR/prefetch.log"
fi
for k in $kernels; do
	cat "$VM_DIR/run/check-$k.$$/report.txt"
	while IFS=$'\t' read -r name r msg; do
		printf '  %-4s %s%s\n' "$r" "$name" "${msg:+ ($msg)}"
		[ "$r" = FAIL ] && fail=1
	done < "$O/results/vm-$k.tsv"
done
# bench compare of 6.1 with 6.12, of 6.12 with 7.2 and of 6.1 with 7.2
# (schema, ratios, refusals), for the pairs this run booted, with the
# suites both kernels of a pair ran (make check: ops and attach not on 6.12)
res=$O/results/vm-bench.tsv
: > "$res"
for pair in "6.1 6.12" "6.12 7.2" "6.1 7.2"; do
	set -- $pair
	[[ " $kernels " == *" $1 "* && " $kernels " == *" $2 "* ]] || continue
	log=$O/results/bench/check-$1-$2.log
	if O=$O "$here/bench-check.sh" --from "$O/results/bench" "$1" "$2" > "$log" 2>&1; then
		printf 'vm-bench/compare-%s-%s\tPASS\t\n' "$1" "$2" >> "$res"
	else
		printf 'vm-bench/compare-%s-%s\tFAIL\t%s\n' "$1" "$2" \
			"$(grep -m1 -i 'fail\|error' "$log")" >> "$res"
		fail=1
	fi
	echo "=== bench compare $1 / $2 ==="
	sed 's/^/  /' "$log"
done
[ -s "$res" ] || rm -f "$res"
# keep only this invocation's run dirs of these boots
for k in $kernels; do
	for d in "$VM_DIR/run/check-$k".*; do
		[ "$d" = "$VM_DIR/run/check-$k.$$" ] || [ -n "$(find "$d" -maxdepth 0 -mmin -180)" ] || rm -rf "$d"
	done
done
exit $fail
