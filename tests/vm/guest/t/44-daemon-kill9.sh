# SPDX-License-Identifier: GPL-2.0-or-later
# kill -9 of tracerd while hooks are attached in every available mode, with
# latency where the mode has it (kmod-kprobe's kretprobe always): no
# BPF link, no kmod attachment, no ftrace/kprobe entry is left; a new
# tracerd starts on the same (stale) socket.
# ci-kernels: 6.12 7.2
source ./t/40-daemon-lib.sh
load_testmod
[ -e /dev/tracerd ] || load_kmod
daemon_start
n=0
for m in fentry kprobe kprobe-int3 kprobe-multi kmod-callops kmod-kprobe; do
	[ "$(feature "$m")" = true ] || continue
	# the module times calls in kmod-kprobe (a kretprobe) on every kernel
	if [ $m = kmod-kprobe ]; then
		$C attach "tracerd_testmod_fn_00$n" --mode "$m" --latency > /dev/null ||
			fail "attach $m --latency"
		n=$((n + 1))
		continue
	fi
	$C attach "tracerd_testmod_fn_00$n" --mode "$m" --latency > /dev/null 2>&1 ||
		$C attach "tracerd_testmod_fn_00$n" --mode "$m" > /dev/null || fail "attach $m"
	n=$((n + 1))
done
$C attach tp:task/task_rename > /dev/null || fail "attach tp"
links=$(our_links)
[ "$links" -gt 0 ] || fail "no BPF link while attached"
echo "attached in $n function modes, $links BPF links"
kill -9 "$DPID"
wait "$DPID" 2>/dev/null
DPID=
expect_eq "BPF links after kill -9" "$(our_links)" 0
if [ -e /dev/tracerd ]; then
	kmodctl stats --clean || fail "kmod attachments left after kill -9"
fi
grep -q tracerd_testmod_fn /sys/kernel/tracing/enabled_functions &&
	fail "ftrace still hooks a test function: $(grep tracerd_testmod_fn /sys/kernel/tracing/enabled_functions)"
[ -S "$SOCK" ] || fail "expected the stale socket to remain"
daemon_start
$C status > /dev/null || fail "new tracerd does not answer"
expect_eq "attachments in the new daemon" "$($C --json list | jp '.attachments|length')" 0
daemon_stop
