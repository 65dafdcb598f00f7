# SPDX-License-Identifier: GPL-2.0-or-later
# bench trigger --peers: the reference programs (tracerd-ref) and Debian's
# bpftrace on the same getpgid loop as tracerd's modes, in the same run.
# Every peer this kernel and root allow is measured with its own exact
# count (the peer's count at exit = the calls made; otherwise the point is
# an error and tracectl exits 1); the others say why. bpftrace is in the
# native (x86_64) root only. Times are reported, never asserted.
# The stacks variant (issue #32 item 5): tracerd's --stacks in the BPF
# modes and the module's kmod-callops, each call's stack kept (the point's
# stacks count exact), kmod-direct unavailable with its reason, beside
# bpftrace's `@[kstack] = count()` and the reference program doing that by
# hand, whose counts summed over their stacks are the calls made.
# The args variant (item 5): tracerd's --args in the BPF modes, every call
# recorded or counted as dropped (the point's events count exact), the
# module's modes not run (they record no arguments), beside bpftrace's
# printf of the first argument (a line per call, or "Lost N events") and
# the reference program's ring buffer (events + dropped = calls).
# ci-kernels: 6.12
source ./t/40-daemon-lib.sh
[ -e /dev/tracerd ] || load_kmod
daemon_start "record_dir = $TD/rec"
trap daemon_cleanup EXIT
# make check: count and stacks (bpftrace compiles a script per peer, seconds
# each under TCG); check-full and make demo run the latency peers too
if [ "${PROFILE:-ci}" = full ]; then variants=count,latency,stacks; else variants=count,stacks; fi
$C bench trigger --ci -n "$(size 2000 100000)" -r 2 -w 1 \
	--modes fentry,kprobe,kprobe-multi,kmod-callops,kmod-direct --variants "$variants" \
	--peers -o "$TD/peers.json" || fail "bench trigger --peers (exit $?)"
lat() { [[ $variants == *latency* ]] && echo "$@"; }
status() {	# status KEY [FILE]: the status of that point ("" when absent)
	jpath '.points[*].key' < "${2:-$TD/peers.json}" > "$TD/keys"
	jpath '.points[*].status' < "${2:-$TD/peers.json}" > "$TD/sts"
	paste "$TD/keys" "$TD/sts" | awk -v k="$1" '$1 == k { print $2 }'
}
must=(ref-fentry/count ref-kprobe/count $(lat ref-fentry/latency ref-kprobe/latency)
      ref-fentry/stacks ref-kprobe/stacks fentry/stacks kprobe/stacks kmod-callops/stacks)
kernel_has fprobe && must+=(ref-kprobe-multi/count kprobe-multi/stacks)
if command -v bpftrace > /dev/null; then
	must+=(bpftrace-kfunc/count bpftrace-kprobe/count bpftrace-kfunc/stacks bpftrace-kprobe/stacks
	       $(lat bpftrace-kfunc/latency bpftrace-kprobe/latency))
else
	expect_eq "bpftrace absent: said so" "$(status bpftrace-kfunc/count)" unavailable
fi
for k in "${must[@]}"; do
	expect_eq "peer $k" "$(status "$k")" "$(bench_want "$k")"
done
# the counts behind an ok peer point are its own, and exact
n=$(jpath '.points|length' < "$TD/peers.json")
for ((i = 0; i < n; i++)); do
	[ "$(jpath ".points[$i].status" < "$TD/peers.json")" = ok ] || continue
	[ "$(jpath ".points[$i].labels.peer" < "$TD/peers.json")" != null ] || continue
	want=$(jpath ".points[$i].counts.calls.expected" < "$TD/peers.json")
	got=$(jpath ".points[$i].counts.calls.counted" < "$TD/peers.json")
	expect_eq "$(jpath ".points[$i].key" < "$TD/peers.json") counted" "$got" "$want"
done
# tracerd's stacks points: every call's stack kept
for k in fentry/stacks kprobe/stacks kprobe-multi/stacks kmod-callops/stacks; do
	i=$(jpath '.points[*].key' < "$TD/peers.json" | grep -nx "$k" | cut -d: -f1)
	[ -n "$i" ] && [ "$(status "$k")" = ok ] || continue
	i=$((i - 1))
	expect_eq "$k stacks kept" "$(jpath ".points[$i].counts.stacks.counted" < "$TD/peers.json")" \
		"$(jpath ".points[$i].counts.calls.expected" < "$TD/peers.json")"
done
expect_eq "kmod-direct keeps no stacks" "$(status kmod-direct/stacks)" unavailable
jpath '.points[*].reason' < "$TD/peers.json" | grep -q 'kmod-direct keeps no stacks' ||
	fail "kmod-direct/stacks: no reason given"
kernel_has fprobe || expect_eq "ref kprobe-multi without fprobe" "$(status ref-kprobe-multi/count)" unavailable
$C bench show "$TD/peers.json" | grep -E '^(ref-|bpftrace-)' || true
# args: a run of its own (the peers' scripts differ)
$C bench trigger --ci -n "$(size 2000 100000)" -r "$(size 1 2)" -w "$(size 0 1)" --modes fentry,kprobe,kmod-callops \
	--variants args --peers -o "$TD/args.json" || fail "bench trigger --variants args (exit $?)"
must=(fentry/args kprobe/args ref-fentry/args ref-kprobe/args)
command -v bpftrace > /dev/null && must+=(bpftrace-kfunc/args bpftrace-kprobe/args)
for k in "${must[@]}"; do
	expect_eq "args $k" "$(status "$k" "$TD/args.json")" "$(bench_want "$k")"
	i=$(jpath '.points[*].key' < "$TD/args.json" | grep -nx "$k" | cut -d: -f1)
	[ -n "$i" ] && [ "$(status "$k" "$TD/args.json")" = ok ] || continue
	i=$((i - 1))
	expect_eq "$k: recorded + dropped = calls" \
		"$(jpath ".points[$i].counts.events.counted" < "$TD/args.json")" \
		"$(jpath ".points[$i].counts.events.expected" < "$TD/args.json")"
	expect_eq "$k: calls" "$(jpath ".points[$i].counts.calls.counted" < "$TD/args.json")" \
		"$(jpath ".points[$i].counts.calls.expected" < "$TD/args.json")"
done
[ -z "$(status kmod-callops/args "$TD/args.json")" ] || fail "kmod-callops/args measured: the module records no arguments"
# what tracerd recorded reads back with the trigger's argument named
f=$(ls "$TD"/rec/bench-trigger-args*.trec 2>/dev/null | head -1)
[ -n "$f" ] || fail "args: no bench-trigger-args recording in $TD/rec"
$C dump "$f" 2> "$TD/dump.err" | grep -v '^#' | head -3 > "$TD/dump.txt"
grep -Eq "$(sys_getpgid)\([a-z_]+=0x[0-9a-f]+\)" "$TD/dump.txt" || fail "args: dump shows no argument: $(head -c 300 "$TD/dump.txt")"
$C bench show "$TD/args.json" | grep -E '(^|/)args|args ' || true
daemon_stop
trap - EXIT
emit_bench peers "$TD/peers.json"
emit_bench peers-args "$TD/args.json"
