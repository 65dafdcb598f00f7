#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Recording state tells the truth (#12, classes 2 and 7):
#  - record_dir deleted under a live recording: `list`, /metrics.json,
#    /metrics and the log say it stopped; a new attachment to that record
#    starts a new file (record_dir made again) and records into it;
#  - record_dir moved away, or a read-only filesystem mounted over it:
#    stopped too (the file is not where it says); attaching to it then is
#    refused with the reasons;
#  - RLIMIT_FSIZE reached: the recording stops (EFBIG), the daemon lives;
#  - a full filesystem: the recording stops; a new attachment to it is
#    refused with the reason (the disk is still full) or restarts it, never
#    accepted onto a stopped recording;
#  - attach/detach cycles on a live recording: a rotated file declares only
#    the attachments live in it (today every one that ever joined).
source "$(dirname "$0")/lib/daemon.bash"
source "$(dirname "$0")/lib/service.bash"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
me=$BASHPID
mkdir -p "$W/rd"
start_daemon_conf "listen = 127.0.0.1:$PORT
record_dir = $W/rd
record_max_bytes = 4096
record_keep = 1000"

rec_state() {	# ID FIELD: the attachment's recording field in `list`
	$C --json list | jq_get ".attachments[] | select(.id == $1) | .recording.$2"
}
wait_state() {	# ID FIELD VALUE
	local i
	for i in $(seq 50); do
		[ "$(rec_state "$1" "$2")" = "$3" ] && return 0
		sleep 0.1
	done
	return 1
}

# ---- record_dir deleted
$C --json attach tp:task/task_rename --pid "$me" --record del > "$W/a.json" || fail "attach"
id=$(jq_get '.attachment.id' < "$W/a.json")
for ((i = 0; i < 300; i++)); do printf d1 > /proc/self/comm; done
expect_eq "recording active" "$(rec_state "$id" active)" true
rm -rf "$W/rd"
for ((i = 0; i < 300; i++)); do printf d2 > /proc/self/comm; done
wait_state "$id" active false || fail "record_dir deleted: list still says recording"
ok "record_dir deleted: list says stopped: $(rec_state "$id" error)"
rec_state "$id" error | grepq deleted || fail "error does not say deleted"
curl -sf "$U/metrics.json" > "$W/m.json" || fail "metrics.json"
expect_eq "metrics.json record.active" \
	"$(jq_get ".attachments[] | select(.id == $id) | .record.active" < "$W/m.json")" false
curl -sf "$U/metrics" > "$W/m.prom" || fail "GET /metrics"
grep -q "^tracerd_record_active{id=\"$id\",.*} 0$" "$W/m.prom" ||
	fail "/metrics: tracerd_record_active not 0"
grep -q "recording 'del' stopped.*deleted" "$W/daemon.log" || fail "no log line"
# a new attachment to the stopped recording starts it again
$C --json attach tp:task/task_newtask --pid "$me" --record del > "$W/b.json" ||
	fail "attach to a stopped recording: $(cat "$W/b.json")"
id2=$(jq_get '.attachment.id' < "$W/b.json")
expect_eq "restarted: first attachment records again" "$(rec_state "$id" active)" true
expect_eq "restarted: new attachment records" "$(rec_state "$id2" active)" true
[ -f "$W/rd/del.trec" ] || fail "no new file in the re-made record_dir"
for ((i = 0; i < 100; i++)); do printf d3 > /proc/self/comm; done
$C --json detach "$id" > /dev/null && $C --json detach "$id2" > /dev/null || fail "detach"
got=$($O/tracectl dump --json --target tp:task/task_rename "$W/rd/del.trec" | wc -l)
expect_eq "events recorded after the restart" "$got" 100
grep -q "recording 'del' restarted" "$W/daemon.log" || fail "no restart log line"

# ---- record_dir moved away: the file is no longer where the state says
$C --json attach tp:task/task_rename --pid "$me" --record mv > "$W/a.json" || fail "attach mv"
id=$(jq_get '.attachment.id' < "$W/a.json")
mv "$W/rd" "$W/rd.moved"
wait_state "$id" active false || fail "record_dir moved: list still says recording"
ok "record_dir moved: list says stopped: $(rec_state "$id" error)"
$C --json detach "$id" > /dev/null || fail "detach mv"

# ---- attach/detach cycles: declarations per rotated file
$C --json attach tp:task/task_rename --pid "$me" --record cyc > "$W/a.json" || fail "attach cyc"
keep=$(jq_get '.attachment.id' < "$W/a.json")
CYCLES=${CYCLES:-200}
for ((i = 0; i < CYCLES; i++)); do
	$C --json attach tp:task/task_newtask --pid "$me" --record cyc > "$W/b.json" ||
		fail "cycle $i: attach"
	$C --json detach "$(jq_get '.attachment.id' < "$W/b.json")" > /dev/null || fail "cycle $i: detach"
done
# files rotated so far, some during the cycles (their declarations were live then)
r0=$(ls "$W/rd" | grep -c '^cyc\.trec\.')
for ((i = 0; i < 20000; i++)); do printf "c$((i % 1000))" > /proc/self/comm; done
for i in $(seq 50); do
	[ "$(rec_state "$keep" events)" -ge 20000 ] && break
	sleep 0.1
done
[ "$(rec_state "$keep" events)" -ge 20000 ] || fail "events not all recorded"
ls "$W/rd"/cyc.trec.* > /dev/null 2>&1 || fail "no rotation"
# TARGET records per file, from the decompressed stream (format 3: zstd
# frames, which the zstd tool reads; 1 and 2: one zlib stream)
count_targets() {
	python3 - "$1" <<'EOF'
import struct, subprocess, sys, zlib
d = open(sys.argv[1], "rb").read()
version, meta_len = struct.unpack_from("<II", d, 8)
if version >= 3:	# (no frame yet: zstd refuses empty input)
    s = subprocess.run(["zstd", "-dcq"], input=d[16 + meta_len:], capture_output=True,
                       check=True).stdout if len(d) > 16 + meta_len else b""
else:
    s = zlib.decompressobj().decompress(d[16 + meta_len:])
n = off = 0
while off + 4 <= len(s):
    t, l = struct.unpack_from("<HH", s, off)
    n += t == 1
    off += 4 + l
print(n)
EOF
}
# the file current when the cycles ended is now .(nfiles - r0); every later
# one (.1 up to it, and cyc.trec) starts with only the attachment still there
nfiles=$(ls "$W/rd" | grep -c '^cyc\.trec\.')
later=$((nfiles - r0 - 1))
[ "$later" -ge 2 ] || fail "only $later files started after the cycles"
max=$(count_targets "$W/rd/cyc.trec")
for ((k = 1; k <= later; k++)); do
	n=$(count_targets "$W/rd/cyc.trec.$k")
	[ "$n" -gt "$max" ] && max=$n
done
[ "$max" = 1 ] || fail "a file started after $CYCLES cycles declares $max targets (live: 1)"
ok "$((later + 1)) files started after $CYCLES attach/detach cycles each declare $max target"
$C --json detach "$keep" > /dev/null || fail "detach cyc"
stop_daemon

# ---- RLIMIT_FSIZE: the recording stops (EFBIG), the daemon lives on
printf 'listen = off\nrecord_dir = %s\n' "$W/rd" > "$W/tracerd.conf"
(ulimit -f 64; exec "$TRACERD" --config "$W/tracerd.conf" --socket "$W/s.sock") 2> "$W/daemon.log" &
DPID=$!
for i in $(seq 100); do [ -S "$W/s.sock" ] && break; sleep 0.1; done
$C --json attach tp:task/task_rename --pid "$me" --record fsz > "$W/a.json" || fail "attach (RLIMIT_FSIZE)"
id=$(jq_get '.attachment.id' < "$W/a.json")
for ((i = 0; i < 40000; i++)); do printf "z$i" > /proc/self/comm; done
wait_state "$id" active false || fail "RLIMIT_FSIZE: list still says recording"
kill -0 "$DPID" || fail "RLIMIT_FSIZE killed the daemon"
rec_state "$id" error | grepq 'too large' || fail "error: $(rec_state "$id" error)"
ok "RLIMIT_FSIZE: daemon alive, list says stopped: $(rec_state "$id" error)"
stop_daemon

# ---- record_dir made read-only (a read-only filesystem mounted over it)
mkdir -p "$W/ro" "$W/full"
trap '[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null && wait "$DPID"; DPID=;
      umount "$W/full" 2>/dev/null; umount "$W/ro" 2>/dev/null; cleanup' EXIT
start_daemon_conf "listen = off
record_dir = $W/ro"
$C --json attach tp:task/task_rename --pid "$me" --record ro > "$W/a.json" || fail "attach (ro)"
id=$(jq_get '.attachment.id' < "$W/a.json")
for ((i = 0; i < 100; i++)); do printf "r$i" > /proc/self/comm; done
mount -t tmpfs -o ro,size=64k tmpfs "$W/ro" 2>/dev/null || skip "cannot mount tmpfs (read-only part)"
for ((i = 0; i < 100; i++)); do printf "s$i" > /proc/self/comm; done
wait_state "$id" active false || fail "read-only record_dir: list still says recording"
ok "record_dir replaced by a read-only filesystem: list says stopped: $(rec_state "$id" error)"
$C --json attach tp:task/task_newtask --pid "$me" --record ro > "$W/b.json" &&
	fail "attach to a stopped recording on a read-only record_dir accepted"
jq_get '.error.message' < "$W/b.json" | grepq "stopped.*cannot restart.*Read-only" ||
	fail "refusal without the reasons: $(cat "$W/b.json")"
$C --json attach tp:task/task_newtask --pid "$me" --record other > "$W/b.json" &&
	fail "new recording on a read-only record_dir accepted"
jq_get '.error.message' < "$W/b.json" | grepq "Read-only" || fail "no reason: $(cat "$W/b.json")"
ok "attach to it refused: $(jq_get '.error.message' < "$W/b.json")"
stop_daemon
umount "$W/ro"

# ---- full filesystem: a new attachment to the stopped recording
mount -t tmpfs -o size=64k tmpfs "$W/full" 2>/dev/null || skip "cannot mount tmpfs (full-disk part)"
start_daemon_conf "listen = off
record_dir = $W/full"
$C --json attach tp:task/task_rename --pid "$me" --record full > "$W/a.json" || fail "attach (tmpfs)"
id=$(jq_get '.attachment.id' < "$W/a.json")
for ((i = 0; i < 40000; i++)); do printf "f$i" > /proc/self/comm; done
wait_state "$id" active false || fail "full disk: list still says recording"
ok "full disk: list says stopped: $(rec_state "$id" error)"
if $C --json attach tp:task/task_newtask --pid "$me" --record full > "$W/b.json"; then
	id2=$(jq_get '.attachment.id' < "$W/b.json")
	expect_eq "accepted only by restarting" "$(rec_state "$id2" active)" true
else
	jq_get '.error.message' < "$W/b.json" | grepq "stopped.*cannot restart" ||
		fail "refusal without the reason: $(cat "$W/b.json")"
	ok "attach to the stopped recording refused: $(jq_get '.error.message' < "$W/b.json")"
fi
stop_daemon
