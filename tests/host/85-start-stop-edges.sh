#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Start-up and shutdown at the edges (#33, class 4; class 7's closed fds):
#  - under RLIMIT_NOFILE 16, 32, 48, 64 (below what start-up needs) and
#    just under what the idle daemon holds plus its reserve, tracerd exits 1
#    before 'ready' (no socket, no READY=1) with one error that names the
#    limit and what to raise it to, not a map or the event loop;
#  - started with fds 0, 1 and 2 closed, they hold /dev/null, not a BPF
#    map or a socket, and the daemon serves;
#  - a stop, once begun, ends with exit 0 whatever signals follow (SIGTERM,
#    SIGINT and SIGHUP sent throughout it; they killed it before, 143/129).
source "$(dirname "$0")/lib/daemon.bash"
[ "$(id -u)" = 0 ] || skip "needs root (BPF)"
command -v prlimit >/dev/null || skip "prlimit not installed"
printf 'listen = off\n' > "$W/tracerd.conf"
C="$TRACECTL --socket $W/s.sock"
up() { local i; for i in $(seq 1 100); do [ -S "$W/s.sock" ] && $C status > /dev/null 2>&1 && return 0; kill -0 "$DPID" 2>/dev/null || return 1; sleep 0.1; done; return 1; }

# what an idle daemon holds here
"$TRACERD" --config "$W/tracerd.conf" --socket "$W/s.sock" 2> "$W/d0.log" &
DPID=$!
up || fail "tracerd did not start"
idle=$(ls /proc/$DPID/fd | wc -l)
stop_daemon
ok "an idle daemon holds $idle fds"

# just under idle + the 20 it keeps free at ready (FDS_READY_FREE), and at
# least the start-up minimum (FDS_START_MIN, 80): the check at ready speaks
near=$((idle + 12 > 80 ? idle + 12 : 80))
limits="16 32 48 64 $near"
if [ "$near" -ge $((idle + 20)) ]; then	# an idle daemon this small: the start check decides
	echo "idle $idle: no limit lies between the start and the ready checks here"
	limits="16 32 48 64"
fi
for n in $limits; do
	rm -f "$W/s.sock"
	timeout 30 prlimit --nofile=$n:$n "$TRACERD" --config "$W/tracerd.conf" --socket "$W/s.sock" \
		2> "$W/d$n.log"; rc=$?
	expect_eq "RLIMIT_NOFILE $n: exit" "$rc" 1
	grepq "ready" "$W/d$n.log" && fail "RLIMIT_NOFILE $n: said ready: $(cat "$W/d$n.log")"
	[ -S "$W/s.sock" ] && fail "RLIMIT_NOFILE $n: its socket is left"
	grepq "err: RLIMIT_NOFILE $n .*raise it" "$W/d$n.log" ||
		fail "RLIMIT_NOFILE $n: the error does not name the limit: $(cat "$W/d$n.log")"
	grepq "failed to reuse map\|epoll_create\|pipe:" "$W/d$n.log" && fail "RLIMIT_NOFILE $n: blames another thing: $(cat "$W/d$n.log")"
	ok "RLIMIT_NOFILE $n refused: $(grep err: "$W/d$n.log")"
done
# with the reserve it asked for, it starts and attaches
n=$((idle + 20 > 80 ? idle + 20 : 80))
if [ "$limits" != "16 32 48 64" ]; then
	n=$(sed -n 's/.*raise it to \([0-9]*\) or more.*/\1/p' "$W/d$near.log")
	[ -n "$n" ] || fail "no limit to raise to in: $(cat "$W/d$near.log")"
fi
prlimit --nofile=$n:$n "$TRACERD" --config "$W/tracerd.conf" --socket "$W/s.sock" 2> "$W/daemon.log" &
DPID=$!
up || fail "tracerd did not start under the RLIMIT_NOFILE it asked for ($n)"
$C attach tp:sched/sched_switch > /dev/null || fail "no attach under RLIMIT_NOFILE $n"
stop_daemon
ok "RLIMIT_NOFILE $n, as asked: started, attached"

# fds 0, 1, 2 closed at start
"$TRACERD" --config "$W/tracerd.conf" --socket "$W/s.sock" 0<&- 1>&- 2>&- &
DPID=$!
up || fail "tracerd with fds 0-2 closed did not start"
for fd in 0 1 2; do
	expect_eq "fd $fd of a daemon started without it" "$(readlink /proc/$DPID/fd/$fd)" /dev/null
done
$C attach tp:sched/sched_switch > /dev/null || fail "attach with fds 0-2 closed at start"
stop_daemon

# signals throughout the stop: it still ends, with exit 0
"$TRACERD" --config "$W/tracerd.conf" --socket "$W/s.sock" 2> "$W/daemon.log" &
DPID=$!
up || fail "tracerd did not start"
for tp in sched_switch sched_wakeup sched_wakeup_new sched_waking sched_process_fork \
	  sched_process_exec sched_process_exit sched_process_free sched_process_wait \
	  sched_migrate_task sched_stat_runtime sched_pi_setprio; do
	$C attach "tp:sched/$tp" > /dev/null || fail "attach tp:sched/$tp"
done
kill -TERM "$DPID"
sent=0
while kill -0 "$DPID" 2>/dev/null; do
	for s in TERM INT HUP; do kill -$s "$DPID" 2>/dev/null && sent=$((sent + 1)); done
done
wait "$DPID"; rc=$?
DPID=
expect_eq "exit status with $sent more signals during the stop" "$rc" 0
grepq "stopped" "$W/daemon.log" || fail "the stop did not end: $(tail -n 3 "$W/daemon.log")"
ok "the stop ended under $sent signals"
