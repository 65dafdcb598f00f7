# SPDX-License-Identifier: GPL-2.0-or-later
# Counts with tasks sharing a CPU under full preemption (switched on here
# through PREEMPT_DYNAMIC's debugfs knob): 3 tasks pinned to CPU 0, all
# matching the filter, call the traced function in a loop.
# - kprobe, kprobe-multi: the program runs with preemption disabled; the
#   count and the latency samples equal the calls made.
# - fentry: the program is preemptible (migration disabled only). A task
#   preempted inside it holds the program's per-CPU recursion guard, so
#   the kernel refuses another task's call on that CPU and counts it in
#   the program's recursion misses: calls + misses = the calls made, and
#   the misses really happen here (the kernel, not tracerd, drops them).
#   With latency, entry and return are two programs: a call refused at
#   either end goes untimed, so calls <= made <= calls + misses and the
#   samples are at most the calls.
# Two programs of one slot (entry and return) can interleave on a CPU
# that way, which is why every counter is an atomic add. Under TCG an
# interrupt is only taken between translated blocks, never inside the
# JIT's load-add-store, so a lost ++ cannot be made to show here; what
# this proves is that every call is either counted or reported missed.
# ci-kernels: 6.1-arm64 6.12-arm64
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
		made=$((k * n)) c=$(jp '.stats[0].calls' <<< "$st") ms=$(jp '.stats[0].misses' <<< "$st")
		echo "$m$lat: $made calls made, $c counted, misses $ms"
		if [ "$m" != fentry ]; then
			expect_eq "$m$lat: calls of $k tasks on CPU 0" "$c" $made
			[ -z "$lat" ] || expect_eq "$m$lat: latency samples" \
				"$(jp '.stats[0].latency.count' <<< "$st")" $made
		elif [ -z "$lat" ]; then
			expect_eq "$m: calls + recursion misses" $((c + ms)) $made
		else
			[ "$c" -le $made ] && [ $((c + ms)) -ge $made ] ||
				fail "$m$lat: $c counted, $ms missed, $made made"
			[ "$(jp '.stats[0].latency.count' <<< "$st")" -le "$c" ] ||
				fail "$m$lat: more samples than calls"
			echo "ok: $m$lat: counted <= made <= counted + missed; samples <= counted"
		fi
		$C detach "$id" > /dev/null || fail "detach $id"
	done
done
daemon_stop
