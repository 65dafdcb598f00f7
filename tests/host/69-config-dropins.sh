#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# conf.d drop-ins (tracerd.conf(5), DROP-INS), with a real daemon: the
# *.conf files of conf.d beside --config, in lexical order; a later file's
# key wins (listen moves the metrics), attach lines accumulate, other
# names are ignored; --check-config counts them and names a bad one's
# file:line; a reload picks up a new drop-in and refuses a bad one; a
# failing attach line of a drop-in is reported with its file; a file or
# conf.d another user owns or can write is refused (StrictModes).
source "$(dirname "$0")/lib/daemon.bash"
source "$(dirname "$0")/lib/service.bash"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
command -v curl >/dev/null || skip "curl not installed"
me=$BASHPID
D=$W/conf.d
natt() { $C --json list | jq_get '.attachments | length'; }
targets() { $C --json list | jq_get '[.attachments[].target] | sort | join(",")'; }

# --- --check-config
mkdir "$D"
printf 'listen = off\nattach = tp:task/task_rename pid=%s\n' "$me" > "$W/tracerd.conf"
printf 'attach = tp:task/task_newtask pid=%s\n' "$me" > "$D/20-b.conf"
printf 'listen = 127.0.0.1:1\n' > "$D/10-a.conf"
printf 'listen = 127.0.0.1:%s\n' "$PORT" > "$D/30-c.conf"
printf 'bogus = 1\n' > "$D/README"
printf 'bogus = 1\n' > "$D/40-d.conf.disabled"
printf 'bogus = 1\n' > "$D/.50-hidden.conf"
mkdir "$D/60-dir.conf"
out=$($TRACERD --check-config --config "$W/tracerd.conf" 2>&1); rc=$?
expect_eq "check-config with drop-ins" $rc 0
grep -q "OK (2 attach lines; 3 drop-ins in $D)" <<< "$out" || fail "check-config output: $out"
ok "check-config: $out"
printf '# a comment\nattach = tp:task/task_newtask mode=nope\n' > "$D/25-bad.conf"
out=$($TRACERD --check-config --config "$W/tracerd.conf" 2>&1); rc=$?
expect_eq "check-config with a bad drop-in" $rc 1
grep -q "$D/25-bad.conf:2: unknown mode 'nope'" <<< "$out" || fail "bad drop-in not named: $out"
ok "bad drop-in named: $out"
printf 'log_level = info\nlog_level = debug\n' > "$D/25-bad.conf"
out=$($TRACERD --check-config --config "$W/tracerd.conf" 2>&1)
grep -q "25-bad.conf:2: key 'log_level' given twice" <<< "$out" || fail "twice in a drop-in: $out"
rm "$D/25-bad.conf"
ln -s /nonexistent.conf "$D/26-gone.conf"
out=$($TRACERD --check-config --config "$W/tracerd.conf" 2>&1); rc=$?
expect_eq "check-config with a dangling drop-in" $rc 1
grep -q "cannot read drop-in '$D/26-gone.conf'" <<< "$out" || fail "dangling drop-in: $out"
rm "$D/26-gone.conf"

# --- the daemon: attach lines of both files, the last listen wins
"$TRACERD" --config "$W/tracerd.conf" --socket "$W/s.sock" 2> "$W/daemon.log" &
DPID=$!
C="$TRACECTL --socket $W/s.sock"
for i in $(seq 100); do [ -S "$W/s.sock" ] && break; sleep 0.1; done
[ -S "$W/s.sock" ] || fail "tracerd did not start"
expect_eq "attachments from the main file and a drop-in" "$(targets)" \
	"tp:task/task_newtask,tp:task/task_rename"
expect_eq "listen of the last drop-in (30-c.conf)" "$(curl -sf -m 10 "$U/healthz")" ok
$C --json status > "$W/st.json"
expect_eq "status config.files" "$(jq_get '.config.files | map(sub(".*/"; "")) | join(",")' < "$W/st.json")" \
	"tracerd.conf,10-a.conf,20-b.conf,30-c.conf"

# --- reload picks up a new drop-in
printf 'attach = tp:sched/sched_process_fork pid=%s\n' "$me" > "$D/40-new.conf"
$C --json reload > "$W/r.json" || fail "reload with a new drop-in"
expect_eq "reload attached the new drop-in's line" "$(jq_get .attached < "$W/r.json")" 1
expect_eq "attachments after reload" "$(natt)" 3

# --- a bad drop-in refuses the reload; nothing changes
printf 'attach = tp:sched/sched_process_exit pid=%s\nnope = 1\n' "$me" > "$D/45-bad.conf"
$C reload 2> "$W/err" && fail "reload with a bad drop-in exited 0"
grep -q "45-bad.conf:2: unknown key 'nope'" "$W/err" || fail "refusal does not name the drop-in: $(cat "$W/err")"
ok "bad drop-in refused: $(cat "$W/err")"
expect_eq "attachments after the refused reload" "$(natt)" 3
rm "$D/45-bad.conf"

# --- a drop-in removed: its line's attachment goes; a failing line names its file
rm "$D/40-new.conf"
printf '\nattach = tp:nonexistent_category/no_such_tracepoint\n' > "$D/50-fail.conf"
$C --json reload > "$W/r.json" || fail "reload without 40-new.conf"
expect_eq "reload detached the removed drop-in's line" "$(jq_get .detached < "$W/r.json")" 1
expect_eq "failed line's file" "$(jq_get '.config.failures[0].file' < "$W/r.json")" "$D/50-fail.conf"
expect_eq "failed line's line" "$(jq_get '.config.failures[0].line' < "$W/r.json")" 2
grep -q "config line 2 of $D/50-fail.conf: attach 'tp:nonexistent_category/no_such_tracepoint' failed" \
	"$W/daemon.log" || fail "failing drop-in line not logged with its file"
ok "failing drop-in line logged with its file"

# --- SIGHUP reads them too: 30-c.conf gone, listen back to the main file's off
rm "$D/30-c.conf" "$D/50-fail.conf"
kill -HUP "$DPID"
for i in $(seq 100); do [ "$(grep -c 'reload: .* attachments now' "$W/daemon.log")" -ge 3 ] && break; sleep 0.1; done
expect_eq "reloads taken" "$(grep -c 'reload: .* attachments now' "$W/daemon.log")" 3
for i in $(seq 50); do curl -sf -m 2 "$U/healthz" > /dev/null || break; sleep 0.1; done
curl -sf -m 2 "$U/healthz" > /dev/null && fail "metrics still served after 30-c.conf went"
ok "SIGHUP: 30-c.conf's listen gone (listen = off again)"
expect_eq "attachments at the end" "$(targets)" "tp:task/task_newtask,tp:task/task_rename"

# --- files another user owns or can write are not obeyed (sshd's StrictModes):
# a reload refuses them and keeps what it has; --check-config and a start refuse them
id nobody > /dev/null 2>&1 || fail "no user nobody"
strict() { # WHAT WANT-IN-MESSAGE: reload, --check-config and a start refuse; then undo
	$C reload 2> "$W/err" && fail "$1: reload exited 0"
	grep -q "$2" "$W/err" || fail "$1: reload's refusal: $(cat "$W/err")"
	expect_eq "$1: attachments after the refused reload" "$(natt)" 2
	out=$($TRACERD --check-config --config "$W/tracerd.conf" 2>&1); rc=$?
	expect_eq "$1: --check-config exit" "$rc" 1
	grep -q "$2" <<< "$out" || fail "$1: --check-config: $out"
	timeout 20 "$TRACERD" --config "$W/tracerd.conf" --socket "$W/s2.sock" 2> "$W/err2"; rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 124 ] && fail "$1: tracerd started (exit $rc)"
	grep -q "$2" "$W/err2" || fail "$1: start's refusal: $(cat "$W/err2")"
	ok "$1 refused (reload, --check-config, start): $(head -n1 "$W/err")"
}
printf 'attach = tp:sched/sched_switch\n' > "$D/70-user.conf"
chown nobody "$D/70-user.conf"
strict "a drop-in owned by nobody" "70-user.conf' is owned by uid $(id -u nobody), not root.*chown root"
chown root "$D/70-user.conf"; chmod 0664 "$D/70-user.conf"
strict "a group-writable drop-in" "70-user.conf' is writable by its group.*chmod go-w"
chmod 0646 "$D/70-user.conf"
strict "a world-writable drop-in" "70-user.conf' is writable by others"
rm "$D/70-user.conf"
chmod 0777 "$D"
strict "a world-writable conf.d" "drop-in directory '$D' is writable by others"
chmod 0755 "$D"; chown nobody "$D"
strict "a conf.d owned by nobody" "drop-in directory '$D' is owned by uid"
chown root "$D"; chmod 0666 "$W/tracerd.conf"
strict "a world-writable main file" "config '$W/tracerd.conf' is writable by others"
chmod 0644 "$W/tracerd.conf"
$C --json reload > /dev/null || fail "reload once the files are root's again"
expect_eq "attachments after the files are fixed" "$(targets)" "tp:task/task_newtask,tp:task/task_rename"
stop_daemon
