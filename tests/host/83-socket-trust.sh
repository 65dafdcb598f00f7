#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The control socket's path and its peers (#12, classes 2, 4 and 8):
#  - at start, only a stale socket at the path is removed: a regular file,
#    FIFO, directory, symlink or a live socket there is an error and stays
#    as it was;
#  - the socket file never exists with another owner or mode: no chmod or
#    chown by path (strace), and it is 0660 root:read_group at once;
#  - stopping a daemon leaves a newer daemon's socket at the same path;
#  - a client that half-closes (SHUT_WR) after its requests gets every
#    reply, megabytes of them, and an answer to a last line without '\n';
#  - tracectl refuses a socket served by a non-root uid (SO_PEERCRED), and
#    times out on a server that accepts and never answers.
source "$(dirname "$0")/lib/daemon.bash"
[ "$(id -u)" = 0 ] || skip "needs root (daemon, and a server as another uid)"
command -v setpriv > /dev/null || skip "setpriv not installed"
S=$W/s.sock

start_fails() {	# WHAT: tracerd must refuse to start on $S
	printf 'listen = off\n' > "$W/tracerd.conf"
	timeout 10 "$TRACERD" --config "$W/tracerd.conf" --socket "$S" 2> "$W/start.log"
	local rc=$?
	[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "$1: tracerd started (exit $rc)"
	ok "$1: tracerd refused to start: $(grep -m1 "$S" "$W/start.log")"
}

# ---- what is at the path stays there
echo precious > "$S"
start_fails "regular file"
expect_eq "regular file kept" "$(cat "$S")" precious
rm -f "$S"; mkfifo "$S"
start_fails "FIFO"
[ -p "$S" ] || fail "FIFO removed"
rm -f "$S"; mkdir "$S"; touch "$S/inside"
start_fails "directory"
[ -f "$S/inside" ] || fail "directory touched"
rm -rf "$S"; echo target > "$W/target"; ln -s "$W/target" "$S"
start_fails "symlink"
[ -L "$S" ] && [ "$(cat "$W/target")" = target ] || fail "symlink or its target touched"
rm -f "$S"
# a live socket of someone else
python3 - "$S" "$W/live.ready" <<'EOF' &
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); s.listen(8)
open(sys.argv[2], "w").close()
time.sleep(30)
EOF
LIVE=$!
for i in $(seq 50); do [ -e "$W/live.ready" ] && break; sleep 0.1; done
start_fails "live socket"
[ -S "$S" ] || fail "live socket removed"
kill "$LIVE"; wait "$LIVE" 2>/dev/null
# a stale socket (bound, never unlinked): removed, and the daemon starts
rm -f "$S"
python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$S"
[ -S "$S" ] || fail "no stale socket made"
printf 'listen = off\n' > "$W/tracerd.conf"
"$TRACERD" --config "$W/tracerd.conf" --socket "$S" 2> "$W/daemon.log" &
DPID=$!
C="$TRACECTL --socket $S"
for i in $(seq 100); do grep -q 'ready (pid' "$W/daemon.log" && break; sleep 0.1; done
$C status > /dev/null || fail "status after replacing a stale socket"
grep -q "removed stale socket" "$W/daemon.log" || fail "no log line for the stale socket"
ok "stale socket replaced"
stop_daemon

# ---- owner and mode from the start: no chmod/chown by path
if command -v strace > /dev/null && getent group nogroup > /dev/null; then
	printf 'listen = off\nread_group = nogroup\n' > "$W/tracerd.conf"
	strace -f -qq -e trace=chmod,fchmodat,chown,lchown,fchownat -o "$W/strace.log" \
		"$TRACERD" --config "$W/tracerd.conf" --socket "$S" 2> "$W/daemon.log" &
	DPID=$!
	for i in $(seq 100); do [ -S "$S" ] && break; sleep 0.1; done
	[ -S "$S" ] || fail "no socket under strace"
	expect_eq "socket mode" "$(stat -c %a "$S")" 660
	expect_eq "socket owner" "$(stat -c %U:%G "$S")" root:nogroup
	for i in $(seq 50); do grep -q 'ready (pid' "$W/daemon.log" && break; sleep 0.1; done
	tpid=$(sed -n 's/.*ready (pid \([0-9]*\)).*/\1/p' "$W/daemon.log")
	[ -n "$tpid" ] || fail "no pid in the log"
	kill -TERM "$tpid"; wait "$DPID"; DPID=
	if grep -E 'ch(mod|own)' "$W/strace.log" | grepq "s.sock"; then
		fail "chmod/chown by path on the socket: $(grep -E 'ch(mod|own)' "$W/strace.log" | head -3)"
	fi
	ok "socket made 0660 root:nogroup without chmod/chown by path"
	[ ! -e "$S" ] || fail "socket left behind"
else
	echo "strace or group nogroup missing: ownership part skipped"
fi

# ---- stopping a daemon leaves a newer daemon's socket
start_daemon
OLD=$DPID
rm -f "$S"	# an admin removed it; a second daemon starts on the path
"$TRACERD" --config "$W/tracerd.conf" --socket "$S" 2> "$W/daemon2.log" &
NEW=$!
for i in $(seq 100); do [ -S "$S" ] && break; sleep 0.1; done
[ -S "$S" ] || fail "second daemon did not create its socket"
kill -TERM "$OLD"; wait "$OLD"; DPID=
[ -S "$S" ] || fail "stopping the old daemon removed the new daemon's socket"
$C status > /dev/null || fail "new daemon does not answer after the old one stopped"
ok "old daemon stopped, new daemon's socket kept and answering"
DPID=$NEW
stop_daemon

# ---- half-close: every reply, in full
start_daemon
python3 - "$S" <<'EOF' || fail "half-close"
import json, socket, sys
N = 3000
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
req = b"".join(b'{"v":1,"cmd":"status","id":%d}\n' % i for i in range(N))
req += b'{"v":1,"cmd":"list","id":"last"}'		# no newline
s.sendall(req)
s.shutdown(socket.SHUT_WR)
data = b""
while True:
    b = s.recv(1 << 16)
    if not b:
        break
    data += b
lines = data.split(b"\n")
assert lines[-1] == b"", "reply cut mid-line"
ids = [json.loads(l)["id"] for l in lines[:-1]]
assert ids == list(range(N)) + ["last"], f"{len(ids)} replies of {N + 1}"
print(f"ok: half-closed client got all {N + 1} replies ({len(data)} bytes)")
EOF
stop_daemon

# ---- tracectl and untrusted or hung servers
serve() {	# serve MODE SOCKET READY: accept; "answer" a fake ok, "hang" never answer
	python3 - "$@" <<'EOF'
import os, socket, sys, time
mode, path, ready = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX)
s.bind(path); os.chmod(path, 0o666); s.listen(8)
open(ready, "w").close()
conns = []
end = time.time() + 30
s.settimeout(0.2)
while time.time() < end and not os.path.exists(ready + ".stop"):
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    conns.append(c)
    if mode == "answer":
        c.recv(65536)
        try:
            c.sendall(b'{"v":1,"ok":true,"result":{"version":"fake","pid":1}}\n')
        except OSError:
            pass
EOF
}
mkdir -m 1777 "$W/pub"
setpriv --reuid=65534 --regid=65534 --clear-groups bash -c "$(declare -f serve); serve answer $W/pub/fake.sock $W/pub/ready" &
FAKE=$!
for i in $(seq 50); do [ -e "$W/pub/ready" ] && break; sleep 0.1; done
out=$(timeout 20 $TRACECTL --socket "$W/pub/fake.sock" --json status); rc=$?
touch "$W/pub/ready.stop"; wait "$FAKE" 2>/dev/null
[ "$rc" != 0 ] || fail "tracectl believed a socket served by uid 65534: $out"
expect_eq "untrusted peer: code" "$(jq_get .error.code <<< "$out")" untrusted_daemon
jq_get .error.message <<< "$out" | grepq "uid 65534" || fail "message does not name the uid: $out"
ok "untrusted peer refused: $(jq_get .error.message <<< "$out")"

serve hang "$W/hang.sock" "$W/hang.ready" &
HANG=$!
for i in $(seq 50); do [ -e "$W/hang.ready" ] && break; sleep 0.1; done
t0=$(date +%s%N)
out=$(timeout 30 $TRACECTL --socket "$W/hang.sock" --json --timeout 1 status); rc=$?
t1=$(date +%s%N)
[ "$rc" != 124 ] || fail "tracectl --timeout 1 still waiting after 30 s"
[ "$rc" = 7 ] || fail "hung daemon: exit $rc: $out"
expect_eq "hung daemon: code" "$(jq_get .error.code <<< "$out")" timeout
ok "--timeout 1: gave up after $(((t1 - t0) / 1000000)) ms"
out=$(timeout 30 $TRACECTL --socket "$W/hang.sock" --json list); rc=$?
[ "$rc" != 124 ] || fail "tracectl (default timeout) still waiting after 30 s"
expect_eq "hung daemon, default timeout: code" "$(jq_get .error.code <<< "$out")" timeout
touch "$W/hang.ready.stop"; wait "$HANG" 2>/dev/null
ok "default timeout: tracectl gave up on a hung daemon"
