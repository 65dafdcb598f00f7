# SPDX-License-Identifier: GPL-2.0-or-later
# attach --by pid|comm in every BPF function mode this kernel has, on
# getpgid: processes named tbya (the trigger under another name) make
# known numbers of calls, and each pid and each comm gets exactly its
# own; with --latency every call of a key is timed too. The keys plus
# other are the attachment's calls. The series in /metrics. With the
# module loaded, auto never picks a kmod mode for --by, and the kmod modes
# refuse it.
# ci-kernels: 6.1
source ./t/40-daemon-lib.sh
command -v curl > /dev/null || skip "no curl in the guest"
n=$(size 40 4000)
PORT=9479
ip link set lo up 2>/dev/null	# the test boot brings up no network
load_testmod
[ -e /dev/tracerd ] || load_kmod
daemon_start "listen = 127.0.0.1:$PORT"
fn=$(sys_getpgid)
trig=$(command -v trigger)
ln -sf "$trig" "$TD/tbya"
ln -sf "$trig" "$TD/tbyb"

# run NAME N: a process named NAME makes N getpgid calls; prints its pid
run() { sh -c 'echo $$; exec "$0" getpgid "$1"' "$TD/$1" "$2" || fail "$1 getpgid $2"; }
# key_val JSON KEY FIELD: FIELD of the top entry whose key is KEY ("" if none)
key_val() {
	paste <(jp '.attachments[0].by.top[*].key' <<< "$1") \
	      <(jp ".attachments[0].by.top[*].$3" <<< "$1") | awk -v k="$2" '$1 == k { print $2 }'
}
top_sum() { jp '.attachments[0].by.top[*].calls' <<< "$1" | sum; }

tested=0
for m in fentry kprobe kprobe-multi kprobe-session fentry-multi fsession; do
	if [ "$(feature "$m")" != true ]; then
		echo "mode $m unavailable: $(reason_of "$m")"
		continue
	fi
	for lat in "" --latency; do
		w="$m${lat:+ $lat}"
		# by pid, filtered to the comm: three processes named tbya
		id=$($C --json attach "$fn" --mode "$m" --by pid --comm tbya $lat | jp .attachment.id) ||
			fail "$w: attach --by pid"
		p1=$(run tbya $n) p2=$(run tbya $((2 * n))) p3=$(run tbya 3)
		st=$($C --json stats "$id")
		expect_eq "$w: calls" "$(jp '.stats[0].calls' <<< "$st")" $((3 * n + 3))
		expect_eq "$w: by pid keys" "$(jp '.attachments[0].by.keys' <<< "$st")" 3
		expect_eq "$w: pid $p1" "$(key_val "$st" "$p1" calls)" $n
		expect_eq "$w: pid $p2" "$(key_val "$st" "$p2" calls)" $((2 * n))
		expect_eq "$w: pid $p3" "$(key_val "$st" "$p3" calls)" 3
		expect_eq "$w: most first" "$(jp '.attachments[0].by.top[0].pid' <<< "$st")" "$p2"
		expect_eq "$w: other" "$(jp '.attachments[0].by.other.calls' <<< "$st")" 0
		if [ -n "$lat" ]; then
			expect_eq "$w: pid $p2 timed" "$(key_val "$st" "$p2" timed)" $((2 * n))
			expect_eq "$w: pid $p3 timed" "$(key_val "$st" "$p3" timed)" 3
			[ "$(key_val "$st" "$p2" lat_sum_ns)" -gt 0 ] || fail "$w: pid $p2 lat_sum_ns 0"
			echo "ok: $w: pid $p2 time $(key_val "$st" "$p2" lat_sum_ns) ns"
		else
			expect_eq "$w: untimed" "$(jp '.attachments[0].by.top[0].timed' <<< "$st")" null
		fi
		if [ "$m" = fentry ] && [ -z "$lat" ]; then
			curl -sf "http://127.0.0.1:$PORT/metrics" > "$TD/m.prom" || fail "GET /metrics"
			grep -qx "tracerd_by_calls_total{id=\"$id\",target=\"$fn\",mode=\"$m\",pid=\"$p2\"} $((2 * n))" \
				"$TD/m.prom" || fail "$w: series: $(grep tracerd_by "$TD/m.prom")"
			expect_eq "$w: series" "$(grep -c "^tracerd_by_calls_total{id=\"$id\"," "$TD/m.prom")" 3
		fi
		$C detach "$id" > /dev/null || fail "$w: detach"

		# by comm, unfiltered: two names, two processes of one of them
		id=$($C --json attach "$fn" --mode "$m" --by comm $lat | jp .attachment.id) ||
			fail "$w: attach --by comm"
		run tbya $n > /dev/null
		run tbyb 7 > /dev/null
		run tbya 5 > /dev/null
		st=$($C --json stats "$id")
		expect_eq "$w: comm tbya" "$(key_val "$st" tbya calls)" $((n + 5))
		expect_eq "$w: comm tbyb" "$(key_val "$st" tbyb calls)" 7
		[ -z "$lat" ] || expect_eq "$w: comm tbyb timed" "$(key_val "$st" tbyb timed)" 7
		expect_eq "$w: keys + other = calls" \
			"$(( $(top_sum "$st") + $(jp '.attachments[0].by.other.calls' <<< "$st") ))" \
			"$(jp '.stats[0].calls' <<< "$st")"
		$C detach "$id" > /dev/null || fail "$w: detach"
	done
	tested=$((tested + 1))
done
# a glob: the keys merged over its functions (5 test functions, each
# called twice by a shell named tbysh, twice by one named tbysz)
ln -sf "$(command -v sh)" "$TD/tbysh"
ln -sf "$(command -v sh)" "$TD/tbysz"
for m in fentry kprobe kprobe-multi; do
	[ "$(feature "$m")" = true ] || continue
	id=$($C --json attach 'tracerd_testmod_fn_00[0-4]' --mode "$m" --by comm | jp .attachment.id) ||
		fail "$m glob: attach --by comm"
	"$TD/tbysh" -c "echo 2 > $TESTMOD_DBG/call_all" || fail "call_all"
	"$TD/tbysz" -c "echo 2 > $TESTMOD_DBG/call_all" || fail "call_all"
	"$TD/tbysh" -c "echo 2 > $TESTMOD_DBG/call_all" || fail "call_all"
	st=$($C --json stats "$id")
	expect_eq "$m glob: functions" "$(jp '.stats|length' <<< "$st")" 5
	expect_eq "$m glob: comm tbysh over the functions" "$(key_val "$st" tbysh calls)" 20
	expect_eq "$m glob: comm tbysz" "$(key_val "$st" tbysz calls)" 10
	expect_eq "$m glob: keys + other = calls" \
		"$(( $(top_sum "$st") + $(jp '.attachments[0].by.other.calls' <<< "$st") ))" \
		"$(jp '.stats[*].calls' <<< "$st" | sum)"
	$C detach "$id" > /dev/null || fail "$m glob: detach"
done

# fentry and kprobe at least; arm64 6.1 has no direct calls, so no fentry
want=2; kernel_has direct_calls || want=1
[ "$tested" -ge $want ] || fail "only $tested modes could count by key"

# the module's modes have no keys: refused, and auto picks a BPF mode
for m in kmod-callops kmod-direct kmod-kprobe; do
	out=$($C attach "$fn" --mode "$m" --by pid 2>&1) && fail "$m --by accepted"
	case $out in *"mode $m has no --by keys"*) echo "ok: $m --by refused: $out" ;;
		*) fail "$m --by: $out" ;; esac
done
if [ "$(feature kmod-callops)" = true ]; then
	expect_eq "auto without --by: the module" \
		"$($C --json attach "$fn" --dry-run | jp .plan.mode)" kmod-callops
fi
a=$($C --json attach "$fn" --by comm) || fail "auto --by: $a"
case $(jp .attachment.mode <<< "$a") in
kmod-*) fail "auto picked $(jp .attachment.mode <<< "$a") for --by" ;;
*) echo "ok: auto --by: $(jp .attachment.mode <<< "$a") ($(jp .attachment.mode_reason <<< "$a"))" ;;
esac
$C detach "$(jp .attachment.id <<< "$a")" > /dev/null || fail "detach auto"
expect_eq "nothing left attached" "$($C --json list | jp '.attachments|length')" 0
daemon_stop
