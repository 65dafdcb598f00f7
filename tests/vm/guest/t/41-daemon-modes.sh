# SPDX-License-Identifier: GPL-2.0-or-later
# Every function mode through tracerd, filtered to the test's own tgid:
# exact counts on the getpgid syscall handler and on the test module's
# target; latency histograms whose total equals the calls. Unavailable
# modes must say why (kprobe-multi on 6.1: no fprobe).
source ./t/40-daemon-lib.sh
n=$(size 1000 100000)
load_testmod
[ -e /dev/tracerd ] || load_kmod
daemon_start
$C status
fn=$(sys_getpgid)
modes="fentry kprobe kprobe-int3 kprobe-multi kmod-callops kmod-direct kmod-kprobe"
for m in $modes; do
	if [ "$(feature "$m")" != true ]; then
		why=$(reason_of "$m")
		[ -n "$why" ] && [ "$why" != null ] || fail "$m unavailable without a reason"
		echo "mode $m unavailable: $why"
		# what Debian's kernels lack: fprobe on 6.1 and on arm64; the x86
		# int3 path past the fentry site on arm64 (all its kprobes are BRK)
		case "$KERNEL_NAME:$m" in
		6.1:kprobe-multi|*arm64:kprobe-multi|*arm64:kprobe-int3) continue ;;
		esac
		[ "$m" = kprobe-multi ] && fail "kprobe-multi must work on $KERNEL_NAME"
		case $m in kmod-*) [ -e /dev/tracerd ] && fail "$m unavailable with the module loaded" ;; *) fail "$m must work here" ;; esac
		continue
	fi
	lat=--latency
	case $m in kmod-*) lat= ;; esac
	id=$(attach_pid "$m" "$fn" trigger getpgid "$n")
	expect_eq "$m: $fn calls" "$(calls_of "$id")" "$n"
	if [ -n "$lat" ]; then
		$C detach "$id" > /dev/null
		id=$(ATTACH_FLAGS=--latency attach_pid "$m" "$fn" trigger getpgid "$n")
		st=$($C --json stats "$id")
		expect_eq "$m: $fn calls (latency)" "$(jp '.stats[0].calls' <<< "$st")" "$n"
		expect_eq "$m: latency samples" "$(jp '.stats[0].latency.count' <<< "$st")" "$n"
		expect_eq "$m: histogram total" "$(jp '.stats[0].latency.buckets[*].count' <<< "$st" | sum)" "$n"
	fi
	$C detach "$id" > /dev/null || fail "detach $id"
	id=$(attach_pid "$m" tracerd_testmod_target sh -c "echo $n > $TESTMOD_DBG/call")
	expect_eq "$m: tracerd_testmod_target calls" "$(calls_of "$id")" "$n"
	echo "$m: misses $($C --json stats "$id" | jp '.stats[0].misses' '.stats[0].misses_reason' | tr '\n' ' ')"
	$C detach "$id" > /dev/null || fail "detach $id"
done
expect_eq "attachments left" "$($C --json list | jp '.attachments|length')" 0
daemon_stop
