#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Work that grows with the kernel's function count or the config's size
# never holds the event loop in one piece (issue #33 class 1). A probe
# client sends `status` every 10 ms on one connection, pipelined (it does
# not wait for an answer before the next request), and counts the answers
# that came more than 50 ms after their request: a loop held for T
# seconds makes about T / 10 ms of them, whatever the host's speed. Under
#  (a) four `tracectl functions` (every function of this kernel: kallsyms
#      and BTF here, ~100k rows) at once: each reply whole and equal to a
#      single listing; the daemon's VmHWM stays under HWM_MAX (the rows are
#      streamed, never built whole: old code 11 -> 283 MB);
#  (b) a reload from 0 to NLINES `attach =` lines, and back to 0: the
#      reload's reply (it waits for the result) counts them all; status
#      shows its progress meanwhile, and a SIGHUP then runs after it;
#  (c) clients that send `functions` and never read: the daemon's RSS
#      stays bounded (each listing pauses while its client's output is
#      full), listings past the cap are refused with code 'limit', and
#      others are answered; closed, they are freed;
#  (d) a stop while a reload is being applied completes.
# The late count allowed is 1% of the answers (at least 3), not 0: this
# host's CPUs are shared with other jobs, and a hiccup of the host (seen:
# one step of 64 rows taking 73 ms at load 7 on 2 CPUs) delays a request
# or two; a loop held in one piece delays every request of its time (old
# code: 413 of 1266 late during the four listings).
source "$(dirname "$0")/lib/daemon.bash"
source "$(dirname "$0")/lib/service.bash"
source "$(dirname "$0")/lib/hostile.bash"
source "$(dirname "$0")/lib/loop-probe.bash"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
NLINES=${NLINES:-2000}
HWM_MAX=$((96 * 1024))	# kB
PARTS=${PARTS:-a b c d}	# the parts to run (a single one: to see its counts)
part() { [[ " $PARTS " == *" $1 "* ]]; }
need_fds $((4 * NLINES + 1000))
start_daemon_conf "listen = off"
$C --json status > /dev/null || fail "status"
# The daemon and the probe ahead of the rest of this shared host (other
# jobs, the test's own clients at nice 19): the probe then measures the
# daemon's loop, not the host's load.
renice -n -10 -p "$DPID" > /dev/null || fail "renice"

hwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$DPID/status"; }

# the host's own noise, the daemon idle (not asserted: printed beside the others)
if part idle; then
probe_start
sleep 10
probe_check "10 s of an idle daemon"
fi

# (a) four listings of every function at once
if part a; then
$C --json functions > "$W/one.json" || fail "functions"
rows=$(jq '.functions | length' < "$W/one.json")
total=$(jq '.total' < "$W/one.json")
[ "$rows" -gt 10000 ] || skip "only $rows functions here: too few to load the loop"
echo "one listing: $rows rows of $total, $(wc -c < "$W/one.json") bytes; VmRSS $(rss_kb) kB VmHWM $(hwm_kb) kB"
probe_start
# the clients niced: their JSON parsing competes with the daemon and the
# probe for this host's 2 CPUs, and the probe measures the daemon
for i in 1 2 3 4; do nice -n 19 $C --timeout 120 --json functions > "$W/f$i.json" & pids[i]=$!; done
for i in 1 2 3 4; do wait "${pids[i]}" || fail "concurrent functions $i"; done
probe_check "4 concurrent functions listings"
for i in 1 2 3 4; do cmp -s "$W/one.json" "$W/f$i.json" || fail "listing $i differs from a single one"; done
ok "4 listings equal to a single one ($rows rows)"
echo "after: VmRSS $(rss_kb) kB VmHWM $(hwm_kb) kB"
[ "$(hwm_kb)" -lt "$HWM_MAX" ] || fail "VmHWM $(hwm_kb) kB after the listings (at most $HWM_MAX)"
ok "VmHWM under $HWM_MAX kB"
fi

# (b) a reload from 0 to NLINES attach lines, then back to 0
conf="listen = off"
for i in $(seq 1 "$NLINES"); do conf+=$'\n'"attach = tp:task/task_rename pid=$((200000 + i))"; done
if part b; then
printf '%s\n' "$conf" > "$W/tracerd.conf"
probe_start
$C --timeout 600 --json reload > "$W/r.json" & RL=$!
# while it applies: status shows how far (config.applying), and a SIGHUP
# is queued behind it (the files are the same: it changes nothing)
seen=
for i in $(seq 600); do
	a=$($C --json status | jq -c '.config.applying | select(. != null) | [.lines_done, .lines]')
	[ -n "$a" ] && [ "${a%,*}" != "[$NLINES" ] && seen=$a && break
	sleep 0.05
done
[ -n "$seen" ] || fail "status never showed the reload applying"
kill -HUP "$DPID"
wait "$RL" || fail "reload: $(cat "$W/r.json")"
probe_check "a reload from 0 to $NLINES attach lines"
ok "status showed it applying: lines done, of: $seen"
expect_eq "reload attached" "$(jq -c '[.attached, .failed, .attachments]' < "$W/r.json")" "[$NLINES,0,$NLINES]"
for i in $(seq 100); do
	[ "$(grep -c 'reload: [0-9]* attached' "$W/daemon.log")" = 2 ] && break
	sleep 0.1
done
grep -q 'reload: queued behind the one being applied' "$W/daemon.log" || fail "SIGHUP not queued"
expect_eq "the queued reload, after it" "$(grep 'reload: [0-9]* attached' "$W/daemon.log" | tail -n 1 | sed 's/.*reload: //')" \
	"0 attached, 0 detached, 0 failed, $NLINES attachments now"
expect_eq "status: applying" "$($C --json status | jq -c .config.applying)" null
expect_eq "attachments" "$($C --json status | jq .attachments)" "$NLINES"
printf 'listen = off\n' > "$W/tracerd.conf"
probe_start
$C --timeout 600 --json reload > "$W/r.json" || fail "reload to 0: $(cat "$W/r.json")"
probe_check "a reload from $NLINES attach lines to 0"
expect_eq "reload detached" "$(jq -c '[.detached, .attachments]' < "$W/r.json")" "[$NLINES,0]"
fi

# (c) clients that ask for every function and never read
if part c; then
NOREAD=${NOREAD:-24}
cat > "$W/noread.py" <<'PY'
# noread SOCKET N FLAG: N connections each send `functions` and never
# read, until FLAG exists; prints how many got a refusal first (they read
# only the first bytes, at the end)
import os, socket, sys, time, json
conns = []
for i in range(int(sys.argv[2])):
    s = socket.socket(socket.AF_UNIX)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(sys.argv[1])
    s.sendall(b'{"v":1,"id":1,"cmd":"functions","args":{}}\n')
    conns.append(s)
open(sys.argv[3] + ".ready", "w").close()
start = time.monotonic()
while not os.path.exists(sys.argv[3]):
    if time.monotonic() - start > 300:
        sys.exit("noread: no stop flag after 300 s")
    time.sleep(0.05)
refused = 0
for s in conns:
    s.settimeout(5)
    head = s.recv(200)
    refused += b'"code":"limit"' in head
print(refused)
PY
rm -f "$W/nr.stop" "$W/nr.stop.ready"
rss0=$(rss_kb)
probe_start
nice -n 19 "$PY" "$W/noread.py" "$W/s.sock" "$NOREAD" "$W/nr.stop" > "$W/nr.out" & NR=$!
for i in $(seq 100); do [ -e "$W/nr.stop.ready" ] && break; sleep 0.1; done
sleep 3
rss1=$(rss_kb)
echo "$NOREAD non-reading listings: VmRSS $rss0 -> $rss1 kB"
$C --json status > /dev/null || fail "status with $NOREAD non-reading listings"
ok "others answered with $NOREAD non-reading listings"
[ $((rss1 - rss0)) -lt $((32 * 1024)) ] || fail "RSS grew $((rss1 - rss0)) kB with $NOREAD non-reading listings"
ok "RSS grew less than 32 MiB"
touch "$W/nr.stop"
wait "$NR" || fail "noread clients"
probe_check "$NOREAD listings that are not read"
refused=$(cat "$W/nr.out")
echo "refused: $refused of $NOREAD"
[ "$refused" -gt 0 ] || fail "no listing past the cap was refused"
ok "listings past the cap refused with code limit"
$C --json functions 'vfs_*' | jq -e '.total > 0' > /dev/null || fail "functions after the non-readers left"
ok "functions answers after the non-readers left"
fi

# (d) a stop while a reload is being applied: the stop completes (every
# line's attach ended or undone, exit 0), the reload's client is not left
# waiting
if part d; then
printf '%s\n' "$conf" > "$W/tracerd.conf"
$C --timeout 600 --json reload > "$W/r.json" 2>&1 & RL=$!
for i in $(seq 600); do
	[ "$($C --json status | jq -c '.config.applying != null')" = true ] && break
	sleep 0.05
done
stop_daemon
wait "$RL" && fail "reload answered ok though the daemon stopped first: $(cat "$W/r.json")"
ok "the reload's client got no success: $(jq -c '.error.code' < "$W/r.json" 2>/dev/null)"
else
stop_daemon
fi
