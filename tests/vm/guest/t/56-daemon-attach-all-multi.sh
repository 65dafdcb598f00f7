# SPDX-License-Identifier: GPL-2.0-or-later
# Issue #34 step 4, the count tier: `attach '*' --mode kprobe-multi` that
# only counts (--pid at most) takes no BPF slot (its counters are a per-CPU
# array of its own, one u64 per function), so it goes past the 4096 slots:
# one kprobe.multi link over every function the daemon does not skip.
# Asserts: the functions hooked are the names of available_filter_functions
# less those skipped; BPF slots taken 0 (status slots_used); exact counts on
# the test module's functions and getpgid, called a known number of times
# by the attaching pid; detach leaves enabled_functions empty and no BPF
# link of ours; `status` answered while the attach and the detach run
# (the link create and its close on the daemon's worker thread: at least
# 2 answers, each within a generous 10 s, never a measured duration); an
# attach '*' that needs a slot per function (--latency) is still refused
# naming the slots, nothing hooked. --comm keeps the count tier, with
# counts exact. `stats --all` as text has a row per hooked function, with
# the JSON reply's calls (read from one batch pass, not a lookup per
# row). A detach during attach '*' undoes it ("detached while
# attaching"), SIGTERM during it stops the daemon cleanly: no BPF link of
# ours, enabled_functions empty, the kprobes list as before. Prints,
# never asserts, the attach, stats (JSON, text --all, --top 1) and detach
# times, the slowest answer and the daemon's VmRSS growth.
#
# Measured (6.12 x86_64, QEMU TCG, four other VMs on the host's 2 cores,
# two boots): 42743 functions; the link create 34.4-40.3 s and its close
# 12.3-12.6 s on the worker thread, status answered 12-13 and 8-10 times
# meanwhile (the slowest 3.8-4.3 s, 1.7 s). The test: 250-274 s.
# ci-kernels: 6.12
# timeout: 900 1800
source ./t/40-daemon-lib.sh
load_testmod
enabled=/sys/kernel/tracing/enabled_functions
n=$(size 1000 100000)
[ "$(patched)" = 0 ] || fail "ftrace hooks functions before the test: $(head -3 $enabled)"

daemon_start
trap daemon_cleanup EXIT
[ "$(feature kprobe-multi)" = true ] || skip "kprobe-multi unavailable: $(reason_of kprobe-multi)"
names=$(sed 's/ .*//' /sys/kernel/tracing/available_filter_functions | sort -u | wc -l)
rss0=$(rss_kb)

# the attaching shell's pid filters the counts; once attached it makes the
# known calls (40-daemon-lib.sh, known_calls_check)
attach_all_known '--mode kprobe-multi' "$n"
id=$(jp '.attachment.id' < "$TD/a.json")
expect_eq "BPF slots taken by a count-only kprobe-multi attach '*'" \
	"$($C --json status | jp '.slots_used')" 0
expect_eq "BPF links while attached" "$(our_links)" 1
rss1=$(rss_kb)
phase "attached"
stats_timed "$id"
# every row as text, from the same counts (the counted pid has exited)
t0=$(date +%s%N)
$C --timeout 600 stats "$id" --all > "$TD/all.txt" || fail "stats --all of attachment $id"
tall=$(ms_since "$t0")
t0=$(date +%s%N)
$C --json --timeout 1800 detach "$id" > "$TD/d.json" &
dpid=$!
answered_during "detach of attach '*'" "$dpid" "$TD/d.json"
wait "$dpid" || fail "detach attach '*': $(head -c 600 "$TD/d.json")"
answered_check "detach of attach '*'"
td=$(ms_since "$t0")
phase "detached"
expect_eq "enabled_functions after detach" "$(patched)" 0
expect_eq "BPF links after detach" "$(our_links)" 0

{ read -r hooked; read -r mode; read -r skipped; read -r kinds; } < <(
	jp '.attachment.functions|length' '.attachment.mode' '.skipped_total' \
		'.skipped_reasons|length' < "$TD/a.json")
echo "attach '*' --mode kprobe-multi: $hooked functions hooked, $skipped skipped, of $names" \
	"names in available_filter_functions; the daemon's reasons:"
jp '.skipped_reasons[*].count' '.skipped_reasons[*].reason' < "$TD/a.json" |
	awk -v n="$kinds" 'NR <= n { c[NR] = $0; next } { print "  " c[NR - n] "\t" $0 }'
expect_eq "the reply's mode" "$mode" kprobe-multi
expect_eq "hooked + skipped = the names of available_filter_functions" $((hooked + skipped)) "$names"
[ "$hooked" -gt 4096 ] || fail "only $hooked functions hooked: not past the 4096 slots"

# exact counts, read while attached (the stats reply)
known_calls_check "$TD/st.json" "$hooked" "$n"
# stats --all as text (below): one line per hooked function, the calls of
# the JSON reply
awk -v id="$id" '$1 == id { print $2 "\t" $4 }' "$TD/all.txt" | sort > "$TD/all.calls"
expect_eq "stats --all: rows" "$(wc -l < "$TD/all.calls")" "$hooked"
expect_eq "stats --all: rows whose function and calls differ from the JSON reply's" \
	"$(sort "$TD/calls" | diff - "$TD/all.calls" | grep -c '^[<>]')" 0
expect_eq "stats --all: tracerd_testmod_chain_b, $(sys_getpgid)" \
	"$(awk -v g="$(sys_getpgid)" '$1 == "tracerd_testmod_chain_b" || $1 == g { print $1 "=" $2 }' \
		"$TD/all.calls" | sort | xargs)" \
	"$(printf '%s\n' "$(sys_getpgid)=$n" tracerd_testmod_chain_b=7 | sort | xargs)"
grep -q "rows, most calls first" "$TD/all.txt" && fail "stats --all: $(grep "rows, most" "$TD/all.txt")"
# --top 1 sorts on the counters of one batch pass (struct bpf_counts): its
# row is the busiest of the full reply (the counted pid has exited)
expect_eq "stats --top 1: the busiest function's calls" "$(jp '.stats[0].calls' < "$TD/top1.json")" \
	"$(cut -f2 "$TD/calls" | sort -n | tail -1)"
echo "figures: $KERNEL_NAME kprobe-multi attach '*' (count tier): $hooked functions, attach" \
	"${ta} ms (with $n getpgid calls), stats ${tst} ms (--top 1: ${tst1} ms; --all as text: ${tall} ms), detach ${td} ms;" \
	"daemon VmRSS" \
	"${rss0} kB before, ${rss1} kB attached: $(( (rss1 - rss0) * 1024 / hooked )) B per" \
	"function; $(rss_kb) kB after the detach"
# the attach's parts, as the daemon logged them (its map, the clone's load,
# the kernel's link create)
grep -o "kprobe-multi count tier: .*\|kprobe-multi: detach of .*" "$TD/daemon.log" |
	sed 's/^/figures: /'

# --comm keeps it in the count tier (its clone: hook_entry, not
# fast_count): a shell named cntcomm calls each test function 2 times, this
# one once (not counted)
ln -sf "$(command -v sh)" "$TD/cntcomm"
$C --json attach 'tracerd_testmod_fn_0*' --mode kprobe-multi --comm cntcomm > "$TD/c.json" ||
	fail "attach --comm: $(head -c 600 "$TD/c.json")"
cid=$(jp '.attachment.id' < "$TD/c.json")
expect_eq "BPF slots taken with --comm" "$($C --json status | jp '.slots_used')" 0
echo 1 > $TESTMOD_DBG/call_all
"$TD/cntcomm" -c "echo 2 > $TESTMOD_DBG/call_all" || fail "cntcomm's calls"
$C --json stats "$cid" | jp '.stats[*].calls' | sort | uniq -c > "$TD/cc"
expect_eq "--comm: every tracerd_testmod_fn_0* counted 2" "$(awk '{ print $1 " " $2 }' "$TD/cc")" "256 2"
$C detach "$cid" > /dev/null || fail "detach --comm"

# more than counts: a slot per function, refused before the kernel is
# asked, naming the count (4096 slots)
out=$($C --json --timeout 1800 attach '*' --mode kprobe-multi --latency) &&
	fail "attach '*' --mode kprobe-multi --latency succeeded"
jp .error.message <<< "$out" |
	grep -q "mode kprobe-multi takes a slot per function: [0-9]* functions, 4096 of the 4096 slots" ||
	fail "attach '*' --mode kprobe-multi --latency: message: $out"
echo "ok: attach '*' --mode kprobe-multi --latency refused: $(jp .error.message <<< "$out" | head -c 200)"
expect_eq "BPF links after the refusal" "$(our_links)" 0
expect_eq "BPF slots after the refusal" "$($C --json status | jp '.slots_used')" 0
phase "refusals"

# while an attach '*' runs its link create on the worker thread: a detach
# is answered once what it hooked is undone (the attach: "detached while
# attaching"), and SIGTERM stops the daemon cleanly after it (the stop
# waits for the link create, then closes the link). Nothing stays hooked
# after either: no BPF link of ours, enabled_functions empty, the kprobes
# list (debugfs) as it was.
[ -r /sys/kernel/debug/kprobes/list ] || fail "no debugfs kprobes list"
kprobes_list() { sort /sys/kernel/debug/kprobes/list; }
kprobes0=$(kprobes_list)
echo "figures: kprobes listed before attach '*' is cut short: $(grep -c . <<< "$kprobes0")"
$C --json --timeout 1800 attach '*' --mode kprobe-multi > "$TD/c.json" &
cpid=$!
cid=$(attaching_id "$TD/c.json" "$cpid")
t0=$(date +%s%N)
$C --timeout 1800 detach "$cid" > /dev/null || fail "detach while attach '*' ran"
tcd=$(ms_since "$t0")
wait "$cpid" && fail "attach '*' cut short by a detach succeeded: $(head -c 300 "$TD/c.json")"
jp .error.message < "$TD/c.json" | grep -q "detached while attaching" ||
	fail "attach '*' cut short: message: $(head -c 300 "$TD/c.json")"
expect_eq "BPF links after a detach during attach '*'" "$(our_links)" 0
expect_eq "enabled_functions after a detach during attach '*'" "$(patched)" 0
expect_eq "attachments after a detach during attach '*'" \
	"$($C --json list | jp '.attachments|length')" 0
echo "ok: a detach during attach '*' undid it: $(jp .error.message < "$TD/c.json")"
echo "figures: the detach asked during attach '*' answered in $tcd ms (the link create's rest, then the close)"
phase "detach during attach"
links_made=$(grep -c "kprobe-multi count tier: " "$TD/daemon.log")
$C --json --timeout 1800 attach '*' --mode kprobe-multi > "$TD/s.json" 2>&1 &
spid=$!
attaching_id "$TD/s.json" "$spid" > /dev/null
t0=$(date +%s%N)
daemon_stop	# exit 0, no BPF link of ours
echo "figures: SIGTERM during attach '*': daemon_stop (the exit and its checks) $(ms_since "$t0") ms"
wait "$spid" && fail "attach '*' succeeded though the daemon stopped during it"
expect_eq "enabled_functions after SIGTERM during attach '*'" "$(patched)" 0
[ "$(kprobes_list)" = "$kprobes0" ] ||
	fail "kprobes after SIGTERM during attach '*': $(kprobes_list | head -5), before: $kprobes0"
echo "ok: the kprobes list after SIGTERM during attach '*' is as before"
# the stop waited for the link create (logged once made), then closed it
expect_eq "links made by the attach SIGTERM cut short (daemon log)" \
	"$(grep -c "kprobe-multi count tier: " "$TD/daemon.log")" $((links_made + 1))
echo "ok: SIGTERM during attach '*': stopped cleanly, nothing hooked"
phase "cut short"
