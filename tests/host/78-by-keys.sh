#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# attach --by pid|comm|cgroup on tp:task/task_rename (a write to
# /proc/self/comm is one event, keyed by the comm it had before): exact
# calls per key in `tracectl --json stats`, /metrics.json and /metrics;
# keys + other = calls; a small by_max_keys: new keys counted as other
# (unkept), never lost, and a detach gives their room back; by_top and
# stats --top cut the list; bad keys, kmod modes and bad limits refused.
# Filters (--pid, --comm) keep other processes' renames out of the counts.
source "$(dirname "$0")/lib/daemon.bash"
source "$(dirname "$0")/lib/service.bash"
command -v curl >/dev/null || skip "curl not installed"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"

# --- refusals that need no daemon
printf 'by_max_keys = 0\n' > "$W/bad.conf"
out=$("$TRACERD" --config "$W/bad.conf" --check-config 2>&1) && fail "by_max_keys = 0 accepted"
case $out in *"bad.conf:1"*"by_max_keys '0': out of range 1..65536"*) ok "by_max_keys 0: $out" ;;
	*) fail "by_max_keys 0 message: $out" ;; esac
printf 'by_top = 10x\n' > "$W/bad.conf"
"$TRACERD" --config "$W/bad.conf" --check-config > /dev/null 2>&1 && fail "by_top = 10x accepted"
ok "by_top = 10x refused"
printf 'attach = tp:task/task_rename by=tid\n' > "$W/bad.conf"
out=$("$TRACERD" --config "$W/bad.conf" --check-config 2>&1) && fail "by=tid accepted"
case $out in *"bad.conf:1"*"unknown by key 'tid' (pid, comm or cgroup)"*) ok "by=tid: $out" ;;
	*) fail "by=tid message: $out" ;; esac

start_daemon_conf "listen = 127.0.0.1:$PORT
by_top = 10"
for i in $(seq 50); do curl -sf "$U/healthz" >/dev/null && break; sleep 0.1; done

out=$($C attach tp:task/task_rename --by bogus 2>&1); rc=$?
expect_eq "--by bogus: usage status" "$rc" 2
case $out in *"--by: pid, comm or cgroup, not 'bogus'"*) ok "--by bogus: $out" ;;
	*) fail "--by bogus message: $out" ;; esac
out=$($C attach tp:task/task_rename --by pid --by comm 2>&1) && fail "two --by accepted"
case $out in *"one key per attachment"*) ok "two keys: $out" ;; *) fail "two keys: $out" ;; esac
for m in kmod-kprobe kmod-callops kmod-direct; do
	out=$($C attach vfs_read --mode $m --by pid 2>&1) && fail "--by with $m accepted"
	case $out in *"mode $m has no --by keys"*"use a BPF mode"*) ok "$m refused: $out" ;;
		*) fail "--by with $m: $out" ;; esac
done
out=$($C stats --top 0 2>&1) && fail "stats --top 0 accepted"
ok "stats --top 0 refused: $out"

# --- by comm: this shell renames itself through names (filter: its pid);
# a write is counted under the comm before it
me=$BASHPID
id_comm=$($C --json attach tp:task/task_rename --pid "$me" --by comm | jq_get .attachment.id) ||
	fail "attach --by comm"
declare -A want
read -r cur < /proc/self/comm
rename() {	# NAME N: N writes of NAME, counted in want[] as the kernel keys them
	local i
	for ((i = 0; i < $2; i++)); do
		want[$cur]=$((${want[$cur]:-0} + 1))
		printf '%s' "$1" > /proc/self/comm
		cur=$1
	done
}
rename tby78-a 5
rename tby78-b 3
rename tby78-c 7
rename tby78-a 2
$C --json stats "$id_comm" > "$W/s.json" || fail "stats $id_comm"
by() { jq_get ".attachments[] | select(.id == $1) | .by$2" < "$W/s.json"; }
expect_eq "by comm: calls" "$(by "$id_comm" .calls)" 17
expect_eq "by comm: row calls" "$(jq_get ".stats[0].calls" < "$W/s.json")" 17
expect_eq "by comm: keys" "$(by "$id_comm" .keys)" "${#want[@]}"
for k in "${!want[@]}"; do
	expect_eq "by comm: '$k'" "$(by "$id_comm" ".top[] | select(.comm == \"$k\") | .calls")" "${want[$k]}"
done
expect_eq "by comm: most first" "$(by "$id_comm" '.top[0].comm')" tby78-c
expect_eq "by comm: other" "$(by "$id_comm" .other.calls)" 0
expect_eq "by comm: untimed" "$(by "$id_comm" .top[0].timed)" null

# --- by pid: workers (subshells, no exec) named tby78p (filter: the comm);
# the rename to the name is not counted (the comm before it differs)
id_pid=$($C --json attach tp:task/task_rename --comm tby78p --by pid | jq_get .attachment.id) ||
	fail "attach --by pid"
worker() {	# NAME N [CGROUP_DIR]: a process named NAME renames itself N times
	(
		[ -n "${3:-}" ] && echo $BASHPID > "$3/cgroup.procs"
		printf '%s' "$1" > /proc/self/comm
		for ((i = 0; i < $2; i++)); do printf '%s' "$1" > /proc/self/comm; done
		echo $BASHPID
	)
}
declare -A wpid
total=0
for n in 4 9 1 6; do
	p=$(worker tby78p $n)
	wpid[$p]=$n
	total=$((total + n))
done
$C --json stats "$id_pid" > "$W/s.json" || fail "stats $id_pid"
expect_eq "by pid: calls" "$(by "$id_pid" .calls)" $total
expect_eq "by pid: keys" "$(by "$id_pid" .keys)" 4
for p in "${!wpid[@]}"; do
	expect_eq "by pid: $p" "$(by "$id_pid" ".top[] | select(.pid == $p) | .calls")" "${wpid[$p]}"
done
expect_eq "by pid: most first" "$(by "$id_pid" '.top[0].calls')" 9
$C --json stats "$id_pid" --top 2 > "$W/s.json" || fail "stats --top 2"
expect_eq "--top 2: keys listed" "$(by "$id_pid" '.top | length')" 2
expect_eq "--top 2: other keys" "$(by "$id_pid" .other.keys)" 2
expect_eq "--top 2: other calls" "$(by "$id_pid" .other.calls)" 5
expect_eq "--top 2: no unkept" "$(by "$id_pid" .other.unkept_calls)" 0
$C stats "$id_pid" --top 2 > "$W/s.txt" || fail "stats --top 2 (text)"
grep -q "calls by pid (4 keys, top 2)" "$W/s.txt" || fail "stats text: $(cat "$W/s.txt")"
grep -Eq "^  \(other: 2 keys\) +5$" "$W/s.txt" || fail "stats text other: $(cat "$W/s.txt")"
ok "tracectl stats prints the keys and other"

# --- by cgroup: workers in two child cgroups of the cgroup2 hierarchy
cg_root=
for r in /sys/fs/cgroup /sys/fs/cgroup/unified; do
	[ "$(stat -f -c %T "$r" 2>/dev/null)" = cgroup2fs ] && { cg_root=$r; break; }
done
mine=$(sed -n 's/^0:://p' /proc/self/cgroup)
mine=${mine%/}	# "" for the root
cgx=$cg_root$mine/tby78-$$-x cgy=$cg_root$mine/tby78-$$-y
if [ -z "$cg_root" ]; then
	echo "note: no cgroup2 mount: by cgroup checked on one cgroup only"
elif ! mkdir "$cgx" "$cgy" 2>/dev/null; then
	echo "note: cannot create cgroups under $cg_root$mine: by cgroup checked on one cgroup only"
	rmdir "$cgx" 2>/dev/null
	cgx= cgy=
fi
[ -n "$cg_root" ] || cgx= cgy=
cgz=
trap 'rmdir "$cgx" "$cgy" ${cgz:+"$cgz"} 2>/dev/null; cleanup' EXIT
id_cg=$($C --json attach tp:task/task_rename --comm tby78g --by cgroup | jq_get .attachment.id) ||
	fail "attach --by cgroup"
worker tby78g 3 > /dev/null
if [ -n "$cgx" ]; then
	worker tby78g 5 "$cgx" > /dev/null
	worker tby78g 8 "$cgy" > /dev/null
	worker tby78g 2 "$cgx" > /dev/null
fi
$C --json stats "$id_cg" > "$W/s.json" || fail "stats $id_cg"
cgk() { by "$id_cg" ".top[] | select(.cgroup == \"$1\") | .calls"; }
if [ -n "$cgx" ]; then
	expect_eq "by cgroup: calls" "$(by "$id_cg" .calls)" 18
	expect_eq "by cgroup: keys" "$(by "$id_cg" .keys)" 3
	expect_eq "by cgroup: ${cgx#$cg_root}" "$(cgk "${cgx#$cg_root}")" 7
	expect_eq "by cgroup: ${cgy#$cg_root}" "$(cgk "${cgy#$cg_root}")" 8
	expect_eq "by cgroup: id is the directory's inode" \
		"$(by "$id_cg" ".top[] | select(.cgroup == \"${cgy#$cg_root}\") | .cgroup_id")" \
		"$(stat -c %i "$cgy")"
else
	expect_eq "by cgroup: calls" "$(by "$id_cg" .calls)" 3
	expect_eq "by cgroup: keys" "$(by "$id_cg" .keys)" 1
fi
if [ -n "$cg_root" ]; then
	expect_eq "by cgroup: ${mine:-/}" "$(cgk "${mine:-/}")" 3
fi
# the ids' paths are remembered: stats and /metrics of ids seen before do
# not walk the cgroup tree again (strace: no directory of it is opened),
# and the cgroup2 mount is looked up at most once in 10 s (statfs)
if [ -n "$cgx" ] && command -v strace > /dev/null; then
	strace -f -qq -p "$DPID" -e trace=openat,getdents64,statfs -o "$W/cg-strace.log" &
	spid=$!
	for i in $(seq 50); do grep -q TracerPid:.[1-9] /proc/$DPID/status && break; sleep 0.1; done
	for i in 1 2 3; do
		$C --json stats "$id_cg" > "$W/s.json" || fail "stats $id_cg (traced)"
		curl -sf "$U/metrics" > /dev/null || fail "GET /metrics (traced)"
		sleep 0.3	# past the 250 ms snapshot: each scrape renders
	done
	expect_eq "by cgroup (cached): ${cgy#$cg_root}" "$(cgk "${cgy#$cg_root}")" 8
	kill "$spid"; wait "$spid" 2>/dev/null
	if grep -v statfs "$W/cg-strace.log" | grepq "\"$cg_root"; then
		fail "cgroup tree walked for known ids: $(grep "\"$cg_root" "$W/cg-strace.log" | head -3)"
	fi
	ok "known cgroup ids: no walk of $cg_root"
	n=$(grep -c 'statfs("/sys/fs/cgroup' "$W/cg-strace.log")
	[ "$n" -le 1 ] || fail "the cgroup2 mount looked up $n times in 3 stats and 3 scrapes"
	ok "cgroup2 mount looked up $n time(s) in 3 stats and 3 scrapes"
	# a cgroup made since: walked for, named
	cgz=$cg_root$mine/tby78-$$-z
	mkdir "$cgz" || fail "mkdir $cgz"
	worker tby78g 4 "$cgz" > /dev/null
	$C --json stats "$id_cg" > "$W/s.json" || fail "stats $id_cg"
	rmdir "$cgz"
	expect_eq "by cgroup: new ${cgz#$cg_root}" "$(cgk "${cgz#$cg_root}")" 4
	expect_eq "by cgroup: still ${cgy#$cg_root}" "$(cgk "${cgy#$cg_root}")" 8
else
	echo "note: strace or child cgroups missing: the path cache is not checked"
fi

# --- the same in /metrics.json and /metrics
curl -sf "$U/metrics.json" > "$W/m.json" || fail "GET /metrics.json"
python3 "$SRC/tests/host/metrics-validate.py" "$SRC/docs/metrics.schema.json" "$W/m.json" ||
	fail "/metrics.json does not validate"
mj() { jq_get ".attachments[] | select(.id == $1) | .by$2" < "$W/m.json"; }
expect_eq "metrics.json by pid calls" "$(mj "$id_pid" .calls)" $total
expect_eq "metrics.json by comm tby78-c" "$(mj "$id_comm" '.top[] | select(.key == "tby78-c") | .calls')" \
	"${want[tby78-c]}"
curl -sf "$U/metrics" > "$W/m.prom" || fail "GET /metrics"
for p in "${!wpid[@]}"; do
	grep -qx "tracerd_by_calls_total{id=\"$id_pid\",target=\"tp:task/task_rename\",mode=\"tp-btf\",pid=\"$p\"} ${wpid[$p]}" \
		"$W/m.prom" || fail "no tracerd_by_calls_total for pid $p: $(grep by_calls "$W/m.prom")"
done
ok "tracerd_by_calls_total per pid"
grep -qx "tracerd_by_calls_total{id=\"$id_comm\",target=\"tp:task/task_rename\",mode=\"tp-btf\",comm=\"tby78-b\"} ${want[tby78-b]}" \
	"$W/m.prom" || fail "no comm series: $(grep by_calls "$W/m.prom")"
ok "tracerd_by_calls_total per comm"
if [ -n "$cgx" ]; then
	grep -qx "tracerd_by_calls_total{id=\"$id_cg\",target=\"tp:task/task_rename\",mode=\"tp-btf\",cgroup=\"${cgy#$cg_root}\"} 8" \
		"$W/m.prom" || fail "no cgroup series: $(grep by_calls "$W/m.prom")"
	ok "tracerd_by_calls_total per cgroup"
fi
grep -qx "tracerd_by_keys{id=\"$id_pid\",target=\"tp:task/task_rename\",mode=\"tp-btf\"} 4" "$W/m.prom" ||
	fail "tracerd_by_keys: $(grep by_keys "$W/m.prom")"
ok "tracerd_by_keys"
if command -v promtool >/dev/null; then
	out=$(promtool check metrics < "$W/m.prom" 2>&1) || fail "promtool: $out"
	[ -z "$out" ] || fail "promtool lint: $out"
	ok "promtool check metrics"
else
	echo "note: promtool missing (Debian package prometheus), live check skipped"
fi
$C list > "$W/l.txt" || fail "list"
grep -q "counts calls by cgroup" "$W/l.txt" || fail "list: $(cat "$W/l.txt")"
ok "list says by cgroup"
stop_daemon

# --- a full map: by_max_keys = 3 for all attachments, by_top = 2
start_daemon_conf "listen = 127.0.0.1:$PORT
by_max_keys = 3
by_top = 2"
for i in $(seq 50); do curl -sf "$U/healthz" >/dev/null && break; sleep 0.1; done
id=$($C --json attach tp:task/task_rename --comm tby78o --by pid | jq_get .attachment.id) ||
	fail "attach (by_max_keys 3)"
pids=()
for n in 2 3 4 5 6; do pids+=("$(worker tby78o $n)"); done
$C --json stats > "$W/s.json" || fail "stats"
expect_eq "full: calls" "$(jq_get ".stats[] | select(.id == $id) | .calls" < "$W/s.json")" 20
expect_eq "full: by calls" "$(by "$id" .calls)" 20
expect_eq "full: keys kept" "$(by "$id" .keys)" 3
expect_eq "full: top listed (by_top)" "$(by "$id" '.top | length')" 2
expect_eq "full: first" "$(by "$id" '.top[0].pid')" "${pids[2]}"
expect_eq "full: second" "$(by "$id" '.top[1].pid')" "${pids[1]}"
expect_eq "full: unkept (the 4th and 5th pids)" "$(by "$id" .other.unkept_calls)" 11
expect_eq "full: other (1 key past the top + unkept)" "$(by "$id" .other.calls)" 13
expect_eq "full: other keys" "$(by "$id" .other.keys)" 1
expect_eq "full: a kept key past by_top" \
	"$($C --json stats "$id" --top 5 | jq_get ".attachments[0].by.top[] | select(.pid == ${pids[0]}) | .calls")" 2
curl -sf "$U/metrics" > "$W/m.prom" || fail "GET /metrics"
L="id=\"$id\",target=\"tp:task/task_rename\",mode=\"tp-btf\""
grep -qx "tracerd_by_unkept_calls_total{$L} 11" "$W/m.prom" || fail "unkept: $(grep by_ "$W/m.prom")"
grep -qx "tracerd_by_other_calls_total{$L} 13" "$W/m.prom" || fail "other: $(grep by_ "$W/m.prom")"
expect_eq "full: series (by_top)" "$(grep -c "^tracerd_by_calls_total{$L," "$W/m.prom")" 2
# detached, its keys go: a new attachment has the room again
$C detach "$id" > /dev/null || fail "detach"
id=$($C --json attach tp:task/task_rename --comm tby78o --by comm | jq_get .attachment.id) ||
	fail "attach again"
worker tby78o 4 > /dev/null
$C --json stats "$id" > "$W/s.json" || fail "stats"
expect_eq "after detach: key kept" "$(by "$id" .keys)" 1
expect_eq "after detach: tby78o" "$(by "$id" '.top[0].calls')" 4
expect_eq "after detach: nothing unkept" "$(by "$id" .other.unkept_calls)" 0
stop_daemon
