# SPDX-License-Identifier: GPL-2.0-or-later
# Soak (check-full only): for SOAK_SECONDS (counted from the daemon's
# start, warm-up included) a driver attaches and detaches
# random targets in random modes through tracectl (globs, latency, pid
# filters, recordings), scrapes /metrics and /metrics.json, reads stats and
# dumps recordings, while a load runs on the traced functions. Afterwards:
# nothing left behind (kmod accounting, ftrace enabled_functions, kprobes
# list, BPF progs/links/maps as before the daemon started), no kernel
# warning, and the daemon's fd count and RSS flat: a warm-up uses every mode
# once, then random steps fill a third of the remaining time; after that
# and at the end, with everything detached, the
# daemon has the same fds and anonymous RSS within SOAK_RSS_SLACK_KB. SOAK_SEED
# makes a run's choices reproducible.
source ./t/40-daemon-lib.sh
[ "${PROFILE:-ci}" = full ] || skip "soak runs in check-full only (PROFILE=full; this is '${PROFILE:-ci}')"
command -v curl > /dev/null || skip "no curl in the guest"
SOAK_SECONDS=${SOAK_SECONDS:-210}	# from the daemon's start; + checks: inside the 300 s per-test timeout
SOAK_SEED=${SOAK_SEED:-$$}
SOAK_RSS_SLACK_KB=${SOAK_RSS_SLACK_KB:-8192}
RANDOM=$SOAK_SEED
PORT=19477
REC=$TD/records
STOP=/tmp/soak-stop
load_testmod
[ -e /dev/tracerd ] || load_kmod
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
mountpoint -q /sys/kernel/tracing || mount -t tracefs none /sys/kernel/tracing
ip link set lo up 2>/dev/null	# the test boot brings up no network

# ---------------------------------------------------------------- resources
n_lines() { [ -r "$1" ] && wc -l < "$1" || echo 0; }
n_bpf() { bpftool "$1" show 2>/dev/null | grep -c '^[0-9]*:'; }
kernel_res() { # one line: enabled_functions kprobes progs links maps
	echo "$(n_lines /sys/kernel/tracing/enabled_functions) $(n_lines /sys/kernel/debug/kprobes/list)" \
		"$(n_bpf prog) $(n_bpf link) $(n_bpf map)"
}
kernel_warnings() { dmesg | grep -c -E 'WARNING:|BUG:|Oops|general protection|RCU stall' || true; }
# anonymous memory (heap): VmRSS also counts the BPF ring buffer's mapped
# pages, which the recorder touches once up to the buffer's size
d_rss() { awk '/^RssAnon:/ { print $2 }' "/proc/$DPID/status"; }
d_vmrss() { awk '/^VmRSS:/ { print $2 }' "/proc/$DPID/status"; }
d_fds() { ls "/proc/$DPID/fd" | wc -l; }
d_fd_list() { ls -l "/proc/$DPID/fd" | awk 'NR > 1 { print $NF }' | sed 's/[0-9]\{1,\}\]$/N]/' | sort; }
settle_fds() { # WANT: closed connections may take the loop a moment
	local i
	for i in $(seq 1 50); do
		[ "$(d_fds)" -le "$1" ] && return 0
		sleep 0.2
	done
}

res0=$(kernel_res)
warn0=$(kernel_warnings)
echo "before: enabled_functions kprobes progs links maps = $res0; kernel warnings $warn0"

T0=$SECONDS
daemon_start "listen = 127.0.0.1:$PORT
record_dir = $REC
record_max_bytes = 64K
record_keep = 2
max_glob_matches = 64"

# ---------------------------------------------------------------- load
rm -f "$STOP" /tmp/soak-refused
load() {
	while [ ! -e "$STOP" ]; do
		echo 5 > "$TESTMOD_DBG/call_all"
		echo 2000 > "$TESTMOD_DBG/call"
		trigger getpgid 2000 > /dev/null
		trigger rename 200 > /dev/null
		cat /proc/self/stat > /dev/null	# vfs_read
	done
}
load & LOADPID=$!
trap 'touch "$STOP"; wait $LOADPID 2>/dev/null; daemon_cleanup' EXIT

# ---------------------------------------------------------------- actions
modes="auto"
for m in fentry kprobe kprobe-int3 kprobe-multi kmod-callops kmod-direct kmod-kprobe; do
	[ "$(feature "$m")" = true ] && modes="$modes $m"
done
modes=($modes)
echo "modes available: ${modes[*]}; seed $SOAK_SEED; $SOAK_SECONDS s"
pick() { local a=("$@"); echo "${a[RANDOM % ${#a[@]}]}"; }
fn_target() {
	case $((RANDOM % 6)) in
	0) echo tracerd_testmod_target ;;
	1|2) printf 'tracerd_testmod_fn_%03x\n' $((RANDOM % 1024)) ;;
	3) printf 'tracerd_testmod_fn_%02x*\n' $((RANDOM % 64)) ;;	# a glob of 16
	4) sys_getpgid ;;
	5) echo vfs_read ;;
	esac
}
declare -A count
ok_codes=" exists unavailable attach_failed limit not_found bad_request "
act_attach() {
	local target mode args out code
	if [ $((RANDOM % 5)) = 0 ]; then
		target=$(pick tp:task/task_rename tp:sched/sched_process_fork tp:syscalls/sys_enter_getpgid)
		mode=$(pick auto tp-btf)
		args=()
	else
		target=$(fn_target)
		mode=$(pick "${modes[@]}")
		args=()
		[ $((RANDOM % 2)) = 0 ] && args+=(--latency)
	fi
	[ $((RANDOM % 4)) = 0 ] && args+=(--pid "$LOADPID")
	[ $((RANDOM % 4)) = 0 ] && args+=(--record "soak$((RANDOM % 3))")
	out=$($C --json attach "$target" --mode "$mode" "${args[@]}" 2>&1)
	if [ "$(jp '.attachment.id' <<< "$out" 2>/dev/null)" != "" ] &&
	   [ "$(jp '.attachment.id' <<< "$out")" != null ]; then
		count[attach]=$((${count[attach]:-0} + 1))
		return 0
	fi
	code=$(jp '.error.code' <<< "$out" 2>/dev/null)
	case $ok_codes in
	*" $code "*) count["refused_$code"]=$((${count["refused_$code"]:-0} + 1))
		echo "$code: $mode: $(jp '.error.message' <<< "$out")" >> /tmp/soak-refused ;;
	*) fail "attach $target --mode $mode ${args[*]}: unexpected answer: $out" ;;
	esac
}
act_detach() {
	local ids id
	ids=($($C --json list | jp '.attachments[*].id'))
	[ ${#ids[@]} = 0 ] && return 0
	if [ $((RANDOM % 10)) = 0 ]; then
		$C detach --all > /dev/null || fail "detach --all"
		count[detach_all]=$((${count[detach_all]:-0} + 1))
		return 0
	fi
	id=$(pick "${ids[@]}")
	$C detach "$id" > /dev/null || fail "detach $id"
	count[detach]=$((${count[detach]:-0} + 1))
}
act_scrape() {
	curl -sf "http://127.0.0.1:$PORT/metrics" > /tmp/soak.prom || fail "GET /metrics"
	curl -sf "http://127.0.0.1:$PORT/metrics.json" > /tmp/soak.json || fail "GET /metrics.json"
	jp '.attachments|length' < /tmp/soak.json > /dev/null || fail "/metrics.json is not JSON"
	count[scrape]=$((${count[scrape]:-0} + 1))
}
act_stats() {
	local ids
	ids=($($C --json list | jp '.attachments[*].id'))
	[ ${#ids[@]} = 0 ] && return 0
	$C --json stats "$(pick "${ids[@]}")" > /dev/null || fail "stats"
	count[stats]=$((${count[stats]:-0} + 1))
}
act_dump() {
	local f
	for f in "$REC"/*.trec*; do
		[ -e "$f" ] || return 0
		# open files are cut short (exit 0), finished ones clean; corrupt: exit 1
		tracectl dump --json "$f" > /dev/null 2> /tmp/soak-dump.err ||
			fail "dump $f: $(cat /tmp/soak-dump.err)"
	done
	count[dump]=$((${count[dump]:-0} + 1))
}
step() {
	case $((RANDOM % 10)) in
	0|1|2|3) act_attach ;;
	4|5|6) act_detach ;;
	7) act_scrape ;;
	8) act_stats ;;
	9) act_dump ;;
	esac
	kill -0 "$DPID" 2>/dev/null || fail "tracerd died"
}

run_for() { # SECONDS: random steps
	local end=$((SECONDS + $1))
	while [ $SECONDS -lt $end ]; do
		step
		steps=$((steps + 1))
	done
}
steps=0
# warm-up: every mode once (first use loads its BPF objects, BTF, ...), with
# and without latency and a recording, then random steps for a third of the time
for m in "${modes[@]}"; do
	$C attach tracerd_testmod_target --mode "$m" > /dev/null 2>&1
	$C attach 'tracerd_testmod_fn_00*' --mode "$m" --latency > /dev/null 2>&1
	$C attach tracerd_testmod_fn_010 --mode "$m" --record warm > /dev/null 2>&1
	act_scrape
	$C detach --all > /dev/null || fail "detach --all in the warm-up"
done
$C attach tp:task/task_rename --record warm > /dev/null || fail "attach tp:task/task_rename --record"
act_stats; act_dump; act_detach
deadline=$((T0 + SOAK_SECONDS))
run_for $(((deadline - SECONDS) / 3))
$C detach --all > /dev/null || fail "detach --all after the warm-up"
act_scrape
fds1=$(d_fds); rss1=$(d_rss); d_fd_list > /tmp/soak-fds1
echo "daemon after the warm-up ($steps steps): $fds1 fds, RssAnon $rss1 kB (VmRSS $(d_vmrss) kB)"
steps1=$steps
run_for $((deadline - SECONDS))
touch "$STOP"
wait $LOADPID
live=$($C --json list | jp '.attachments|length')
$C detach --all > /dev/null || fail "final detach --all"
act_scrape
act_dump
echo "soak: $steps steps in $((SECONDS - T0)) s ($((steps - steps1)) after the warm-up)," \
	"$live attachments at the end;" \
	"$(for k in "${!count[@]}"; do printf '%s=%s ' "$k" "${count[$k]}"; done)"
[ -s /tmp/soak-refused ] && sort /tmp/soak-refused | uniq -c | sort -rn | head -n 10 | sed 's/^/  refused: /'

# ---------------------------------------------------------------- checks
settle_fds "$fds1"
fds2=$(d_fds); rss2=$(d_rss); d_fd_list > /tmp/soak-fds2
echo "daemon after the soak: $fds2 fds, RssAnon $rss2 kB (VmRSS $(d_vmrss) kB); after the warm-up: $fds1 fds, $rss1 kB"
expect_eq "attachments after detach --all" "$($C --json list | jp '.attachments|length')" 0
[ "$fds2" = "$fds1" ] || fail "daemon fds $fds1 -> $fds2: $(diff /tmp/soak-fds1 /tmp/soak-fds2 | grep '^[<>]' | tr '\n' ' ')"
echo "ok: daemon fds $fds1 -> $fds2"
[ $((rss2 - rss1)) -le "$SOAK_RSS_SLACK_KB" ] ||
	fail "daemon RssAnon grew from $rss1 to $rss2 kB (slack $SOAK_RSS_SLACK_KB kB)"
echo "ok: daemon RssAnon $rss1 -> $rss2 kB"
daemon_stop
[ -e /dev/tracerd ] && { kmodctl stats --clean || fail "kmod accounting not clean after the soak"; }
res1=$(kernel_res)
echo "after: enabled_functions kprobes progs links maps = $res1"
expect_eq "enabled_functions kprobes progs links maps, before -> after" "$res1" "$res0"
expect_eq "kernel warnings during the soak" "$(kernel_warnings)" "$warn0"
