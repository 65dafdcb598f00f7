#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tracerd --check-config: good and bad files (line numbers), start-up
# attachments from the config, a live socket not taken over.
source "$(dirname "$0")/lib/daemon.bash"
printf 'log_level = info\nmax_glob_matches = 50\nattach = tp:task/task_rename pid=1\n' > "$W/good.conf"
out=$($TRACERD --check-config --config "$W/good.conf"); rc=$?
expect_eq "good config" $rc 0
grep -q "OK (1 attach line)" <<< "$out" || fail "check-config output: $out"
# a refused file leaves nothing behind (the ASan build's leak check prints
# its report on stderr: what the daemon read before the bad line)
no_report() { ! grep -q 'Sanitizer' <<< "$2" || fail "$1: a sanitizer report: $2"; }
printf '# c\n\nlisten = 127.0.0.1:9477\nbogus = 1\n' > "$W/bad.conf"
out=$($TRACERD --check-config --config "$W/bad.conf" 2>&1); rc=$?
expect_eq "bad config exit" $rc 1
grep -q "bad.conf:4: unknown key 'bogus'" <<< "$out" || fail "no line number: $out"
no_report "bad config" "$out"
printf 'attach = tp:task/task_rename\nattach = vfs_read mode=nope\n' > "$W/bad2.conf"
out=$($TRACERD --check-config --config "$W/bad2.conf" 2>&1)
grep -q "bad2.conf:2: unknown mode 'nope'" <<< "$out" || fail "attach line error: $out"
no_report "bad attach line after a good one" "$out"
out=$($TRACERD --check-config --config "$W/missing.conf" 2>&1); rc=$?
expect_eq "missing explicit config" $rc 1
out=$($TRACERD --bogus-flag 2>&1); expect_eq "bad flag" $? 2

# start-up attachments come from the config
start_daemon "attach = tp:task/task_rename pid=1
attach = tp:task/task_newtask"
expect_eq "start-up attachments" "$($C --json list | jq_get '.attachments | length')" 2
# a second daemon on the same socket refuses to start
$TRACERD --config "$W/tracerd.conf" --socket "$W/s.sock" 2> "$W/second.log"; rc=$?
expect_eq "second daemon exit" $rc 1
grep -q "another tracerd is listening" "$W/second.log" || fail "second daemon: $(cat "$W/second.log")"
$C status > /dev/null || fail "first daemon broken by the second"
stop_daemon
