#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue #20 item 3: before attaching, the daemon knows whether its file
# descriptors suffice (tp-btf: 2 per tracepoint). Under an RLIMIT_NOFILE
# of the daemon's idle fds + 16 kept for clients + 10 (5 tracepoints),
# attachments are accepted whole until the precheck refuses the next one
# with `limit`, naming RLIMIT_NOFILE, the numbers and how to raise it:
# never a success with a function missing. --partial cannot split one
# tracepoint, so it is refused too, saying nothing fits; a detach frees
# the fds for the next attach. (--partial hooking part of a glob: the VM
# test 48-daemon-attach-steps.)
source "$(dirname "$0")/lib/daemon.bash"
[ "$(id -u)" = 0 ] || skip "needs root (tp-btf attachments)"
command -v prlimit >/dev/null || skip "prlimit not installed"
printf 'listen = off\n' > "$W/tracerd.conf"
C="$TRACECTL --socket $W/s.sock"
# the limit: what an idle daemon holds here (probes, maps, the module) + 26
"$TRACERD" --config "$W/tracerd.conf" --socket "$W/s.sock" 2> "$W/daemon0.log" &
DPID=$!
for i in $(seq 1 50); do
	[ -S "$W/s.sock" ] && $TRACECTL --socket "$W/s.sock" status > /dev/null 2>&1 && break
	sleep 0.1
done
idle=$(ls /proc/$DPID/fd | wc -l)
kill "$DPID"; wait "$DPID" 2>/dev/null
LIM=$((idle + 26))
prlimit --nofile=$LIM:$LIM "$TRACERD" --config "$W/tracerd.conf" --socket "$W/s.sock" 2> "$W/daemon.log" &
DPID=$!
for i in $(seq 1 50); do
	[ -S "$W/s.sock" ] && $C status > /dev/null 2>&1 && break
	kill -0 "$DPID" 2>/dev/null || fail "tracerd did not start under RLIMIT_NOFILE $LIM"
	sleep 0.1
done
err= n=0 last=
for tp in sched_switch sched_wakeup sched_wakeup_new sched_waking sched_process_fork \
	  sched_process_exec sched_process_exit sched_process_free sched_process_wait \
	  sched_migrate_task sched_stat_runtime sched_pi_setprio sched_kthread_stop \
	  sched_kthread_stop_ret sched_wait_task sched_process_hang sched_move_numa \
	  sched_stick_numa sched_swap_numa sched_wake_idle_without_ipi; do
	if ! $C --json attach "tp:sched/$tp" > "$W/a.json"; then
		err=$(jq -r '.error.code + ": " + .error.message' < "$W/a.json")
		last=$tp
		break
	fi
	expect_eq "tp:sched/$tp: functions" "$(jq '.attachment.functions|length' < "$W/a.json")" 1
	expect_eq "tp:sched/$tp: skipped" "$(jq '.skipped|length' < "$W/a.json")" 0
	n=$((n + 1))
done
[ -n "$err" ] || fail "20 attachments under RLIMIT_NOFILE $LIM: none refused (idle fds $idle)"
case $err in
"limit: "*"file descriptors"*"RLIMIT_NOFILE $LIM"*"Raise the limit"*) ok "refused after $n: $err" ;;
*) fail "refusal does not say limit/RLIMIT_NOFILE/how to raise it: $err" ;;
esac
expect_eq "attachments after the refusal" "$($C --json list | jq '.attachments|length')" "$n"
$C --json attach "tp:sched/$last" --partial > "$W/p.json" && fail "--partial of one tracepoint that does not fit accepted"
case $(jq -r .error.message < "$W/p.json") in
*"0 fit"*) ok "--partial of one tracepoint: nothing fits, refused" ;;
*) fail "--partial refusal: $(cat "$W/p.json")" ;;
esac
$C detach 1 > /dev/null || fail "detach 1"
$C --json attach "tp:sched/$last" > "$W/a.json" || fail "attach after a detach freed fds: $(cat "$W/a.json")"
ok "after a detach the next attach fits"
kill -0 "$DPID" || fail "daemon died"
stop_daemon
