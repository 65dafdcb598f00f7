#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Recording through the daemon: tp:task/task_rename filtered to this shell
# with --record: N renames in, N events out of `tracectl dump` (through the
# BPF ring buffer and the libevent loop); names escaping record_dir are
# refused; on a full filesystem recording stops with an error in the
# metrics and the log while counting goes on.
source "$(dirname "$0")/lib/daemon.bash"
source "$(dirname "$0")/lib/service.bash"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
N=2000
mkdir -p "$W/rec" "$W/full"
start_daemon_conf "listen = 127.0.0.1:$PORT
record_dir = $W/rec
record_max_bytes = 1M"
me=$BASHPID

for bad in ../x a/b .hidden; do
	$C --json attach tp:task/task_rename --record "$bad" > "$W/bad.json" 2>&1 && fail "record name '$bad' accepted"
	ok "record name '$bad' refused"
done
expect_eq "nothing attached by bad names" "$($C --json list | jq_get '.attachments | length')" 0

$C --json attach tp:task/task_rename --pid "$me" --record rn > "$W/a.json" || fail "attach --record"
id=$(jq_get '.attachment.id' < "$W/a.json")
for ((i = 0; i < N; i++)); do printf r64 > /proc/self/comm; done
expect_eq "calls" "$($C --json stats "$id" | jq_get '.stats[0].calls')" "$N"
# the loop consumes the ring buffer: wait until the writer has them all
for i in $(seq 50); do
	ev=$(curl -sf "$U/metrics.json" | jq_get ".attachments[0].record.events")
	[ "$ev" = "$N" ] && break
	sleep 0.1
done
expect_eq "record events (metrics.json)" "$ev" "$N"
expect_eq "record active" "$(curl -sf "$U/metrics.json" | jq_get '.attachments[0].record.active')" true
# a file cut now (daemon still running, last events maybe unflushed) reads cleanly
cp "$W/rec/rn.trec" "$W/cut.trec"
got=$($O/tracectl dump --json "$W/cut.trec" 2>/dev/null | wc -l)
[ "$got" -le "$N" ] || fail "cut file: $got > $N"
ok "file copied while recording reads $got whole events"
$C --json detach "$id" > /dev/null || fail "detach"
expect_eq "events in the file" "$($O/tracectl dump --json "$W/rec/rn.trec" | wc -l)" "$N"
expect_eq "events of this pid" "$($O/tracectl dump --json --pid "$me" "$W/rec/rn.trec" | wc -l)" "$N"
expect_eq "events of the target" \
	"$($O/tracectl dump --json --target 'tp:task/*' "$W/rec/rn.trec" | wc -l)" "$N"
# task_rename fires before the rename: the first event still has the old comm
expect_eq "comm recorded" "$($O/tracectl dump --json "$W/rec/rn.trec" | jq_get .comm | grep -c '^r64$')" $((N - 1))
expect_eq "clean end: no note" "$($O/tracectl dump --json "$W/rec/rn.trec" 2>&1 >/dev/null)" ""

# ring buffer full: with the daemon stopped (SIGSTOP) nothing drains the
# 4 MiB ring buffer, so most of 100000 events are dropped; every call is
# still either in the file or counted as dropped
M=100000
$C --json attach tp:task/task_rename --pid "$me" --record burst > "$W/a.json" || fail "attach burst"
id=$(jq_get '.attachment.id' < "$W/a.json")
kill -STOP "$DPID"
for ((i = 0; i < M; i++)); do printf b64 > /proc/self/comm; done
kill -CONT "$DPID"
for i in $(seq 100); do
	curl -sf "$U/metrics.json" > "$W/m.json" || fail "metrics.json"
	ev=$(jq_get ".attachments[] | select(.id == $id) | .record.events" < "$W/m.json")
	dr=$(jq_get ".attachments[] | select(.id == $id) | .record.dropped" < "$W/m.json")
	[ $((ev + dr)) = "$M" ] && break
	sleep 0.1
done
expect_eq "recorded + dropped = calls" "$((ev + dr))" "$M"
[ "$dr" -gt 0 ] || fail "no ring-buffer drops counted with the consumer stopped"
[ "$(jq_get '.ringbuf.drops' < "$W/m.json")" -ge "$dr" ] || fail "ringbuf.drops < record.dropped"
curl -sf "$U/metrics" > "$W/m.prom" || fail "GET /metrics"
grep -q "^tracerd_ringbuf_drops_total $dr$" "$W/m.prom" || fail "tracerd_ringbuf_drops_total != $dr"
ok "ring buffer full: $ev recorded, $dr dropped and counted"
$C --json detach "$id" > /dev/null || fail "detach burst"
expect_eq "burst file holds the recorded events" "$($O/tracectl dump --json "$W/rec/burst.trec" | wc -l)" "$ev"
expect_eq "burst file notes the drops" \
	"$($O/tracectl dump "$W/rec/burst.trec" | awk '/^# lost/ { s += $3 } END { print s + 0 }')" "$dr"
stop_daemon

# full filesystem: 64 KiB tmpfs as record_dir
mount -t tmpfs -o size=64k tmpfs "$W/full" 2>/dev/null || skip "cannot mount tmpfs (full-disk part)"
trap '[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null && wait "$DPID"; DPID=; umount "$W/full"; cleanup' EXIT
start_daemon_conf "listen = 127.0.0.1:$PORT
record_dir = $W/full"
$C --json attach tp:task/task_rename --pid "$me" --record full > "$W/a.json" || fail "attach --record (tmpfs)"
id=$(jq_get '.attachment.id' < "$W/a.json")
M=40000
for ((i = 0; i < M; i++)); do printf "f$((i % 100000))" > /proc/self/comm; done
expect_eq "counting goes on after the disk is full" "$($C --json stats "$id" | jq_get '.stats[0].calls')" "$M"
for i in $(seq 50); do
	curl -sf "$U/metrics.json" > "$W/m.json"
	[ "$(jq_get '.attachments[0].record.active' < "$W/m.json")" = false ] && break
	sleep 0.1
done
expect_eq "recording stopped" "$(jq_get '.attachments[0].record.active' < "$W/m.json")" false
expect_eq "write errors" "$(jq_get '.attachments[0].record.errors' < "$W/m.json")" 1
jq_get '.attachments[0].record.error' < "$W/m.json" | grepq 'No space left' || fail "error text"
[ "$(jq_get '.attachments[0].record.dropped' < "$W/m.json")" -gt 0 ] || fail "no drops counted"
curl -sf "$U/metrics" > "$W/m.prom" || fail "GET /metrics"
grep -q "^tracerd_record_active{id=\"$id\",.*} 0$" "$W/m.prom" || fail "prometheus record_active"
grep -q "recording 'full' stopped" "$W/daemon.log" || fail "no log line"
ok "full disk: recording stopped, logged, counted"
got=$($O/tracectl dump --json "$W/full/full.trec" 2>/dev/null | wc -l)
written=$(jq_get '.attachments[0].record.events' < "$W/m.json")
[ "$got" -gt 0 ] && [ "$got" -le "$written" ] || fail "dump of the full-disk file: $got of $written"
ok "full-disk file reads $got of $written events"
stop_daemon
