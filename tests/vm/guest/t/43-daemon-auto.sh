# SPDX-License-Identifier: GPL-2.0-or-later
# Every row of the auto decision table (docs/auto.md) on this kernel, the
# module's comm filter through the daemon (every kmod mode: exact counts),
# and what a module older than ABI 1.6 (no comm filter) gets. On riscv64
# 6.12 (kernel_has entry_kprobe fails: no kprobe at a function's entry, its
# ftrace site) the rows whose answer is kprobe have no candidate left: the
# request fails (exit 6) with the kprobe probe's reason, and the explicit
# mode of row 6 is kprobe-int3 (past the site, +8).
# ci-kernels: 7.2
# (6.12-arm64 and the others in check-full: its 140 s on arm64 did not fit
# make check's hour, 2026-12-07)
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
# calls_as COMM N: N calls of the test module's target from a process
# named COMM (a copy of sh: its echo writes the call file itself)
calls_as() {
	cp -f /bin/sh "$TD/$1" && "$TD/$1" -c "echo $2 > $TESTMOD_DBG/call" ||
		fail "calls as $1"
}
calls_of_id() { $C --json stats "$1" | jp '.stats[*].calls' | sum; }
n43=300
# row 7: a comm filter: the module filters by comm (ABI 1.6) -> kmod-callops,
# counting only the calls of tasks so named (near misses: a prefix, one byte more)
expect_eq "row 7: one function, comm, module" "$(auto tracerd_testmod_target --comm trcd43)" \
	kmod-callops
reason | grep -q "the module is loaded" || fail "row 7: reason: $(reason)"
id=$(jp .attachment.id < "$TD/auto.json")
calls_as trcd43 $n43; calls_as trcd4 100; calls_as trcd43x 100
expect_eq "row 7: auto --comm trcd43 counts the calls of trcd43 only" "$(calls_of_id "$id")" $n43
$C detach --all > /dev/null
# every kmod mode with --comm (the daemon's batch ioctl, ATTACH_BATCH2), and
# with --latency where the module times calls: exact counts
for m in kmod-callops kmod-direct kmod-kprobe; do
	[ "$(feature $m)" = true ] || { echo "$m unavailable: $(reason_of $m)"; continue; }
	for lat in "" --latency; do
		out=$($C --json attach tracerd_testmod_target --mode $m --comm trcd43 $lat)
		rc=$?
		if [ -n "$lat" ] && [ $m = kmod-callops ] && ! kernel_has fprobe_lat; then
			expect_eq "kmod-callops --comm --latency without fprobe: unavailable" $rc 6
			continue
		fi
		[ $rc = 0 ] || fail "$m --comm $lat: $out"
		id=$(jp .attachment.id <<< "$out")
		calls_as trcd43 $n43; calls_as trcd4 100; calls_as trcd43x 100
		expect_eq "$m --comm trcd43 $lat: calls" "$(calls_of_id "$id")" $n43
		$C detach "$id" > /dev/null || fail "$m detach"
	done
done
# options the module lacks (error counting: a return value) -> fentry
# (kprobe without BPF trampolines: arm64 6.1)
want=fentry; [ "$(feature fentry)" = true ] || want=kprobe
expect_eq "row 7: one function, errors" "$(auto tracerd_testmod_target --errors)" "$want"
reason | grep -q "not kmod-callops: the mode has no error counting" || fail "row 7: reason: $(reason)"
$C detach --all > /dev/null
# row 3: many functions -> the module's kmod-callops (loaded here: one
# ftrace_ops over every address, exact counts)
expect_eq "row 3: many functions, module loaded" "$(auto 'tracerd_testmod_fn_0[0-9][0-9]')" kmod-callops
reason | grep -q "one ftrace_ops" || fail "row 3: reason: $(reason)"
id=$(jp .attachment.id < "$TD/auto.json")
expect_eq "row 3: functions hooked" "$($C --json list | jp '.attachments[0].functions|length')" 100
echo "5 7" > "$TESTMOD_DBG/call_fn"	# tracerd_testmod_fn_005, 7 times
expect_eq "row 3: calls counted" "$(calls_of_id "$id")" 7
$C detach --all > /dev/null
# the same without the module's modes (--errors: row 7) -> fentry-multi
# (7.x) or kprobe-multi (one link); without fprobe (6.1) fentry
want=kprobe-multi
[ "$(feature fentry-multi)" = true ] && want=fentry-multi
[ "$(feature kprobe-multi)" = true ] || want=fentry
[ "$(feature kprobe-multi)" = true ] || [ "$(feature fentry)" = true ] || want=kprobe
expect_eq "row 3: many functions, errors" "$(auto 'tracerd_testmod_fn_0[0-9][0-9]' --errors)" "$want"
[ $want = fentry ] && { reason | grep -q "not kprobe-multi" || fail "row 3: no reason for skipping kprobe-multi: $(reason)"; }
$C detach --all > /dev/null
# row 4: the function carries a direct call (kmod-direct) -> not fentry
if [ "$(feature kmod-direct)" = true ]; then
	$C attach tracerd_testmod_target --mode kmod-direct > /dev/null || fail "kmod-direct attach"
	# the module's callback shares the site with the direct call
	expect_eq "row 4: direct call taken, module" "$(auto tracerd_testmod_target --pid 1)" kmod-callops
	# error counting leaves the BPF modes: not fentry
	if kernel_has entry_kprobe; then
		expect_eq "row 4: direct call taken" "$(auto tracerd_testmod_target --pid 1 --errors)" kprobe
		reason | grep -q "direct call" || fail "row 4: reason lacks the direct call: $(reason)"
	else
		no_kprobe "row 4: direct call taken" 6 "not kprobe: .*Invalid argument" tracerd_testmod_target --pid 1 --errors
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
	# error counting leaves the BPF modes
	if kernel_has entry_kprobe; then
		expect_eq "row 5: fentry refused ($fn)" "$(auto "$fn" --errors)" kprobe
		reason | grep -q "not fentry" || fail "row 5: no reason: $(reason)"
	else
		no_kprobe "row 5: fentry refused ($fn)" 5 "not fentry: no BTF for function" "$fn" --errors
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
kernel_has entry_kprobe || want=$(first_available fentry fsession kprobe-session kprobe kprobe-multi)
expect_eq "row 9: one function, latency, module" "$(auto tracerd_testmod_target --latency)" $want
[ $want != kmod-callops ] && { reason | grep -q "not kmod-callops: the mode has no latency" ||
	fail "row 9: no reason for skipping kmod-callops: $(reason)"; }
kernel_has entry_kprobe || { reason | grep -q "not kmod-kprobe: " ||
	fail "row 9: no reason for skipping kmod-kprobe: $(reason)"; }
$C detach --all > /dev/null
# with a comm filter: the module still (ABI 1.6)
expect_eq "row 9: one function, latency, comm" "$(auto tracerd_testmod_target --latency --comm t43)" $want
$C detach --all > /dev/null
# without the module's options (errors): fentry/fexit, the cheapest BPF latency
expect_eq "row 9: one function, latency, errors" "$(auto tracerd_testmod_target --latency --errors)" \
	"$(first_available fentry fsession kprobe-session kprobe kprobe-multi)"
$C detach --all > /dev/null
# row 10: many functions, latency -> one session link
expect_eq "row 10: many functions, latency" "$(auto 'tracerd_testmod_fn_0[0-9][0-9]' --latency)" \
	"$(first_available fsession kprobe-session fentry-multi kprobe-multi fentry kprobe)"
$C detach --all > /dev/null
daemon_stop
# an older module (its VERSION answer made ABI 1.5 by a preload shim,
# tests/preload/kmod_abi_old.c): no comm filter. An explicit kmod mode with
# --comm is unavailable, naming ABI 1.6; auto passes over the module with
# that reason; without --comm the module is still chosen
shim=$(command -v kmod_abi_old.so) || fail "kmod_abi_old.so not in the payload"
DAEMON_WRAP="env LD_PRELOAD=$shim TRACERD_TEST_ABI_MINOR=5"
daemon_start
DAEMON_WRAP=
for m in kmod-callops kmod-direct kmod-kprobe; do
	[ "$(feature $m)" = true ] || continue
	out=$($C --json attach tracerd_testmod_target --mode $m --comm t43); rc=$?
	expect_eq "ABI 1.5 module: $m --comm: unavailable (exit)" $rc 6
	jp .error.message <<< "$out" | grep -q "older than ABI 1.6 (no comm filter" ||
		fail "ABI 1.5 module: $m --comm: message: $out"
done
want=fentry; [ "$(feature fentry)" = true ] || want=kprobe
expect_eq "ABI 1.5 module: auto --comm" "$(auto tracerd_testmod_target --comm t43)" "$want"
reason | grep -q "not kmod-callops: the mode has no comm here: kmod: the module is older than ABI 1.6" ||
	fail "ABI 1.5 module: auto --comm: reason: $(reason)"
echo "auto --comm with an ABI 1.5 module: $(reason)"
$C detach --all > /dev/null
expect_eq "ABI 1.5 module: auto without --comm" "$(auto tracerd_testmod_target)" kmod-callops
$C detach --all > /dev/null
daemon_stop
