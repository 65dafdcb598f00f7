# SPDX-License-Identifier: GPL-2.0-or-later
# The BPF hook paths newer kernels add (issue 14), each a mode: exact
# counts on the getpgid syscall handler, with latency (samples and
# histogram total = calls), on the test module's target, on a glob of 100
# functions (each counts exactly 2, with and without latency), a latency
# lower bound on tracerd_testmod_sleep, and the trampoline modes' return
# half on a glob with __noreturn functions (those skipped, the rest
# hooked). Where the kernel lacks one (kernel_has), status must list it
# unavailable with a reason.
# ci-kernels: 7.2 6.12-arm64
source ./t/40-daemon-lib.sh
n=$(size 1000 100000)
load_testmod
daemon_start
fn=$(sys_getpgid)
glob='tracerd_testmod_fn_0[0-9][0-9]'
us=2000 k=5

# one_function MODE: count, then count + latency, on the syscall handler
one_function() {
	local m=$1 id st
	id=$(attach_pid "$m" "$fn" trigger getpgid "$n")
	expect_eq "$m: $fn calls" "$(calls_of "$id")" "$n"
	$C detach "$id" > /dev/null || fail "$m: detach $id"
	id=$(ATTACH_FLAGS=--latency attach_pid "$m" "$fn" trigger getpgid "$n")
	st=$($C --json stats "$id")
	expect_eq "$m: $fn calls (latency)" "$(jp '.stats[0].calls' <<< "$st")" "$n"
	expect_eq "$m: latency samples" "$(jp '.stats[0].latency.count' <<< "$st")" "$n"
	expect_eq "$m: histogram total" "$(jp '.stats[0].latency.buckets[*].count' <<< "$st" | sum)" "$n"
	$C detach "$id" > /dev/null || fail "$m: detach $id"
	id=$(attach_pid "$m" tracerd_testmod_target sh -c "echo $n > $TESTMOD_DBG/call")
	expect_eq "$m: tracerd_testmod_target calls" "$(calls_of "$id")" "$n"
	$C detach "$id" > /dev/null || fail "$m: detach $id"
}

# glob_latency MODE: 100 functions timed, each 2 calls and 2 samples
glob_latency() {
	local m=$1 id st
	id=$(ATTACH_FLAGS=--latency attach_pid "$m" "$glob" sh -c "echo 2 > $TESTMOD_DBG/call_all")
	st=$($C --json stats "$id")
	expect_eq "$m: functions timed" "$(jp '.stats|length' <<< "$st")" 100
	expect_eq "$m: every function 2 calls" "$(jp '.stats[*].calls' <<< "$st" | sort -u | tr '\n' ' ')" "2 "
	expect_eq "$m: every function 2 samples" \
		"$(jp '.stats[*].latency.count' <<< "$st" | sort -u | tr '\n' ' ')" "2 "
	$C detach "$id" > /dev/null || fail "$m: detach $id"
}

# lower_bound MODE: no sample below the sleep
lower_bound() {
	local m=$1 id st min
	id=$(ATTACH_FLAGS=--latency attach_pid "$m" tracerd_testmod_sleep sh -c \
		"for i in \$(seq $k); do echo $us > $TESTMOD_DBG/sleep_us; done")
	st=$($C --json stats "$id")
	expect_eq "$m: sleep calls" "$(jp '.stats[0].calls' <<< "$st")" $k
	expect_eq "$m: sleep samples" "$(jp '.stats[0].latency.count' <<< "$st")" $k
	min=$(jp '.stats[0].latency.min_ns' <<< "$st")
	[ "$min" -ge $((us * 1000)) ] || fail "$m: a sample of $min ns is below the $us us sleep"
	echo "ok: $m: min $min ns >= $((us * 1000)) ns"
	$C detach "$id" > /dev/null || fail "$m: detach $id"
}

# noreturn MODE: a glob with the __noreturn exit handlers among others,
# timed: the kernel refuses a return half (fexit, fsession) on those it
# lists as __noreturn (x86_64: __x64_ and __ia32_sys_exit[_group]) and a
# multi link holding one of them as a whole; the rest attach, they are
# skipped
noreturn() {
	local m=$1 g out id hooked skipped exits='^__(x64|ia32|arm64)_sys_exit(_group)?$'
	g=$(if [ "$(uname -m)" = aarch64 ]; then echo '__arm64_sys_ex*'; else echo '__*_sys_ex*'; fi)
	out=$($C --json attach "$g" --mode "$m" --latency) || fail "$m: $g --latency: $out"
	id=$(jp '.attachment.id' <<< "$out")
	hooked=$(jp '.attachment.functions[*]' <<< "$out")
	skipped=$(jp '.skipped[*].function' <<< "$out")
	grep -q '_sys_execve$' <<< "$hooked" || fail "$m: $g: execve not hooked ($hooked)"
	[ -z "$skipped" ] || ! grep -Evq "$exits" <<< "$skipped" ||
		fail "$m: $g: skipped more than the exit handlers: $skipped"
	if [ "$(uname -m)" = x86_64 ]; then
		! grep -Eq "$exits" <<< "$hooked" || fail "$m: $g: an exit handler hooked with a return half"
		grep -qx '__x64_sys_exit' <<< "$skipped" || fail "$m: $g: __x64_sys_exit not skipped"
		grep -qx '__x64_sys_exit_group' <<< "$skipped" ||
			fail "$m: $g: __x64_sys_exit_group not skipped"
	fi
	echo "ok: $m --latency $g: $(wc -l <<< "$hooked") hooked, skipped: $(tr '\n' ' ' <<< "$skipped")" \
		"($(jp '.skipped[0].reason' <<< "$out"))"
	$C detach "$id" > /dev/null || fail "$m: detach $id"
}

# big_glob MODE: a glob of REGISTRY_JOB_MIN (512) functions or more
# (every name with sys_ in it: ~1500 on 7.2 x86_64), attached and
# detached as a job on the daemon's worker thread (struct bpf_job, the
# one link's create and close): every function hooked, the attaching
# pid's getpgid calls counted exactly, and nothing left in
# enabled_functions or of our BPF links after the detach. The times are
# printed, not asserted.
big_glob() {
	local m=$1 id n sys t0 ta
	sys=$(sys_getpgid)
	rm -f "$TD/bg.json"
	t0=$(date +%s%N)
	sh -c "$C --json --timeout 600 attach '*sys_*' --mode $m --latency --pid \$\$ > $TD/bg.json ||
		exit 99; exec trigger getpgid 40" || fail "$m: attach '*sys_*': $(head -c 600 "$TD/bg.json")"
	ta=$(ms_since "$t0")
	id=$(jp '.attachment.id' < "$TD/bg.json")
	n=$(jp '.attachment.functions|length' < "$TD/bg.json")
	[ "$n" -ge 512 ] || fail "$m: '*sys_*' hooked $n functions, fewer than the 512 of a job"
	jp '.attachment.functions[*]' < "$TD/bg.json" | grep -qx "$sys" || fail "$m: $sys not hooked"
	expect_eq "$m '*sys_*': $sys calls" \
		"$(calls_of "$sys")" 40
	t0=$(date +%s%N)
	$C --timeout 600 detach "$id" > /dev/null || fail "$m: detach '*sys_*'"
	expect_eq "$m '*sys_*': enabled_functions after the detach" "$(patched)" 0
	[ "$(our_links)" = 0 ] || { bpftool link show; bpftool prog show | grep -A2 session_hook; }
	expect_eq "$m '*sys_*': BPF links after the detach" "$(our_links)" 0
	echo "figures: $m '*sys_*': $n functions, attach ${ta} ms, detach $(ms_since "$t0") ms (TCG)"
}

# MODE:FACT — the mode works where kernel_has FACT
for row in kprobe-session:kprobe_session fsession:fsession fentry-multi:tracing_multi; do
	m=${row%%:*} fact=${row#*:}
	$C status | grep -q -- "$m" || fail "status does not list $m"
	if [ "$(feature "$m")" != true ]; then
		why=$(reason_of "$m")
		[ -n "$why" ] && [ "$why" != null ] || fail "$m unavailable without a reason"
		echo "mode $m unavailable on $KERNEL_NAME: $why"
		kernel_has "$fact" && fail "$m must work on $KERNEL_NAME"
		continue
	fi
	# a kernel not yet checked for it (7.2-arm64: fsession) is told, not failed
	kernel_has "$fact" || echo "note: $m works on $KERNEL_NAME: add it to kernel_has $fact"
	one_function "$m"
	glob_modes "$m"
	glob_latency "$m"
	lower_bound "$m"
	[ "$m" = kprobe-session ] || noreturn "$m"
	[ "$m" = kprobe-session ] && big_glob "$m"
done
expect_eq "attachments left" "$($C --json list | jp '.attachments|length')" 0
daemon_stop
