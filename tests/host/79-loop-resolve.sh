#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A target's resolve never holds the event loop (issue #34 item 2, #33
# class 1): a glob matched against every function of the kernel, or a name
# when the daemon must first read the kernel's lists (its first use, a
# module come or gone, kallsyms for the kmod modes), is resolved on the
# worker thread (daemon/resolve.c, resolve_target_start), for an attach and
# for an attach --dry-run alike. The loop probe (lib/loop-probe.bash)
# counts the status answers that came late during:
#  (a) a fresh daemon's first resolve (--dry-run of one name: the lists
#      read; old code: 0.2-0.5 s of loop held here);
#  (b) ten `attach '*' --dry-run` in turn (every function of the kernel
#      matched; old code: 0.1-0.2 s of loop held each);
#  (c) ten `attach '*'` where no mode can hook a function (refused after
#      the resolve; not run where one can: it would hook them all).
# And what the move must keep: the replies are those of an in-loop resolve
# (an unknown name's and an empty glob's errors, the same plan twice);
# list shows an attach being resolved (progress.resolving); a detach of
# one waiting its turn ends that attach ("detached while attaching (its
# functions were still being resolved)") and frees it; a stop with resolves queued exits 0,
# every waiting client ends (a stop cuts
# the connections: "no reply from the daemon").
source "$(dirname "$0")/lib/daemon.bash"
source "$(dirname "$0")/lib/service.bash"
source "$(dirname "$0")/lib/hostile.bash"
source "$(dirname "$0")/lib/loop-probe.bash"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
start_daemon_conf "listen = off"
renice -n -10 -p "$DPID" > /dev/null || fail "renice"	# the probe measures the daemon, not the host
[ -r /proc/kallsyms ] && [ "$(grep -c ' [tT] ' /proc/kallsyms)" -gt 10000 ] ||
	skip "fewer than 10000 functions in /proc/kallsyms: too few to load the loop"

# (a) the first resolve of a fresh daemon reads the kernel's lists
probe_start
$C attach vfs_read --dry-run > "$W/a.out" 2>&1
rc=$?
probe_check "a fresh daemon's first resolve"
[ "$rc" = 0 ] || grepq "vfs_read" "$W/a.out" || fail "attach vfs_read --dry-run: rc $rc: $(cat "$W/a.out")"

# the replies are an in-loop resolve's: a name (quick now, in the loop)
# and a glob (on the thread) give the errors they gave
out=$($C attach no_such_function_zz --dry-run 2>&1)
expect_eq "unknown name (dry run)" "$out" "tracectl: unknown function 'no_such_function_zz' (no such symbol in the kernel)"
out=$($C attach 'no_such_glob_zz*' 2>&1)
expect_eq "empty glob (attach)" "$out" "tracectl: glob 'no_such_glob_zz*' matches no traceable function"
out=$($C attach 'no_such_glob_zz*' --dry-run 2>&1)
expect_eq "empty glob (dry run)" "$out" "tracectl: glob 'no_such_glob_zz*' matches no traceable function"
$C --json attach '*' --dry-run > "$W/p1.json" 2>&1
rc1=$?
$C --json attach '*' --dry-run > "$W/p2.json" 2>&1
expect_eq "attach '*' --dry-run twice: the same reply" "$(cmp -s "$W/p1.json" "$W/p2.json" && echo same)" same
grepq -e '"plan"' -e '"error"' "$W/p1.json" || fail "attach '*' --dry-run (rc $rc1): $(head -c 300 "$W/p1.json")"

# (b) ten glob plans in turn
probe_start
for i in $(seq 10); do nice -n 19 $C --json attach '*' --dry-run > /dev/null 2>&1; done
probe_check "ten attach '*' --dry-run"

# could a mode hook functions here? then '*' would hook them all: (c) and
# what follows need a kernel that refuses every function mode
fmodes=$($C --json status | jq '[.features | to_entries[] | select(.value.available)
	| select(.key | test("^(kprobe|fentry|fsession|kmod)"))] | length')
[ "$fmodes" = 0 ] || skip "$fmodes function modes available here: attach '*' would hook every function"

# (c) ten attaches of '*', refused once resolved
probe_start
for i in $(seq 10); do nice -n 19 $C attach '*' > "$W/c.out" 2>&1; done
probe_check "ten attach '*' (refused)"
grepq "no mode can hook '\*'" "$W/c.out" || fail "attach '*': $(cat "$W/c.out")"

# six attaches at once (distinct: --comm), resolved one after the other:
# list shows them resolving; the last one's detach ends it
for i in 1 2 3 4 5 6; do $C --json attach '*' --comm "c$i" > "$W/q$i.json" 2>&1 & qp[i]=$!; done
last=
for _ in $(seq 200); do
	last=$($C --json list | jq -r '[.attachments[] | select(.progress.resolving)
		| select(.comm == "c6") | .id] | first // empty')
	[ -n "$last" ] && break
	sleep 0.01
done
[ -n "$last" ] || fail "list never showed the sixth attach '*' resolving"
ok "list shows attach '*' --comm c6 resolving (attachment $last)"
$C detach "$last" > "$W/det.out" 2>&1 || fail "detach $last while resolving: $(cat "$W/det.out")"
for i in 1 2 3 4 5 6; do wait "${qp[i]}"; done
grepq "detached while attaching (its functions were still being resolved)" "$W/q6.json" ||
	fail "the detached attach's reply: $(head -c 400 "$W/q6.json")"
ok "its attach answered: detached while attaching (its functions were still being resolved)"
for i in 1 2 3 4 5; do
	grepq "no mode can hook" "$W/q$i.json" || fail "attach $i: $(head -c 300 "$W/q$i.json")"
done
ok "the five others ended as one alone does (no mode can hook '*')"
expect_eq "attachments left" "$($C --json list | jq '.attachments | length')" 0

# a stop with resolves queued: it exits 0, every client answered
for i in 1 2 3 4 5 6; do $C --json attach '*' --pid "$((100000 + i))" > "$W/s$i.json" 2>&1 & sp[i]=$!; done
for _ in $(seq 200); do
	[ "$($C --json list | jq '[.attachments[] | select(.progress.resolving)] | length')" -ge 3 ] && break
	sleep 0.01
done
kill -TERM "$DPID"
wait "$DPID"
rc=$?
DPID=
expect_eq "tracerd's exit with resolves queued" "$rc" 0
for i in 1 2 3 4 5 6; do
	wait "${sp[i]}"
	[ -s "$W/s$i.json" ] || fail "attach $i ended without a word at the stop"
done
ok "every waiting attach ended: $(cat "$W"/s?.json | jq -r '.error.message // "ok"' 2>/dev/null |
	sed 's/;.*//' | sort | uniq -c | paste -sd';')"
