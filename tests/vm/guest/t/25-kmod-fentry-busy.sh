# SPDX-License-Identifier: GPL-2.0-or-later
# A function carries one direct call: with a BPF fentry trampoline on the
# getpgid handler, a kmod-direct attachment there fails with EBUSY, while
# a kmod-callops attachment next to the fentry still counts exactly. The
# trampoline (fentry+fexit) is entered by a jump where the kernel has
# jump-entered direct calls (7.2: DYNAMIC_FTRACE_WITH_JMP), by a call
# elsewhere: the site decoder must see which, and a kprobe past the site
# (int3, x86) must still count exactly. With the callops beside it, the
# site calls ftrace_regs_caller, which jumps on to the BPF trampoline.
source ./lib.sh
load_kmod
modes=$(kmodctl features | sed -n 's/.*modes=\(0x[0-9a-f]*\).*/\1/p')
[ $(( modes & (1 << 2) )) != 0 ] || skip "kmod-direct not on this kernel"
sys=$(sys_getpgid)
bpf_smoke fentry "$sys" 2000000000 > /tmp/fentry.out 2>&1 & loader=$!
trap 'kill $loader 2>/dev/null; wait' EXIT
for _ in $(seq 600); do
	grep -q "^$sys " /sys/kernel/tracing/enabled_functions && break
	kill -0 $loader 2>/dev/null || fail "fentry loader: $(cat /tmp/fentry.out)"
	sleep 0.1
done
grep "^$sys " /sys/kernel/tracing/enabled_functions || fail "fentry not attached"
out=$(kmodctl attach direct "$sys"); rc=$?
expect_eq "direct on a function with a BPF fentry: errno" "$rc" 16
out=$(kmodctl count callops "$sys" 1000) || fail "callops next to fentry: $out"
echo "$out" | grep -q "^hits=1000 " || fail "callops next to fentry: $out"
echo "ok: callops next to fentry counts 1000"
if [ $(( modes & (1 << 4) )) != 0 ]; then
	out=$(kmodctl site kprobe-int3 "$sys") || fail "site next to fentry: $out"
	echo "$out"
	insn=$(echo "$out" | sed -n 's/.* insn=\([0-9a-f]*\) .*/\1/p')
	want=e8; kernel_has jmp_direct && want=e9
	expect_eq "fentry+fexit site opcode" "${insn: -2}" "$want"
	expect_eq "fentry+fexit site path" "$(echo "$out" | sed -n 's/.* path=\([^ ]*\) .*/\1/p')" caller
	out=$(kmodctl count kprobe-int3 "$sys" 1000) || fail "kprobe-int3 next to fentry: $out"
	echo "$out" | grep -q "^hits=1000 " || fail "kprobe-int3 next to fentry: $out"
	echo "ok: kprobe-int3 next to fentry+fexit counts 1000"
fi
kill $loader; wait
trap - EXIT
kmodctl clean || fail "not clean after the test"
unload_mod tracerd_kmod
