#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# summary.sh — count the results every layer wrote to $O/results/*.tsv and
# print the closing line CI reads: 'N passed, N failed, N skipped'. A layer
# that should have run but wrote no results counts as a failure
# (SUMMARY_LAYERS overrides the expected list, SUMMARY_VM_LAYERS the VM part;
# SUMMARY_DIR reads another results directory: tests/check-full.sh's parts).
set -uo pipefail
SRC=${SRC:-$(cd "$(dirname "$0")/.." && pwd)}
O=${O:-$SRC/build}
R=${SUMMARY_DIR:-$O/results}
pass=0 fail=0 skip=0
# PROFILE=full boots sid's arm64 and riscv64 7.2 too (tests/vm/lib.sh VM_BOOTS_FULL)
vm_full=; [ "${PROFILE:-ci}" = full ] && vm_full="vm-7.2-arm64 vm-7.2-riscv64"
for layer in ${SUMMARY_LAYERS:-unit host asan-unit asan-host fuzz ${SUMMARY_VM_LAYERS:-vm-6.1 vm-6.12 vm-6.12-arm64 vm-6.1-arm64 vm-7.2 vm-6.12-riscv64 $vm_full vm-6.12@retbleed=stuff vm-6.12-arm64@nokaslr vm-6.12@systemd vm-bench}}; do
	if [ ! -s "$R/$layer.tsv" ]; then
		echo "FAIL $layer: no results (layer did not run or crashed)"
		fail=$((fail + 1))
	fi
done
if compgen -G "$R/*.tsv" > /dev/null; then
	while IFS=$'\t' read -r name r msg; do
		case $r in
		PASS) pass=$((pass + 1)) ;;
		SKIP) skip=$((skip + 1)) ;;
		*) fail=$((fail + 1)); echo "FAIL $name${msg:+: $msg}" ;;
		esac
	done < <(cat "$R"/*.tsv)
fi
# where the VM layer's time went (guest/run-tests.sh 'time:' lines of the
# latest boot of each kind): the make check budget is 60 minutes cold
if compgen -G "$O/vm/run/check-*/out.log" > /dev/null; then
	for f in "$O"/vm/run/check-*/out.log; do
		[ -L "${f%/out.log}" ] || continue	# check-BOOT points at the latest run
		b=${f%/out.log}; b=${b##*/check-}
		tr -d '\r' < "$f" | awk -v b="$b" '$1 == "time:" { print $3, b "/" $2 }'
	done | sort -rn | head -n 10 | awk 'NR == 1 { print "slowest guest tests (s):" } { print "  " $0 }'
fi
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
