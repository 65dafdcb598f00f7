#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Discovery against a live daemon on this kernel (no ftrace function list
# here, so functions come from kallsyms and BTF): `tracectl functions GLOB`
# lists the union of kallsyms' function symbols and BTF FUNCs matching it,
# counted against the kernel's own files; an inlined function (BTF, no
# symbol) says so; the function modes this kernel refuses are listed once
# with status' reasons; tracepoints list with their kernel path (tp_btf
# with a btf_trace_ type, classic for syscalls). `attach --dry-run` answers
# what attach would (the same mode, the same refusals and exit statuses)
# and hooks nothing.
source "$(dirname "$0")/lib/daemon.bash"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
command -v bpftool > /dev/null || skip "bpftool not installed"
start_daemon

# the kernel's own lists: function symbols and BTF FUNCs
awk '$2 ~ /^[tTwW]$/ { print $3 }' /proc/kallsyms | sort -u > "$W/ksyms"
bpftool btf dump file /sys/kernel/btf/vmlinux 2> /dev/null |
	sed -n "s/^\[[0-9]*\] FUNC '\([^']*\)'.*/\1/p" | sort -u > "$W/btf"
[ -s "$W/ksyms" ] && [ -s "$W/btf" ] || skip "no kallsyms or BTF to compare with"
want=$(sort -u "$W/ksyms" "$W/btf" | grep -c '^vfs_')
$C --json functions 'vfs_*' > "$W/f.json" || fail "functions vfs_*"
expect_eq "vfs_* total (kallsyms + BTF)" "$(jq_get '.total' < "$W/f.json")" "$want"
expect_eq "vfs_* listed" "$(jq '.functions | length' < "$W/f.json")" "$want"
expect_eq "sorted by name" "$(jq -r '.functions[].name' < "$W/f.json" | LC_ALL=C sort -c && echo yes)" yes
expect_eq "vfs_read has BTF" "$(jq -r '.functions[] | select(.name == "vfs_read") | .btf' < "$W/f.json")" true
expect_eq "vfs_read traceable" \
	"$(jq -r '.functions[] | select(.name == "vfs_read") | .traceable' < "$W/f.json")" true

# the modes this kernel refuses, once, with status' reasons
$C --json status > "$W/status.json"
for m in fentry kprobe kprobe-multi kmod-direct; do
	if [ "$(jq_get ".features[\"$m\"].available" < "$W/status.json")" = false ]; then
		expect_eq "$m unavailable, status' reason" "$(jq_get ".unavailable[\"$m\"]" < "$W/f.json")" \
			"$(jq_get ".features[\"$m\"].reason" < "$W/status.json")"
		jq -e ".functions[] | select(.name == \"vfs_read\") | .modes | index(\"$m\") | not" \
			< "$W/f.json" > /dev/null || fail "vfs_read lists unavailable $m"
	fi
done
$C functions 'vfs_read' > "$W/f.txt" || fail "functions (text)"
grep -Eq '^vfs_read +- +yes ' "$W/f.txt" || fail "text row of vfs_read: $(cat "$W/f.txt")"
expect_eq "text footer" "$(tail -n 1 "$W/f.txt")" "1 function"

# inlined: a BTF FUNC with no function symbol
inl=$(comm -23 "$W/btf" "$W/ksyms" | grep -E '^[a-z][a-z0-9_]+$' | head -n 1)
if [ -n "$inl" ]; then
	expect_eq "$inl: inlined" "$($C --json functions "$inl" | jq_get '.functions[0].reason')" \
		"inlined (in BTF, no symbol in kallsyms)"
fi
expect_eq "no match" "$($C --json functions 'no_such_fn_*' | jq_get '.total')" 0
expect_eq "--limit 2" "$($C --json functions 'vfs_*' --limit 2 | jq -c '[(.functions | length), .truncated]')" \
	"[2,true]"

# tracepoints: the path each takes
$C --json functions 'tp:syscalls/sys_*_getpgid' > "$W/tp.json" || fail "functions tp:"
expect_eq "syscall events" "$(jq -r '.functions[].name' < "$W/tp.json" | tr '\n' ' ')" \
	"tp:syscalls/sys_enter_getpgid tp:syscalls/sys_exit_getpgid "
expect_eq "syscall via" "$(jq -r '.functions[].via' < "$W/tp.json" | sort -u)" tracepoint
expect_eq "only sys_enter_ times" "$(jq -c '[.functions[].latency]' < "$W/tp.json")" "[true,false]"
expect_eq "sched_switch via" "$($C --json functions 'tp:sched/sched_switch' | jq -c '.functions[0] | [.btf, .via, .modes]')" \
	'[true,"tp_btf",["tp-btf"]]'
$C functions 'tp:sched/sched_sw*' | grep -Eq '^tp:sched/sched_switch +yes +tp_btf +tp-btf$' ||
	fail "tracepoint text row"

# attach --dry-run: attach's answer, nothing hooked
$C --json attach --dry-run tp:syscalls/sys_enter_getpgid --latency > "$W/p.json" || fail "dry-run"
expect_eq "plan" "$(jq -c '.plan | [.mode, .candidates, .functions[0].function, .functions[0].hooked]' < "$W/p.json")" \
	'["tp-btf",["tp-btf"],"sys_enter_getpgid",true]'
expect_eq "nothing attached" "$($C --json list | jq '.attachments | length')" 0
expect_eq "no link" "$(daemon_links | wc -w)" 0
same() {	# ATTACH_ARGS...: --dry-run gives attach's status and message
	local a b sa sb
	a=$($C --json attach --dry-run "$@"); sa=$?
	b=$($C --json attach "$@"); sb=$?
	expect_eq "attach $*: --dry-run status as attach's" "$sa" "$sb"
	expect_eq "attach $*: --dry-run message" "$(jq_get .error.message <<< "$a")" \
		"$(jq_get .error.message <<< "$b")"
}
same tp:bogus/sched_switch
same tp:sched/no_such_event
same vfs_read
same vfs_read --mode fentry
same tp:sched/sched_switch --latency
same tp:sched/sched_switch --mode kmod-direct
$C attach tp:sched/sched_switch > /dev/null || fail "attach sched_switch"
same tp:sched/sched_switch	# exists
expect_eq "one attachment (the real one)" "$($C --json list | jq '.attachments | length')" 1

$C functions --help | grepq '^Usage: tracectl functions ' || fail "functions --help"
$C functions --limit 0 > /dev/null 2>&1
expect_eq "--limit 0" "$?" 2
$C functions a b > /dev/null 2>&1
expect_eq "two globs" "$?" 2
stop_daemon
