# SPDX-License-Identifier: GPL-2.0-or-later
# A fentry+fexit program from bpf/ on the getpgid syscall handler counts
# exactly N entries and N exits for N getpgid calls of this process.
source ./lib.sh
n=$(size 1000 100000)
if ! kernel_has direct_calls; then
	# arm64 6.1: BPF trampolines attach through ftrace direct calls
	out=$(bpf_smoke fentry "$(sys_getpgid)" 10 2>&1) && fail "fentry attached without direct calls: $out"
	echo "ok: fentry refused on $KERNEL_NAME (no DYNAMIC_FTRACE_WITH_DIRECT_CALLS): $out"
	exit 0
fi
out=$(bpf_smoke fentry "$(sys_getpgid)" "$n") || fail "bpf_smoke fentry: $out"
expect_eq "fentry/fexit counts" "$out" "entry=$n exit=$n"
