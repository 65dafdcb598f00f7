#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# attach --args and --if (issue #32 items 4 and 6) on this kernel's tp_btf
# tracepoints, whose arguments BTF types as a function's:
# task:task_rename(struct task_struct *task, const char *comm) records
# the names a process gave itself (chosen here: an escape byte, a quote,
# a formula) in every dump format, escaped, read after the daemon is gone;
# raw_syscalls:sys_enter(struct pt_regs *regs, long id) with --if
# 'id==getpgid' counts exactly the process's getpgid calls, in the
# kernel, and so does the config file's if= (a comm of this test's).
# Refused, with the reason: --args without --record, a name BTF
# does not have, a pointer, a value that does not parse or fit, a
# tracepoint without a BTF prototype, a kmod mode, --args --latency where
# the return does not see the arguments, a bad --if (the client too).
source "$(dirname "$0")/lib/daemon.bash"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
command -v python3 > /dev/null || skip "python3 not installed"
T=$O/tests/trigger
mkdir -p "$W/rec"
nr=$(printf '#include <sys/syscall.h>\nSYS_getpgid\n' | cpp -P - | tail -n 1)
[ "$nr" -gt 0 ] 2> /dev/null || skip "no SYS_getpgid number from cpp: '$nr'"
# the config file's way: if= without blanks, on a comm of this test only
# (other tests may run trigger beside it)
TT=$W/targs$$
cp "$T" "$TT" || fail "cp trigger"
printf 'listen = off\nrecord_dir = %s\nattach = tp:raw_syscalls/sys_enter comm=%s if=id==%s\n' \
	"$W/rec" "${TT##*/}" "$nr" > "$W/tracerd.conf"
"$TRACERD" --config "$W/tracerd.conf" --socket "$W/s.sock" 2> "$W/daemon.log" &
DPID=$!
C="$TRACECTL --socket $W/s.sock"
for i in $(seq 1 100); do [ -S "$W/s.sock" ] && break; sleep 0.1; done
[ -S "$W/s.sock" ] || fail "tracerd did not start"
ren=tp:task/task_rename
sysent=tp:raw_syscalls/sys_enter

# --- refusals: the reason, nothing attached
refused() {	# WANT_STATUS WANT_MSG ARGS...
	local want=$1 msg=$2 rc
	shift 2
	$C attach "$@" > "$W/r.out" 2>&1; rc=$?
	expect_eq "refused ($*): status" "$rc" "$want"
	grepq -F -- "$msg" "$W/r.out" || fail "refused ($*): '$(cat "$W/r.out")' lacks '$msg'"
}
refused 2 "--args needs --record NAME: the arguments are recorded with each call" $ren --args
refused 2 "--if: no argument named 'nr'" $sysent --if 'nr==1'
refused 2 "--if: argument 'regs' is a pointer" $sysent --if 'regs==0'
refused 2 "--if: argument 'comm' is a pointer" $ren --if 'comm==0'
refused 2 "--if: 'abc' is no integer" $sysent --if 'id==abc'
refused 2 "--if: '0x8000000000000000' is no signed integer of 64 bits" $sysent --if 'id>=0x8000000000000000'
refused 2 "tracepoint 'tp:syscalls/sys_enter_getpgid' has no BTF prototype" \
	tp:syscalls/sys_enter_getpgid --args --record r
refused 2 "arguments at the return (--args with --latency)" tp:syscalls/sys_enter_nanosleep \
	--latency --args --record r --mode tp-btf
refused 2 "has no record, arguments" vfs_read --mode kmod-kprobe --args --record r
refused 2 "--if with --errors" vfs_read --if 'count>=1' --errors
refused 2 "invalid --if 'id=>1': the operator is one of == != < <= > >=" $sysent --if 'id=>1'
$C attach $sysent --if 'id' > "$W/r.out" 2>&1
expect_eq "client: a bad --if is a usage error" "$?" 2
python3 - "$W/s.sock" > "$W/raw.json" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b'{"v":1,"cmd":"attach","id":1,"args":{"target":"tp:raw_syscalls/sys_enter",'
          b'"if":"id <= "}}\n')
print(s.makefile().readline().strip())
PY
expect_eq "daemon: bad --if" "$(jq -r .error.message < "$W/raw.json")" \
	"invalid --if 'id <= ': one value after the operator (an integer or an enumerator's name)"
expect_eq "nothing attached (the config's only)" "$($C --json list | jq '.attachments | length')" 1
expect_eq "config: if" "$($C --json list | jq -r '.attachments[0].if')" "id==$nr"

# --- the names a process gives itself, and its getpgid calls
names=(abc $'x\e[31my' 'q"uote' '=1+2' 'fifteen-chars-x')
sh -c "$C --json attach $ren --args --record args --pid \$\$ > '$W/a1.json' &&
	exec '$T' renameto \"\$@\"" sh "${names[@]}" || fail "attach and rename: $(cat "$W/a1.json")"
expect_eq "list: args" "$(jq_get .attachment.args < "$W/a1.json")" true
id1=$(jq_get .attachment.id < "$W/a1.json")
# exec names the task (a rename: "trigger"), then its 5 renames and the one back
expect_eq "renames: calls" "$($C --json stats "$id1" | jq '.stats[0].calls')" 7
sh -c "$C --json attach $sysent --if 'id == $nr' --pid \$\$ --args --record sys > '$W/a2.json' &&
	exec '$TT' getpgid 7" || fail "attach --if, getpgid: $(cat "$W/a2.json")"
expect_eq "list: if" "$(jq_get .attachment.if < "$W/a2.json")" "id==$nr"
id2=$(jq_get .attachment.id < "$W/a2.json")
expect_eq "--if id==getpgid: exactly the 7 getpgid calls of the process" \
	"$($C --json stats "$id2" | jq '.stats[0].calls')" 7
expect_eq "config if=id==getpgid comm=${TT##*/}: the same 7" \
	"$($C --json stats 1 | jq '.stats[0].calls')" 7
stop_daemon	# the file is read without the daemon

f=$W/rec/args.trec
expect_eq "format 5" "$(od -An -tu4 -j8 -N4 "$f" | tr -d ' ')" 5
$TRACECTL dump --json "$f" > "$W/d.json" || fail "dump --json"
expect_eq "json: the names, as given" "$(jq -c '[.[].args.comm]' -s < "$W/d.json")" \
	"$(printf '%s\n' trigger "${names[@]}" trigger | jq -R . | jq -cs .)"
expect_eq "json: task is a pointer" "$(jq -r '.args.task' < "$W/d.json" | grep -c '^0xffff')" 7
valid_utf8 "$W/d.json" || fail "json: not UTF-8"
$TRACECTL dump "$f" > "$W/d.txt" || fail "dump text"
grepq $'\e' "$W/d.txt" && fail "text: an escape byte reached the terminal"
grep -o 'task_rename(.*' "$W/d.txt" | sed 's/task=0x[0-9a-f]*/task=T/' > "$W/calls.txt"
expect_eq "text: the calls" "$(cat "$W/calls.txt")" 'task_rename(task=T, comm="trigger")
task_rename(task=T, comm="abc")
task_rename(task=T, comm="x\x1b[31my")
task_rename(task=T, comm="q\x22uote")
task_rename(task=T, comm="=1+2")
task_rename(task=T, comm="fifteen-chars-x")
task_rename(task=T, comm="trigger")'
$TRACECTL dump --format csv "$f" > "$W/d.csv" || fail "dump csv"
expect_eq "csv: header" "$(head -n 1 "$W/d.csv" | tr -d '\r')" \
	"ts_ns,realtime_ns,cpu,pid,tid,comm,slot,target,duration_ns,ret,stack,args"
python3 - "$W/d.csv" > "$W/csv.txt" <<'PY' || fail "csv: $(cat "$W/csv.txt")"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
for r in rows[1:]:
    assert len(r) == 12, r
    print(r[11].split(";", 1)[1])
PY
expect_eq "csv: the args column" "$(cat "$W/csv.txt")" 'comm="trigger"
comm="abc"
comm="x\x1b[31my"
comm="q\x22uote"
comm="=1+2"
comm="fifteen-chars-x"
comm="trigger"'
$TRACECTL dump --format chrome "$f" > "$W/d.chrome" || fail "dump chrome"
expect_eq "chrome: args" "$(jq -c '[.traceEvents[] | select(.ph == "i") | .args.args.comm]' < "$W/d.chrome")" \
	"$(printf '%s\n' trigger "${names[@]}" trigger | jq -R . | jq -cs .)"
$TRACECTL dump --json "$W/rec/sys.trec" > "$W/s.json" || fail "dump sys"
expect_eq "--if --args: recorded the passing calls only" "$(jq -r '.args.id' < "$W/s.json" | uniq -c | tr -s ' ')" " 7 $nr"
# no string argument: the event without its string area (TRACERD_EVENT_ARGS_NOSTR)
# carries every value
expect_eq "no string: regs a kernel pointer in each" "$(jq -r '.args.regs' < "$W/s.json" | grep -c '^0xffff')" 7
ok "--args: every format carries the arguments; --if counts in the kernel"
