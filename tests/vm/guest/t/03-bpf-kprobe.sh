# SPDX-License-Identifier: GPL-2.0-or-later
# A BPF kprobe+kretprobe on the getpgid syscall handler counts exactly N.
source ./lib.sh
n=$(size 1000 100000)
out=$(bpf_smoke kprobe "$(sys_getpgid)" "$n") || fail "bpf_smoke kprobe: $out"
expect_eq "kprobe/kretprobe counts" "$out" "entry=$n exit=$n"
