#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tracerd and its service manager (the sd_notify protocol), against a fake
# $NOTIFY_SOCKET (a path; an abstract @name at the end): READY=1; STATUS=
# saying the attachments and hooked functions, sent again when attachments
# change (tracectl attach, detach, reload), not on every event, and at most
# about once a second; the watchdog: with WATCHDOG_USEC set (WATCHDOG_PID
# unset, or the daemon's pid) WATCHDOG=1 arrives again and again, with
# WATCHDOG_PID another process's it never does. A socket nobody reads:
# 68-sd-notify-stuck.sh.
source "$(dirname "$0")/lib/daemon.bash"
source "$(dirname "$0")/lib/service.bash"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
command -v python3 >/dev/null || skip "python3 not installed"
me=$BASHPID
natt() { $C --json list | jq_get '.attachments | length'; }

# a fake systemd notify socket: every datagram on a line of $2 (its
# newlines as " | ")
listen_notify() {
	python3 - "$1" "$2" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as f:
    while True:
        f.write(s.recv(4096).decode(errors="replace").replace("\n", " | ") + "\n")
PY
	NPIDS="${NPIDS:-} $!"
	local i
	for i in $(seq 50); do [ -S "$1" ] && return 0; sleep 0.1; done
	fail "notify listener did not bind $1"
}
trap 'kill ${NPIDS:-} 2>/dev/null; cleanup' EXIT
# wait_line FILE REGEX: until a line matches (10 s)
wait_line() {
	local i
	for i in $(seq 100); do grep -Eq "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
	fail "no line matching '$2' in $1: $(tail -n 5 "$1" 2>/dev/null)"
}
nwd() { grep -c '^WATCHDOG=1$' "$1"; }

# --- READY, STATUS at start-up, the watchdog (WATCHDOG_PID unset)
N=$W/notify.log
listen_notify "$W/n.sock" "$N"
unset WATCHDOG_PID
NOTIFY_SOCKET=$W/n.sock WATCHDOG_USEC=1000000 start_daemon_conf "listen = off
attach = tp:task/task_rename pid=$me"
wait_line "$N" '^READY=1$'
grep -q '^STATUS=1 attachment, 1 function hooked$' "$N" ||
	fail "no start-up STATUS=: $(cat "$N")"
ok "start-up: $(grep '^STATUS=' "$N" | tail -n1)"
w0=$(nwd "$N")
for i in $(seq 100); do [ "$(nwd "$N")" -ge $((w0 + 4)) ] && break; sleep 0.1; done
[ "$(nwd "$N")" -ge $((w0 + 4)) ] || fail "WATCHDOG=1 not repeated: $(nwd "$N") after $w0"
ok "WATCHDOG=1 keeps arriving ($(nwd "$N") so far)"

# --- attach and detach change STATUS=
$C attach tp:task/task_newtask --pid "$me" > /dev/null || fail "attach newtask"
wait_line "$N" '^STATUS=2 attachments, 2 functions hooked$'
ok "STATUS= after attach: 2 attachments, 2 functions hooked"
id=$($C --json list | jq_get '.attachments[] | select(.target == "tp:task/task_newtask") | .id')
$C detach "$id" > /dev/null || fail "detach $id"
for i in $(seq 100); do
	[ "$(tail -n 20 "$N" | grep '^STATUS=' | tail -n1)" = "STATUS=1 attachment, 1 function hooked" ] && break
	sleep 0.1
done
expect_eq "STATUS= after detach" "$(grep '^STATUS=' "$N" | tail -n1)" \
	"STATUS=1 attachment, 1 function hooked"

# events are not changes: 300 traced renames send no STATUS=
s0=$(grep -c '^STATUS=' "$N")
for ((i = 0; i < 300; i++)); do printf t68 > /proc/self/comm; done
w1=$(nwd "$N")
for i in $(seq 50); do [ "$(nwd "$N")" -ge $((w1 + 2)) ] && break; sleep 0.1; done
expect_eq "STATUS= lines after 300 traced events" "$(grep -c '^STATUS=' "$N")" "$s0"

# a burst of changes: STATUS= at most about once a second (the count is
# bounded by the seconds the burst took, plus the final one)
t0=$(date +%s)
for i in 1 2 3 4 5; do
	$C attach tp:task/task_newtask --pid "$me" > /dev/null || fail "burst attach $i"
	id=$($C --json list | jq_get '.attachments[] | select(.target == "tp:task/task_newtask") | .id')
	$C detach "$id" > /dev/null || fail "burst detach $i"
done
t1=$(date +%s)
sleep 1.5	# the last change's STATUS= (rate limit: 1 s)
sb=$(( $(grep -c '^STATUS=' "$N") - s0 ))
[ "$sb" -le $(( t1 - t0 + 3 )) ] || fail "$sb STATUS= lines for 10 changes in $((t1 - t0)) s"
ok "10 changes in $((t1 - t0)) s: $sb STATUS= lines"
expect_eq "STATUS= after the burst" "$(grep '^STATUS=' "$N" | tail -n1)" \
	"STATUS=1 attachment, 1 function hooked"
expect_eq "attachments after the burst" "$(natt)" 1

# reload: RELOADING=1, READY=1 and the new STATUS=
printf 'listen = off\nattach = tp:task/task_rename pid=%s\nattach = tp:sched/sched_process_fork pid=%s\n' \
	"$me" "$me" > "$W/tracerd.conf"
$C reload > /dev/null || fail "reload"
wait_line "$N" '^STATUS=2 attachments, 2 functions hooked$'
grep -q '^RELOADING=1' "$N" || fail "no RELOADING=1"
ok "reload: RELOADING=1 and STATUS=2 attachments"
stop_daemon
grep -q '^STOPPING=1$' "$N" || fail "no STOPPING=1"
ok "STOPPING=1"

# --- WATCHDOG_PID = the daemon's pid (it is exec'd in place of the shell)
N2=$W/notify2.log
listen_notify "$W/n2.sock" "$N2"
printf 'listen = off\n' > "$W/tracerd.conf"
NOTIFY_SOCKET=$W/n2.sock WATCHDOG_USEC=1000000 bash -c 'export WATCHDOG_PID=$$;
	exec "$1" --config "$2/tracerd.conf" --socket "$2/s.sock"' - "$TRACERD" "$W" 2> "$W/daemon.log" &
DPID=$!
wait_line "$N2" '^READY=1$'
for i in $(seq 100); do [ "$(nwd "$N2")" -ge 3 ] && break; sleep 0.1; done
[ "$(nwd "$N2")" -ge 3 ] || fail "WATCHDOG_PID=own pid: $(nwd "$N2") WATCHDOG=1"
ok "WATCHDOG_PID = the daemon's pid: WATCHDOG=1 arrives"
grep -q '^STATUS=0 attachments, 0 functions hooked$' "$N2" || fail "STATUS= with none: $(cat "$N2")"
stop_daemon

# --- WATCHDOG_PID another process's: not ours, no WATCHDOG=1
N3=$W/notify3.log
listen_notify "$W/n3.sock" "$N3"
NOTIFY_SOCKET=$W/n3.sock WATCHDOG_USEC=200000 WATCHDOG_PID=1 start_daemon_conf "listen = off"
wait_line "$N3" '^READY=1$'
$C status > /dev/null || fail "status"
sleep 1
expect_eq "WATCHDOG=1 with WATCHDOG_PID=1" "$(nwd "$N3")" 0
stop_daemon

# --- an abstract "@name" socket, the other form notify.c sends itself
N4=$W/notify4.log
ab="tracerd-test-$$-$RANDOM"
python3 - "$ab" "$N4" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0" + sys.argv[1])
open(sys.argv[2] + ".bound", "w").close()
with open(sys.argv[2], "a", buffering=1) as f:
    while True:
        f.write(s.recv(4096).decode(errors="replace").replace("\n", " | ") + "\n")
PY
NPIDS="$NPIDS $!"
for i in $(seq 50); do [ -e "$N4.bound" ] && break; sleep 0.1; done
NOTIFY_SOCKET=@$ab start_daemon_conf "listen = off"
wait_line "$N4" '^READY=1$'
wait_line "$N4" '^STATUS=0 attachments, 0 functions hooked$'
ok "abstract @name: READY=1 and STATUS="
stop_daemon
wait_line "$N4" '^STOPPING=1$'
ok "abstract @name: STOPPING=1"

# --- no NOTIFY_SOCKET: nothing to tell, the daemon runs as before
start_daemon "attach = tp:task/task_rename pid=$me"
expect_eq "attachments without NOTIFY_SOCKET" "$(natt)" 1
stop_daemon
