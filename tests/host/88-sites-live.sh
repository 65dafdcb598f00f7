#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `tracectl sites --live` without the kernel module (this host cannot load
# it): bad arguments are refused before anything else (bad_request, exit
# 2), and a good request says the module is needed (unavailable, exit 6,
# with the reason), never an empty table. The command line's own checks:
# --symbols/--summary are for FILE, --limit for --live, one GLOB at most.
source "$(dirname "$0")/lib/daemon.bash"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
[ -e /dev/tracerd ] && skip "tracerd_kmod is loaded here: this test is about its absence"
start_daemon

command -v python3 > /dev/null || skip "python3 not installed"
# code REQUEST-JSON -> the reply's error code (python: no client checks)
code() {
	python3 - "$W/s.sock" "$1" <<'PY' | jq_get '.error.code'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode() + b"\n")
buf = b""
while b"\n" not in buf:
    c = s.recv(65536)
    if not c:
        break
    buf += c
print(buf.split(b"\n")[0].decode())
PY
}

# the request's arguments, refused before the module is looked for
for bad in '"vfs read"' '"tp:sched/*"' '""' '7' '"'"$(printf 'a%.0s' $(seq 600))"'"'; do
	expect_eq "glob ${bad:0:20}: code" \
		"$(code '{"v":1,"id":1,"cmd":"sites","args":{"glob":'"$bad"'}}')" bad_request
done
for args in '{"limit":4097}' '{"limit":0}' '{"limit":"3"}' '{"nope":1}'; do
	expect_eq "args $args: code" "$(code '{"v":1,"id":1,"cmd":"sites","args":'"$args"'}')" \
		bad_request
done

out=$($C sites --live 'vfs read' 2>&1)
expect_eq "bad glob: exit" "$?" 2
grep -q "invalid character ' '" <<< "$out" || fail "bad glob message: $out"

# a good request: the module is needed, and the answer says so
out=$($C sites --live 'vfs_read' 2>&1)
expect_eq "module absent: exit" "$?" 6
grep -q "needs tracerd_kmod" <<< "$out" && grep -q "not loaded" <<< "$out" ||
	fail "module absent message: $out"
echo "ok: $out"
out=$($C --json sites --live 2>&1)
expect_eq "module absent, every function: exit" "$?" 6

# the command line
out=$($C sites --live --summary 2>&1); expect_eq "--live --summary: exit" "$?" 2
out=$($C sites --live a b 2>&1); expect_eq "--live with two GLOBs: exit" "$?" 2
out=$($C sites --live --limit 0 2>&1); expect_eq "--limit 0: exit" "$?" 2
out=$($C sites --live --limit 4097 2>&1); expect_eq "--limit 4097: exit" "$?" 2
out=$($C sites /nonexistent --limit 3 2>&1); expect_eq "--limit without --live: exit" "$?" 2
$C sites --help | grepq -- '--live' || fail "--help does not mention --live"
stop_daemon
