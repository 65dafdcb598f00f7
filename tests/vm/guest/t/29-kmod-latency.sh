# SPDX-License-Identifier: GPL-2.0-or-later
# tracerd_kmod latency (TRACERD_ATTACH_LATENCY, ABI 1.5): kmod-kprobe (a
# kretprobe, every kernel), kmod-callops (an fprobe, where the kernel
# has CONFIG_FPROBE) and kmod-direct (its own trampoline calls the
# function, x86_64, arm64 and riscv64, ABI 1.7) time every call of this
# process: N calls give hits == timed calls == sum of the histogram == N,
# min <= max, nothing missed,
# on the test module's target and on getpgid (another process's calls are
# filtered, untimed), with several attachments at once. Where the module
# has no latency the attach says EOPNOTSUPP (kmod-callops without
# fprobe), kprobe-int3 and save_regs EINVAL; an
# attachment without the flag answers LATENCY with ENODATA (kmodctl count
# checks it on every count). The holder of latency attachments killed
# (SIGKILL) or exiting with the targets hot detaches everything, rmmod
# is refused while it holds them and succeeds right after. kmod-direct
# latency: argw 0 (not said) EINVAL, 2 (stack arguments) EOPNOTSUPP, a
# function that never returns EADDRNOTAVAIL; a timed call asleep in the
# function when its holder dies keeps the attachment draining (stats
# draining=1, rmmod refused, no oops) until it returns through the
# trampoline, then the module unloads; the holder's other timed direct
# attachment, freed in the same batch (one grace period for both), goes
# at once. riscv64 6.12
# (kernel_has entry_kprobe fails: a function's entry is its ftrace site, no
# KPROBES_ON_FTRACE) refuses the kretprobe there: EADDRNOTAVAIL, and with
# no fprobe either only kmod-direct times calls there: the holder rounds
# are skipped with that reason, the drain is not.
# ci-kernels: 6.12 7.2 6.12-arm64 6.12-riscv64
source ./lib.sh
load_testmod
load_kmod
n=$(size 1000 100000)
T=tracerd_testmod_target
sys=$(sys_getpgid)
feat=$(kmodctl features) || fail "features ioctl"
echo "$feat"
modes=$(sed -n 's/.*modes=\(0x[0-9a-f]*\) .*/\1/p' <<< "$feat")
aflags=$(sed -n 's/.*attach_flags=\(0x[0-9a-f]*\).*/\1/p' <<< "$feat")
lat=$(sed -n 's/.*latency_mask=\(0x[0-9a-f]*\).*/\1/p' <<< "$feat")
[[ $modes =~ ^0x[0-9a-f]+$ && $aflags =~ ^0x[0-9a-f]+$ && $lat =~ ^0x[0-9a-f]+$ ]] ||
	fail "cannot read the features: modes '$modes' attach_flags '$aflags' latency '$lat'"
has() { [ $(( modes & (1 << $1) )) != 0 ]; }
haslat() { [ $(( lat & (1 << $1) )) != 0 ]; }
expect_eq "TRACERD_ATTACH_LATENCY in attach_flags" $(( (aflags >> 1) & 1 )) 1
# every test kernel has kretprobes; callops latency is fprobe's
expect_eq "kmod-kprobe latency" $(( (lat >> 3) & 1 )) 1
want=0; kernel_has fprobe_lat && want=1
expect_eq "kmod-callops latency iff fprobe on rethook (6.5 to 6.13)" $(( (lat >> 1) & 1 )) $want
want=0; has 2 && want=1
expect_eq "kmod-direct latency iff direct calls" $(( (lat >> 2) & 1 )) $want
expect_eq "no latency in kprobe-int3" $(( lat & (1 << 4) )) 0

for spec in kprobe:3 callops:1 direct:2; do
	m=${spec%:*}
	[ $m = direct ] && ! has 2 && continue
	if [ "$m" = kprobe ] && ! kernel_has entry_kprobe; then
		out=$(kmodctl attach kprobe $T --latency); rc=$?
		expect_eq "kprobe latency: the kretprobe at the ftrace site refused: errno (EADDRNOTAVAIL)" $rc 99
		continue
	fi
	if ! haslat "${spec#*:}"; then
		out=$(kmodctl attach "$m" $T --latency); rc=$?
		expect_eq "$m latency unavailable: errno" $rc 95
		continue
	fi
	for f in $T "$sys"; do
		out=$(kmodctl count "$m" "$f" "$n" --latency --other 100) || fail "$m $f: $out"
		echo "$out"
		grep -q "^hits=$n filtered=[0-9]* missed=0$" <<< "$out" || fail "$m $f hits: $out"
		grep -q "^lat: count=$n sum=[0-9]* min=[0-9]* max=[0-9]* missed=0 hist=$n$" <<< "$out" ||
			fail "$m $f latency: $out"
		echo "ok: $m latency $f: $n calls timed, histogram total $n"
	done
	if [ $m = direct ]; then	# one direct call per function
		out=$(kmodctl count "$m" $T "$n" --latency --repeat 2); rc=$?
		expect_eq "direct x2 latency: the second attach EBUSY" $rc 16
	else
		out=$(kmodctl count "$m" $T "$n" --latency --repeat 3) || fail "$m x3: $out"
		expect_eq "$m x3 latency attachments timing $n" \
			"$(grep -c "^lat: count=$n .* hist=$n$" <<< "$out")" 3
	fi
	out=$(kmodctl cycles "$m" $T 5 100 --latency) || fail "$m cycles: $out"
	echo "ok: $m latency: 5 attach/detach cycles"
	# the in-kernel bench takes the flag (its hits are checked in the module)
	out=$(kmodctl bench-ops "$m" 10000 1 2 --latency) || fail "$m bench-ops --latency: $out"
	echo "$out"
done
# a non-latency attachment: LATENCY says ENODATA (checked inside count)
nolat=kprobe; kernel_has entry_kprobe || nolat=callops
kmodctl count $nolat $T 10 > /dev/null || fail "$nolat count without latency"

# error paths
if haslat 2; then
	out=$(kmodctl attach direct $T --latency --argw 0); rc=$?
	expect_eq "direct latency, argw 0 (not said): EINVAL" $rc 22
	out=$(kmodctl attach direct $T --latency --argw 2); rc=$?
	expect_eq "direct latency, argw 2 (stack arguments): EOPNOTSUPP" $rc 95
	out=$(kmodctl attach direct $T --argw 1); rc=$?
	expect_eq "direct without latency, argw 1: EINVAL" $rc 22
	out=$(kmodctl attach callops $T --latency --argw 1); rc=$?
	expect_eq "callops latency, argw 1: EINVAL" $rc 22
	out=$(kmodctl attach direct do_group_exit --latency); rc=$?
	expect_eq "direct latency on do_group_exit (never returns): EADDRNOTAVAIL" $rc 99
	out=$(kmodctl attach direct get_signal --latency); rc=$?
	expect_eq "direct latency on get_signal (a fatal signal exits in it): EADDRNOTAVAIL" $rc 99
fi
if has 4; then
	out=$(kmodctl attach kprobe-int3 $T --latency); rc=$?
	expect_eq "kprobe-int3 latency: EINVAL" $rc 22
fi
if [ $(( aflags & 1 )) != 0 ]; then
	out=$(kmodctl attach callops-regs $T --latency); rc=$?
	expect_eq "save_regs latency: EINVAL" $rc 22
fi
out=$(kmodctl bench-patch kprobe 4 --flags 2); rc=$?
expect_eq "bench-patch latency: EINVAL" $rc 22
out=$(kmodctl latency 1); rc=$?
expect_eq "LATENCY of an unknown id: ENOENT" $rc 2
kmodctl clean || fail "not clean after the counts"

# lifetime: held latency attachments, the targets hot
specs=
kernel_has entry_kprobe && specs="kprobe:$T kprobe:$sys"
haslat 1 && specs="$specs callops:$T callops:$sys"
ready=/tmp/kmod-lat-ready
hold() {
	rm -f $ready
	kmodctl hold $specs --latency --signal-ready $ready > /tmp/kmod-lat-hold.out 2>&1 & holder=$!
	for _ in $(seq 600); do
		[ -e $ready ] && return 0
		kill -0 $holder 2>/dev/null || break
		sleep 0.1
	done
	fail "holder not ready: $(cat /tmp/kmod-lat-hold.out)"
}
trap 'kill $hot1 $hot2 2>/dev/null; wait' EXIT
[ -n "$specs" ] ||
	echo "holder rounds skipped: no kprobe or callops latency here (kretprobe at the ftrace site refused, no fprobe)"
for round in ${specs:+1 2}; do
	load_kmod
	kmodctl hot $T & hot1=$!
	kmodctl hot "$sys" & hot2=$!
	hold
	expect_eq "round $round: attachments while held" \
		"$(kmodctl stats | sed -n 's/.*attachments=\([0-9]*\).*/\1/p')" "$(echo $specs | wc -w)"
	rmmod tracerd_kmod 2>/dev/null && fail "rmmod succeeded while /dev/tracerd is open"
	if [ $round = 1 ]; then kill -KILL $holder; else kill -TERM $holder; fi
	wait $holder 2>/dev/null
	kill $hot1 $hot2; wait $hot1 $hot2 2>/dev/null
	kmodctl clean || fail "round $round: not clean after the holder died"
	rmmod tracerd_kmod || fail "rmmod right after close (round $round)"
	echo "ok: round $round: the holder's latency attachments went with it, rmmod succeeded"
done
trap - EXIT

# kmod-direct latency: a timed call asleep in the function outlives its
# attachment; the module stays until it has returned through the trampoline
if haslat 2; then
	load_kmod
	S=tracerd_testmod_sleep
	specs="direct:$S direct:$T"
	hold
	sh -c "echo 4000000 > $TESTMOD_DBG/sleep_us" & sleeper=$!
	sleep 1
	kill -KILL $holder; wait $holder 2>/dev/null
	st=$(kmodctl stats); echo "$st"
	grep -q "attachments=1 .* draining=1" <<< "$st" || fail "no draining attachment: $st"
	rmmod tracerd_kmod 2>/dev/null && fail "rmmod succeeded with a timed call in flight"
	wait $sleeper || fail "the sleeping call did not return"
	for _ in $(seq 100); do
		kmodctl stats | grep -q "draining=0" && break
		sleep 0.1
	done
	kmodctl clean || fail "not clean after the timed call returned"
	rmmod tracerd_kmod || fail "rmmod after the drain"
	echo "ok: direct latency: the attachment drained when the sleeping call returned, rmmod succeeded"
fi
load_kmod
kmodctl clean || fail "not clean after the test"
unload_mod tracerd_kmod
