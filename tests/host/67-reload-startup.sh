#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Start-up and reload, what must hold (issue #12, class 6):
#  - a start-up attach line that fails is visible: the log, STATUS= to
#    systemd (a fake $NOTIFY_SOCKET here), tracerd_config_attach_failures
#    and config.attach_failures in /metrics(.json), `tracectl status`;
#  - `tracectl reload` waits and answers: exit 0 and the counts when taken,
#    non-zero when refused (a bad file; a `listen` that cannot be bound),
#    and a refused reload changes nothing: the old listener still serves
#    (SIGHUP too);
#  - a reload never detaches an attachment made with tracectl, even one
#    equal to a line the config had or has, and retries a config line whose
#    attachment was detached with tracectl.
source "$(dirname "$0")/lib/daemon.bash"
source "$(dirname "$0")/lib/service.bash"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
command -v curl >/dev/null || skip "curl not installed"
P1=$PORT; P2=$((PORT + 1))
me=$BASHPID
code() { curl -s -o /dev/null -m 10 -w '%{http_code}' "$@"; }
prom() { curl -sf -m 10 "http://127.0.0.1:$1/metrics" | sed -n "s/^$2 //p"; }
natt() { $C --json list | jq_get '.attachments | length'; }
id_of() { $C --json list | jq_get ".attachments[] | select(.target == \"$1\" and .pid == $2) | .id"; }

# a fake systemd notify socket: every datagram on a line of $W/notify.log
export NOTIFY_SOCKET=$W/notify.sock
python3 - "$NOTIFY_SOCKET" "$W/notify.log" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as f:
    while True:
        f.write(s.recv(4096).decode(errors="replace").replace("\n", " ") + "\n")
PY
NPID=$!
trap 'kill $NPID 2>/dev/null; cleanup' EXIT
for i in $(seq 50); do [ -S "$NOTIFY_SOCKET" ] && break; sleep 0.1; done

# --- start-up: line 3 cannot attach
start_daemon_conf "listen = 127.0.0.1:$P1
attach = tp:task/task_rename pid=$me
attach = tp:nonexistent_category/no_such_tracepoint"
unset NOTIFY_SOCKET
for i in $(seq 100); do grep -q READY=1 "$W/notify.log" 2>/dev/null && break; sleep 0.1; done
grep -q READY=1 "$W/notify.log" || fail "no READY=1"
grep -q "config line 3: attach 'tp:nonexistent_category/no_such_tracepoint' failed" "$W/daemon.log" ||
	fail "start-up attach failure not logged"
ok "start-up attach failure logged"
grep -q '^STATUS=.*1 of 2 config attach lines failed' "$W/notify.log" ||
	fail "no STATUS= about the failed line: $(cat "$W/notify.log")"
ok "STATUS=: $(grep '^STATUS=' "$W/notify.log" | tail -n1)"
expect_eq "status config.attach_failed" "$($C --json status | jq_get .config.attach_failed)" 1
expect_eq "status failure line" "$($C --json status | jq_get '.config.failures[0].line')" 3
$C status | grepq '^config: 1 of 2 attach lines failed' || fail "tracectl status: $($C status)"
ok "tracectl status says 1 of 2 attach lines failed"
expect_eq "tracerd_config_attach_failures" "$(prom $P1 tracerd_config_attach_failures)" 1
expect_eq "metrics.json config.attach_failures" \
	"$(curl -sf -m 10 "http://127.0.0.1:$P1/metrics.json" | jq_get .config.attach_failures)" 1

# --- tracectl reload: taken, counts back, the failure gone with its line
printf 'listen = 127.0.0.1:%s\nattach = tp:task/task_rename pid=%s\nattach = tp:task/task_newtask pid=%s\n' \
	$P1 $me $me > "$W/tracerd.conf"
$C --json reload > "$W/r.json" || fail "tracectl reload of a good config: exit $?"
expect_eq "reload attached" "$(jq_get .attached < "$W/r.json")" 1
expect_eq "reload failed" "$(jq_get .failed < "$W/r.json")" 0
grep -q 'RELOADING=1' "$W/notify.log" || fail "no RELOADING=1"
expect_eq "tracerd_config_attach_failures after reload" "$(prom $P1 tracerd_config_attach_failures)" 0
expect_eq "status attach_failed after reload" "$($C --json status | jq_get .config.attach_failed)" 0
grep -q '^STATUS=2 attachments, 2 functions hooked$' "$W/notify.log" || fail "STATUS= not updated: $(tail -n3 "$W/notify.log")"

# --- refused: a bad file; nothing changes, exit non-zero
cp "$W/tracerd.conf" "$W/good.conf"
printf 'listen = 127.0.0.1:%s\nattach = tp:task/task_rename mode=bogus\n' $P1 > "$W/tracerd.conf"
$C reload 2> "$W/err" && fail "tracectl reload of a bad config exited 0"
ok "bad config refused: $(cat "$W/err")"
expect_eq "attachments after refused reload" "$(natt)" 2

# --- refused: listen cannot be bound (the port is taken); old listener stays
python3 -c "
import socket, time, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $P2)); s.listen(); open('$W/busy', 'w').close(); time.sleep(60)" &
BPID=$!
for i in $(seq 50); do [ -e "$W/busy" ] && break; sleep 0.1; done
sed "s/:$P1\$/:$P2/" "$W/good.conf" > "$W/tracerd.conf"
$C reload 2> "$W/err" && fail "reload onto a taken port exited 0"
ok "taken port refused: $(cat "$W/err")"
expect_eq "old listener still serves" "$(code "http://127.0.0.1:$P1/healthz")" 200
expect_eq "attachments after refused listen" "$(natt)" 2
kill -HUP "$DPID"
for i in $(seq 100); do [ "$(grep -c 'reload refused' "$W/daemon.log")" -ge 3 ] && break; sleep 0.1; done
expect_eq "SIGHUP onto a taken port refused" "$(grep -c 'reload refused' "$W/daemon.log")" 3
expect_eq "old listener serves after SIGHUP" "$(code "http://127.0.0.1:$P1/healthz")" 200
expect_eq "refused reloads counted" \
	"$(prom $P1 'tracerd_config_reloads_total{result="refused"}')" 3
expect_eq "status: last reload" "$($C --json status | jq_get .config.reloads.last)" refused
$C --json status | jq_get .config.reloads.last_error | grepq "cannot listen on '127.0.0.1:$P2'" ||
	fail "status: last_error $($C --json status | jq_get .config.reloads.last_error)"
$C status | grepq '^config: the last reload was refused' || fail "tracectl status: $($C status)"
ok "the refusal is in tracectl status"
kill $BPID; wait $BPID 2>/dev/null
$C reload > /dev/null || fail "reload onto the freed port"
expect_eq "new listener" "$(code "http://127.0.0.1:$P2/healthz")" 200
expect_eq "old listener closed" "$(code "http://127.0.0.1:$P1/healthz")" 000
expect_eq "reloads taken" "$(prom $P2 'tracerd_config_reloads_total{result="ok"}')" 2
expect_eq "status: last reload after a good one" "$($C --json status | jq_get .config.reloads.last)" ok

# --- attachments made with tracectl survive every reload
cp "$W/tracerd.conf" "$W/good.conf"
$C attach tp:sched/sched_process_fork --pid "$me" > /dev/null || fail "tracectl attach fork"
fork_id=$(id_of tp:sched/sched_process_fork "$me")
printf 'attach = tp:sched/sched_process_fork pid=%s\n' "$me" >> "$W/tracerd.conf"
$C reload > /dev/null || fail "reload with the tracectl attachment's line"
expect_eq "line equal to a tracectl attachment: no second one" "$(natt)" 3
cp "$W/good.conf" "$W/tracerd.conf"
$C reload > /dev/null || fail "reload without that line"
expect_eq "tracectl attachment kept when the equal line goes" \
	"$(id_of tp:sched/sched_process_fork "$me")" "$fork_id"
# a config attachment detached and made again with tracectl: its own now
rn_id=$(id_of tp:task/task_rename "$me")
$C detach "$rn_id" > /dev/null || fail "detach the config's rename"
$C attach tp:task/task_rename --pid "$me" > /dev/null || fail "tracectl attach rename"
rn2=$(id_of tp:task/task_rename "$me")
sed -i '/task_rename/d' "$W/tracerd.conf"
$C reload > /dev/null || fail "reload without the rename line"
expect_eq "tracectl's rename kept when its line goes" "$(id_of tp:task/task_rename "$me")" "$rn2"
# a config line whose attachment was detached with tracectl is retried
nt_id=$(id_of tp:task/task_newtask "$me")
$C detach "$nt_id" > /dev/null || fail "detach the config's newtask"
$C --json reload > "$W/r.json" || fail "reload after the detach"
expect_eq "detached config line attached again" "$(jq_get .attached < "$W/r.json")" 1
[ -n "$(id_of tp:task/task_newtask "$me")" ] || fail "newtask not re-attached"
expect_eq "attachments at the end" "$(natt)" 3
stop_daemon
