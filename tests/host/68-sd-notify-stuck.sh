#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A $NOTIFY_SOCKET nobody reads (a hostile or hung service manager): the
# fake manager reads up to READY=1 and then no more, and its queue is
# filled to the brim. Meanwhile attach and detach change STATUS= again and
# again and the watchdog is due every 100 ms: every `tracectl status` is
# still answered, the drops are logged once (not once per datagram), a
# reload and a stop still finish (RELOADING=1, READY=1, STOPPING=1 wait a
# bounded time, then are dropped). Once the manager reads again, the
# current STATUS= and WATCHDOG=1 arrive again.
source "$(dirname "$0")/lib/daemon.bash"
source "$(dirname "$0")/lib/service.bash"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
command -v python3 >/dev/null || skip "python3 not installed"
command -v timeout >/dev/null || skip "timeout not installed"
me=$BASHPID
natt() { timeout 5 $C --json list | jq_get '.attachments | length'; }

# the manager: every datagram up to READY=1 on a line of $2, then none
# read until $3 exists, then all of them again. Its receive buffer is
# small; what makes the queue full for a datagram socket is
# net.unix.max_dgram_qlen datagrams unread, which fill_notify sends.
listen_stuck() {
	python3 - "$1" "$2" "$3" <<'PY' &
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as f:
    while True:
        m = s.recv(4096).decode(errors="replace")
        f.write(m.replace("\n", " | ") + "\n")
        if m == "READY=1":
            break
    while not os.path.exists(sys.argv[3]):
        time.sleep(0.1)
    while True:
        f.write(s.recv(4096).decode(errors="replace").replace("\n", " | ") + "\n")
PY
	LPID=$!
	local i
	for i in $(seq 50); do [ -S "$1" ] && return 0; sleep 0.1; done
	fail "notify listener did not bind $1"
}
# fill_notify SOCK: datagrams until the kernel says the queue is full
# (EAGAIN); prints how many it took
fill_notify() {
	python3 - "$1" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.setblocking(False)
n = 0
try:
    while n < 100000:
        s.sendto(b"X_FILL=1", sys.argv[1])
        n += 1
except BlockingIOError:
    print(n)
    sys.exit(0)
sys.exit(1)
PY
}
# the manager first, so that an unfixed daemon blocked in sendmsg wakes
# (ECONNREFUSED) and can stop
LPID=
trap '[ -n "$LPID" ] && kill $LPID 2>/dev/null; cleanup' EXIT
wait_line() {
	local i
	for i in $(seq 100); do grep -Eq "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
	fail "no line matching '$2' in $1: $(tail -n 5 "$1" 2>/dev/null)"
}

N=$W/notify.log
listen_stuck "$W/n.sock" "$N" "$W/resume"
unset WATCHDOG_PID
NOTIFY_SOCKET=$W/n.sock WATCHDOG_USEC=200000 start_daemon_conf "listen = off
attach = tp:task/task_rename pid=$me"
wait_line "$N" '^READY=1$'
nfill=$(fill_notify "$W/n.sock") || fail "the notify socket's queue never filled"
ok "the manager reads no more; its queue full after $nfill more datagrams"

# many STATUS= changes, the watchdog due all along, status queried between
asked=0 answered=0 changes=0
for ((i = 0; i < 12; i++)); do
	for tp in tp:sched/sched_switch tp:task/task_newtask; do
		if timeout 5 $C attach "$tp" --pid "$me" > /dev/null; then
			changes=$((changes + 1))
		fi
		asked=$((asked + 1))
		timeout 2 $C status > /dev/null && answered=$((answered + 1))
	done
	ids=$(timeout 5 $C --json list |
		jq_get '.attachments[] | select(.target != "tp:task/task_rename") | .id')
	for id in $ids; do
		timeout 5 $C detach "$id" > /dev/null && changes=$((changes + 1))
		asked=$((asked + 1))
		timeout 2 $C status > /dev/null && answered=$((answered + 1))
	done
	# an unfixed daemon never answers again: no use asking 48 times
	[ $((asked - answered)) -ge 3 ] && break
done
expect_eq "status answered within 2 s, of $asked asked" "$answered" "$asked"
expect_eq "attach/detach changes done" "$changes" 48
expect_eq "attachments after the changes" "$(natt)" 1

# the drops: logged once, not once per datagram
nlog=$(grep -c 'notify.*dropping' "$W/daemon.log")
expect_eq "log lines about dropped notifications" "$nlog" 1

# a reload: RELOADING=1 and READY=1 wait a bounded time, then are dropped
printf 'listen = off\nattach = tp:task/task_rename pid=%s\nattach = tp:task/task_newtask pid=%s\n' \
	"$me" "$me" > "$W/tracerd.conf"
timeout 10 $C reload > /dev/null || fail "reload with a full notify socket"
expect_eq "attachments after the reload" "$(natt)" 2
timeout 2 $C status > /dev/null || fail "status after the reload"
ok "reload answered with the notify socket full"

# the manager reads again: the current STATUS= and WATCHDOG=1 get through
touch "$W/resume"
for i in $(seq 100); do
	[ "$(grep '^STATUS=' "$N" | tail -n1)" = "STATUS=2 attachments, 2 functions hooked" ] &&
		break
	sleep 0.1
done
expect_eq "the last STATUS= once the manager reads" \
	"$(grep '^STATUS=' "$N" | tail -n1)" "STATUS=2 attachments, 2 functions hooked"
nwd() { grep -c '^WATCHDOG=1$' "$N"; }
w0=$(nwd)
for i in $(seq 50); do [ "$(nwd)" -ge $((w0 + 2)) ] && break; sleep 0.1; done
[ "$(nwd)" -ge $((w0 + 2)) ] || fail "WATCHDOG=1 not back after the drain"
ok "WATCHDOG=1 arrives again"
grep -q 'notify.*drained' "$W/daemon.log" || fail "the drain not logged"
ok "$(grep -o 'notify.*drained.*' "$W/daemon.log" | tail -n1)"

# stuck again, then stop: STOPPING=1 waits a bounded time, the stop ends
kill "$LPID"
wait "$LPID" 2>/dev/null
LPID=
rm -f "$W/n.sock" "$W/resume"
listen_stuck "$W/n.sock" "$N" "$W/resume"
# (it stops reading at READY=1: the test sends that one)
python3 -c 'import socket, sys
socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"READY=1", sys.argv[1])' "$W/n.sock"
wait_line "$N" '^READY=1$'
fill_notify "$W/n.sock" > /dev/null || fail "the notify socket's queue never filled"
timeout 2 $C status > /dev/null || fail "status with the queue full again"
kill -TERM "$DPID"
for i in $(seq 100); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$DPID" 2>/dev/null && fail "tracerd still running 10 s after SIGTERM"
stop_rc=0
wait "$DPID" || stop_rc=$?
DPID=
expect_eq "tracerd exit status after SIGTERM (notify socket full)" "$stop_rc" 0
