#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make demo: `tracectl bench trigger` and `ops` on each test kernel (QEMU
# TCG: the counts are real, the times are emulator times), then the
# comparison tables (6.1 -> 6.12, 6.12 -> 7.2, 6.12 -> 6.12-arm64). With DEMO_HOST=1 and
# a host kernel that allows every path, the host kernel is used instead.
# Results (tables, JSON) are kept under build/demo/.
#   VM_KERNEL     kernels (default: 6.1 6.12 7.2 6.12-arm64)
#   DEMO_TRIGGER  trigger options (default: -n 50000 -r 5 -w 1)
#   DEMO_OPS      ops options (default: -n 5000 -r 3 -w 0 --relevant 0,1,2,10
#                 --irrelevant 0,1,2,10,100: under TCG, attaching and detaching
#                 hundreds of ftrace_ops dominates; tracectl's defaults are the seed's)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
O=${O:-$src/build}
out=$O/demo
mkdir -p "$out"
trig="trigger ${DEMO_TRIGGER:--n 50000 -r 5 -w 1}"
ops="ops ${DEMO_OPS:--n 5000 -r 3 -w 0 --relevant 0,1,2,10 --irrelevant 0,1,2,10,100}"
rc=0

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

kernels=${VM_KERNEL:-6.1 6.12 7.2 6.12-arm64}
for k in $kernels; do
	echo "=== Debian $k under QEMU (TCG): $trig; $ops ==="
	"$here/run" --kernel "$k" --timeout 3600 -- bash /opt/tracerd/tests/bench.sh "$trig" "$ops" \
		> "$out/$k.log" 2> "$out/$k.err" || { rc=1; tail -n 20 "$out/$k.err"; }
	split_log "$out/$k.log" "$k" | tee "$out/$k.txt"
	echo
done

# side by side: the same options on two kernels
pair() {
	local s
	for s in trigger ops; do
		[ -s "$out/$1-$s.json" ] && [ -s "$out/$2-$s.json" ] || continue
		echo "=== $s: $1 (A) vs $2 (B) ==="
		"$O/tracectl" bench compare "$out/$1-$s.json" "$out/$2-$s.json" | tee "$out/compare-$1-$2-$s.txt"
		echo
	done
}
pair 6.1 6.12
pair 6.12 7.2
pair 6.12 6.12-arm64
echo "results: $out/ (tables *.txt, JSON *-trigger.json *-ops.json)"
exit $rc
