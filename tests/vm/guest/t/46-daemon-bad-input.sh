# SPDX-License-Identifier: GPL-2.0-or-later
# Per-function errors on a kernel with ftrace: unknown, notrace and
# inlined functions; denylisted names; glob cap; kmod absent.
# ci-kernels: 6.12
source ./t/40-daemon-lib.sh
load_testmod
unload_mod tracerd_kmod
daemon_start "max_glob_matches = 1000"
t() { # WANT_EXIT WANT_CODE ARGS... -> the message in $MSG
	local want=$1 code=$2 out rc
	shift 2
	out=$($C --json "$@"); rc=$?
	MSG=$(jp .error.message <<< "$out")
	echo "$*: $MSG"
	expect_eq "exit of '$*'" $rc "$want"
	expect_eq "code of '$*'" "$(jp .error.code <<< "$out")" "$code"
}
says() { grep -q "$1" <<< "$MSG" || fail "message lacks '$1': $MSG"; }
t 5 not_found attach no_such_function_xyz --mode kprobe
says "unknown function"
# notrace: in kallsyms, not in available_filter_functions
# (files, not <(...): the guest has no /dev/fd)
awk '$2 ~ /^[tT]$/ && NF == 3 {print $3}' /proc/kallsyms | sort -u > "$TD/kallsyms"
sed 's/ .*//' /sys/kernel/tracing/available_filter_functions | sort -u > "$TD/traceable"
nt=$(comm -23 "$TD/kallsyms" "$TD/traceable" | grep -E '^[a-z][a-z0-9_]+$' |
	grep -v -E '^(bpf|htab|ftrace|kprobe|rcu|perf|ktime|sched_clock)' | head -n1)
echo "notrace candidate: $nt"
t 5 not_found attach "$nt"
says "not traceable"
# inlined: a BTF function with no symbol
awk '{print $3}' /proc/kallsyms | sort -u > "$TD/allsyms"
inl=$(bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | sed -n "s/^\[[0-9]*\] FUNC '\([a-z][a-z0-9_]*\)'.*/\1/p" |
	sort -u | comm -23 - "$TD/allsyms" | head -n1)
if [ -n "$inl" ]; then
	echo "inlined candidate: $inl"
	t 5 not_found attach "$inl"
	says "inlined"
fi
t 2 bad_request attach htab_map_lookup_elem
says denylisted
t 5 not_found attach 'htab_map_*'
says "no traceable"
t 1 limit attach 'tracerd_testmod_fn_*'
says "max_glob_matches (1000; raise it in tracerd.conf"
t 6 unavailable attach tracerd_testmod_target --mode kmod-callops
says "/dev/tracerd not present"
$C --json status | jp .kmod.reason | grep -q "not present" || fail "status kmod reason"
daemon_stop
