# SPDX-License-Identifier: GPL-2.0-or-later
# Latency lower bound: tracerd_testmod_sleep(US) sleeps at least US, so no
# sample may be below US*1000 ns (a bound, not a timing assertion), and
# the histogram holds exactly one sample per call, per mode.
source ./t/40-daemon-lib.sh
load_testmod
daemon_start
us=2000 k=5
for m in fentry kprobe kprobe-multi; do
	[ "$(feature "$m")" = true ] || { echo "mode $m unavailable: skipped"; continue; }
	id=$(ATTACH_FLAGS=--latency attach_pid "$m" tracerd_testmod_sleep sh -c \
		"for i in \$(seq $k); do echo $us > $TESTMOD_DBG/sleep_us; done")
	$C stats "$id"
	st=$($C --json stats "$id")
	expect_eq "$m: calls" "$(jp '.stats[0].calls' <<< "$st")" $k
	expect_eq "$m: samples" "$(jp '.stats[0].latency.count' <<< "$st")" $k
	expect_eq "$m: histogram total" "$(jp '.stats[0].latency.buckets[*].count' <<< "$st" | sum)" $k
	min=$(jp '.stats[0].latency.min_ns' <<< "$st")
	[ "$min" -ge $((us * 1000)) ] || fail "$m: a sample of $min ns is below the $us us sleep"
	echo "ok: $m: min $min ns >= $((us * 1000)) ns"
	for hi in $(jp '.stats[0].latency.buckets[*].hi_ns' <<< "$st"); do
		[ "$hi" = null ] || [ "$hi" -ge $((us * 1000)) ] || fail "$m: a bucket ends at $hi ns"
	done
	$C detach "$id" > /dev/null
done
daemon_stop
