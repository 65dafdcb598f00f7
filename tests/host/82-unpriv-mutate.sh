#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every mutating control command (the 'true' rows of daemon/commands.c's
# table, so a new command is covered the day it is added) is refused to a
# reader with permission_denied and changes nothing; with the socket made
# world-writable by mistake, a peer in neither group is refused every
# command, reads included; a member of admin_group may mutate.
source "$(dirname "$0")/lib/daemon.bash"
[ "$(id -u)" = 0 ] || skip "needs root (to switch uid)"
command -v setpriv >/dev/null || skip "setpriv not installed"
getent group nogroup >/dev/null || skip "no group 'nogroup'"
PY=/usr/bin/python3	# not a per-user shim: clients run as other uids
[ -x "$PY" ] || skip "no $PY"

cmds() { # read|mutate: command names from the daemon's table
	local want=false
	[ "$1" = mutate ] && want=true
	sed -n "s/^[[:space:]]*{ \"\([a-z_-]*\)\", $want, cmd_[a-z_]* },\$/\1/p" "$SRC/daemon/commands.c"
}
MUTATE=$(cmds mutate)
READ=$(cmds read)
[ -n "$MUTATE" ] && [ -n "$READ" ] || fail "cannot read the command table of daemon/commands.c"
ok "mutating commands: $(echo $MUTATE); read commands: $(echo $READ)"

cat > "$W/req.py" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(json.dumps({"v": 1, "cmd": sys.argv[2], "args": json.loads(sys.argv[3])}).encode() + b"\n")
buf = b""
while b"\n" not in buf:
    c = s.recv(65536)
    if not c:
        break
    buf += c
print(buf.split(b"\n")[0].decode())
PY
chmod 644 "$W/req.py"
args_for() { # CMD: arguments that would be valid, so only the peer check refuses
	case $1 in
	attach) echo '{"target": "tp:task/task_rename", "pid": 1}' ;;
	detach) echo '{"all": true}' ;;
	*) echo '{}' ;;
	esac
}
as() { # UID GID CMD -> error code, or "ok"
	setpriv --reuid="$1" --regid="$2" --clear-groups "$PY" "$W/req.py" "$W/s.sock" "$3" \
		"$(args_for "$3")" | jq_get 'if .ok then "ok" else .error.code end'
}
state() { $C --json list | jq -c '[.attachments[] | {id, target, pid}]'; }

start_daemon "read_group = nogroup"
$C attach tp:task/task_rename --pid $$ > /dev/null || fail "root: attach"
before=$(state)
for c in $MUTATE; do
	expect_eq "reader: $c" "$(as 65534 65534 "$c")" permission_denied
done
expect_eq "state after the reader's attempts" "$(state)" "$before"
for c in $READ; do
	r=$(as 65534 65534 "$c")
	[ "$r" != permission_denied ] || fail "reader refused '$c'"
	ok "reader: $c -> $r"
done

# socket mode widened by mistake: the peer check still holds
chmod 666 "$W/s.sock"
for c in $MUTATE $READ; do
	expect_eq "outsider, socket 0666: $c" "$(as 65533 65533 "$c")" permission_denied
done
expect_eq "state after the outsider's attempts" "$(state)" "$before"
stop_daemon

# admin_group: a non-root member may attach and detach
start_daemon "admin_group = nogroup"
expect_eq "admin member: attach" "$(as 65534 65534 attach)" ok
expect_eq "attachments after the admin's attach" "$($C --json list | jq_get '.attachments | length')" 1
expect_eq "admin member: detach" "$(as 65534 65534 detach)" ok
expect_eq "attachments after the admin's detach" "$($C --json list | jq_get '.attachments | length')" 0
stop_daemon
