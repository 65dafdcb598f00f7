# SPDX-License-Identifier: GPL-2.0-or-later
# bench trigger --peers: the reference programs (tracerd-ref) and Debian's
# bpftrace on the same getpgid loop as tracerd's modes, in the same run.
# Every peer this kernel and root allow is measured with its own exact
# count (the peer's count at exit = the calls made; otherwise the point is
# an error and tracectl exits 1); the others say why. bpftrace is in the
# native (x86_64) root only. Times are reported, never asserted.
# ci-kernels: 6.12
source ./t/40-daemon-lib.sh
daemon_start
trap daemon_cleanup EXIT
$C bench trigger --ci -n "$(size 2000 100000)" -r 2 -w 1 --modes fentry,kprobe,kprobe-multi \
	--variants count,latency --peers -o "$TD/peers.json" || fail "bench trigger --peers (exit $?)"
status() {	# status KEY: the status of that point ("" when absent)
	jpath '.points[*].key' < "$TD/peers.json" > "$TD/keys"
	jpath '.points[*].status' < "$TD/peers.json" > "$TD/sts"
	paste "$TD/keys" "$TD/sts" | awk -v k="$1" '$1 == k { print $2 }'
}
must=(ref-fentry/count ref-fentry/latency ref-kprobe/count ref-kprobe/latency)
kernel_has fprobe && must+=(ref-kprobe-multi/count)
if command -v bpftrace > /dev/null; then
	must+=(bpftrace-kfunc/count bpftrace-kfunc/latency bpftrace-kprobe/count bpftrace-kprobe/latency)
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
kernel_has fprobe || expect_eq "ref kprobe-multi without fprobe" "$(status ref-kprobe-multi/count)" unavailable
$C bench show "$TD/peers.json" | grep -E '^(ref-|bpftrace-)' || true
daemon_stop
trap - EXIT
emit_bench peers "$TD/peers.json"
