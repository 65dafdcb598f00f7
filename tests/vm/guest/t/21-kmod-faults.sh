# SPDX-License-Identifier: GPL-2.0-or-later
# tracerd_kmod bad input: each case gets its documented errno (kmod_abi.h),
# in every mode this kernel has, leaves nothing behind and logs nothing
# above info level.
# make check: one x86 and one arm64 kernel (the errno checks are the
# module's own, the same C everywhere); check-full: every kernel
# ci-kernels: 6.1 6.1-arm64
# Each attach patches kernel text (stop_machine): 215 s on 6.12-arm64 in a
# make check of 2026-12-02 (98 s the day before, another host), and past
# 300 s in check-full with a third QEMU on the host
# timeout: 600 900
source ./lib.sh
load_testmod
load_kmod
modes=$(kmodctl features | sed -n 's/.*modes=\(0x[0-9a-f]*\).*/\1/p')
has() { [ $(( modes & (1 << $1) )) != 0 ]; }
# kernel messages above info level; emulator timing noise (a starved vCPU
# under TCG: workqueue "hogged CPU", slow hrtimer interrupts, clocksource
# watchdog, and its 7.x sequel "TSC found unstable after boot") is shown but
# not held against the module
loud() { dmesg --level=emerg,alert,crit,err,warn; }
loud0=$(loud | wc -l)
tcg_noise='hogged CPU|hrtimer: interrupt took|clocksource|TSC found unstable|timekeeping watchdog|took [0-9]+ ms'
# expect ERRNO WHAT CMD...: CMD must exit with errno ERRNO
expect() {
	local want=$1 what=$2 out rc
	shift 2
	out=$("$@" 2>&1); rc=$?
	[ "$rc" = "$want" ] || fail "$what: exit $rc, want $want: $out"
	echo "ok: $what -> $(echo "$out" | tail -n1)"
}
T=tracerd_testmod_target
ENOENT=2 ESRCH=3 ENXIO=6 EBUSY=16 EINVAL=22 ENOTTY=25 ENAMETOOLONG=36
E2BIG=7 EILSEQ=84 EOPNOTSUPP=95 EADDRNOTAVAIL=99

for spec in callops:1 direct:2 kprobe:3 kprobe-int3:4; do
	m=${spec%:*}
	has "${spec#*:}" || { expect $EOPNOTSUPP "$m: not here" kmodctl attach "$m" $T; continue; }
	expect $ENXIO "$m: unknown address" kmodctl attach "$m" $T --addr 0x1000 --name nosuchfn
	expect $ESRCH "$m: address inside the function" kmodctl attach "$m" $T --addr +1
	expect $ESRCH "$m: name of another function" kmodctl attach "$m" $T --name tracerd_testmod_sleep
	expect $ENAMETOOLONG "$m: name not NUL-terminated" kmodctl attach "$m" $T --name-fill 128
	for g in 'tracerd_testmod_*' 'tracerd_testmod_targe?' 'tracerd_[t]estmod_target' '!x' 'a b' ''; do
		expect $EILSEQ "$m: name '$g'" kmodctl attach "$m" $T --name "$g"
	done
	# a kernel without KALLSYMS_ALL (arm64 6.1) lists no module data
	if grep -q ' tracerd_testmod_data' /proc/kallsyms; then
		expect $EADDRNOTAVAIL "$m: data, not code" kmodctl attach "$m" tracerd_testmod_data
	else
		echo "no data symbols in /proc/kallsyms (no KALLSYMS_ALL): data check left out"
	fi
	case $m in
	kprobe) expect 0 "$m: notrace function (int3 at the entry)" kmodctl attach "$m" tracerd_testmod_notrace ;;
	*) expect $EADDRNOTAVAIL "$m: no ftrace call site" kmodctl attach "$m" tracerd_testmod_notrace ;;
	esac
	expect $EINVAL "$m: unknown flag" kmodctl attach "$m" $T --flags 0x80000000
	expect $EINVAL "$m: reserved field" kmodctl attach "$m" $T --reserved 1
	# ATTACH2's comm field (ABI 1.6): NUL-terminated, NUL-padded; reserved2 0
	expect $EINVAL "$m: comm not NUL-terminated" kmodctl attach "$m" $T --comm-fill 16
	expect $EINVAL "$m: comm byte past its NUL" kmodctl attach "$m" $T --comm ab --comm-tail z
	expect $EINVAL "$m: comm '' with a byte past its NUL" kmodctl attach "$m" $T --comm-tail z
	expect $EINVAL "$m: ATTACH2 reserved2" kmodctl attach "$m" $T --comm ab --reserved2 1
	expect $EINVAL "$m: ATTACH2 reserved2, no comm" kmodctl attach "$m" $T --reserved2 0x100000000
	expect $ENAMETOOLONG "$m: ATTACH2 name not NUL-terminated" kmodctl attach "$m" $T --comm ab --name-fill 128
	{ [ "$m" = kprobe ] && ! kernel_has entry_kprobe; } ||
		expect 0 "$m: ATTACH2, 15-byte comm" kmodctl attach "$m" $T --comm-fill 15
	expect $EINVAL "$m: tgid above PID_MAX_LIMIT" kmodctl attach "$m" $T --tgid 0x7fffffff
	expect $EINVAL "$m: address 0" kmodctl attach "$m" $T --addr 0
	[ "$m" = callops ] || expect $EINVAL "$m: SAVE_REGS" kmodctl attach "$m" $T --save-regs
done
for bad in 0 5 99; do
	expect $EINVAL "mode $bad" kmodctl attach "$bad" $T
done
# ATTACH_BATCH2's header (ABI 1.6): the comm rules of ATTACH2
ksym_line $T > /tmp/faults-batch.list
for spec in callops:1 direct:2 kprobe:3; do
	m=${spec%:*}
	has "${spec#*:}" || continue
	expect $EINVAL "$m batch2: comm not NUL-terminated" \
		kmodctl batch "$m" /tmp/faults-batch.list --comm-fill 16
	expect $EINVAL "$m batch2: reserved2" kmodctl batch "$m" /tmp/faults-batch.list --comm ab --reserved2 1
done
if has 2; then
	out=$(kmodctl attach direct $T --repeat 2); rc=$?
	expect_eq "second direct call on a function: errno" "$rc" $EBUSY
	echo "$out" | head -n1 | grep -q '^attach: id=' || fail "first direct call: $out"
fi
expect $ENOENT "detach of an unknown id" kmodctl detach 1
expect $ENOENT "detach of id 0" kmodctl detach 0
expect $ENOENT "counters of an unknown id" kmodctl counters 7
expect $ENOTTY "unknown ioctl" kmodctl ioctl-nr 99
# a batch of features.max_attach + 1 (262144 from ABI 1.9): refused whole
expect $E2BIG "attach batch over max_attach" kmodctl batch-over
# TRACERD_IOC_COUNTERS_BATCH (ABI 1.9): bounds, and ENOENT per unknown id
expect $EINVAL "counters batch of 0" kmodctl counters-batch 0
expect $E2BIG "counters batch over TRACERD_COUNTERS_BATCH_MAX" kmodctl counters-batch 4097
expect_eq "counters batch of unknown ids" "$(kmodctl counters-batch 4096)" \
	"counters-batch: done=0 enoent=4096"
kmodctl features | grep -q ' max_attach=262144 ' || fail "max_attach: $(kmodctl features | grep max_attach)"
# benchmark limits
expect $EINVAL "bench ops: N = 0" kmodctl bench-ops callops 0 1 0
expect $E2BIG "bench ops: N over the limit" kmodctl bench-ops callops 100000001 1 0
expect $E2BIG "bench ops: R over the limit" kmodctl bench-ops callops 10 201 0
expect $E2BIG "bench ops: I over the limit" kmodctl bench-ops callops 10 0 1001
expect $EINVAL "bench ops: bad mode" kmodctl bench-ops 9 10 1 0
expect $E2BIG "bench ops: reps over the limit" kmodctl bench-ops callops 10 1 0 --reps 101
expect $EINVAL "bench ops: reserved" kmodctl bench-ops callops 10 1 0 --reserved 1
has 2 && expect $E2BIG "bench ops: direct R = 2" kmodctl bench-ops direct 10 2 0
expect $EINVAL "bench patch: K = 0" kmodctl bench-patch callops 0
expect $E2BIG "bench patch: K over the limit" kmodctl bench-patch callops 1025
expect $EINVAL "bench patch: reserved" kmodctl bench-patch callops 1 --reserved 1
# only root opens /dev/tracerd
if command -v setpriv > /dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups kmodctl stats > /dev/null 2>&1 &&
		fail "nobody opened /dev/tracerd"
	echo "ok: nobody cannot open /dev/tracerd"
fi
kmodctl clean || fail "not clean after the test"
new=$(loud | tail -n +$((loud0 + 1)))
[ -n "$new" ] && printf 'new kernel messages:\n%s\n' "$new"
expect_eq "kernel messages above info level (not timing noise)" \
	"$(printf '%s\n' "$new" | grep -Evc "$tcg_noise|^$")" 0
unload_mod tracerd_kmod
