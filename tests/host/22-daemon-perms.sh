#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SO_PEERCRED: with read_group = nogroup, a member may read but not attach;
# a uid outside the group cannot even open the socket (mode 0660); bench
# is refused to both with exit 4, as any command.
source "$(dirname "$0")/lib/daemon.bash"
[ "$(id -u)" = 0 ] || skip "needs root (to switch uid)"
command -v setpriv >/dev/null || skip "setpriv not installed"
getent group nogroup >/dev/null || skip "no group 'nogroup'"
start_daemon "read_group = nogroup"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
outsider() { setpriv --reuid=65534 --regid=65533 --clear-groups "$@"; }

expect_eq "socket mode" "$(stat -c %a "$W/s.sock")" 660
expect_eq "socket group" "$(stat -c %G "$W/s.sock")" nogroup
nobody $C status > /dev/null; expect_eq "reader: status" $? 0
nobody $C list > /dev/null; expect_eq "reader: list" $? 0
out=$(nobody $C --json attach tp:task/task_rename); rc=$?
expect_eq "reader: attach exit" $rc 4
expect_eq "reader: attach code" "$(jq_get .error.code <<< "$out")" permission_denied
out=$(nobody $C --json detach --all); expect_eq "reader: detach exit" $? 4
out=$(outsider $C --json status); rc=$?
expect_eq "outsider: exit" $rc 4
expect_eq "outsider: code" "$(jq_get .error.code <<< "$out")" permission_denied
# bench as any command (#33, class 7): the reader is refused (4), the
# outsider is told about the socket's permissions (4), not to start a
# daemon that runs
out=$(nobody $C --json bench trigger --repetitions 1); rc=$?
expect_eq "reader: bench exit" $rc 4
expect_eq "reader: bench code" "$(jq_get .error.code <<< "$out")" permission_denied
out=$(outsider $C bench trigger --repetitions 1 2>&1); rc=$?
expect_eq "outsider: bench exit" $rc 4
grepq "permission denied on socket" <<< "$out" || fail "outsider's bench: $out"
grepq "start it" <<< "$out" && fail "outsider's bench told to start the daemon: $out"
$C attach tp:task/task_rename > /dev/null; expect_eq "root: attach" $? 0
stop_daemon

# a socket directory the daemon makes is 0755 under umask 077 too (#33,
# class 7: it was 0700, and the reader was told about the groups); one a
# reader cannot search is named as the reason
(umask 077; exec "$TRACERD" --config "$W/tracerd.conf" --socket "$W/sub/dir/s.sock" \
	2> "$W/daemon2.log") &
DPID=$!
for i in $(seq 100); do [ -S "$W/sub/dir/s.sock" ] && break; sleep 0.1; done
[ -S "$W/sub/dir/s.sock" ] || fail "tracerd under umask 077 did not make its socket"
expect_eq "socket directories made under umask 077" \
	"$(stat -c %a "$W/sub") $(stat -c %a "$W/sub/dir")" "755 755"
nobody $TRACECTL --socket "$W/sub/dir/s.sock" status > /dev/null
expect_eq "reader through them: status" $? 0
chmod 0700 "$W/sub/dir"
out=$(nobody $TRACECTL --socket "$W/sub/dir/s.sock" status 2>&1); rc=$?
expect_eq "reader, the directory 0700: exit" $rc 4
grepq "its directory $W/sub/dir (mode 0700, uid 0) is not searchable" <<< "$out" ||
	fail "the unsearchable directory not named: $out"
ok "named: $out"
stop_daemon
