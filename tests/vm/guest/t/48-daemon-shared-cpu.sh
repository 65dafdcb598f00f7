# SPDX-License-Identifier: GPL-2.0-or-later
# Exact counts when the counting program is preempted: a fentry program
# runs with migration disabled but preemptible, so with full preemption
# (switched on here through PREEMPT_DYNAMIC's debugfs knob) tasks pinned to
# one CPU, all matching the filter, can interleave inside it. A plain ++
# on the per-CPU counter (load, add, store) would lose increments; the
# programs' atomic adds cannot. Under TCG an interrupt is only taken
# between translated blocks, never inside the JIT's load-add-store, so
# this run cannot make the old race show: it proves that counts and
# latency samples stay exact with full preemption and tasks sharing a CPU
# in every BPF function mode (and fails on any lost or extra count).
source ./t/40-daemon-lib.sh
n=$(size 20000 200000) k=3
knob=/sys/kernel/debug/sched/preempt
was=
if [ -w "$knob" ]; then
	was=$(sed -n 's/.*(\([a-z]*\)).*/\1/p' "$knob")
	echo full > "$knob" || fail "cannot switch $knob to full"
	expect_eq "preemption" "$(sed -n 's/.*(\([a-z]*\)).*/\1/p' "$knob")" full
else
	echo "no $knob (no PREEMPT_DYNAMIC): preemption as built"
fi
restore() { [ -z "$was" ] || echo "$was" > "$knob"; daemon_cleanup; }
trap restore EXIT
daemon_start
fn=$(sys_getpgid)
for m in fentry kprobe kprobe-multi; do
	[ "$(feature "$m")" = true ] || { echo "mode $m unavailable: skipped"; continue; }
	for lat in "" --latency; do
		# the trigger processes are the only tasks named "trigger"
		id=$($C --json attach "$fn" --mode "$m" --comm trigger $lat | jp .attachment.id)
		[ -n "$id" ] && [ "$id" != null ] || fail "attach $fn --mode $m $lat"
		pids=()
		for ((i = 0; i < k; i++)); do
			taskset -c 0 trigger getpgid "$n" &
			pids+=($!)
		done
		for p in "${pids[@]}"; do wait "$p" || fail "trigger $p failed"; done
		st=$($C --json stats "$id")
		expect_eq "$m$lat: calls of $k tasks on CPU 0" "$(jp '.stats[0].calls' <<< "$st")" $((k * n))
		[ -z "$lat" ] || expect_eq "$m$lat: latency samples" \
			"$(jp '.stats[0].latency.count' <<< "$st")" $((k * n))
		$C detach "$id" > /dev/null || fail "detach $id"
	done
done
daemon_stop
