#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make demo: what tracerd measures, in minutes. `tracectl bench trigger`,
# `ops`, `attach` and `entry` at small sizes, and one function's kernel
# stacks (`attach --stacks`), then `tracectl bench report`: one screen of
# what the runs found and build/demo/index.html with the plots. Where:
# this machine's kernel when it allows every path the benchmarks take
# (root, BPF fentry, kprobes, loadable modules: host_probe asks it), with
# the module built for it and real nanoseconds; else Debian's 6.12 in the
# test VM (QEMU TCG: the counts are real, the times are emulator times),
# and the screen says why.
# make demo-all (DEMO_ALL=1): the seven-kernel reproduction of the seeds
# (docs/origins.md) at the full sizes, one boot per suite with a progress
# line each, its expected time printed first; results in build/demo-all/,
# one file per kernel and suite, so kernels run one at a time add up in
# one report (the report takes every kernel of the seven that has results).
# The report's screen has seed 000's table side by side: its two columns,
# then riscv64 6.12, riscv64 7.2, arm64 6.1, arm64 6.12 and x86 6.12, and
# its two effects as measured ratios; the full tables and the compare
# tables (6.1 -> 6.12, 6.12 -> 7.2, 6.12 -> 6.12-arm64, 6.1-arm64 ->
# 6.12-arm64, 6.12-riscv64 -> 7.2-riscv64) stay in files beside it.
#   DEMO_VM=1     make demo: the test VM even when this kernel could be measured
#   DEMO_HOST=1   make demo: this kernel or nothing (stops, saying why, when
#                 it refuses a path)
#   DEMO_PLAN=1   print where the demo would run and why, the boots and the
#                 expected time, and stop
#   VM_KERNEL     kernels (make demo: 6.12; make demo-all: 6.1 6.12 7.2
#                 6.12-arm64 6.1-arm64 6.12-riscv64 7.2-riscv64)
#   DEMO_SUITES   runs (default: trigger ops attach entry stacks; e.g.
#                 DEMO_SUITES=ops: seed 000's table only)
#   DEMO_REPORT_KERNELS  kernels whose results the report takes (make demo:
#                 VM_KERNEL's; make demo-all: every kernel of the seven with
#                 results in build/demo-all, e.g. "6.12-riscv64 7.2-riscv64
#                 6.1-arm64 6.12-arm64 6.12")
#   DEMO_TRIGGER  trigger options (make demo: -n 5000 -r 3 -w 1 --peers;
#                 make demo-all: -n 50000 -r 5 -w 1 --peers and every mode,
#                 the session forms included: bpftrace and the reference
#                 programs on the same loop)
#   DEMO_OPS      ops options (make demo: -n 2000 -r 2 -w 0 --relevant 0,1,2
#                 --irrelevant 0,1,10; make demo-all: -n 5000 -r 3 -w 0
#                 --relevant 0,1,2,10 --irrelevant 0,1,2,10,100,200: seed 000's
#                 cross, R = 0 and 1 against every I, every R against I = 0;
#                 under TCG, attaching and detaching hundreds of ftrace_ops
#                 dominates; tracectl's defaults are the seed's whole grid)
#   DEMO_OPS_RISCV64  make demo-all's ops options on the riscv64 kernels
#                 (default: DEMO_OPS when set, else -n 2000 -r 3 -w 0 --modes
#                 kmod-callops,kmod-direct and the same cross up to I = 200:
#                 riscv64 TCG is some 3-5x slower than the others, and the
#                 seed's table needs kmod-callops only; kmod-direct for the
#                 report's second ratio)
#   DEMO_ENTRY    entry options (make demo: -n 100000 --rounds 3 -w 1; make
#                 demo-all: -n 1000000 --rounds 9 -w 1: the untraced entry
#                 sequence against its notrace twin, seed 003)
#   DEMO_ATTACH   attach options (make demo: -k 1,16 -r 1 -w 0; make demo-all:
#                 -k 1,16 -r 3 -w 1; K = 256 separate hooks take minutes per
#                 mode under TCG)
#   VM_ICOUNT=N   QEMU -icount: the guests' clocks count instructions (2^N ns
#                 each), so the times repeat from run to run (docs/bench.md)
#   DEMO_PROBE_VERDICT  for tests: host_probe's answer ("ok", or the reasons
#                 this kernel cannot be measured) instead of asking the kernel
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"	# O, VM_DIR, VM_KERNELS_ALL, vm_rootof
all=${DEMO_ALL:-0}
if [ "$all" = 1 ]; then out=$O/demo-all; else out=$O/demo; fi
mkdir -p "$out"
# every mode tracerd has (those the kernel lacks are reported unavailable):
# bench trigger's defaults, then the session forms and fentry-multi
all_modes=kprobe,kprobe-int3,kprobe-multi,kprobe-session,fentry,fentry-multi,fsession
all_modes=$all_modes,kmod-callops,kmod-callops+regs,kmod-direct,kmod-kprobe,kmod-kprobe-int3
all_kernels="6.1 6.12 7.2 6.12-arm64 6.1-arm64 6.12-riscv64 7.2-riscv64"
if [ "$all" = 1 ]; then
	trig="trigger ${DEMO_TRIGGER:--n 50000 -r 5 -w 1 --peers --modes $all_modes}"
	cross="--relevant 0,1,2,10 --irrelevant 0,1,2,10,100,200"
	ops="ops ${DEMO_OPS:--n 5000 -r 3 -w 0 $cross}"
	ops_riscv64="ops ${DEMO_OPS_RISCV64:-${DEMO_OPS:--n 2000 -r 3 -w 0 --modes kmod-callops,kmod-direct $cross}}"
	att="attach ${DEMO_ATTACH:--k 1,16 -r 3 -w 1}"
	ent="entry ${DEMO_ENTRY:--n 1000000 --rounds 9 -w 1}"
	kernels=${VM_KERNEL:-$all_kernels}
	name="make demo-all"
else
	trig="trigger ${DEMO_TRIGGER:--n 5000 -r 3 -w 1 --peers}"
	ops="ops ${DEMO_OPS:--n 2000 -r 2 -w 0 --relevant 0,1,2 --irrelevant 0,1,10}"
	ops_riscv64=$ops
	att="attach ${DEMO_ATTACH:--k 1,16 -r 1 -w 0}"
	ent="entry ${DEMO_ENTRY:--n 100000 --rounds 3 -w 1}"
	kernels=${VM_KERNEL:-6.12}
	name="make demo"
fi
suites=${DEMO_SUITES:-trigger ops attach entry stacks}
for s in $suites; do
	case $s in trigger|ops|attach|entry|stacks) ;;
	*) echo "demo: DEMO_SUITES: unknown run '$s' (trigger, ops, attach, entry, stacks)" >&2; exit 2 ;;
	esac
done
for k in $kernels; do
	case " $VM_KERNELS_ALL " in *" $k "*) ;;
	*) echo "demo: VM_KERNEL: unknown kernel '$k' (one of: $VM_KERNELS_ALL)" >&2; exit 2 ;;
	esac
done
if [ "${DEMO_VM:-0}" = 1 ] && [ "${DEMO_HOST:-0}" = 1 ]; then
	echo "demo: DEMO_VM=1 and DEMO_HOST=1 exclude each other" >&2
	exit 2
fi
if [ "$all" = 1 ] && [ "${DEMO_HOST:-0}" = 1 ]; then
	echo "demo: make demo-all boots the test kernels; DEMO_HOST=1 is make demo's (this kernel)" >&2
	exit 2
fi
rc=0
t_start=$(date +%s)
# mm:ss since the demo started
elapsed() { local s=$(( $(date +%s) - t_start )); printf '%d:%02d' $((s / 60)) $((s % 60)); }
# mins SECONDS: "N min", rounded up
mins() { echo "$(( ($1 + 59) / 60 )) min"; }

# split LOG NAME: LOG's printed tables to stdout, each suite's JSON into
# NAME-SUITE.json, the stacks into stacks-NAME.json
split_log() {
	awk -v dir="$out" -v name="$2" '
		/^==BENCH-JSON / { f = dir "/" name "-" $2 ".json"; printf "" > f; next }
		/^==STACKS-JSON/ { f = dir "/stacks-" name ".json"; printf "" > f; next }
		/^==BENCH-END/ || /^==STACKS-END/ { close(f); f = ""; next }
		f != "" { print > f; next }
		{ print }' "$1"
}

# The estimates, in one place: estimate ALL KERNEL RUN, seconds of RUN on
# KERNEL in a boot, RUN "boot" being the boot's own (QEMU started, the
# modules loaded, the guest powered off), with a warm cache on the 2-core
# host (ALL: 1 for make demo-all's sizes). Measured on 6.12 x86_64
# (2026-12-06, five sessions sharing the host, load average 2-8; the runs'
# own seconds from bench.sh's lines): make demo's trigger 52-57, ops 36-37,
# attach 121 (16 separate fentry and kprobe-multi attachments 32 and 45 s
# of it; bench attach's K is 1, 16, 256 or 1024), entry 1, stacks 4-9, the
# rest of the boot 40-45; make demo-all's trigger 51, ops 1033, attach 224,
# entry 1, stacks 2, the boots 21-65. Not measured at these sizes: arm64
# (its ops 0.9x x86_64's, 2026-12-02: 10 min against 11; the rest taken
# as x86_64's) and riscv64 (ops at its own smaller sizes 23 min on
# 2026-12-02, 2.1x x86_64's then; the rest taken as 5x x86_64's, make
# check's ratio of the two).
estimate() {
	local k=$2 s=$3 n
	if [ "$1" = 1 ]; then
		case $s in boot) n=40 ;; trigger) n=51 ;; ops) n=1033 ;; attach) n=224 ;;
		entry) n=5 ;; stacks) n=5 ;; esac
	else
		case $s in boot) n=45 ;; trigger) n=57 ;; ops) n=37 ;; attach) n=121 ;;
		entry) n=5 ;; stacks) n=9 ;; esac
	fi
	case $1:$k:$s in
	1:*riscv64*:ops) n=$((n * 21 / 10)) ;;
	*:*riscv64*:*) n=$((n * 5)) ;;
	1:*arm64*:ops) n=$((n * 9 / 10)) ;;
	esac
	echo "$n"
}
# seconds a cold cache adds for KERNEL: what build/vm does not hold yet.
# Measured 2026-12-06 from an empty build/vm (a fresh clone, the host's
# load average 7-8): the bookworm amd64 root 243-310 s, the 6.12 kernel's
# download 49-52, initramfs and disk 17, its modules 32-56; user space
# builds meanwhile (2:45 at that load). A foreign root runs debootstrap's
# second stage under qemu-user, sid's kernels need a build root too (not
# measured cold: guesses).
cold_extra() {
	local k=$1 n=0
	[ -s "$VM_DIR/rootfs-$(vm_rootof "$k").tar" ] || case $k in
		*arm64*|*riscv64*) n=$((n + 900)) ;;
		*) n=$((n + 300)) ;;
		esac
	[ -f "$VM_DIR/k/$k/.done" ] || n=$((n + 70))
	[ -f "$VM_DIR/k/$k/kmod/tracerd_kmod.ko" ] || n=$((n + 55))
	vm_host_built "$k" || [ -d "$VM_DIR/buildroot-$(vm_suite "$k")-amd64" ] || n=$((n + 900))
	echo $n
}

# suites_of KERNEL: the runs of $suites KERNEL takes: entry (seed 003's
# traceable entry against its notrace twin) is x86_64's and arm64's only,
# the test module's entry variants (tests/kmod/tracerd_testmod.c)
suites_of() {
	case $1 in
	*riscv64*) echo " $suites " | sed 's/ entry / /; s/^ //; s/ $//' ;;
	*) echo "$suites" ;;
	esac
}
# The boots, one line each: KERNEL and its runs. make demo boots each
# kernel once for every run; make demo-all once per suite (a TCG run of
# an hour stays one boot's failure), the stacks in the kernel's last boot.
plan_boots() {
	local k s last ks
	for k in $kernels; do
		ks=$(suites_of "$k")
		[ -n "$ks" ] || continue
		if [ "$all" != 1 ]; then
			echo "$k $ks"
			continue
		fi
		last=""
		for s in $ks; do [ "$s" != stacks ] && last=$s; done
		for s in $ks; do
			[ "$s" = stacks ] && [ -n "$last" ] && continue
			if [ "$s" = "$last" ] && [[ " $ks " = *" stacks "* ]]; then echo "$k $s stacks"
			else echo "$k $s"; fi
		done
	done
}
# run_of KERNEL SUITE: bench.sh's argument for SUITE on KERNEL
run_of() {
	case $2 in
	trigger) echo "$trig" ;;
	ops) case $1 in *riscv64*) echo "$ops_riscv64" ;; *) echo "$ops" ;; esac ;;
	attach) echo "$att" ;;
	entry) echo "$ent" ;;
	stacks) echo stacks ;;
	esac
}
# boot_estimate KERNEL SUITE...: seconds
boot_estimate() {
	local k=$1 n s
	shift
	n=$(estimate "$all" "$k" boot)
	for s in "$@"; do n=$((n + $(estimate "$all" "$k" "$s"))); done
	echo $n
}

# host_probe [static]: can this machine's kernel take every path the demo
# measures (root, BPF fentry, kprobes, a loadable module built for it)?
# Asks the kernel, not its version: root and the module checks first (no
# binary needed: "static" stops there, for the VM cache's prefetch), then
# the daemon's own feature probe (what `tracectl status` shows) for fentry
# and kprobes, then the module built for this kernel and loaded. Sets
# host_why to what it refuses ("" when nothing); the daemon's full reasons
# go to host-probe.txt. DEMO_PROBE_VERDICT (a test's) answers instead.
host_probe() {
	local r why=() mod=() m avail reason code what i n
	host_why=""
	rm -f "$out/host-probe.txt"
	if [ -n "${DEMO_PROBE_VERDICT:-}" ]; then
		[ "$DEMO_PROBE_VERDICT" = ok ] || host_why=$DEMO_PROBE_VERDICT
		return
	fi
	r=$(uname -r)
	if [ "$(id -u)" != 0 ]; then
		host_why="not root (measuring this kernel loads modules and BPF programs)"
		return
	fi
	if [ ! -e /proc/modules ]; then
		mod+=("has no loadable modules (no /proc/modules)")
	elif [ "$(cat /proc/sys/kernel/modules_disabled 2> /dev/null)" = 1 ]; then
		mod+=("refuses modules (kernel.modules_disabled = 1)")
	elif [ ! -d "/lib/modules/$r/build" ]; then
		mod+=("has no headers to build the module for (linux-headers-$r)")
	fi
	if [ "${1:-}" = static ]; then
		[ ${#mod[@]} -eq 0 ] || host_why="this kernel ($r) ${mod[*]}"
		return
	fi
	probe_daemon_start || { host_why="tracerd did not start here (see $out/host-daemon.log)"; return; }
	"$O/tracectl" --socket "$out/host.sock" --json status > "$out/host-status.json" 2>&1
	probe_daemon_stop
	: > "$out/host-probe.txt"
	for m in fentry kprobe; do
		avail=$("$O/tests/jpath" ".features.$m.available" < "$out/host-status.json" 2> /dev/null)
		[ "$avail" = true ] && continue
		reason=$("$O/tests/jpath" ".features.$m.reason" < "$out/host-status.json" 2> /dev/null)
		echo "$m: ${reason:-no answer from tracectl status}" >> "$out/host-probe.txt"
		code=$(grep -o '(E[A-Z0-9]*)' <<< "$reason" | tail -n 1)
		what=$m
		[ "$m" = kprobe ] && what=kprobes
		case $code in
		"(EPERM)"|"(EACCES)") why+=("refuses $what $code") ;;
		*) why+=("has no $what${code:+ $code}") ;;
		esac
	done
	if [ ${#mod[@]} -eq 0 ] && [ ${#why[@]} -eq 0 ]; then
		host_kmod || mod+=("$kmod_why")
	fi
	why+=("${mod[@]}")
	[ ${#why[@]} -gt 0 ] || return 0
	host_why="this kernel ($r)"
	n=${#why[@]}
	for i in "${!why[@]}"; do
		if [ "$i" = 0 ]; then host_why+=" ${why[$i]}"
		elif [ "$i" = $((n - 1)) ]; then host_why+=" and ${why[$i]}"
		else host_why+=", ${why[$i]}"; fi
	done
}
probe_daemon_start() {
	printf 'listen = off\nstate_dir = %s/host-state\n' "$out" > "$out/host.conf"
	rm -f "$out/host.sock"
	"$O/tracerd" --config "$out/host.conf" --socket "$out/host.sock" 2> "$out/host-daemon.log" &
	probe_pid=$!
	for _ in $(seq 1 100); do [ -S "$out/host.sock" ] && return 0; sleep 0.1; done
	probe_daemon_stop
	return 1
}
probe_daemon_stop() { kill "$probe_pid" 2> /dev/null; wait "$probe_pid" 2> /dev/null; }
# host_kmod: the modules built for this kernel (its headers) and loaded;
# kmod_why says why not
host_kmod() {
	local r v err
	r=$(uname -r)
	if ! make -s --no-print-directory -C "$src" O="$O" KMOD_OUT="$kmod_host" \
		KDIR="/lib/modules/$r/build" kmod > "$out/host-kmod.log" 2>&1; then
		kmod_why="cannot build the module for it (see $out/host-kmod.log)"
		return 1
	fi
	v=$(modinfo -F vermagic "$kmod_host/tracerd_kmod.ko" | cut -d' ' -f1)
	[ "$v" = "$r" ] || { kmod_why="has headers for $v, not for itself"; return 1; }
	for m in tracerd_kmod tracerd_testmod; do
		grep -qs "^$m " /proc/modules && continue
		err=$(insmod "$kmod_host/$m.ko" 2>&1) ||
			{ kmod_why="refuses $m.ko (insmod: ${err##*: })"; return 1; }
		loaded+=("$m")
	done
}
src=$VM_SRC
kmod_host=$O/kmod-host
loaded=()
host_unload() {
	local i
	for ((i = ${#loaded[@]} - 1; i >= 0; i--)); do rmmod "${loaded[$i]}" 2> /dev/null; done
}
trap host_unload EXIT

# vm_warm KERNEL: what a cold boot of KERNEL waits for longest, the root's
# debootstrap beside the kernel's download and its modules' build (boot.sh
# does them one after the other; a cold make demo's path: root 243-310 s,
# kernel ~50, modules ~30-55), under the kernel's lock, which the boot
# then takes and finds them cached. Only bookworm's kernels: sid's modules
# need their build root first.
vm_warm() {
	local k=$1 arch suite lib="source '$VM_SRC/tests/vm/lib.sh'"
	arch=$(vm_arch "$k") suite=$(vm_suite "$k")
	mkdir -p "$VM_DIR/k"
	exec 9> "$VM_DIR/k/$k.lock"
	flock 9
	vm_stage "rootfs $suite $arch" "${VM_BUDGET_ROOTFS:-1200}" \
		flock "$VM_DIR/rootfs-$(vm_rootof "$k").lock" bash -c "$lib; vm_rootfs $arch $suite" &
	vm_stage "kernel $k" "${VM_BUDGET_FETCH:-900}" bash -c "$lib; vm_kernel $k" &&
		vm_stage "kmods $k" "${VM_BUDGET_BUILD:-600}" bash -c "$lib; vm_kmods $k"
	wait
}

# The VM for sure (demo-all, DEMO_VM=1, or a kernel without modules):
# its cache is filled while our binaries build, which a cold run would
# otherwise wait for in turn: make demo's kernels by vm_warm, demo-all's
# by prefetch.sh (the root, the kernel, the disk; two lanes, native and
# foreign)
vm_sure=1
if [ "$all" != 1 ] && [ "${DEMO_VM:-0}" != 1 ]; then
	host_probe static
	[ -n "$host_why" ] && [ "${DEMO_HOST:-0}" != 1 ] || vm_sure=0
fi
if [ "${DEMO_PLAN:-0}" != 1 ]; then
	prefetch=""
	if [ $vm_sure = 1 ]; then
		mkdir -p "$VM_DIR"
		if [ "$all" = 1 ]; then
			"$here/prefetch.sh" $kernels > "$VM_DIR/prefetch-demo.log" 2>&1 &
		else
			(for k in $kernels; do vm_host_built "$k" && (vm_warm "$k"); done) \
				> "$VM_DIR/prefetch-demo.log" 2>&1 &
		fi
		prefetch=$!
	fi
	${MAKE:-make} --no-print-directory -C "$src" O="$O" user || exit 1
elif [ ! -x "$O/tracerd" ] || [ ! -x "$O/tests/jpath" ]; then
	# the plan's probe starts tracerd too
	${MAKE:-make} --no-print-directory -C "$src" O="$O" user || exit 1
fi

# where: this kernel, or the test VM, and why (one line on the screen)
where=vm
if [ "$all" = 1 ]; then
	said="the test kernels under QEMU (the seven of the seeds by default)"
elif [ "${DEMO_VM:-0}" = 1 ]; then
	said="DEMO_VM=1: using the test VM"
else
	host_probe
	if [ -z "$host_why" ]; then
		where=host
		said="this kernel ($(uname -r)) allows every path: measuring it (real nanoseconds, the module built for it; DEMO_VM=1 for the test VM)"
	elif [ "${DEMO_HOST:-0}" = 1 ]; then
		echo "demo: DEMO_HOST=1: $host_why" >&2
		exit 1
	else
		said="$host_why: using the test VM"
	fi
fi
[ -s "$out/host-probe.txt" ] && [ "$where" = vm ] && [ "$all" != 1 ] && [ "${DEMO_VM:-0}" != 1 ] &&
	said="$said (the reasons in full: $out/host-probe.txt)"

if [ "$where" = host ]; then
	echo "$name: $said"
	echo "  runs: $(echo $suites | sed 's/ /, /g'); results: $out/"
	[ "${DEMO_PLAN:-0}" = 1 ] && exit 0
	runs=()
	for s in $suites; do runs+=("$(run_of host "$s")"); done
	t0=$(date +%s)
	PATH="$O:$O/tests:$PATH" BENCH_KMOD_DIR=$kmod_host bash "$here/guest/bench.sh" "${runs[@]}" \
		> "$out/host.log" 2> "$out/host.err" || { rc=1; tail -n 20 "$out/host.err"; }
	split_log "$out/host.log" host > "$out/host.txt"
	printf '[%6s] this kernel: %s in %ds\n' "$(elapsed)" "$(echo $suites | sed 's/ /, /g')" \
		$(( $(date +%s) - t0 ))
	report_kernels=host
else
	total=0 cold=0
	while read -r k ss; do
		# shellcheck disable=SC2086
		total=$((total + $(boot_estimate "$k" $ss)))
	done < <(plan_boots)
	for k in $kernels; do cold=$((cold + $(cold_extra "$k"))); done
	nboots=$(plan_boots | wc -l)
	echo "$name: $said"
	echo "  $(echo $suites | sed 's/ /, /g') on $(echo $kernels | wc -w) kernel(s) ($kernels), $nboots QEMU boot(s)"
	printf '  expected about %s' "$(mins $total)"
	if [ $cold -gt 0 ]; then printf ', plus about %s to fill the VM cache (kernel, Debian root, module)\n' "$(mins $cold)"
	else printf ' (the VM cache is warm)\n'; fi
	echo "  results: $out/"
	case " $suites :$kernels" in
	*" entry "*:*riscv64*) echo "  entry: not on riscv64 (the test module's entry variants are x86_64's and arm64's)" ;;
	esac
	[ -n "${VM_ICOUNT:-}" ] &&
		echo "  VM_ICOUNT=$VM_ICOUNT: the guests' clocks count instructions, so every time below counts the guest's instructions, 2^$VM_ICOUNT ns each, the same from run to run (docs/bench.md, \"Counting instructions\")"
	if [ "${DEMO_PLAN:-0}" = 1 ]; then
		i=0
		while read -r k ss; do
			i=$((i + 1))
			# shellcheck disable=SC2086
			echo "  boot $i/$nboots: $k $(echo $ss | sed 's/ /, /g'): about $(mins $(boot_estimate "$k" $ss))"
		done < <(plan_boots)
		exit 0
	fi
	i=0
	while read -r k ss; do
		i=$((i + 1))
		runs=()
		for s in $ss; do runs+=("$(run_of "$k" "$s")"); done
		# shellcheck disable=SC2086
		est=$(boot_estimate "$k" $ss)
		log=$out/$k
		[ "$all" = 1 ] && log=$out/$k-${ss%% *}
		printf '[%6s] boot %d/%d: %-12s %s (about %s) ...\n' "$(elapsed)" $i $nboots "$k" \
			"$(echo $ss | sed 's/ /, /g')" "$(mins $est)"
		t0=$(date +%s)
		"$here/run" --kernel "$k" --timeout 3600 -- bash /opt/tracerd/tests/bench.sh "${runs[@]}" \
			< /dev/null > "$log.log" 2> "$log.err" || { rc=1; tail -n 20 "$log.err"; }
		split_log "$log.log" "$k" > "$log.txt"
		status=""
		for s in $ss; do
			if [ "$s" = stacks ]; then
				f=$out/stacks-$k.json
				"$O/tests/jpath" '.stats[0].stacks.total' < "$f" > /dev/null 2>&1 ||
					{ rc=1; rm -f "$f"; status+=" stacks FAILED"; continue; }
			else
				f=$out/$k-$s.json
				"$O/tracectl" bench show "$f" > /dev/null 2>&1 ||
					{ rc=1; rm -f "$f"; status+=" $s FAILED"; continue; }
			fi
			status+=" $s ok"
		done
		printf '[%6s] boot %d/%d: %-12s %s in %ds%s\n' "$(elapsed)" $i $nboots "$k" \
			"$(echo "$status" | sed 's/^ //; s/ ok/ ok,/g; s/ FAILED/ FAILED,/g; s/,$//')" \
			$(( $(date +%s) - t0 )) "$(case $status in *FAILED*) echo " (see $log.txt and $log.err)" ;; esac)"
	done < <(plan_boots)
	report_kernels=$kernels
	[ "$all" = 1 ] && report_kernels=$all_kernels
fi

[ -z "${prefetch:-}" ] || wait "$prefetch"

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
results=() missing=()
for k in ${DEMO_REPORT_KERNELS:-$report_kernels}; do
	n=${#results[@]}
	for s in trigger ops attach entry; do [ -f "$out/$k-$s.json" ] && results+=("$out/$k-$s.json"); done
	[ ${#results[@]} -gt "$n" ] || missing+=("$k")
done
[ ${#results[@]} -gt 0 ] || { echo "demo: no results (see $out/*.err)"; exit 1; }
"$O/tracectl" bench report --html "$out/index.html" "${results[@]}" | tee "$out/summary.txt" || rc=1
tables=KERNEL.txt
[ "$all" = 1 ] && tables=KERNEL-SUITE.txt
echo "full tables: $out/$tables, side by side: $out/compare-*.txt, JSON: $out/*.json"
ls "$out"/stacks-*.json > /dev/null 2>&1 &&
	echo "kernel stacks (tracectl --json stats ID --stacks): $(ls "$out"/stacks-*.json | tr '\n' ' ')"
if [ "$all" = 1 ]; then
	[ ${#missing[@]} -eq 0 ] ||
		echo "not in this report yet (no results): ${missing[*]}; make demo-all VM_KERNEL=\"${missing[*]}\" adds them"
else
	t=0
	for k in $all_kernels; do for s in boot trigger boot ops boot attach boot entry stacks; do
		t=$((t + $(estimate 1 "$k" "$s")))
	done; done
	echo "the rest: make demo-all, the seven test kernels at the full sizes (about $(mins $t) warm;"
	echo "  in parts that add up in one report: make demo-all VM_KERNEL=\"6.1 6.12\", then the others)"
fi
echo "demo finished in $(elapsed)"
exit $rc
