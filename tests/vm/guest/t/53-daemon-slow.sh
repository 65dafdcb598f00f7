# SPDX-License-Identifier: GPL-2.0-or-later
# ci-kernels: 6.12
# Why it failed (issue #32 item 3): attach --errors --stacks keeps the
# stacks of the failing calls only, keyed by errno. One write of N to the
# test module's call_ret calls each tracerd_testmod_ret_*() N times:
# ret_errptr returns ERR_PTR(-ENOENT), ret_int -EBUSY, every call. Each
# BPF function mode the kernel has: exactly one stack row with that errno
# and count N, its frames from the return hook (printed: the first one is
# the function in fentry, its caller where the return runs after it), the
# module's call_ret write handler among them. A function that never fails
# (tracerd_testmod_target) has calls and no stack row.
source ./t/40-daemon-lib.sh
load_testmod
daemon_start
N=40
raw() { ctlraw "$SOCK" "$1"; }
stacks_of() { raw "{\"v\":1,\"cmd\":\"stats\",\"id\":1,\"args\":{\"id\":$1,\"stacks\":true}}"; }
frames() { jp ".result.stats[0].stacks.rows[$1].frames[*].sym" <<< "$2" | sed 's/^null$/?/'; }

tested=0
for m in fentry kprobe kprobe-multi kprobe-session fentry-multi fsession; do
	if [ "$(feature "$m")" != true ]; then
		echo "mode $m unavailable: $(reason_of "$m")"
		continue
	fi
	for fe in tracerd_testmod_ret_errptr:ENOENT tracerd_testmod_ret_int:EBUSY; do
		fn=${fe%%:*} e=${fe#*:}
		id=$($C --json attach "$fn" --mode "$m" --errors --stacks | jp .attachment.id) ||
			fail "$m $fn: attach --errors --stacks"
		echo "$N" > "$TESTMOD_DBG/call_ret" || fail "$m: write call_ret"
		st=$(stacks_of "$id") || fail "$m $fn: stats"
		expect_eq "$m $fn: calls" "$(jp '.result.stats[0].calls' <<< "$st")" $N
		expect_eq "$m $fn: errors" "$(jp '.result.stats[0].errors.total' <<< "$st")" $N
		expect_eq "$m $fn: one stack" "$(jp '.result.stats[0].stacks.distinct' <<< "$st")" 1
		expect_eq "$m $fn: its errno" "$(jp '.result.stats[0].stacks.rows[0].errno' <<< "$st")" "$e"
		expect_eq "$m $fn: its count" "$(jp '.result.stats[0].stacks.rows[0].count' <<< "$st")" $N
		expect_eq "$m $fn: dropped" "$(jp '.result.stats[0].stacks.dropped' <<< "$st")" 0
		f=$(frames 0 "$st" | tr '\n' ' ')
		echo "$m $fn: frames: $f"
		# at the return: fentry's exit trampoline runs in the function's
		# frame (it is first); a kretprobe's handler after it returned
		# (its caller, the write handler, is first: docs/limits.md)
		case $m in
		fentry) first=$fn ;;
		kprobe|kprobe-multi|kprobe-session) first=tm_call_ret_write ;;
		*) first=$(frames 0 "$st" | head -n 1) ;;	# not measured yet: printed
		esac
		expect_eq "$m $fn: first frame" "$(frames 0 "$st" | head -n 1)" "$first"
		case " $f" in *" tm_call_ret_write "*) ;;
			*) fail "$m $fn: the write handler is not in the stack: $f" ;; esac
		# the same in tracectl's text and folded forms
		$C stats "$id" --stacks | grep -qxF "@[errno $e," ||
			fail "$m $fn: text header: $($C stats "$id" --stacks)"
		expect_eq "$m $fn: folded root" "$($C stats "$id" --stacks --format folded | cut -d';' -f1)" "errno:$e"
		$C detach "$id" > /dev/null || fail "$m: detach"
	done
	# a function that never fails: its calls counted, no stack
	id=$($C --json attach tracerd_testmod_target --mode "$m" --errors --stacks | jp .attachment.id) ||
		fail "$m target: attach"
	echo "$N" > "$TESTMOD_DBG/call" || fail "$m: write call"
	st=$(stacks_of "$id") || fail "$m target: stats"
	expect_eq "$m target: calls" "$(jp '.result.stats[0].calls' <<< "$st")" $N
	expect_eq "$m target: no failing stack" "$(jp '.result.stats[0].stacks.total' <<< "$st")" 0
	$C detach "$id" > /dev/null || fail "$m: detach"
	tested=$((tested + 1))
done
[ $tested -gt 0 ] || skip "no BPF function mode on this kernel"
daemon_stop
