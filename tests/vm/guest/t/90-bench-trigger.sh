# SPDX-License-Identifier: GPL-2.0-or-later
# tracectl bench trigger and workload, small: every mode and variant is
# measured with exact counts (an error point fails the run: tracectl exits
# 1) or reported unavailable with a reason; the paths this kernel has must
# be measured, not reported missing; trigger results land in state_dir.
# Times are reported, never asserted. The JSON goes to the host, which
# checks the schema and compares 6.1 with 6.12 (tests/vm/bench-check.sh).
# ci-kernels: 6.1 6.12 7.2
source ./t/40-daemon-lib.sh
load_testmod
[ -e /dev/tracerd ] || load_kmod
daemon_start "state_dir = $TD/state"
trap daemon_cleanup EXIT
r="-r 2 -w 0"
$C bench trigger --ci -n "$(size 5000 100000)" $r -o "$TD/trigger.json" ||
	fail "bench trigger failed (exit $?)"
$C bench workload --ci -n "$(size 5000 200000)" $r -o "$TD/workload.json" ||
	fail "bench workload failed (exit $?)"

status() {	# status FILE KEY: the status of that point ("" when absent)
	jpath '.points[*].key' < "$1" > "$TD/keys"
	jpath '.points[*].status' < "$1" > "$TD/sts"
	paste "$TD/keys" "$TD/sts" | awk -v k="$2" '$1 == k { print $2 }'
}
must=(none fentry/count fentry/latency fentry/empty kprobe/count kprobe/latency kprobe/empty
      kmod-callops/count kmod-direct/count kmod-direct/latency kmod-kprobe/count)
[ "$(uname -m)" = x86_64 ] && must+=(kprobe-int3/count kmod-kprobe-int3/count kmod-callops+regs/count)
# riscv64: kprobe-int3 probes past the ftrace site (+8), the empty program
# too; its latency wants a kretprobe at the entry, which a kernel without
# KPROBES_ON_FTRACE refuses: unavailable there, with the reason
if [ "$(uname -m)" = riscv64 ]; then
	must+=(kprobe-int3/count kprobe-int3/empty)
	kernel_has entry_kprobe ||
		expect_eq "trigger kprobe-int3/latency without KPROBES_ON_FTRACE" \
			"$(status "$TD/trigger.json" kprobe-int3/latency)" unavailable
fi
# fprobe: amd64 6.12 and both 7.2 builds have it; 6.1 and arm64 6.12 do not
kernel_has fprobe && must+=(kprobe-multi/count kprobe-multi/latency)
for k in "${must[@]}"; do
	expect_eq "trigger $k" "$(status "$TD/trigger.json" "$k")" "$(bench_want "$k")"
done
for k in none/dd fentry/dd kmod-callops/dd kmod-direct/hackbench; do
	expect_eq "workload $k" "$(status "$TD/workload.json" "$k")" "$(bench_want "$k")"
done
# every point not measured says why
for f in trigger workload; do
	n=$(jpath '.points|length' < "$TD/$f.json")
	for ((i = 0; i < n; i++)); do
		s=$(jpath ".points[$i].status" < "$TD/$f.json")
		[ "$s" = ok ] && continue
		why=$(jpath ".points[$i].reason" < "$TD/$f.json")
		[ -n "$why" ] && [ "$why" != null ] || fail "$f point $i: $s without a reason"
		echo "$f $(jpath ".points[$i].key" < "$TD/$f.json"): $s: $why"
	done
done
[ "$KERNEL_NAME" = 6.1 ] && expect_eq "kprobe-multi on 6.1" \
	"$(status "$TD/trigger.json" kprobe-multi/count)" unavailable
expect_eq "stored kernel" "$(jpath .kernel < "$TD/state/bench-trigger.json")" "$(uname -r)"
[ "$(bench_want fentry/count)" != ok ] || jpath '.overhead_ns.fentry.count' < "$TD/state/bench-trigger.json" > /dev/null ||
	fail "fentry overhead not stored"
expect_eq "bench hooks left" "$($C --json list | jpath '.attachments|length')" 0
daemon_stop
trap - EXIT
emit_bench trigger "$TD/trigger.json"
emit_bench workload "$TD/workload.json"
