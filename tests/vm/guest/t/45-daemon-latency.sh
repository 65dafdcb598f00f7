# SPDX-License-Identifier: GPL-2.0-or-later
# Latency lower bound: tracerd_testmod_sleep(US) sleeps at least US, so no
# sample may be below US*1000 ns (a bound, not a timing assertion), and
# the histogram holds exactly one sample per call, per mode. Nested: with
# vfs_write (the caller, through the debugfs write) timed too, in the same
# mode, the entry times of both stack up per task: each return takes its
# own call's, so both get one sample per call and each write that slept
# lasted at least US. The module's
# latency (kmod-kprobe: kretprobe; kmod-callops: fprobe, where the kernel
# has it; kmod-direct: its trampoline, which refuses a function
# with arguments on the stack or a variadic one, naming why) the same way, in stats, JSON and /metrics; --latency where the
# module has none is refused with the reason. riscv64 6.12 (kernel_has
# entry_kprobe fails) has no kretprobe at a function's entry: kmod-kprobe
# is unavailable there, its attach refused (exit 6).
# ci-kernels: 6.1 6.12-arm64
source ./t/40-daemon-lib.sh
load_testmod
[ -e /dev/tracerd ] || load_kmod
PORT=19478
ip link set lo up 2>/dev/null	# the test boot brings up no network
daemon_start "listen = 127.0.0.1:$PORT"
us=2000 k=5
kmods="kmod-kprobe"
if ! kernel_has entry_kprobe; then
	kmods=
	out=$($C --json attach tracerd_testmod_sleep --mode kmod-kprobe --latency); rc=$?
	expect_eq "kmod-kprobe --latency, no kprobe at the entry: exit" $rc 6
	grep -q "mode kmod-kprobe is not available on this kernel" <<< "$out" ||
		fail "kmod-kprobe --latency: $out"
	echo "kmod-kprobe --latency refused: $(jp .error.message <<< "$out")"
fi
if kernel_has fprobe_lat; then
	kmods="$kmods kmod-callops"
else
	out=$($C --json attach tracerd_testmod_sleep --mode kmod-callops --latency); rc=$?
	expect_eq "kmod-callops --latency without fprobe: exit" $rc 6
	grep -q "has no latency here: kmod: no fprobe" <<< "$out" || fail "kmod-callops --latency: $out"
	echo "kmod-callops --latency refused: $(jp .error.message <<< "$out")"
fi
if [ "$(feature kmod-direct)" != true ]; then
	echo "kmod-direct unavailable here: $(reason_of kmod-direct)"
else
	kmods="$kmods kmod-direct"
	# its trampoline calls the function with the register arguments only
	for f in "tracerd_testmod_args10:takes arguments on the stack (" \
		 "tracerd_testmod_vararg:no BTF says how"; do
		out=$($C --json attach "${f%%:*}" --mode kmod-direct --latency); rc=$?
		echo "kmod-direct --latency ${f%%:*}: exit $rc: $(jp .error.message <<< "$out")"
		expect_eq "kmod-direct --latency ${f%%:*}: exit (attach_failed)" $rc 6
		grep -qF "${f#*:}" <<< "$out" || fail "kmod-direct --latency ${f%%:*}: $out"
	done
	expect_eq "nothing attached after the refusals" "$($C --json list | jp '.attachments|length')" 0
fi
for m in fentry kprobe kprobe-multi $kmods; do
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
	case $m in kmod-*)
		# /metrics: the same histogram, its count the number of calls
		curl -sf "http://127.0.0.1:$PORT/metrics" > "$TD/m.prom" || fail "GET /metrics"
		c=$(grep "^tracerd_latency_seconds_count{id=\"$id\"," "$TD/m.prom" | awk '{ print $NF }')
		expect_eq "$m: /metrics latency count" "$c" $k ;;
	esac
	$C detach "$id" > /dev/null
done
mkfifo "$TD/go"
for m in fentry kprobe kprobe-multi; do
	[ "$(feature "$m")" = true ] || continue
	sh -c "read x < $TD/go; for i in \$(seq $k); do echo $us > $TESTMOD_DBG/sleep_us; done" &
	p=$!
	outer=$($C --json attach vfs_write --mode "$m" --latency --pid $p | jp .attachment.id)
	inner=$($C --json attach tracerd_testmod_sleep --mode "$m" --latency --pid $p |
		jp .attachment.id)
	echo go > "$TD/go"
	wait $p || fail "$m: the nested writes failed"
	so=$($C --json stats "$outer")
	si=$($C --json stats "$inner")
	expect_eq "$m nested: inner calls" "$(jp '.stats[0].calls' <<< "$si")" $k
	expect_eq "$m nested: inner samples" "$(jp '.stats[0].latency.count' <<< "$si")" $k
	[ "$(jp '.stats[0].latency.min_ns' <<< "$si")" -ge $((us * 1000)) ] ||
		fail "$m nested: an inner sample is below the $us us sleep"
	n=$(jp '.stats[0].calls' <<< "$so")
	[ "$n" -ge $k ] || fail "$m nested: $n outer calls, fewer than the $k writes"
	expect_eq "$m nested: outer samples = outer calls" "$(jp '.stats[0].latency.count' <<< "$so")" "$n"
	# the buckets that can hold a sample >= the sleep hold one per write that slept
	long=$(jp '.stats[0].latency.buckets[*]' <<< "$so" | awk -v b=$((us * 1000)) '
		match($0, /"hi_ns": *[0-9]+/) { h = substr($0, RSTART, RLENGTH); sub(/.*: */, "", h) }
		!/"hi_ns": *[0-9]/ { h = -1 }
		match($0, /"count": *[0-9]+/) { c = substr($0, RSTART, RLENGTH); sub(/.*: */, "", c)
			if (h < 0 || h + 0 >= b) s += c }
		END { print s + 0 }')
	[ "$long" -ge $k ] || fail "$m nested: $long outer samples could hold the $us us sleep, want >= $k"
	echo "ok: $m nested: $n outer calls timed, $long of them >= the sleep's bucket"
	$C detach "$outer" > /dev/null
	$C detach "$inner" > /dev/null
done
# the module's latency on a glob: every function timed once per call
for m in $kmods; do
	id=$(ATTACH_FLAGS=--latency attach_pid "$m" 'tracerd_testmod_fn_00[0-3]' sh -c \
		"for i in 0 1 2 3; do echo \"\$i $k\" > $TESTMOD_DBG/call_fn; done")
	st=$($C --json stats "$id")
	expect_eq "$m glob: functions" "$(jp '.stats|length' <<< "$st")" 4
	expect_eq "$m glob: calls" "$(jp '.stats[*].calls' <<< "$st" | sort -u)" $k
	expect_eq "$m glob: samples" "$(jp '.stats[*].latency.count' <<< "$st" | sort -u)" $k
	expect_eq "$m glob: histogram total" "$(jp '.stats[*].latency.buckets[*].count' <<< "$st" | sum)" \
		$((4 * k))
	$C detach "$id" > /dev/null
done
kmodctl stats | grep -q " attachments=0 " || fail "module attachments left: $(kmodctl stats)"
daemon_stop
