# SPDX-License-Identifier: GPL-2.0-or-later
# Recording in every BPF function mode: __x64_sys_getpgid attached with
# --latency --record, filtered to the trigger's pid: N calls in, N events
# out of `tracectl dump`, each with a duration and the return value (the
# pgid getpgid(0) returned: one value for all). kmod modes refuse --record.
# ci-kernels: 6.12 7.2
source ./t/40-daemon-lib.sh
n=$(size 500 20000)
fn=$(sys_getpgid)
[ -e /dev/tracerd ] || load_kmod
daemon_start "record_dir = $TD/rec"
for m in fentry kprobe kprobe-multi; do
	[ "$(feature "$m")" = true ] || { echo "mode $m unavailable: skipped"; continue; }
	id=$(ATTACH_FLAGS="--latency --record r-$m" attach_pid "$m" "$fn" trigger getpgid "$n")
	expect_eq "$m: calls" "$(calls_of "$id")" "$n"
	$C detach "$id" > /dev/null || fail "$m: detach"	# finishes the file
	tracectl dump "$TD/rec/r-$m.trec" > "$TD/d.txt" 2> "$TD/d.err" || fail "$m: dump: $(cat "$TD/d.err")"
	[ -s "$TD/d.err" ] && fail "$m: dump note: $(cat "$TD/d.err")"
	expect_eq "$m: events" "$(grep -vc '^#' "$TD/d.txt")" "$n"
	expect_eq "$m: events of $fn" "$(grep -v '^#' "$TD/d.txt" | awk '{print $6}' | sort -u)" "$fn"
	expect_eq "$m: events without a duration" "$(grep -v '^#' "$TD/d.txt" | awk '$7 == "-"' | wc -l)" 0
	rets=$(grep -v '^#' "$TD/d.txt" | awk '{print $8}' | sort -u)
	[ "$(wc -l <<< "$rets")" = 1 ] && [ "$rets" != - ] && [ "$rets" -gt 0 ] ||
		fail "$m: return values: $(head -c 200 <<< "$rets")"
	echo "ok: $m: every event returned $rets"
done
if [ -e /dev/tracerd ] && [ "$(feature kmod-callops)" = true ]; then
	$C attach "$fn" --mode kmod-callops --record k > "$TD/k.out" 2>&1 && fail "kmod mode accepted --record"
	grep -q 'BPF mode' "$TD/k.out" || fail "kmod --record: $(cat "$TD/k.out")"
	echo "ok: kmod-callops refuses --record"
fi
daemon_stop
