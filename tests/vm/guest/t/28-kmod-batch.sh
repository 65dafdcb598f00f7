# SPDX-License-Identifier: GPL-2.0-or-later
# tracerd_kmod batch attach (TRACERD_IOC_ATTACH_BATCH), callops and direct:
# ~1000 traceable syscall handlers plus test module functions in one ioctl
# (one ftrace_ops for the whole batch), exact counts on the triggered ones,
# a function ftrace cannot hook refused on its own while the rest stay
# attached, a duplicate refused (EEXIST), one member detached alone,
# DETACH_BATCH leaving nothing (enabled_functions empty, STATS at rest);
# rmmod refused while batch-attached, the holder killed with SIGKILL
# detaching everything.
# ci-kernels: 6.1 7.2
source ./lib.sh
load_testmod
load_kmod
modes=$(kmodctl features | sed -n 's/.*modes=\(0x[0-9a-f]*\).*/\1/p')
has() { [ $(( modes & (1 << $1) )) != 0 ]; }
n=$(size 1000 100000)
sys=$(sys_getpgid)
T=tracerd_testmod_target
F=tracerd_testmod_fn_005
L=/tmp/batch.list
ready=/tmp/batch-ready
enabled=/sys/kernel/tracing/enabled_functions	# a direct call adds a "\tdirect-->" line
holder=
trap '[ -n "$holder" ] && kill -KILL $holder 2>/dev/null' EXIT

# getpgid first, ~1000 syscall handlers, then T, F, fn_006 (dropped
# below), the notrace function and T again (both refused)
# (a kernel with fewer syscall handlers, arm64 6.1: 432, is topped up to
# ~1000 with the test module's generated functions)
kmod_syscall_list 996 > /tmp/batch-sys.list
{ ksym_line "$sys"; ksym_line $T; ksym_line $F; ksym_line tracerd_testmod_fn_006
  cat /tmp/batch-sys.list
  awk '$3 ~ /^tracerd_testmod_fn_/ && $3 != "'$F'" && $3 != "tracerd_testmod_fn_006" { print $1, $3 }' \
	/proc/kallsyms | head -$((996 - $(wc -l < /tmp/batch-sys.list)))
  ksym_line tracerd_testmod_notrace; ksym_line $T; } > $L
total=$(wc -l < $L)
[ "$total" -ge 1000 ] || fail "only $total functions in the batch list"
echo "batch list: $total functions"

for m in callops direct; do
	case $m in direct) has 2 || { echo "direct: not on this kernel"; continue; } ;; esac
	out=$(kmodctl batch $m $L --drop tracerd_testmod_fn_006 \
		--count "$sys" "$n" --count $T "$n" --count $F "$n") || fail "$m batch: $out"
	echo "$out" | grep -v '^skip __' | head -20
	expect_eq "$m: attached" "$(echo "$out" | sed -n 's/^batch: done=\([0-9]*\) .*/\1/p')" $((total - 2))
	expect_eq "$m: notrace refused on its own" \
		"$(echo "$out" | grep -c '^skip tracerd_testmod_notrace EADDRNOTAVAIL$')" 1
	expect_eq "$m: duplicate refused" "$(echo "$out" | grep -c "^skip $T EEXIST\$")" 1
	expect_eq "$m: exact counts" "$(echo "$out" | grep -c "^hits=$n filtered=0 ")" 3
	expect_eq "$m: batch detach" "$(echo "$out" | sed -n 's/^detach: done=\([0-9]*\).*/\1/p')" $((total - 3))
	expect_eq "$m: enabled_functions after detach" "$(grep -c "^[^[:space:]]" $enabled)" 0
	kmodctl clean || fail "$m: not clean after DETACH_BATCH"

	# held: every function patched, rmmod refused, SIGKILL detaches all
	rm -f $ready
	kmodctl batch $m $L --hold $ready > /tmp/batch-hold.out 2>&1 & holder=$!
	for _ in $(seq 1200); do
		[ -e $ready ] && break
		kill -0 $holder 2>/dev/null || fail "$m holder: $(cat /tmp/batch-hold.out)"
		sleep 0.1
	done
	[ -e $ready ] || fail "$m holder not ready: $(cat /tmp/batch-hold.out)"
	expect_eq "$m: functions patched while held" "$(grep -c "^[^[:space:]]" $enabled)" $((total - 2))
	rmmod tracerd_kmod 2>/dev/null && fail "$m: rmmod succeeded while batch-attached"
	kill -KILL $holder; wait $holder 2>/dev/null; holder=
	kmodctl clean || fail "$m: not clean after SIGKILL of the batch holder"
	echo "ok: $m: SIGKILL of the holder detached the whole batch"
done

# The two ways into a direct trampoline (26 checks the site itself): alone
# on getpgid the site calls it (counted above); with a callops on the same
# function the site calls ftrace_caller, which jumps to it (x86_64: with
# the original stack; 7.x: the call site itself may also be a jmp for a
# jump-entered address, which the module refuses). Counts stay exact for a
# single direct attachment and for a batch member.
if has 2; then
	rm -f $ready
	kmodctl hold callops:"$sys" --signal-ready $ready > /tmp/batch-hold.out 2>&1 & holder=$!
	for _ in $(seq 600); do [ -e $ready ] && break; sleep 0.1; done
	[ -e $ready ] || fail "callops holder not ready: $(cat /tmp/batch-hold.out)"
	out=$(kmodctl count direct "$sys" "$n") || fail "direct beside callops: $out"
	echo "$out" | grep -q "^hits=$n filtered=" || fail "direct beside callops: $out"
	echo "ok: direct on $sys beside a callops counts $n (entered from ftrace_caller)"
	out=$(kmodctl batch direct $L --count "$sys" "$n") || fail "direct batch beside callops: $out"
	echo "$out" | grep -q "^hits=$n filtered=0 $sys " || fail "direct batch beside callops: $out"
	echo "ok: direct batch member $sys beside a callops counts $n"
	kill -KILL $holder; wait $holder 2>/dev/null; holder=
	kmodctl clean || fail "not clean after the direct-beside-callops checks"
fi
unload_mod tracerd_kmod
