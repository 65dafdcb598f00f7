# SPDX-License-Identifier: GPL-2.0-or-later
# A BPF kprobe+kretprobe on the getpgid syscall handler counts exactly N.
# Where the function's first instruction is its ftrace site and the kernel
# has no KPROBES_ON_FTRACE (riscv64 6.12), the kernel refuses the kprobe:
# that refusal (EINVAL) is what must happen there.
source ./lib.sh
n=$(size 1000 100000)
if ! kernel_has entry_kprobe; then
	out=$(bpf_smoke kprobe "$(sys_getpgid)" "$n" 2>&1) &&
		fail "a kprobe on the ftrace site of $(sys_getpgid) was accepted: $out"
	grep -q "Invalid argument" <<< "$out" || fail "refused, but not with EINVAL: $out"
	echo "ok: kprobe at the entry of $(sys_getpgid) refused (EINVAL): no KPROBES_ON_FTRACE"
	exit 0
fi
out=$(bpf_smoke kprobe "$(sys_getpgid)" "$n") || fail "bpf_smoke kprobe: $out"
expect_eq "kprobe/kretprobe counts" "$out" "entry=$n exit=$n"
