# SPDX-License-Identifier: GPL-2.0-or-later
# tracerd_kmod comm filter (TRACERD_IOC_ATTACH2, ABI 1.6), every mode this
# kernel has (callops, callops save_regs, direct, kprobe, kprobe-int3) and
# latency where the module times calls: with no tgid filter, N calls from
# this process named C and M calls of a child named otherwise count
# exactly N hits and M filtered (the test module's target: nobody else
# calls it), nothing missed; with --latency exactly N calls timed. The
# other names are near misses: a prefix of C, C with one more byte, C
# with its last byte changed (a 15-byte C: the whole field compared). An
# empty comm counts everyone (N + M); a tgid and a comm filter must both
# pass; the same through ATTACH_BATCH2. Bad comm fields are
# 21-kmod-faults'.
# The hit path is the same C on every kernel: make check runs it on
# 6.12-arm64 (whose boot is off the longest lane), check-full everywhere.
# ci-kernels: 6.12-arm64
source ./lib.sh
load_testmod
load_kmod
n=$(size 1000 20000)
m=$(size 300 5000)
T=tracerd_testmod_target
feat=$(kmodctl features) || fail "features ioctl"
echo "$feat"
modes=$(sed -n 's/.*modes=\(0x[0-9a-f]*\) .*/\1/p' <<< "$feat")
aflags=$(sed -n 's/.*attach_flags=\(0x[0-9a-f]*\).*/\1/p' <<< "$feat")
lat=$(sed -n 's/.*latency_mask=\(0x[0-9a-f]*\).*/\1/p' <<< "$feat")
[[ $modes =~ ^0x[0-9a-f]+$ && $aflags =~ ^0x[0-9a-f]+$ && $lat =~ ^0x[0-9a-f]+$ ]] ||
	fail "cannot read the features: modes '$modes' attach_flags '$aflags' latency '$lat'"
# bit 5 stands for callops with SAVE_REGS
[ $(( aflags & 1 )) != 0 ] && modes=$(( modes | (1 << 5) ))
has() { [ $(( modes & (1 << $1) )) != 0 ]; }
haslat() { [ $(( lat & (1 << $1) )) != 0 ]; }

# check WHAT OUT HITS FILTERED: every attachment of OUT counted exactly so
check() {
	local what=$1 out=$2 hits=$3 filt=$4 k
	k=$(grep -c '^hits=' <<< "$out")
	[ "$k" -ge 1 ] || fail "$what: no counters: $out"
	expect_eq "$what: attachments with hits=$hits filtered=$filt missed=0" \
		"$(grep -c "^hits=$hits filtered=$filt missed=0$" <<< "$out")" "$k"
}

# comm (15 bytes: the whole field), this process's name, the child's
cases="trc-comm15bytes:trc-comm15bytes:trc-comm15bytez trcd:trcd:trc trcd:trcd:trcdx"
for spec in callops:1 callops-regs:5 direct:2 kprobe:3 kprobe-int3:4; do
	mode=${spec%:*}
	has "${spec#*:}" || { echo "$mode: not on this kernel"; continue; }
	if [ $mode = kprobe ] && ! kernel_has entry_kprobe; then
		echo "$mode: no entry kprobes on this kernel (20-kmod-attach checks the refusal)"
		continue
	fi
	for c in $cases; do
		IFS=: read -r comm as other <<< "$c"
		out=$(kmodctl count $mode $T "$n" --tgid 0 --comm "$comm" --as "$as" \
			--other "$m" --other-comm "$other") || fail "$mode comm $comm: $out"
		check "$mode comm '$comm', $n calls as '$as', $m as '$other'" "$out" "$n" "$m"
	done
	# an empty comm in ATTACH2: no filter, both processes count
	out=$(kmodctl count $mode $T "$n" --tgid 0 --attach2 --as trcd --other "$m" \
		--other-comm other) || true
	check "$mode ATTACH2, comm '': everyone" "$out" $(( n + m )) 0
	# tgid and comm: the child has the comm but not the tgid
	out=$(kmodctl count $mode $T "$n" --tgid self --comm trcd --as trcd --other "$m" \
		--other-comm trcd) || fail "$mode tgid+comm: $out"
	check "$mode tgid and comm" "$out" "$n" "$m"
	# several attachments with different comms on one function (not direct:
	# one direct call per function)
	if [ $mode != direct ]; then
		out=$(kmodctl count $mode $T "$n" --tgid 0 --comm trcd --as trcd --repeat 3 \
			--other "$m" --other-comm trce) || fail "$mode x3: $out"
		check "$mode x3 comm trcd" "$out" "$n" "$m"
	fi
done

# ATTACH_BATCH2 (what the daemon sends): callops and direct as one ops for
# the batch, kprobe one each; kmodctl's own comm passes, another is filtered
L=/tmp/comm-batch.list
{ ksym_line $T; ksym_line tracerd_testmod_fn_005; } > $L
for spec in callops:1 direct:2 kprobe:3; do
	mode=${spec%:*}
	has "${spec#*:}" || continue
	[ $mode = kprobe ] && ! kernel_has entry_kprobe && continue
	out=$(kmodctl batch $mode $L --comm kmodctl --count $T "$n") || fail "$mode batch2: $out"
	expect_eq "$mode batch2 comm kmodctl: counts" "$(grep -c "^hits=$n filtered=0 $T " <<< "$out")" 1
	out=$(kmodctl batch $mode $L --comm kmodctl2 --count $T "$n")
	expect_eq "$mode batch2 comm kmodctl2: all filtered" "$(grep -c "^hits=0 filtered=$n $T " <<< "$out")" 1
done

# latency: a filtered call is not timed (count checks count == hist == N)
for spec in kprobe:3 callops:1 direct:2; do
	mode=${spec%:*}
	haslat "${spec#*:}" || { echo "$mode: no latency on this kernel"; continue; }
	out=$(kmodctl count $mode $T "$n" --latency --tgid 0 --comm trcd --as trcd \
		--other "$m" --other-comm trcdx) || fail "$mode latency comm: $out"
	echo "$out"
	check "$mode latency comm trcd" "$out" "$n" "$m"
	grep -q "^lat: count=$n sum=[0-9]* min=[0-9]* max=[0-9]* missed=0 hist=$n$" <<< "$out" ||
		fail "$mode latency comm: not $n timed calls: $out"
	echo "ok: $mode latency with comm: $n timed, $m filtered untimed"
done
kmodctl clean || fail "not clean after the test"
unload_mod tracerd_kmod
