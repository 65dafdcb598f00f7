#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Classic tracepoints on this kernel: tp:syscalls/sys_enter_getpgid has no
# btf_trace_ type and no raw tracepoint of its own, so tp-btf hooks it
# through a perf event of its tracefs id (via "tracepoint"), with exact
# counts for one process; with --latency it is timed to sys_exit_getpgid
# (stats: N timed calls, p50/p90/p99, --hist rows adding up to N), both
# clones with the filters baked in (no slot_cfg lookup per call); a bad
# category or event is an error naming what is missing, also where tracefs
# is not mounted (the daemon reads a private mount then, which the host's
# mount table never shows). Detach leaves no link.
source "$(dirname "$0")/lib/daemon.bash"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
N=2000
T=$O/tests/trigger
mounts_before=$(grep -c ' tracefs ' /proc/mounts)
start_daemon

# count: an exact number of getpgid() of one process
sh -c "$C --json attach tp:syscalls/sys_enter_getpgid --pid \$\$ > $W/a.json && exec $T getpgid $N" ||
	fail "attach tp:syscalls/sys_enter_getpgid: $(cat "$W/a.json")"
id=$(jq_get '.attachment.id' < "$W/a.json")
$C --json stats "$id" > "$W/s.json" || fail "stats"
expect_eq "calls" "$(jq_get '.stats[0].calls' < "$W/s.json")" "$N"
expect_eq "via" "$(jq_get '.stats[0].via' < "$W/s.json")" tracepoint
expect_eq "mode" "$(jq_get '.stats[0].mode' < "$W/s.json")" tp-btf
links=$(daemon_links)
expect_eq "one BPF link" "$(wc -w <<< "$links")" 1
expect_eq "detach" "$($C --json detach "$id" | jq_get '.detached[0]')" "$id"
expect_eq "link gone after detach" "$(links_alive $links)" 0

# latency: sys_enter_getpgid -> sys_exit_getpgid of the same thread
sh -c "$C --json attach tp:syscalls/sys_enter_getpgid --latency --pid \$\$ > $W/l.json &&
	exec $T getpgid $N" || fail "attach --latency: $(cat "$W/l.json")"
lid=$(jq_get '.attachment.id' < "$W/l.json")
$C --json stats "$lid" > "$W/ls.json" || fail "stats latency"
expect_eq "timed calls" "$(jq_get '.stats[0].calls' < "$W/ls.json")" "$N"
expect_eq "latency count" "$(jq_get '.stats[0].latency.count' < "$W/ls.json")" "$N"
expect_eq "histogram total" "$(jq '[.stats[0].latency.buckets[].count] | add' < "$W/ls.json")" "$N"
expect_eq "two BPF links (enter, exit)" "$(daemon_links | wc -w)" 2
# both clones carry the attachment's filters in immediates: neither reads
# the daemon's slot_cfg map per call (before 93d9db1 both did, and timed
# calls through the LRU hash)
cfg=$(grep -h '^map_id:' /proc/"$DPID"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -un |
	while read -r m; do
		[ "$(bpftool -j map show id "$m" | jq -r .name)" = slot_cfg ] && echo "$m"
	done)
[ -n "$cfg" ] || fail "the daemon holds no slot_cfg map"
for l in $(daemon_links); do
	p=$(bpftool -j link show id "$l" | jq -r .prog_id)
	bpftool prog dump xlated id "$p" > "$W/x$l.txt" || fail "dump xlated of prog $p"
	! grep -q "map\[id:$cfg\]" "$W/x$l.txt" || fail "prog $p of link $l reads slot_cfg (map $cfg) per call"
done
ok "the enter and exit clones read no slot_cfg"
$C stats "$lid" --hist > "$W/hist.txt" || fail "stats --hist"
grep -Eq "^     latency: $N calls, avg [0-9.]+[nmu]?s, p50 [0-9.]+[nmu]?s, p90 [0-9.]+[nmu]?s, p99 [0-9.]+[nmu]?s, min .*, max " \
	"$W/hist.txt" || fail "no latency line with percentiles: $(cat "$W/hist.txt")"
ok "latency line with p50/p90/p99"
grep -qx '@ns\[sys_enter_getpgid\]:' "$W/hist.txt" || fail "no @ns[...] histogram title"
rows=$(grep -E '^\[([0-9]+\]|[0-9]+[KMG]?, ([0-9]+[KMG]?|\.\.\.)\)) +[0-9]+ \|@* *\|$' "$W/hist.txt")
[ -n "$rows" ] || fail "no histogram rows: $(cat "$W/hist.txt")"
expect_eq "histogram rows add up" "$(awk -F'|' '{ n = split($1, f, " "); s += f[n] } END { print s }' <<< "$rows")" "$N"
expect_eq "one full bar" "$(grep -c '|@\{52\}|' <<< "$rows")" 1
$C detach "$lid" > /dev/null || fail "detach latency"

# tp_btf where it applies (sched_switch has a btf_trace_ type)
$C --json attach tp:sched/sched_switch > "$W/b.json" || fail "attach sched_switch"
expect_eq "sched_switch via" "$($C --json stats tp:sched/sched_switch | jq_get '.stats[0].via')" tp_btf
$C detach --all > /dev/null

# bad requests name what is missing
bad() {	# WANT_STATUS WANT_TEXT ATTACH_ARGS...
	local want=$1 text=$2
	shift 2
	$C attach "$@" > /dev/null 2> "$W/err.txt"
	expect_eq "attach $*: status" "$?" "$want"
	grep -qF "$text" "$W/err.txt" || fail "attach $*: '$(cat "$W/err.txt")' lacks '$text'"
}
bad 5 "unknown tracepoint category 'bogus' in 'tp:bogus/sched_switch' (no events/bogus in" tp:bogus/sched_switch
bad 5 "unknown tracepoint 'tp:sched/bogus' (no events/sched/bogus in" tp:sched/bogus
bad 5 "no events/syscalls/sys_enter_bogus" tp:syscalls/sys_enter_bogus --latency
bad 2 "has no return to time" tp:sched/sched_switch --latency
bad 2 "has no return to time" tp:syscalls/sys_exit_getpgid --latency
expect_eq "attachments after the refusals" "$($C --json list | jq_get '.attachments | length')" 0
expect_eq "host mount table unchanged" "$(grep -c ' tracefs ' /proc/mounts)" "$mounts_before"
stop_daemon
