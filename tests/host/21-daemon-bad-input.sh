#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad input, one case at a time: each must give its documented error code
# and tracectl exit status (docs/protocol.md), and the daemon keeps going.
source "$(dirname "$0")/lib/daemon.bash"
command -v python3 >/dev/null || skip "python3 not installed"
start_daemon

# raw REQUEST-BYTES -> first reply line (python: exact bytes, no client)
raw() {
	python3 - "$W/s.sock" "$1" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
data = sys.argv[2].encode()
if data.startswith(b"@big:"):
    data = b"{" + b" " * int(data[5:]) + b"}\n"
try:
    s.sendall(data)
except BrokenPipeError:
    pass
buf = b""
while b"\n" not in buf:
    c = s.recv(65536)
    if not c:
        break
    buf += c
print(buf.split(b"\n")[0].decode())
# after too_large the daemon closes the connection
if sys.argv[2].startswith("@big:"):
    s.settimeout(5)
    try:
        rest = s.recv(1)
        print("closed" if rest == b"" else "open")
    except (ConnectionResetError, socket.timeout):
        print("closed")
PY
}
code_of() { raw "$1" | head -n1 | jq_get '.error.code'; }

expect_eq "malformed JSON" "$(code_of $'{"v":1,"cmd":\n')" bad_request
expect_eq "not an object" "$(code_of $'[1]\n')" bad_request
expect_eq "wrong version" "$(code_of $'{"v":2,"cmd":"status"}\n')" unsupported_version
expect_eq "no version" "$(code_of $'{"cmd":"status"}\n')" bad_request
expect_eq "unknown command" "$(code_of $'{"v":1,"cmd":"frobnicate"}\n')" unknown_command
expect_eq "bad arg type" "$(code_of $'{"v":1,"cmd":"attach","args":{"target":5}}\n')" bad_request
expect_eq "id echoed" "$(raw $'{"v":2,"cmd":"x","id":"abc"}\n' | jq_get .id)" abc
out=$(raw "@big:70000")
expect_eq "oversized request" "$(head -n1 <<< "$out" | jq_get .error.code)" too_large
expect_eq "connection closed after oversized" "$(tail -n1 <<< "$out")" closed
expect_eq "two requests on one connection" \
	"$(raw $'{"v":1,"cmd":"list","id":1}\n{"v":1,"cmd":"list","id":2}\n' | jq_get .ok)" true

# tracectl exit codes, and --json errors as objects on stdout
t() { # WANT_EXIT WANT_CODE ARGS...
	local want=$1 code=$2 rc out
	shift 2
	out=$($C --json "$@" 2> "$W/err"); rc=$?
	[ -s "$W/err" ] && fail "$*: stderr not empty in --json mode: $(cat "$W/err")"
	expect_eq "exit of '$*'" "$rc" "$want"
	expect_eq "code of '$*'" "$(jq_get .error.code <<< "$out")" "$code"
}
t 5 not_found attach no_such_function_tracerd_xyz
t 5 not_found attach 'no_such_function_tracerd_*'
t 5 not_found attach tp:nosuch/tracepoint_xyz
t 2 bad_request attach bpf_prog_run            # denylisted
t 2 bad_request attach 'vfs_read' --mode bogus
t 2 bad_request attach tp:sched/sched_switch --latency
t 2 bad_request attach 'tp:a/b/c'
t 2 usage attach
t 2 usage attach a b
t 2 usage frob
t 2 usage st                                   # ambiguous: status, stats
t 5 not_found detach 99
t 5 not_found stats 99
t 6 unavailable attach vfs_read --mode kmod-direct
# what a mode cannot do is refused before the kernel is asked (whether or
# not the module is loaded), the same way for every option (issue #13)
t 6 unavailable attach vfs_read --mode kmod-direct --latency  # times calls where the module does (x86_64)
t 2 bad_request attach vfs_read --mode kmod-direct --record r
t 2 bad_request attach vfs_read --mode kmod-callops --errors
# a comm filter the module has (ABI 1.6): only its absence refuses it here
t 6 unavailable attach vfs_read --mode kmod-callops --comm sh
# --errors counts int, long and ERR_PTR returns: a function whose BTF
# returns void is refused before any mode is tried (a glob skips them)
if [ -r /sys/kernel/btf/vmlinux ]; then
	t 2 bad_request attach kfree --errors
	t 5 not_found attach 'kfre[e]' --errors
	out=$($C --json attach kfree --errors 2>&1)
	grep -q 'returns void' <<< "$out" || fail "kfree --errors: $out"
	echo "ok: --errors on a void function refused: $(jq_get .error.message <<< "$out")"
	# a pointer (ERR_PTR) return is taken: not refused for its type
	out=$($C --json attach d_path --errors 2>&1)
	grep -q 'returns' <<< "$out" && fail "d_path --errors refused for its type: $out"
	$C detach --all > /dev/null 2>&1	# where a mode could hook it
	echo "ok: --errors on a pointer return not refused for it"
fi
out=$($C --json attach vfs_read --mode kmod-kprobe --record r 2>&1)
grep -q 'BPF mode' <<< "$out" || fail "kmod --record: the reason does not name a BPF mode: $out"

# duplicate attach: refused with 'exists' (same target, mode, filters)
$C attach tp:task/task_rename --pid $$ > /dev/null || fail "attach"
t 1 exists attach tp:task/task_rename --pid $$
$C attach tp:task/task_rename --pid $((BASHPID + 1)) > /dev/null ||
	fail "same target with another filter must be allowed"
expect_eq "attachments" "$($C --json list | jq_get '.attachments | length')" 2

# fentry / kprobe refused here: the kernel's errno, as 'unavailable'
for m in fentry kprobe; do
	if [ "$($C --json status | jq_get ".features[\"$m\"].available")" = false ]; then
		t 6 unavailable attach __x64_sys_getpgid --mode $m
	fi
done

# daemon absent
out=$($TRACECTL --socket "$W/nonexistent.sock" status 2>&1); rc=$?
expect_eq "exit without daemon" $rc 3
grep -q "daemon not running.*start it with" <<< "$out" || fail "no hint how to start: $out"
out=$($TRACECTL --json --socket "$W/nonexistent.sock" list 2>/dev/null)
expect_eq "json error without daemon" "$(jq_get .error.code <<< "$out")" no_daemon

# still alive and answering after all that
$C status > /dev/null || fail "daemon stopped answering"
stop_daemon
