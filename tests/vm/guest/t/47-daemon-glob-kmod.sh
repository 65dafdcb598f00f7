# SPDX-License-Identifier: GPL-2.0-or-later
# Glob attach of 100 functions in every kmod mode (the daemon resolves
# each name to its address and hands the module the whole glob in one
# TRACERD_IOC_ATTACH_BATCH); see 42.
# ci-kernels: 6.1 6.12-arm64
source ./t/40-daemon-lib.sh
load_testmod
load_kmod
daemon_start
glob_modes kmod-callops kmod-direct kmod-kprobe
# issue #20: weak symbols (W in /proc/kallsyms: COND_SYSCALL stubs) are
# hooked by the kmod modes as by the BPF ones (one symbol source)
awk '$2 ~ /^[wW]$/ && NF == 3 { print $3 }' /proc/kallsyms | sort -u > "$TD/weak"
sed 's/ .*//' /sys/kernel/tracing/available_filter_functions | sort -u |
	comm -12 "$TD/weak" - | grep '_sys_' | head -3 > "$TD/weak.trace"
[ -s "$TD/weak.trace" ] || fail "no traceable weak syscall stub in /proc/kallsyms"
while read -r fn; do
	for m in kprobe kmod-callops kmod-direct kmod-kprobe; do
		[ "$(feature "$m")" = true ] || continue
		out=$($C --json attach "$fn" --mode "$m") || fail "$m: weak '$fn': $out"
		expect_eq "$m: weak $fn hooked" "$(jp '.attachment.functions[0]' <<< "$out")" "$fn"
		$C detach "$(jp '.attachment.id' <<< "$out")" > /dev/null || fail "$m: detach $fn"
	done
done < "$TD/weak.trace"

# A name ftrace lists once but kallsyms has several functions of (static
# functions of different files): the kmod modes hook by address, and
# kallsyms' first copy is often not the traceable one (the kernel refused
# it, and a glob's batch was armed again in halves). The daemon takes the
# copy holding the call site of available_filter_functions_addrs (Linux
# 6.5): each such name whose first copy is not it is hooked, and ftrace
# patches it.
addrs=/sys/kernel/tracing/available_filter_functions_addrs
if [ -r "$addrs" ]; then
	sed 's/ .*//' /sys/kernel/tracing/available_filter_functions | sort | uniq -u > "$TD/once"
	awk 'FNR == 1 { pass++ }
	     pass == 1 { once[$1]; next }
	     pass == 2 { if (NF == 2 && ($2 in once)) site[$2] = $1; next }
	     $2 ~ /^[tTwW]$/ && ($3 in site) && NF == 3 {
		# kernel addresses: 16 hex digits each, compared as strings
		n[$3]++; if (n[$3] == 1) first[$3] = $1
		if ($1 "" <= site[$3] "" && $1 "" > best[$3] "") best[$3] = $1 }
	     END { for (f in n) if (n[f] > 1 && best[f] != first[f]) print f }' \
		"$TD/once" "$addrs" /proc/kallsyms | grep -v '^bpf_\|^perf_' | sort | head -3 > "$TD/dup"
	[ -s "$TD/dup" ] || fail "no name with a traceable copy other than kallsyms' first"
	while read -r fn; do
		for m in kmod-callops kmod-direct; do
			[ "$(feature "$m")" = true ] || continue
			out=$($C --json attach "$fn" --mode "$m") || fail "$m: '$fn' (kallsyms' first copy not the traceable one): $out"
			grep -q "^$fn " /sys/kernel/tracing/enabled_functions ||
				fail "$m: $fn hooked but not in enabled_functions"
			echo "ok: $m: $fn, its traceable copy, hooked and patched"
			$C detach "$(jp '.attachment.id' <<< "$out")" > /dev/null || fail "$m: detach $fn"
		done
	done < "$TD/dup"
else
	echo "no $addrs (before Linux 6.5): kallsyms' first copy, as before"
fi
daemon_stop

# issues #14, #16: the syscall glob (~1100 functions on x86_64, 415 on
# riscv64 6.12: at least 400 hooked, as 70-systemd asks on arm64) in one
# batch
# (TRACERD_IOC_ATTACH_BATCH): exact counts on getpgid, the refused ones
# skipped with their reason, detach leaving nothing; kill -9 of the
# daemon while batch-attached leaves nothing either. Prints (does not
# assert) the attach and detach times.
enabled=/sys/kernel/tracing/enabled_functions
sys=$(sys_getpgid)
n=$(size 200 10000)
daemon_start "max_glob_matches = 4096"
for m in kmod-callops kmod-direct; do
	[ "$(feature "$m")" = true ] || continue
	t0=$(date +%s%N)
	id=$(attach_pid "$m" '__*_sys_*' trigger getpgid "$n")
	ta=$(( ($(date +%s%N) - t0) / 1000000 ))
	st=$($C --json stats "$id")
	hooked=$(jp '.stats|length' <<< "$st")
	[ "$hooked" -ge 400 ] || fail "$m: only $hooked syscall functions hooked"
	expect_eq "$m: functions patched" "$(grep -c "^[^[:space:]]" $enabled)" "$hooked"
	expect_eq "$m: getpgid in the batch counted" \
		"$(paste <(jp '.stats[*].function' <<< "$st") <(jp '.stats[*].calls' <<< "$st") |
			awk -v f="$sys" '$1 == f { print $2 }')" "$n"
	t0=$(date +%s%N)
	$C detach "$id" > /dev/null || fail "$m: detach the batch"
	echo "attach-time $KERNEL_NAME $m $hooked syscall functions: attach ${ta} ms" \
		"(with $n calls), detach $(( ($(date +%s%N) - t0) / 1000000 )) ms"
	expect_eq "$m: enabled_functions after detach" "$(grep -c "^[^[:space:]]" $enabled)" 0
	# the daemon's fd stays open: nothing attached, no direct slot
	expect_eq "$m: module state after detach" \
		"$(kmodctl stats | sed -n 's/.*\(attachments=[0-9]*\).*\(direct_slots=[0-9]*\).*/\1 \2/p')" \
		"attachments=0 direct_slots=0"
done
for m in kmod-callops kmod-direct; do
	[ "$(feature "$m")" = true ] && break
done
$C attach '__*_sys_*' --mode "$m" > /dev/null || fail "$m: attach the batch before kill -9"
[ "$(grep -c "^[^[:space:]]" $enabled)" -ge 400 ] || fail "$m: batch not patched before kill -9"
kill -9 "$DPID"
wait "$DPID" 2>/dev/null
DPID=
kmodctl clean || fail "$m: kmod attachments or ftrace entries left after kill -9"
echo "ok: $m: kill -9 of the daemon detached the whole batch"
