#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue #12, classes 1 and 3, against a private daemon: numbers are decimal
# only (`detach 010` is not attachment 8), unknown, null and mistyped
# request arguments are refused by name, \u0000 is refused, what tracectl
# prints carries no raw control character, its JSON is valid UTF-8, and a
# bad state_dir file is ignored, not a crash.
source "$(dirname "$0")/lib/daemon.bash"
command -v python3 >/dev/null || skip "python3 not installed"
[ "$(id -u)" = 0 ] || skip "needs root (tp-btf attachments)"
mkdir -p "$W/state"
# a stored bench result of the wrong types (null kernel): read for /metrics
printf '{"schema":"tracerd-bench-trigger-state/1","kernel":null,"kernel_build":7,"overhead_ns":null}\n' \
	> "$W/state/bench-trigger.json"
mkdir -p "$W/rec"
start_daemon "state_dir = $W/state
record_dir = $W/rec"

raw() { # REQUEST -> reply line
	python3 - "$W/s.sock" "$1" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode("utf-8", "surrogateescape") + b"\n")
buf = b""
while b"\n" not in buf:
    c = s.recv(65536)
    if not c:
        break
    buf += c
sys.stdout.buffer.write(buf.split(b"\n")[0] + b"\n")
PY
}
has_ctl() { LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$1"; }  # any C0 but \t, \n

# --- class 3: one strict decimal parser ---
for tp in sched/sched_process_fork sched/sched_process_exec sched/sched_process_exit \
	  task/task_rename sched/sched_wakeup sched/sched_wakeup_new sched/sched_switch \
	  sched/sched_migrate_task; do
	$C attach "tp:$tp" > /dev/null || fail "attach $tp"
done
n=$($C --json list | jq '.attachments | length')
expect_eq "attachments made" "$n" 8
for bad in 010 0x8 +8 -8 " 8" 8x 99999999999999999999; do
	$C detach "$bad" > /dev/null 2> "$W/err"; rc=$?
	expect_eq "detach '$bad': exit" "$rc" 2
done
$C detach 010 2> "$W/err"
grep -q "leading 0 is not allowed" "$W/err" || fail "detach 010: message: $(cat "$W/err")"
$C stats 0x8 > /dev/null 2> "$W/err"; expect_eq "stats 0x8: exit" "$?" 2
grep -q "hexadecimal" "$W/err" || fail "stats 0x8: message: $(cat "$W/err")"
expect_eq "attachment 8 still there" "$($C --json list | jq '[.attachments[].id] | index(8) != null')" true
$C attach tp:sched/sched_switch --pid 010 > /dev/null 2>&1; expect_eq "--pid 010: exit" "$?" 2

# --- class 3: requests: unknown, null, mistyped arguments; \u0000 ---
req() { raw "$1" > "$W/rep"; jq -r '.error.code + ": " + .error.message' < "$W/rep"; }
out=$(req '{"v":1,"cmd":"detach","args":{"id":8,"force":true}}')
expect_eq "unknown argument" "$out" "bad_request: detach: unknown argument 'force'"
out=$(req '{"v":1,"cmd":"attach","args":{"target":"tp:sched/sched_switch","pdi":1}}')
expect_eq "unknown attach argument" "$out" "bad_request: attach: unknown argument 'pdi'"
out=$(req '{"v":1,"cmd":"attach","args":{"target":"tp:sched/sched_switch","pid":null}}')
expect_eq "null argument" "$out" "bad_request: attach: argument 'pid' must be an integer, not null"
out=$(req '{"v":1,"cmd":"stats","args":{"id":"8"}}')
expect_eq "mistyped argument" "$out" "bad_request: stats: argument 'id' must be an integer, not a string"
out=$(req '{"v":1,"cmd":"list","args":{"x":1}}')
expect_eq "list takes no argument" "$out" "bad_request: list: unknown argument 'x'"
out=$(req '{"v":1,"cmd":"bench","args":{"op":"read","handle":1,"extra":2}}')
expect_eq "bench op argument" "$out" "bad_request: bench read: unknown argument 'extra'"
out=$(req '{"v":1,"cmd":"detach","args":{"target":"tp:sched/sched_switch\u0000x"}}')
expect_eq "\\u0000 refused" "${out%%:*}" bad_request
out=$(req '{"v":1,"cmd":"detach","args":{"id":8},"idd":1}')
expect_eq "unknown request member" "${out%%:*}" bad_request
out=$(req '{"v":1,"cmd":"detach","args":{"id":08}}')
expect_eq "JSON number with a leading 0" "${out%%:*}" bad_request
expect_eq "attachment 8 survived all that" "$($C --json list | jq '.attachments | length')" 8

# --- class 1: output hygiene ---
$C attach $'tp:sched/\e[2J\e]0;pwned\a' > "$W/out" 2> "$W/err"
has_ctl "$W/err" && fail "error echoed a control character: $(od -c "$W/err" | head -3)"
grep -q 'x1b\[2J' "$W/err" || fail "escaped target not in the error: $(cat "$W/err")"
ok "error message escaped"
$C --json attach $'tp:sched/x\xff\xfe\e' > "$W/out" 2>&1
valid_utf8 "$W/out" || fail "--json error is not valid UTF-8: $(od -c "$W/out" | head -3)"
jq -e .error.code "$W/out" > /dev/null || fail "--json error not JSON: $(cat "$W/out")"
ok "--json error is valid UTF-8"
raw $'{"v":1,"cmd":"attach","args":{"target":"tp:a/\xff\xfe"}}' > "$W/rep"
valid_utf8 "$W/rep" || fail "daemon reply not valid UTF-8"
ok "daemon reply valid UTF-8"
$C attach $'tp:sched/sched_switch' --comm $'\e[31mred' > "$W/out" 2>&1
$C list > "$W/out" 2>&1
has_ctl "$W/out" && fail "list printed a control character: $(od -c "$W/out" | grep -m2 033)"
ok "list escaped"
$C stats > "$W/out" 2>&1
has_ctl "$W/out" && fail "stats printed a control character"
ok "stats escaped"

# dump: a comm from the kernel with an escape sequence and a byte that is not UTF-8
$C attach tp:task/task_rename --pid $BASHPID --record esc > /dev/null || fail "attach --record"
printf '\e[2J\xff\x9b1m' > /proc/self/comm
printf 'plain' > /proc/self/comm

kill -0 "$DPID" || fail "daemon died"
stop_daemon
$O/tracectl dump "$W/rec/esc.trec" > "$W/dump" 2>&1 || fail "dump: $(cat "$W/dump")"
grep -q 'x1b\[2J' "$W/dump" || fail "renamed comm not in the dump: $(cat "$W/dump")"
has_ctl "$W/dump" && fail "dump printed a control character: $(od -c "$W/dump" | grep -m2 033)"
valid_utf8 "$W/dump" || fail "dump printed bytes that are not UTF-8"
ok "dump escaped the comm"
$O/tracectl dump --json "$W/rec/esc.trec" > "$W/dump.json" 2>&1 || fail "dump --json"
valid_utf8 "$W/dump.json" || fail "dump --json is not valid UTF-8: $(od -c "$W/dump.json" | grep -m2 377)"
jq -e -s 'map(select(.comm | test("2J"))) | length == 1' "$W/dump.json" > /dev/null ||
	fail "dump --json: the renamed comm: $(cat "$W/dump.json")"
ok "dump --json is valid UTF-8"
$O/tracectl dump --format csv "$W/rec/esc.trec" | tr -d '\r' > "$W/dump.csv" || fail "dump --format csv"
grep -q 'x1b\[2J' "$W/dump.csv" || fail "csv: renamed comm not escaped: $(cat "$W/dump.csv")"
has_ctl "$W/dump.csv" && fail "dump --format csv printed a control character"
valid_utf8 "$W/dump.csv" || fail "dump --format csv printed bytes that are not UTF-8"
$O/tracectl dump --format chrome "$W/rec/esc.trec" > "$W/dump.chrome" || fail "dump --format chrome"
has_ctl "$W/dump.chrome" && fail "dump --format chrome printed a control character"
valid_utf8 "$W/dump.chrome" || fail "dump --format chrome is not valid UTF-8"
jq -e '[.traceEvents[] | select(.ph == "M" and (.args.name | test("2J")))] | length >= 1' \
	"$W/dump.chrome" > /dev/null || fail "dump --format chrome: the renamed comm: $(cat "$W/dump.chrome")"
ok "dump --format csv and chrome: escaped, valid UTF-8"
