# SPDX-License-Identifier: GPL-2.0-or-later
# Every row of the auto decision table (docs/auto.md) on this kernel. On
# riscv64 6.12 (kernel_has entry_kprobe fails: no kprobe at a function's
# entry, its ftrace site) the rows whose answer is kprobe have no candidate
# left: the request fails (exit 6) with the kprobe probe's reason, and the
# explicit mode of row 6 is kprobe-int3 (past the site, +8).
source ./t/40-daemon-lib.sh
load_testmod
[ -e /dev/tracerd ] || load_kmod
daemon_start
auto() { # TARGET -> mode chosen (the JSON reply is kept in $TD/auto.json)
	$C --json attach "$@" > "$TD/auto.json" || { cat "$TD/auto.json"; fail "auto attach $*"; }
	jp .attachment.mode < "$TD/auto.json"
}
reason() { jp .attachment.mode_reason < "$TD/auto.json"; }
# no_kprobe ROW EXIT WHY ARGS...: auto ARGS fails here for want of kprobe
# (riscv64 6.12) with exit status EXIT and WHY in the message: 6 and the
# kprobe probe's EINVAL when no candidate is left, 5 and fentry's "no BTF"
# when the last one left (fentry) finds no BTF for the function
no_kprobe() {
	local row=$1 want=$2 why=$3 out rc
	shift 3
	out=$($C --json attach "$@"); rc=$?
	echo "$row: $out"
	expect_eq "$row: no kprobe at the entry here, nothing left (exit)" $rc "$want"
	grep -q "$why" <<< "$out" || fail "$row: '$why' missing: $out"
}

# row 1: a tracepoint -> tp-btf
expect_eq "row 1: tracepoint" "$(auto tp:task/task_rename)" tp-btf
# row 2: one function -> the module's kmod-callops (it is loaded here)
expect_eq "row 2: one function, module loaded" "$(auto tracerd_testmod_target)" kmod-callops
reason | grep -q "the module is loaded" || fail "row 2: reason: $(reason)"
$C detach --all > /dev/null
# row 7: a comm filter, which the module lacks -> fentry
# (kprobe without BPF trampolines: arm64 6.1)
want=fentry; [ "$(feature fentry)" = true ] || want=kprobe
expect_eq "row 7: one function, comm" "$(auto tracerd_testmod_target --comm t43)" "$want"
reason | grep -q "not kmod-callops: the mode has no comm" || fail "row 7: reason: $(reason)"
$C detach --all > /dev/null
# row 3: many functions -> fentry-multi (7.x) or kprobe-multi (one link); without fprobe (6.1) fentry
want=kprobe-multi
[ "$(feature fentry-multi)" = true ] && want=fentry-multi
[ "$(feature kprobe-multi)" = true ] || want=fentry
[ "$(feature kprobe-multi)" = true ] || [ "$(feature fentry)" = true ] || want=kprobe
expect_eq "row 3: many functions" "$(auto 'tracerd_testmod_fn_0[0-9][0-9]')" "$want"
[ $want = fentry ] && { reason | grep -q "not kprobe-multi" || fail "row 3: no reason for skipping kprobe-multi: $(reason)"; }
$C detach --all > /dev/null
# row 4: the function carries a direct call (kmod-direct) -> not fentry
if [ "$(feature kmod-direct)" = true ]; then
	$C attach tracerd_testmod_target --mode kmod-direct > /dev/null || fail "kmod-direct attach"
	# the module's callback shares the site with the direct call
	expect_eq "row 4: direct call taken, module" "$(auto tracerd_testmod_target --pid 1)" kmod-callops
	# a comm filter leaves the BPF modes: not fentry
	if kernel_has entry_kprobe; then
		expect_eq "row 4: direct call taken" "$(auto tracerd_testmod_target --pid 1 --comm t43)" kprobe
		reason | grep -q "direct call" || fail "row 4: reason lacks the direct call: $(reason)"
	else
		no_kprobe "row 4: direct call taken" 6 "not kprobe: .*Invalid argument" tracerd_testmod_target --pid 1 --comm t43
	fi
	out=$($C --json attach tracerd_testmod_target --mode fentry --pid 2); rc=$?
	expect_eq "row 4: explicit fentry on a direct-call function (exit)" $rc 6
	echo "fentry next to kmod-direct: $(jp .error.message <<< "$out")"
	$C detach --all > /dev/null
else
	echo "row 4 skipped: kmod-direct unavailable: $(reason_of kmod-direct)"
fi
# row 5: fentry refused for this function (no BTF: a compiler clone) -> kprobe
fn=$(grep -E '^[a-z_0-9]+\.(constprop|isra)\.[0-9]+$' /sys/kernel/tracing/available_filter_functions |
	sort | uniq -u | grep -v -E '^(bpf|htab|ftrace|kprobe|rcu|perf)' | head -n1)
if [ -n "$fn" ]; then
	# the module needs no BTF
	expect_eq "row 5: no BTF ($fn), module" "$(auto "$fn")" kmod-callops
	$C detach --all > /dev/null
	# a comm filter leaves the BPF modes
	if kernel_has entry_kprobe; then
		expect_eq "row 5: fentry refused ($fn)" "$(auto "$fn" --comm t43)" kprobe
		reason | grep -q "not fentry" || fail "row 5: no reason: $(reason)"
	else
		no_kprobe "row 5: fentry refused ($fn)" 5 "not fentry: no BTF for function" "$fn" --comm t43
	fi
	$C detach --all > /dev/null
else
	echo "row 5 skipped: no compiler clone in available_filter_functions"
fi
# row 6: explicit mode: no choice made, "requested"
em=kprobe; kernel_has entry_kprobe || em=kprobe-int3
expect_eq "row 6: explicit" "$(auto tracerd_testmod_target --mode $em)" $em
expect_eq "row 6: reason" "$(reason)" requested
$C detach --all > /dev/null
# first_available MODE...: the first mode this kernel has
first_available() {
	local m
	for m in "$@"; do [ "$(feature "$m")" = true ] && { echo "$m"; return; }; done
}
# row 9: one function, latency -> the module's fprobe (kmod-callops) where
# the kernel has fprobe, else its kretprobe (kmod-kprobe)
# where neither (riscv64 6.12: no fprobe, no kretprobe at the entry) the
# BPF order below
want=kmod-kprobe; kernel_has fprobe_lat && want=kmod-callops
kernel_has entry_kprobe || want=$(first_available fsession kprobe-session fentry kprobe kprobe-multi)
expect_eq "row 9: one function, latency, module" "$(auto tracerd_testmod_target --latency)" $want
[ $want != kmod-callops ] && { reason | grep -q "not kmod-callops: the mode has no latency" ||
	fail "row 9: no reason for skipping kmod-callops: $(reason)"; }
kernel_has entry_kprobe || { reason | grep -q "not kmod-kprobe: " ||
	fail "row 9: no reason for skipping kmod-kprobe: $(reason)"; }
$C detach --all > /dev/null
# without the module's options (comm): a session form; without (6.1) row 2's order
expect_eq "row 9: one function, latency, comm" "$(auto tracerd_testmod_target --latency --comm t43)" \
	"$(first_available fsession kprobe-session fentry kprobe kprobe-multi)"
$C detach --all > /dev/null
# row 10: many functions, latency -> one session link
expect_eq "row 10: many functions, latency" "$(auto 'tracerd_testmod_fn_0[0-9][0-9]' --latency)" \
	"$(first_available fsession kprobe-session fentry-multi kprobe-multi fentry kprobe)"
$C detach --all > /dev/null
daemon_stop
