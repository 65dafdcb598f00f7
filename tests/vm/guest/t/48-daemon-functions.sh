# SPDX-License-Identifier: GPL-2.0-or-later
# Discovery on a kernel with ftrace: `tracectl functions` lists the union
# of available_filter_functions, kallsyms and BTF (counted against those
# files), the modes status calls available for a traceable function, why
# a notrace or inlined one cannot be hooked, and a function that carries a
# direct call (fentry's trampoline; enabled_functions' D) is refused by
# kmod-direct. attach --dry-run picks the mode attach then picks and hooks
# nothing. Classic tracepoints: tp:syscalls/sys_enter_getpgid counts one
# process's getpgid() exactly, via a perf event of its tracefs id.
# ci-kernels: 7.2 6.1-arm64
source ./t/40-daemon-lib.sh
[ -e /dev/tracerd ] || load_kmod
daemon_start
F=/sys/kernel/tracing

# the count of vfs_* against the kernel's own lists
sed 's/ .*//' $F/available_filter_functions | sort -u > "$TD/traceable"
awk '$2 ~ /^[tTwW]$/ { print $3 }' /proc/kallsyms | sort -u > "$TD/ksyms"
bpftool btf dump file /sys/kernel/btf/vmlinux 2> /dev/null |
	sed -n "s/^\[[0-9]*\] FUNC '\([^']*\)'.*/\1/p" | sort -u > "$TD/btf"
want=$(sort -u "$TD/traceable" "$TD/ksyms" "$TD/btf" | grep -c '^vfs_')
expect_eq "vfs_* total" "$($C --json functions 'vfs_*' | jp .total)" "$want"

# a traceable function: every function mode status calls available
$C --json functions vfs_read > "$TD/f.json" || fail "functions vfs_read"
expect_eq "vfs_read traceable" "$(jp '.functions[0].traceable' < "$TD/f.json")" true
modes=" $(jp '.functions[0].modes[*]' < "$TD/f.json" | tr '\n' ' ')"
echo "vfs_read modes:$modes"
for m in fentry kprobe kprobe-multi kmod-callops kmod-direct kmod-kprobe; do
	[ "$(feature "$m")" = true ] || continue
	case $modes in *" $m "*) ;; *) fail "vfs_read lacks available mode $m:$modes" ;; esac
done
echo "ok: vfs_read lists every available function mode"

# notrace and inlined (as 46-daemon-bad-input finds them)
nt=$(comm -23 "$TD/ksyms" "$TD/traceable" | grep -E '^[a-z][a-z0-9_]+$' |
	grep -v -E '^(bpf|htab|ftrace|kprobe|rcu|perf|ktime|sched_clock)' | head -n1)
expect_eq "$nt: notrace" "$($C --json functions "$nt" | jp '.functions[0].reason')" \
	"notrace (not in available_filter_functions)"
awk '{ print $3 }' /proc/kallsyms | sort -u > "$TD/allsyms"
inl=$(comm -23 "$TD/btf" "$TD/allsyms" | grep -E '^[a-z][a-z0-9_]+$' | head -n1)
if [ -n "$inl" ]; then
	expect_eq "$inl: inlined" "$($C --json functions "$inl" | jp '.functions[0].reason')" \
		"inlined (in BTF, no symbol in kallsyms)"
fi

# a direct call already there: fentry's BPF trampoline on vfs_read
if [ "$(feature fentry)" = true ]; then
	id=$($C --json attach vfs_read --mode fentry | jp .attachment.id) || fail "attach fentry"
	grep '^vfs_read ' $F/enabled_functions | grep -qE ' D([[:space:]]|$)' ||
		fail "enabled_functions shows no direct call: $(grep '^vfs_read ' $F/enabled_functions)"
	$C --json functions vfs_read > "$TD/d.json"
	expect_eq "direct_call" "$(jp '.functions[0].direct_call' < "$TD/d.json")" true
	if [ "$(feature kmod-direct)" = true ]; then
		expect_eq "kmod-direct refused" "$(jp '.functions[0].refused.kmod-direct' < "$TD/d.json")" \
			"it already carries a direct call (enabled_functions: D)"
	fi
	$C detach "$id" > /dev/null || fail "detach fentry"
fi

# --dry-run: the mode attach picks, nothing hooked
plan=$($C --json attach --dry-run vfs_write) || fail "dry-run vfs_write"
expect_eq "no link after --dry-run" "$(our_links)" 0
expect_eq "no attachment after --dry-run" "$($C --json list | jp '.attachments|length')" 0
pm=$(jp .plan.mode <<< "$plan")
expect_eq "attach picks the planned mode" "$($C --json attach vfs_write | jp .attachment.mode)" "$pm"
$C detach --all > /dev/null
if [ "$(feature kprobe-multi)" = true ]; then
	n=$($C --json attach --dry-run 'vfs_rea*' --mode kprobe-multi | jp '.plan.functions[*].hooked' |
		grep -c true)
	expect_eq "glob: hooked as planned" \
		"$($C --json attach 'vfs_rea*' --mode kprobe-multi | jp '.attachment.functions|length')" "$n"
	$C detach --all > /dev/null
fi

# classic tracepoint: exact count of one process's getpgid()
N=300
id=$(attach_pid tp-btf tp:syscalls/sys_enter_getpgid trigger getpgid $N)
expect_eq "sys_enter_getpgid calls" "$(calls_of "$id")" "$N"
expect_eq "via" "$($C --json stats "$id" | jp '.stats[0].via')" tracepoint
ATTACH_FLAGS=--latency
lid=$(attach_pid tp-btf tp:syscalls/sys_enter_getpgid trigger getpgid $N)
ATTACH_FLAGS=
expect_eq "timed getpgid" "$($C --json stats "$lid" | jp '.stats[0].latency.count')" "$N"
$C detach --all > /dev/null
daemon_stop
