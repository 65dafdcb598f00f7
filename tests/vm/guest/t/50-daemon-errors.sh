# SPDX-License-Identifier: GPL-2.0-or-later
# attach --errors: the calls that return an error, counted by errno, in
# every BPF function mode with a return hook this kernel has, filtered to
# the test's own tgid: getpgid(INT_MAX) fails with ESRCH exactly N times
# among 2N calls (N getpgid(0) succeed), close(-1) with EBADF N times (among
# the successful closes of the shell and the loader). With
# --latency too, both counts hold. The series in /metrics. Refused for a
# tracepoint and for kmod modes. With bpf_stats = on: each attachment's
# programs ran at least once per call and hook (entry and return), and a
# kprobe-session attachment (one program shared by all) has none.
# 64-bit returns (test module): a pointer or a long whose low half only
# reads -4095..-1 is no error, an ERR_PTR is, in every mode (make check:
# two of them).
# ci-kernels: 7.2 6.1-arm64
source ./t/40-daemon-lib.sh
command -v curl > /dev/null || skip "no curl in the guest"
n=$(size 200 20000)
PORT=9478
ip link set lo up 2>/dev/null	# the test boot brings up no network
load_testmod
[ -e /dev/tracerd ] || load_kmod
daemon_start "listen = 127.0.0.1:$PORT
bpf_stats = on"
fn=$(sys_getpgid)
close_fn=${fn%getpgid}close
got_errors() { jp '.stats[0].errors.by_errno[*].name' '.stats[0].errors.by_errno[*].errno' \
	'.stats[0].errors.by_errno[*].count' '.stats[0].errors.total' | tr '\n' ' '; }
tested=0
for m in fentry kprobe kprobe-multi kprobe-session fentry-multi fsession; do
	if [ "$(feature "$m")" != true ]; then
		echo "mode $m unavailable: $(reason_of "$m")"
		continue
	fi
	id=$(ATTACH_FLAGS=--errors attach_pid "$m" "$fn" trigger esrch "$n")
	st=$($C --json stats "$id")
	expect_eq "$m: $fn calls" "$(jp '.stats[0].calls' <<< "$st")" $((2 * n))
	expect_eq "$m: ESRCH errors" "$(got_errors <<< "$st")" "ESRCH 3 $n $n "
	expect_eq "$m: not timed" "$(jp '.stats[0].latency' <<< "$st")" null
	$C list | grep -q "counts error returns by errno" || fail "$m: list: $($C list)"
	expect_eq "$m: list --json errors" "$($C --json list | jp '.attachments[0].errors')" true
	# the kernel's run count: entry and return programs run for every
	# getpgid of the system (the pid filter runs inside them)
	runs=$(jp '.attachments[0].bpf_run.count' <<< "$st")
	if [ "$m" = kprobe-session ]; then
		expect_eq "$m: no run statistics" "$(jp '.attachments[0].bpf_run' <<< "$st")" null
		case $(jp '.attachments[0].bpf_run_reason' <<< "$st") in
		*"shared with other attachments"*) echo "ok: $m: why: a shared program" ;;
		*) fail "$m: bpf_run_reason '$(jp '.attachments[0].bpf_run_reason' <<< "$st")'" ;;
		esac
	else
		[ "$runs" -ge $((4 * n)) ] || fail "$m: bpf runs $runs < 2 x $((2 * n)) calls"
		echo "ok: $m: bpf runs $runs >= $((4 * n)) ($(jp '.attachments[0].bpf_run.programs' <<< "$st") programs)"
	fi
	curl -sf "http://127.0.0.1:$PORT/metrics" > "$TD/m.prom" || fail "GET /metrics"
	line=$(grep "^tracerd_function_errors_total{id=\"$id\",.*errno=\"ESRCH\"} " "$TD/m.prom") ||
		fail "$m: no tracerd_function_errors_total for $id"
	expect_eq "$m: prometheus ESRCH" "${line##* }" "$n"
	expect_eq "$m: one errno series" "$(grep -c "^tracerd_function_errors_total{id=\"$id\"," "$TD/m.prom")" 1
	$C detach "$id" > /dev/null || fail "detach $id"

	id=$(ATTACH_FLAGS="--errors --latency" attach_pid "$m" "$fn" trigger esrch "$n")
	st=$($C --json stats "$id")
	expect_eq "$m --latency: calls" "$(jp '.stats[0].calls' <<< "$st")" $((2 * n))
	expect_eq "$m --latency: latency samples" "$(jp '.stats[0].latency.count' <<< "$st")" $((2 * n))
	expect_eq "$m --latency: ESRCH errors" "$(got_errors <<< "$st")" "ESRCH 3 $n $n "
	$C detach "$id" > /dev/null || fail "detach $id"

	id=$(ATTACH_FLAGS=--errors attach_pid "$m" "$close_fn" trigger ebadf "$n")
	st=$($C --json stats "$id")
	# the shell and the dynamic loader close fds of their own (successfully)
	c=$(jp '.stats[0].calls' <<< "$st")
	[ "$c" -ge "$n" ] || fail "$m: $close_fn calls $c < $n"
	expect_eq "$m: EBADF errors" "$(got_errors <<< "$st")" "EBADF 9 $n $n "
	$C stats "$id" | grep -q "errors: $n (EBADF $n)" || fail "$m: stats text: $($C stats "$id")"
	echo "ok: $m: tracectl stats prints the errors"
	$C detach "$id" > /dev/null || fail "detach $id"
	tested=$((tested + 1))
done
# fentry and kprobe at least; arm64 6.1 has no direct calls, so no fentry;
# riscv64 6.12 no kprobe at a function's entry (its ftrace site)
want=0
kernel_has direct_calls && want=$((want + 1))
kernel_has entry_kprobe && want=$((want + 1))
[ "$tested" -ge $want ] || fail "only $tested modes could count errors (want $want: fentry where direct calls, kprobe where an entry kprobe)"

# 64-bit returns: an error is -4095..-1 in all 64 bits (the upper half
# all ones), an int's in its low 32. One glob attachment per mode on the
# test module's tracerd_testmod_ret_* (one program shared by the four in
# the multi modes), each called nr times: a pointer and a long whose low
# 32 bits read -EBUSY count no error, ERR_PTR(-ENOENT) counts ENOENT, the
# int -EBUSY counts EBUSY.
nr=$(size 100 5000)
want_ret="tracerd_testmod_ret_errptr: $nr ENOENT 2 $nr $nr
tracerd_testmod_ret_int: $nr EBUSY 16 $nr $nr
tracerd_testmod_ret_long: $nr 0
tracerd_testmod_ret_ptr: $nr 0"
ret_errors() {	# < stats JSON: "FUNCTION: CALLS NAME ERRNO COUNT TOTAL" per function
	local st i
	st=$(cat)
	for i in $(seq 0 $(($(jp '.stats|length' <<< "$st") - 1))); do
		echo "$(jp ".stats[$i].function" <<< "$st"): $(jp ".stats[$i].calls" \
			".stats[$i].errors.by_errno[*].name" ".stats[$i].errors.by_errno[*].errno" \
			".stats[$i].errors.by_errno[*].count" ".stats[$i].errors.total" <<< "$st" |
			tr '\n' ' ' | sed 's/ $//')"
	done | sort
}
# Every mode in check-full; make check (~4 s a mode under TCG) takes one
# with a program per function (fentry, else kprobe) and one whose program
# serves the whole glob: the errors' code is the same in all, and the
# syscalls above (long returns) already show each mode's 64-bit errors.
tested=0 kinds=
for m in fentry kprobe kprobe-multi kprobe-session fentry-multi fsession; do
	[ "$(feature "$m")" = true ] || continue
	if [ "${PROFILE:-ci}" != full ]; then
		case $m in fentry|kprobe) k=clone ;; *) k=shared ;; esac
		[[ " $kinds " == *" $k "* ]] && { echo "$m: check-full only"; continue; }
		kinds="$kinds $k"
	fi
	t0=$(date +%s%N)
	id=$(ATTACH_FLAGS=--errors attach_pid "$m" 'tracerd_testmod_ret_*' \
		sh -c "echo $nr > $TESTMOD_DBG/call_ret")
	expect_eq "$m: errors of 64-bit and int returns" "$($C --json stats "$id" | ret_errors)" \
		"$want_ret"
	$C detach "$id" > /dev/null || fail "detach $id"
	echo "ret-time $KERNEL_NAME $m: $(( ($(date +%s%N) - t0) / 1000000 )) ms (attach, $nr calls, detach)"
	tested=$((tested + 1))
done
[ "${PROFILE:-ci}" = full ] || [ "$want" -eq 0 ] || want=1
[ "$tested" -ge $want ] || fail "only $tested modes counted the 64-bit returns (want $want)"

# no return value, no errors: a tracepoint, the module's modes
out=$($C attach tp:task/task_rename --errors 2>&1) && fail "tp --errors accepted"
case $out in *"has no return value"*) echo "ok: tp --errors refused: $out" ;; *) fail "tp --errors: $out" ;; esac
for m in kmod-callops kmod-direct kmod-kprobe; do
	out=$($C attach "$fn" --mode "$m" --errors 2>&1) && fail "$m --errors accepted"
	case $out in *"mode $m has no error counting"*) echo "ok: $m --errors refused: $out" ;;
		*) fail "$m --errors: $out" ;; esac
done
expect_eq "nothing attached by the refusals" "$($C --json list | jp '.attachments|length')" 0
daemon_stop
