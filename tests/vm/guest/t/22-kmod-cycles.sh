# SPDX-License-Identifier: GPL-2.0-or-later
# tracerd_kmod attach/detach cycles in every mode: 50 per mode (1000 with
# PROFILE=full), then 10 per mode (100) while the targets run hot in other
# processes on the other vCPU. Each cycle counts exactly this process's
# calls; the leak accounting, enabled_functions and the kprobe list are
# clean afterwards. Every detach of an ftrace_ops waits for an RCU-tasks
# grace period, which is what makes this test slow: check-full's 1200
# cycles per mode (a tenth on riscv64, guest lib.sh's size) cost the
# kernel's attach and detach, not the driver. All cycles of a mode run in
# one kmodctl process on one fd, and on 6.12 x86_64 TCG 40 callops cycles
# took 6.7 s with 100 calls each and 6.7 s with one, about what the
# module's own loop of 40 separate attach/detach takes (kmodctl
# bench-patch callops 40: 6.2 s for that and one 40-function attachment),
# so a loop inside the module would not make them faster.
# timeout: 300 3600
# ci-kernels: 6.1-arm64 6.12-arm64 6.12-arm64@mttcg 6.12-riscv64@mttcg
source ./lib.sh
load_testmod
load_kmod
modes=$(kmodctl features | sed -n 's/.*modes=\(0x[0-9a-f]*\).*/\1/p')
has() { [ $(( modes & (1 << $1) )) != 0 ]; }
T=tracerd_testmod_target
sys=$(sys_getpgid)
# cycles FUNC N: N cycles of 100 calls in every mode
cycles() {
	local spec m out
	for spec in callops:1 direct:2 kprobe:3 kprobe-int3:4; do
		m=${spec%:*}
		has "${spec#*:}" || continue
		# riscv64 6.12: no kprobe at a function's entry (its ftrace
		# site; 29-kmod-latency checks the refusal), kprobe-int3 only
		[ $m = kprobe ] && ! kernel_has entry_kprobe && continue
		out=$(kmodctl cycles "$m" "$1" "$2" 100) || fail "$m $1: $out"
		echo "ok: $m $1: $out"
		kmodctl stats --clean > /dev/null || fail "$m $1: leak: $(kmodctl stats)"
	done
}
cycles $T "$(size 50 1000)"
kmodctl hot $T & hot1=$!
kmodctl hot "$sys" & hot2=$!
trap 'kill $hot1 $hot2 2>/dev/null; wait' EXIT
cycles $T "$(size 10 100)"
cycles "$sys" "$(size 5 100)"
kill $hot1 $hot2; wait
trap - EXIT
kmodctl clean || fail "not clean after the test"
unload_mod tracerd_kmod
