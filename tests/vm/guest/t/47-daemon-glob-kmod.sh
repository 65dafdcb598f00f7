# SPDX-License-Identifier: GPL-2.0-or-later
# Glob attach of 100 functions in every kmod mode (the daemon resolves
# each name to its address and attaches them one by one); see 42.
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
daemon_stop
