# SPDX-License-Identifier: GPL-2.0-or-later
# Issue #34 item 1: fentry-multi (Linux 7.x) and kprobe-session attachments
# that only count (--pid at most) are in the count tier, as kprobe-multi's
# (t/56): no BPF slot, their counters a per-CPU array of their own (one u64
# per function, the link cookie its index): fentry-multi's clone and link
# per BTF object made on the daemon's worker thread (daemon/be_fentry_multi.c,
# struct fmulti_job; the detach's closes too), kprobe-session's one link
# whose clone counts at the entry and returns 1 (no run at the return).
# Per mode, on the test module's functions ('tracerd_testmod_*'), and in
# check-full on every function ('*'): every function hooked or skipped with a reason
# (hooked + skipped = the matching names of available_filter_functions),
# BPF slots taken 0, exact counts on the test module's functions (and
# getpgid for '*') called a known number of times by the attaching pid,
# `status` answered during the detach, which leaves enabled_functions empty
# and no BPF program of ours. Then --latency (a slot per function) is
# refused past the free slots' count only (here it fits: not asserted);
# a detach during fentry-multi's links' creation undoes them ("detached
# while attaching"). Prints, never asserts, the times.
# ci-kernels: 7.2
# timeout: 1200 2400
source ./t/40-daemon-lib.sh
load_testmod
enabled=/sys/kernel/tracing/enabled_functions
n=$(size 1000 100000)
[ "$(patched)" = 0 ] || fail "ftrace hooks functions before the test: $(head -3 $enabled)"

daemon_start
trap daemon_cleanup EXIT
[ "$(feature fentry-multi)" = true ] || skip "fentry-multi unavailable: $(reason_of fentry-multi)"
names=$(sed 's/ .*//' /sys/kernel/tracing/available_filter_functions | sort -u | wc -l)

# all_mode MODE [GLOB]: attach GLOB ('*' by default) in MODE's count tier
# with the known calls (getpgid's only when '*'), stats, detach; the
# checks above, and the figures
all_mode() {
	local m=$1 g=${2:-*} id links npatched td dpid hooked mode skipped kinds t0 names calls=
	names=$(sed 's/ .*//' /sys/kernel/tracing/available_filter_functions | sort -u |
		while read -r f; do [[ $f == $g ]] && echo "$f"; done | wc -l)
	[ "$g" = '*' ] && calls=$n
	ATTACH_TARGET=$g attach_all_known "--mode $m" "$n"
	id=$(jp '.attachment.id' < "$TD/a.json")
	expect_eq "$m '$g': BPF slots taken by a count-only attach" \
		"$($C --json status | jp '.slots_used')" 0
	links=$(our_links)
	FMULTI_LINKS=$links
	[ "$links" -ge 1 ] || fail "$m '$g': no BPF link of ours while attached"
	npatched=$(patched)
	phase "$m '$g' attached"
	stats_timed "$id"
	t0=$(date +%s%N)
	$C --json --timeout 1800 detach "$id" > "$TD/d.json" &
	dpid=$!
	answered_during "$m '$g': detach" "$dpid" "$TD/d.json"
	wait "$dpid" || fail "$m '$g': detach: $(head -c 600 "$TD/d.json")"
	[ "$g" != '*' ] || answered_check "$m '$g': detach"
	td=$(ms_since "$t0")
	phase "$m '$g' detached"
	expect_eq "$m '$g': enabled_functions after detach" "$(patched)" 0
	expect_eq "$m '$g': BPF links after detach" "$(our_links)" 0
	{ read -r hooked; read -r mode; read -r skipped; read -r kinds; } < <(
		jp '.attachment.functions|length' '.attachment.mode' '.skipped_total' \
			'.skipped_reasons|length' < "$TD/a.json")
	echo "attach '$g' --mode $m: $hooked functions hooked, $skipped skipped, of $names" \
		"names in available_filter_functions; $npatched in enabled_functions; the reasons:"
	jp '.skipped_reasons[*].count' '.skipped_reasons[*].reason' < "$TD/a.json" |
		awk -v n="$kinds" 'NR <= n { c[NR] = $0; next } { print "  " c[NR - n] "\t" $0 }'
	expect_eq "$m '$g': the reply's mode" "$mode" "$m"
	expect_eq "$m '$g': hooked + skipped = the names of available_filter_functions" \
		$((hooked + skipped)) "$names"
	[ "$g" != '*' ] || [ "$hooked" -gt 4096 ] ||
		fail "$m '$g': only $hooked functions hooked: not past the 4096 slots"
	known_calls_check "$TD/st.json" "$hooked" "$calls"
	echo "figures: $KERNEL_NAME $m attach '$g' (count tier): $hooked functions in $links" \
		"links, attach ${ta} ms, stats ${tst} ms (--top 1: ${tst1} ms), detach ${td} ms"
}
# the test module's functions (about 1030, in the count tier: no slot) in
# both; every function in check-full (PROFILE=full): kprobe-session's one link,
# fentry-multi's link per BTF object
all_mode fentry-multi 'tracerd_testmod_*'
# the functions a trampoline cannot take are told apart by their BTF before
# the kernel is asked (daemon/btfargs.c btf_tramp_refusal): the variadic one
# is skipped with that reason, and the module's others go in one link, not
# in the halves a refusal by the kernel costs (11 links before)
jp '.skipped[*].function' '.skipped[*].reason' < "$TD/a.json" > "$TD/sk"
skip_reason() {
	awk -v n="$(($(wc -l < "$TD/sk") / 2))" -v fn="$1" 'NR <= n { f[NR] = $0; next }
		f[NR - n] == fn { print }' "$TD/sk"
}
expect_eq "fentry-multi: tracerd_testmod_vararg skipped as variadic, before the kernel" \
	"$(skip_reason tracerd_testmod_vararg)" "takes variable arguments ('...'): a trampoline cannot"
# (its hole ahead of the counted functions: all_mode's exact counts above
# read each function's own counter, daemon/bpfutil.c bpf_counts_settle)
expect_eq "fentry-multi: tracerd_testmod_big_arg skipped, a 24-byte struct by value" \
	"$(skip_reason tracerd_testmod_big_arg)" \
	"argument 1 is a struct of 24 bytes by value: a trampoline takes 16 at most"
[ "$(uname -m)" = x86_64 ] && expect_eq "fentry-multi 'tracerd_testmod_*': links (one BTF object)" \
	"$FMULTI_LINKS" 1
if [ "$(feature kprobe-session)" = true ]; then
	all_mode kprobe-session 'tracerd_testmod_*'
	[ "${PROFILE:-ci}" = full ] && all_mode kprobe-session
else
	echo "kprobe-session unavailable: $(reason_of kprobe-session)"
fi
[ "${PROFILE:-ci}" = full ] && all_mode fentry-multi

# more than counts: a slot per function (--latency: the entry and the
# return halves, two links per BTF object)
$C --json attach 'tracerd_testmod_*' --mode fentry-multi --latency > "$TD/l.json" ||
	fail "attach 'tracerd_testmod_*' --mode fentry-multi --latency: $(head -c 400 "$TD/l.json")"
lid=$(jp '.attachment.id' < "$TD/l.json")
expect_eq "fentry-multi --latency: BPF slots taken, one per function" \
	"$($C --json status | jp '.slots_used')" "$(jp '.attachment.functions|length' < "$TD/l.json")"
$C detach "$lid" > /dev/null || fail "detach $lid"
expect_eq "BPF slots after its detach" "$($C --json status | jp '.slots_used')" 0

# a detach while the links are made on the worker thread (some 5 s under
# TCG) undoes them
$C --json --timeout 1800 attach 'tracerd_testmod_*' --mode fentry-multi > "$TD/c.json" &
cpid=$!
cid=$(attaching_id "$TD/c.json" "$cpid")
$C --timeout 1800 detach "$cid" > /dev/null || fail "detach while the attach ran"
wait "$cpid" && fail "the attach cut short by a detach succeeded: $(head -c 300 "$TD/c.json")"
jp .error.message < "$TD/c.json" | grep -q "detached while attaching" ||
	fail "attach cut short: message: $(head -c 300 "$TD/c.json")"
echo "ok: a detach during the attach undid it: $(jp .error.message < "$TD/c.json")"
expect_eq "BPF links after a detach during the attach" "$(our_links)" 0
expect_eq "enabled_functions after a detach during the attach" "$(patched)" 0
daemon_stop
