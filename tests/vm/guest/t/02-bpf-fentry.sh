# SPDX-License-Identifier: GPL-2.0-or-later
# A fentry+fexit program from bpf/ on the getpgid syscall handler counts
# exactly N entries and N exits for N getpgid calls of this process.
source ./lib.sh
n=$(size 1000 100000)
out=$(bpf_smoke fentry "$(sys_getpgid)" "$n") || fail "bpf_smoke fentry: $out"
expect_eq "fentry/fexit counts" "$out" "entry=$n exit=$n"
