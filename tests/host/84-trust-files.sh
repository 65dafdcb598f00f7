#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue #12, class 3: files the daemon reads. The stored bench results in
# state_dir (read for every /metrics) with null or mistyped fields, \u0000,
# bad UTF-8 or not JSON at all are ignored with a log line, never a crash;
# a FIFO, directory or device as the config file is refused at once; a
# '#' inside a config value is part of it; a stored result or state_dir
# another user owns or can write is not read (issue #33, class 2).
source "$(dirname "$0")/lib/daemon.bash"
source "$(dirname "$0")/lib/service.bash"
command -v curl >/dev/null || skip "curl not installed"
[ "$(id -u)" = 0 ] || skip "needs root (tp-btf attachments)"
mkdir -p "$W/st" "$W/rec#1"
start_daemon_conf "listen = 127.0.0.1:$PORT
state_dir = $W/st   # '#' after a blank starts a comment
record_dir = $W/rec#1
attach = tp:sched/sched_switch"
F="$W/st/bench-trigger.json"
kernel=$(uname -r)
good='{"schema":"tracerd-bench-trigger-state/1","kernel":"K","kernel_build":"B","overhead_ns":{"tp-btf":{"count":1}}}'
i=0
for bad in \
	'{"schema":"tracerd-bench-trigger-state/1","kernel":null,"kernel_build":null,"overhead_ns":null}' \
	'{"schema":"tracerd-bench-trigger-state/1","kernel":5,"kernel_build":[],"overhead_ns":{}}' \
	"${good//\"K\"/null}" \
	"${good//\"count\":1/\"count\":null}" \
	"${good//\"count\":1/\"count\":\"1\"}" \
	"${good//\{\"count\":1\}/null}" \
	"${good//\"B\"/\"x\\u0000y\"}" \
	'null' '[]' '"x"' '{"schema":' $'\xff\xfe' ''; do
	i=$((i + 1))
	printf '%s' "$bad" > "$F"
	touch -d "@$((1700000000 + i))" "$F"	# a new mtime: re-read
	curl -sf "$U/metrics" > /dev/null || fail "case $i ($bad): /metrics failed"
	kill -0 "$DPID" 2>/dev/null || fail "case $i ($bad): daemon died"
done
ok "$i bad state files: /metrics answered, daemon alive"
grep -q "bench: ignoring $F" "$W/daemon.log" || fail "no log line for the ignored file"
ok "ignored files logged"
# the right kernel and types: used (the overhead gauge appears)
uver=$(uname -v)
python3 - "$F" "$kernel" "$uver" <<'PY'
import json, sys
json.dump({"schema": "tracerd-bench-trigger-state/1", "kernel": sys.argv[2],
           "kernel_build": sys.argv[3], "overhead_ns": {"tp-btf": {"count": 12.5}}},
          open(sys.argv[1], "w"))
PY
curl -sf "$U/metrics.json" | jq -e '.attachments[0].overhead_ns_per_call == 12.5' > /dev/null ||
	fail "a valid stored result is not used: $(curl -sf "$U/metrics.json" | jq -c '.attachments[0]')"
ok "a valid stored result is used"
# the same file another user could have written: not used, logged, used
# again once fixed (a chmod changes the verdict, not the mtime)
# ovh WANT: the overhead gauge, once it is WANT (a rendered body is reused
# for 250 ms: HTTP_SNAPSHOT_MS), or what it still is after 3 s
ovh() {
	local i v
	for i in $(seq 30); do
		v=$(curl -sf "$U/metrics.json" | jq -c '.attachments[0].overhead_ns_per_call')
		[ "$v" = "$1" ] && break
		sleep 0.1
	done
	echo "$v"
}
chmod 0666 "$F"
expect_eq "a world-writable stored result: overhead" "$(ovh null)" null
grepq "bench: ignoring $F: bench store '$F' is writable by others" "$W/daemon.log" ||
	fail "the untrusted stored result is not logged"
chmod 0644 "$F"
expect_eq "the stored result, 0644 again: overhead" "$(ovh 12.5)" 12.5
chown nobody "$F"
expect_eq "a stored result owned by nobody: overhead" "$(ovh null)" null
grepq "bench store '$F' is owned by uid" "$W/daemon.log" ||
	fail "the stored result owned by nobody is not logged"
chown root "$F"
expect_eq "the stored result, root's again: overhead" "$(ovh 12.5)" 12.5
chmod 0777 "$W/st"	# the directory alone changes
expect_eq "a stored result in a world-writable state_dir: overhead" "$(ovh null)" null
grepq "state_dir '$W/st' is writable by others" "$W/daemon.log" ||
	fail "the untrusted state_dir is not logged"
chmod 0755 "$W/st"
expect_eq "the stored result, state_dir root's again: overhead" "$(ovh 12.5)" 12.5
# '#' inside a value is part of it
$C attach tp:task/task_rename --record r > /dev/null || fail "attach --record"
[ -e "$W/rec#1/r.trec" ] || fail "record_dir with '#' not used: $(ls "$W")"
ok "record_dir keeps its '#'"
stop_daemon

# the config file: FIFO, directory, device refused without blocking
mkfifo "$W/fifo"
for cfg in "$W/fifo" "$W" /dev/null; do
	timeout 10 "$TRACERD" --config "$cfg" --socket "$W/t.sock" 2> "$W/err"; rc=$?
	[ "$rc" = 124 ] && fail "config $cfg: tracerd blocked"
	[ "$rc" = 0 ] && fail "config $cfg: accepted"
	grep -q "not a regular file" "$W/err" || fail "config $cfg: message: $(cat "$W/err")"
	ok "config $cfg refused: $(head -n1 "$W/err")"
done

# recordings (tracectl dump, with and without --follow): a FIFO nobody
# writes, a directory, a device refused at once, not waited on
for f in "$W/fifo" "$W" /dev/null; do
	for follow in "" --follow; do
		timeout 10 "$TRACECTL" dump $follow "$f" > /dev/null 2> "$W/err"; rc=$?
		[ "$rc" = 124 ] && fail "dump $follow $f: blocked"
		[ "$rc" = 0 ] && fail "dump $follow $f: accepted"
		grep -q "not a regular file" "$W/err" || fail "dump $follow $f: message: $(cat "$W/err")"
		ok "dump $follow $f refused (exit $rc): $(head -n1 "$W/err")"
	done
done

# record headers (tracectl dump): null or mistyped fields, \u0000, not JSON
i=0
for meta in '{"byte_order":null}' '{"byte_order":7}' '{"byte_order":"little","created_realtime_ns":null}' \
	    '{"byte_order":"lit\u0000tle"}' 'null' '[]' '{"byte_order":' $'{"byte_order":"\xff"}'; do
	i=$((i + 1))
	python3 - "$W/h$i.trec" "$meta" <<'PY'
import struct, sys, zlib
meta = sys.argv[2].encode("utf-8", "surrogateescape")
with open(sys.argv[1], "wb") as f:
    f.write(b"TRACERDR" + struct.pack("=II", 1, len(meta)) + meta + zlib.compress(b""))
PY
	"$TRACECTL" dump "$W/h$i.trec" > "$W/out" 2>&1; rc=$?
	[ "$rc" -ge 128 ] && fail "dump of header $meta: killed by signal $((rc - 128))"
	case $meta in
	*created_realtime_ns*) ;;	# an optional field: null reads as absent
	*) [ "$rc" = 0 ] && fail "dump of header $meta: accepted" ;;
	esac
done
ok "$i bad record headers: dump refused them without a crash"
