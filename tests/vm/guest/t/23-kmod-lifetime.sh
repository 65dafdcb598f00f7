# SPDX-License-Identifier: GPL-2.0-or-later
# tracerd_kmod attachments live as long as the fd: the holder killed with
# SIGKILL detaches everything and rmmod then succeeds; rmmod right after
# the holder's fd closes, with the targets hot, succeeds too (3 rounds, one
# attachment per mode on each target).
# ci-kernels: 6.1 6.1-arm64 6.12-arm64@mttcg 6.12-riscv64@mttcg
source ./lib.sh
load_testmod
load_kmod
modes=$(kmodctl features | sed -n 's/.*modes=\(0x[0-9a-f]*\).*/\1/p')
has() { [ $(( modes & (1 << $1) )) != 0 ]; }
T=tracerd_testmod_target
sys=$(sys_getpgid)
specs="callops:$T callops:$sys"
# riscv64 6.12 (kernel_has entry_kprobe fails): no kprobe at a function's
# entry, its ftrace site; kprobe-int3 (past it) is held there
kernel_has entry_kprobe && specs="$specs kprobe:$T kprobe:$sys"
has 2 && specs="$specs direct:$T direct:$sys"
has 4 && specs="$specs kprobe-int3:$T kprobe-int3:$sys"
nspecs=$(echo $specs | wc -w)
ready=/tmp/kmod-ready

# hold SPECS in the background until ready; sets $holder
hold() {
	rm -f $ready
	kmodctl hold "$@" --signal-ready $ready > /tmp/kmod-hold.out 2>&1 & holder=$!
	for _ in $(seq 600); do
		[ -e $ready ] && return 0
		kill -0 $holder 2>/dev/null || break
		sleep 0.1
	done
	fail "holder not ready: $(cat /tmp/kmod-hold.out)"
}

hold $specs
grep -q "^$T " /sys/kernel/tracing/enabled_functions || fail "$T not in enabled_functions"
grep -q . /sys/kernel/debug/kprobes/list || fail "no kprobe listed"
expect_eq "attachments while held" \
	"$(kmodctl stats | sed -n 's/.*attachments=\([0-9]*\).*/\1/p')" "$nspecs"
rmmod tracerd_kmod 2>/dev/null && fail "rmmod succeeded while /dev/tracerd is open"
kill -KILL $holder; wait $holder 2>/dev/null
kmodctl clean || fail "not clean after SIGKILL of the holder"
unload_mod tracerd_kmod
echo "ok: SIGKILL detached everything, rmmod succeeded"

# The targets go hot once the module is loaded: loading a module with
# ~1000 functions while the other vCPU spins can starve the loader past
# the soft-lockup threshold under TCG (arm64 writes one CALL_OPS literal
# per function without rescheduling), which is not what this tests.
trap 'kill $hot1 $hot2 2>/dev/null; wait' EXIT
round_specs="callops:$T"
kernel_has entry_kprobe && round_specs="$round_specs kprobe:$sys"
has 2 && round_specs="$round_specs direct:$sys"
has 4 && round_specs="$round_specs kprobe-int3:$T"
for round in 1 2 3; do
	load_kmod
	kmodctl hot $T & hot1=$!
	kmodctl hot "$sys" & hot2=$!
	hold $round_specs
	if [ $round -le 2 ]; then
		kill -KILL $holder
	else
		kill -TERM $holder
	fi
	wait $holder 2>/dev/null
	rmmod tracerd_kmod || fail "rmmod right after close (round $round)"
	echo "ok: round $round: rmmod right after close, targets hot"
	kill $hot1 $hot2; wait
done
trap - EXIT
load_kmod
kmodctl clean || fail "not clean after the test"
unload_mod tracerd_kmod
