# SPDX-License-Identifier: GPL-2.0-or-later
# tracerd_kmod stack capture (TRACERD_ATTACH_STACKS, ABI 1.8): on the test
# module's chain (call_chain "300 200": chain_a -> chain_b -> chain_c 300
# times, chain_b -> chain_c 200 times), an attachment on chain_c in
# kmod-callops (its own ops, save_regs, a batch's shared ops, the fprobe of
# --latency) and in kmod-kprobe and kprobe-int3 (--latency: the kretprobe's
# entry) keeps exactly two distinct stacks, counted 300 and 200, frame 0
# the traced function and then its callers in order (symbols from
# /proc/kallsyms): chain_c chain_b chain_a then the debugfs write, and
# chain_c chain_b then the write; nothing dropped. A table of one slot
# keeps the first stack and counts the other's 200 calls as dropped.
# kmod-direct refuses (EINVAL: its trampoline is asm), as do a depth of 0
# or above 127, more than 1024 slots, slots without stacks; STACKS on an
# attachment without stacks says ENODATA, on another fd's id ENOENT.
# Every stack table together stays within 64 MiB (ENOSPC past it);
# benchmarks refuse stacks. rmmod is refused while holders with stacks are
# attached (callops, kprobe); SIGKILL of the holders detaches everything
# (kmodctl clean: stats, enabled_functions, kprobes/list); the traced
# module unloads cleanly under them; rmmod succeeds at the end.
# ci-kernels: 6.1-arm64
source ./lib.sh
load_testmod
load_kmod
C=tracerd_testmod_chain_c
P=/sys/kernel/debug/tracerd_testmod/call_chain
EINVAL=22
feat=$(kmodctl features) || fail "features ioctl"
echo "$feat"
grep -q ' stacks=1$' <<< "$feat" || fail "the module does not say it captures stacks"
modes=$(sed -n 's/.*modes=\(0x[0-9a-f]*\) .*/\1/p' <<< "$feat")
lat=$(sed -n 's/.*latency_mask=\(0x[0-9a-f]*\).*/\1/p' <<< "$feat")
aflags=$(sed -n 's/.*attach_flags=\(0x[0-9a-f]*\).*/\1/p' <<< "$feat")
# bit 5 stands for callops with SAVE_REGS
[ $(( aflags & 1 )) != 0 ] && modes=$(( modes | (1 << 5) ))
has() { [ $(( modes & (1 << $1) )) != 0 ]; }
haslat() { [ $(( lat & (1 << $1) )) != 0 ]; }

# the frames of a "stack count=N nr=K: f+0x.. ..." line, names only
frames() { sed 's/^[^:]*: //; s/+0x[0-9a-f]*//g' <<< "$1"; }

# check WHAT OUT: hits, two stacks with their counts and frames, no drop
check() {
	local what=$1 out=$2 s3 s2
	grep -q '^hits=500 filtered=0 missed=0$' <<< "$out" || fail "$what: not 500 hits: $out"
	grep -q '^stacks: total=2 dropped=0 depth=32 slots=1024$' <<< "$out" ||
		fail "$what: not two stacks, none dropped: $out"
	s3=$(grep '^stack count=300 ' <<< "$out")
	s2=$(grep '^stack count=200 ' <<< "$out")
	[ -n "$s3" ] && [ -n "$s2" ] || fail "$what: counts not 300 and 200: $out"
	# tm_call_loop is static: the compiler may inline it into the write
	local abc="$C tracerd_testmod_chain_b tracerd_testmod_chain_a "
	[[ "$(frames "$s3")" =~ ^"$abc"(tm_call_loop )?"tm_call_chain_write " ]] ||
		fail "$what: the a -> b -> c stack is not c, b, a, the write: $s3"
	[[ "$(frames "$s2")" =~ ^"$C tracerd_testmod_chain_b "(tm_call_loop )?"tm_call_chain_write " ]] ||
		fail "$what: the b -> c stack is not c, b, the write: $s2"
	echo "ok: $what: 2 stacks, x300 (c b a write) and x200 (c b write), none dropped"
}

for spec in callops:1 callops-regs:5 kprobe:3 kprobe-int3:4; do
	mode=${spec%:*}
	has "${spec#*:}" || { echo "$mode: not on this kernel"; continue; }
	if [ $mode = kprobe ] && ! kernel_has entry_kprobe; then
		echo "$mode: no entry kprobes on this kernel (20-kmod-attach checks the refusal)"
		continue
	fi
	out=$(kmodctl stacks $mode $C $P "300 200" --stacks 32) || fail "$mode: $out"
	echo "$out"
	check "$mode" "$out"
	case $mode in
	callops|kprobe)
		out=$(kmodctl stacks $mode $C $P "300 200" --stacks 32 --batch) ||
			fail "$mode batch: $out"
		check "$mode batch" "$out"
		if haslat "${spec#*:}"; then
			out=$(kmodctl stacks $mode $C $P "300 200" --stacks 32 --latency) ||
				fail "$mode latency: $out"
			check "$mode latency" "$out"
		fi ;;
	esac
	# a table of one slot: the first stack (a -> b -> c, made first) is
	# kept, the other's calls are counted as dropped
	out=$(kmodctl stacks $mode $C $P "300 200" --stacks 32 --stack-slots 1) ||
		fail "$mode one slot: $out"
	grep -q '^stacks: total=1 dropped=200 depth=32 slots=1$' <<< "$out" &&
		grep -q "^stack count=300 nr=[0-9]*: $C+" <<< "$out" ||
		fail "$mode one slot: not 1 stack x300 and 200 dropped: $out"
	echo "ok: $mode: a one-slot table keeps 300, drops 200"
	# depth 2: the two innermost frames only (both stacks have c, b)
	out=$(kmodctl stacks $mode $C $P "300 200" --stacks 2) || fail "$mode depth 2: $out"
	grep -q '^stacks: total=1 dropped=0 depth=2 ' <<< "$out" &&
		grep -q "^stack count=500 nr=2: $C+0x[0-9a-f]* tracerd_testmod_chain_b+0x[0-9a-f]*$" <<< "$out" ||
		fail "$mode depth 2: not one stack (c, b) x500: $out"
	echo "ok: $mode: depth 2 merges both into (c, b) x500"
	# bad requests
	for bad in "--stacks 0" "--stacks 128" "--stacks 8 --stack-slots 1025" "--stack-slots 4"; do
		out=$(kmodctl attach $mode $C $bad); rc=$?
		expect_eq "$mode $bad: errno (EINVAL)" "$rc" $EINVAL
	done
	out=$(kmodctl stacks $mode $C $P "1 1"); rc=$?
	expect_eq "$mode: STACKS without stacks: errno (ENODATA)" "$rc" 61
done
if has 2; then
	out=$(kmodctl attach direct $C --stacks 32); rc=$?
	expect_eq "direct --stacks: errno (EINVAL: the mode does not take it)" "$rc" $EINVAL
fi
# the module's stack tables together: 64 MiB, 63 tables of 1024 x 127
# frames (1040 KiB each); the 64th and on fail with ENOSPC, and nothing
# is left once the holder exits
out=$(kmodctl attach callops $C --stacks 127 --repeat 66)
expect_eq "tables of 127 frames within 64 MiB" "$(grep -c '^attach: id=' <<< "$out")" 63
expect_eq "tables past 64 MiB: ENOSPC" "$(grep -c '^attach: error ENOSPC (28)$' <<< "$out")" 3
kmodctl clean || fail "not clean after the 64 MiB test"
# benchmarks carry no depth: stacks refused there
out=$(kmodctl bench-ops callops 10 1 0 --flags 4); rc=$?
expect_eq "bench-ops with STACKS: errno (EINVAL)" "$rc" $EINVAL
out=$(kmodctl bench-all callops --flags 4); rc=$?
expect_eq "bench-all with STACKS: errno (EINVAL)" "$rc" $EINVAL
out=$(kmodctl stacks-id 1); rc=$?
expect_eq "STACKS of another fd's id: errno (ENOENT)" "$rc" 2
kmodctl clean || fail "not clean after the stack tests"

# hold MODE TAG: a holder attached with stacks on chain_c in the
# background, until ready; sets $holder
hold() {
	local ready=/tmp/kmod-stacks.$2
	rm -f $ready
	kmodctl stacks $1 $C $P "3 2" --stacks 32 --hold $ready > $ready.out 2>&1 &
	holder=$!
	for _ in $(seq 200); do
		[ -e $ready ] && return 0
		kill -0 $holder 2>/dev/null || break
		sleep 0.1
	done
	fail "$1 holder not ready: $(cat $ready.out)"
}
holders() { # start a callops holder, and a kprobe one where it can
	hold callops a; holders=$holder
	if has 3 && kernel_has entry_kprobe; then
		hold kprobe b; holders="$holders $holder"
	fi
}

# rmmod while a holder with stacks is attached: refused; SIGKILL: clean
holders
echo "3 2" > $P || fail "calls while held"
rmmod tracerd_kmod 2>/dev/null && fail "rmmod succeeded while a holder with stacks is attached"
echo "ok: rmmod refused while attached with stacks"
kill -KILL $holders
wait $holders 2>/dev/null
echo "3 2" > $P || fail "calls after the holders died"
kmodctl clean || fail "not clean after SIGKILL of the holders"
echo "ok: SIGKILL of the holders left nothing attached"

# the traced function's module goes away under attachments with stacks:
# its unload and the holders' exit afterwards are clean (dmesg too)
holders
rmmod tracerd_testmod || fail "rmmod of the traced module under stack attachments"
kill -KILL $holders
wait $holders 2>/dev/null
kmodctl clean || fail "not clean after the traced module went and the holders died"
echo "ok: the traced module unloaded under stack attachments, then nothing left"
unload_mod tracerd_kmod
