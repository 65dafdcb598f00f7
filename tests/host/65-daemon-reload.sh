#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SIGHUP reload: attach lines are reconciled (removed ones detached, new
# ones attached, unchanged ones keep their id and counts; attachments made
# with tracectl are left alone), listen moves, a broken file is refused
# and the running configuration stays.
source "$(dirname "$0")/lib/daemon.bash"
source "$(dirname "$0")/lib/service.bash"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
P1=$PORT; P2=$((PORT + 1))
me=$BASHPID
start_daemon_conf "listen = 127.0.0.1:$P1
attach = tp:task/task_rename pid=$me
attach = tp:sched/sched_process_fork pid=$me"
for i in $(seq 50); do [ "$($C --json list | jq_get '.attachments | length')" = 2 ] && break; sleep 0.1; done
expect_eq "start-up attachments" "$($C --json list | jq_get '.attachments | length')" 2
id_keep=$($C --json list | jq_get '.attachments[] | select(.target == "tp:task/task_rename") | .id')
$C --json attach tp:task/task_newtask --pid "$me" > /dev/null || fail "runtime attach"
for ((i = 0; i < 100; i++)); do printf hup > /proc/self/comm; done

reload() { # config text; waits for the log line that ends the reload (regex $2):
	# the lines before it (listen, restart warnings) come while it attaches
	printf '%s\n' "$1" > "$W/tracerd.conf"
	kill -HUP "$DPID"
	for i in $(seq 300); do
		grep -q "$2" "$W/daemon.log" && return 0
		sleep 0.1
	done
	fail "no log line '$2' after the reload: $(grep reload "$W/daemon.log")"
}
reload "listen = 127.0.0.1:$P2
attach = tp:task/task_rename pid=$me
attach = tp:sched/sched_process_exit pid=$me" 'reload: [0-9]* attached, [0-9]* detached'
grep -q 'reload: 1 attached, 1 detached, 0 failed, 3 attachments now' "$W/daemon.log" ||
	fail "reload summary: $(grep 'reload:' "$W/daemon.log")"
$C --json list > "$W/l.json"
expect_eq "targets after reload" "$(jq_get '[.attachments[].target] | sort | join(",")' < "$W/l.json")" \
	"tp:sched/sched_process_exit,tp:task/task_newtask,tp:task/task_rename"
expect_eq "unchanged line keeps its id" \
	"$(jq_get '.attachments[] | select(.target == "tp:task/task_rename") | .id' < "$W/l.json")" "$id_keep"
expect_eq "unchanged line keeps its counts" "$($C --json stats "$id_keep" | jq_get '.stats[0].calls')" 100
expect_eq "metrics moved to the new port" "$(curl -sf "http://127.0.0.1:$P2/healthz")" ok
curl -sf "http://127.0.0.1:$P1/healthz" >/dev/null && fail "old port still served"
ok "old port closed"
# started with --socket (as every test daemon is), which the file's socket
# key cannot override: a reload changes no socket, so it warns of no
# restart, even when the file names another socket; a restart-only key
# that did change (by_max_keys) is warned of, and the old value kept
grep -q 'need a restart' "$W/daemon.log" && fail "false restart warning: $(grep 'need a restart' "$W/daemon.log")"
reload "listen = 127.0.0.1:$P2
socket = $W/other.sock
attach = tp:task/task_rename pid=$me
attach = tp:sched/sched_process_exit pid=$me" 'reload: 0 attached, 0 detached'
grep -q 'need a restart' "$W/daemon.log" && fail "restart warning for a socket --socket overrides"
[ -e "$W/other.sock" ] && fail "reload created $W/other.sock"
ok "no restart warning when nothing restart-only changed"
reload "listen = 127.0.0.1:$P2
by_max_keys = 7
attach = tp:task/task_rename pid=$me
attach = tp:sched/sched_process_exit pid=$me" 'need a restart'
expect_eq "attachments after a restart-only change" "$($C --json list | jq_get '.attachments | length')" 3
ok "restart-only key: warned"

reload "attach = tp:nonsense/line mode=bogus" 'reload refused'
grep -q 'reload refused' "$W/daemon.log" || fail "bad config not refused"
expect_eq "bad reload keeps attachments" "$($C --json list | jq_get '.attachments | length')" 3
stop_daemon
