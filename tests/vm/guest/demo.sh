#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `make demo` (guest side): what this kernel offers tracerd, and each hook
# path counting the same syscall. Numbers under TCG are not hardware numbers.
source /opt/tracerd/tests/lib.sh
n=${DEMO_N:-100000}
f=$(sys_getpgid)
cfg() { grep -q "^CONFIG_$1=y" "/boot/config-$(uname -r)" 2>/dev/null && echo yes || echo no; }
echo "kernel $(uname -r) ($(uname -m))"
load_kmod; load_testmod
echo "  tracerd_kmod: $(kmod_version 2>&1)"
printf '  %-28s %s\n' "direct calls (BPF fentry)" "$(grep -q register_ftrace_direct /proc/kallsyms && echo yes || echo no)"
printf '  %-28s %s\n' "kprobe.multi (fprobe)" "$(grep -qw register_fprobe_ips /proc/kallsyms && echo yes || echo 'no (kernel built without CONFIG_FPROBE)')"
printf '  %-28s %s\n' "kprobes" "$([ -d /sys/kernel/debug/kprobes ] && echo yes || echo no)"
echo
printf '  %-24s %10s %10s %12s\n' "path on $f" calls exits "ns/call+load"
for mode in tp fentry kprobe; do
	t0=$(date +%s%N)
	out=$(bpf_smoke $mode "$f" "$n" 2>&1)
	t1=$(date +%s%N)
	e=${out#entry=}; e=${e%% *}; x=${out##*exit=}
	printf '  %-24s %10s %10s %12s\n' "$mode" "$e" "$x" "$(( (t1 - t0) / n ))"
done
