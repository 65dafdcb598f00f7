#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tracerd end to end on this kernel with tp-btf: a private daemon with an
# empty config; attach tp:task/task_rename filtered to this shell (pid and
# comm), rename the shell exactly N times, count exactly N in stats/list,
# detach; SIGTERM leaves no BPF link behind. Feature probing must report
# fentry and kprobe unavailable with the kernel's reason.
source "$(dirname "$0")/lib/daemon.bash"
N=1000
start_daemon

$C --json status > "$W/status.json" || fail "status"
expect_eq "tp-btf available" "$(jq_get '.features["tp-btf"].available' < "$W/status.json")" true
for m in fentry kprobe; do
	avail=$(jq_get ".features[\"$m\"].available" < "$W/status.json")
	reason=$(jq_get ".features[\"$m\"].reason" < "$W/status.json")
	if [ "$avail" = true ]; then
		echo "note: $m is available on this kernel ($(uname -r))"
	else
		[ -n "$reason" ] && [ "$reason" != null ] || fail "$m unavailable without a reason"
		ok "$m unavailable: $reason"
	fi
done
[ "$(jq_get '.kmod.present' < "$W/status.json")" = false ] &&
	jq_get '.kmod.reason' < "$W/status.json" | grepq '/dev/tracerd' ||
	fail "kmod absence not explained"
$C status > "$W/status.txt" || fail "status (text)"
grep -q '^  tp-btf  *yes' "$W/status.txt" || fail "status text lacks tp-btf yes"

# count renames of this shell only, by pid
me=$BASHPID
$C --json attach tp:task/task_rename --pid "$me" > "$W/a1.json" || fail "attach by pid"
id1=$(jq_get '.attachment.id' < "$W/a1.json")
expect_eq "mode" "$(jq_get '.attachment.mode' < "$W/a1.json")" tp-btf
printf tracerd-t20 > /proc/self/comm
# comm filter: the tracepoint fires before the name changes, so keep it
$C --json attach tp:task/task_rename --comm tracerd-t20 > "$W/a2.json" || fail "attach by comm"
# no fork/exec from here to the rename away: children inherit the comm
for ((i = 0; i < N; i++)); do printf tracerd-t20 > /proc/self/comm; done
printf trd-t20-done > /proc/self/comm	# counted by both (old name matches)
( printf other > /proc/self/comm )	# another process, another name: not counted
id2=$(jq_get '.attachment.id' < "$W/a2.json")

expect_eq "calls by pid" "$($C --json stats "$id1" | jq_get '.stats[0].calls')" $((N + 2))
expect_eq "calls by comm" "$($C --json stats "$id2" | jq_get '.stats[0].calls')" $((N + 1))
expect_eq "list count" "$($C --json list | jq_get '.attachments | length')" 2
expect_eq "list pid" "$($C --json list | jq_get ".attachments[0].pid")" "$me"
expect_eq "merged calls" "$($C --json stats task_rename --merge | jq_get '.stats[0].calls')" \
	$((2 * N + 3))
$C stats > "$W/stats.txt" || fail "stats (text)"
grep -q "task_rename.*tp-btf.* $((N + 2)) " "$W/stats.txt" || fail "stats text"
$C list | grepq "tp:task/task_rename" || fail "list text"

# the hook is a real BPF link while attached
links=$(daemon_links)
expect_eq "BPF links while attached" "$(wc -w <<< "$links")" 2
expect_eq "links alive" "$(links_alive $links)" 2
expect_eq "detach by id" "$($C --json detach "$id1" | jq_get '.detached[0]')" "$id1"
expect_eq "detach all" "$($C --json detach --all | jq_get '.detached | length')" 1
expect_eq "list empty" "$($C --json list | jq_get '.attachments | length')" 0

# attached again at shutdown: SIGTERM must release every link
$C attach tp:task/task_rename --pid "$me" > /dev/null || fail "re-attach"
links=$(daemon_links)
expect_eq "BPF links before SIGTERM" "$(wc -w <<< "$links")" 1
stop_daemon
expect_eq "BPF links after SIGTERM" "$(links_alive $links)" 0
