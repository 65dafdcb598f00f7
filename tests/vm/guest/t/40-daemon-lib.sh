# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for the tracerd VM tests (4x-daemon-*.sh source this file). Run
# as a test on its own, it checks that the daemon, the client and the
# trigger program are installed in the guest.
#   daemon_start [CONFIG]   private tracerd on /run/tracerd-test/s.sock; C=tracectl cmd
#                           ($DAEMON_WRAP, e.g. "prlimit --nofile=64:64", runs it)
#   daemon_stop             SIGTERM, exit 0, no hook left
#   jp PATH... < JSON       values at PATHs (jpath); sum: add numbers on stdin
#   attach_pid MODE TARGET CMD...   attach TARGET filtered to the pid that then runs CMD
#   our_links               BPF links of tracerd's programs
source ./lib.sh
TD=/run/tracerd-test
SOCK=$TD/s.sock
C="tracectl --socket $SOCK"
DPID=
DAEMON_WRAP=

# jp PATH... < JSON: values at PATHs (tests/prog/jpath.c syntax)
jp() { jpath "$@"; }
# emit_bench SUITE FILE: hand a bench result to the host (vm-check.sh keeps
# it as $O/results/bench/KERNEL-SUITE.json for the 6.1/6.12 compare)
emit_bench() { echo "==BENCH-JSON $1"; cat "$2"; echo; echo "==BENCH-END"; }
# sum of numbers on stdin
sum() { awk '{ s += $1 } END { print s + 0 }'; }

daemon_start() {
	mkdir -p "$TD"
	printf '%s\n' "${1:-}" > "$TD/tracerd.conf"
	$DAEMON_WRAP tracerd --config "$TD/tracerd.conf" --socket "$SOCK" -v 2> "$TD/daemon.log" &
	DPID=$!
	local i
	for i in $(seq 1 300); do
		# ready when it answers (a stale socket may exist before)
		[ -S "$SOCK" ] && $C status > /dev/null 2>&1 && return 0
		kill -0 "$DPID" 2>/dev/null || { cat "$TD/daemon.log"; fail "tracerd exited at start"; }
		sleep 0.1
	done
	fail "tracerd did not create its socket"
}

daemon_stop() {
	kill -TERM "$DPID" || fail "tracerd not running"
	wait "$DPID"
	local rc=$?
	DPID=
	expect_eq "tracerd exit after SIGTERM" "$rc" 0
	expect_eq "BPF links after SIGTERM" "$(our_links)" 0
	if [ -e /dev/tracerd ]; then
		kmodctl stats --clean > /dev/null || fail "kmod attachments left after SIGTERM"
		echo "ok: no kmod attachment left after SIGTERM"
	fi
}

daemon_cleanup() {
	if [ -n "$DPID" ]; then
		kill -TERM "$DPID" 2>/dev/null
		wait "$DPID" 2>/dev/null
		tail -n 30 "$TD/daemon.log" | sed 's/^/  daemon: /'
	fi
}
trap daemon_cleanup EXIT

feature() { $C --json status | jp ".features.$1.available"; }
reason_of() { $C --json status | jp ".features.$1.reason"; }

# attach_pid MODE TARGET CMD...: attach filtered to a fresh shell's pid
# (plus $ATTACH_FLAGS), then that shell execs CMD; prints the attachment id
attach_pid() {
	local mode=$1 target=$2
	shift 2
	sh -c 'id=$('"$C"' --json attach "$0" --mode "$1" '"${ATTACH_FLAGS:-}"' --pid $$ | jpath .attachment.id) || exit 99
		echo "$id" > '"$TD"'/last-id; shift; exec "$@"' "$target" "$mode" "$@" ||
		fail "attach $target --mode $mode or its command failed"
	cat "$TD/last-id"
}

calls_of() { $C --json stats "$1" | jp '.stats[*].calls' | sum; }

# BPF links whose program is one of tracerd's hooks (bpftool plain output:
# "ID: TYPE  name NAME ..." for programs, "ID: TYPE  prog PROG_ID" for links)
our_links() {
	local ids
	ids=$(bpftool prog show 2>/dev/null | sed -n -E \
		's/^([0-9]+): .* name (tp_btf_hit|raw_tp_hit|fentry_entry|fexit_return|kprobe_entry|kprobe_return|multi_entry|multi_return|session_hook|session_count|fsession_hook|fmulti_entry|fmulti_return)[a-z_]* .*/\1/p')
	bpftool link show 2>/dev/null | sed -n -E 's/^[0-9]+: .*prog ([0-9]+).*/\1/p' |
		grep -c -x -F "$(printf '%s\n' $ids 0)"
}

# for the attach '*' tests: the functions ftrace hooks now, the daemon's
# VmRSS in kB, the ms since a date +%s%N, and where the test's time goes
# (figures: TCG)
patched() { grep -c "^[^[:space:]]" /sys/kernel/tracing/enabled_functions; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' /proc/"$DPID"/status; }
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
phase() { echo "phase: $1 at ${SECONDS} s"; }

# for an attach '*' or its detach whose call runs on the daemon's worker
# thread (kmod-callops' batch ioctl, kprobe-multi's link create and close):
# answered_during LABEL PID OUT: while PID waits for its reply (OUT still
# empty: remove a stale one first, an earlier test of the boot may leave
# it), status is answered, each within 10 s (generous for TCG: the loop
# stays free; a loop held by the call answers only once it returns, 10 s
# and more here); answered_check LABEL then wants at least 2 answers. The
# slowest is a figure, not asserted.
answered_during() {
	local n=0 worst=0 t
	while kill -0 "$2" 2>/dev/null && [ ! -s "$3" ]; do
		t=$(date +%s%N)
		$C --timeout 10 status > /dev/null ||
			fail "$1: status not answered within 10 s while it ran (the loop is held)"
		t=$(ms_since "$t")
		[ "$t" -gt "$worst" ] && worst=$t
		[ -s "$3" ] || n=$((n + 1))
		sleep 0.3
	done
	ANSWERED=$n ANSWERED_WORST=$worst
}
# answered_check LABEL: at least 2 answers (after the request's own
# outcome was checked: a refusal says why first)
answered_check() {
	[ "$ANSWERED" -ge 2 ] || fail "$1: status answered only $ANSWERED times while it ran"
	echo "ok: $1: status answered $ANSWERED times while it ran (slowest $ANSWERED_WORST ms)"
}
# attaching_id OUT PID: the id of the attach that PID waits for (its reply
# to OUT), once list shows it attaching (the only attachment), its target
# resolved (progress.resolving false: the kernel is being asked)
attaching_id() {
	local i id
	for i in $(seq 1 300); do
		id=$($C --json list | jp '.attachments[0].id' '.attachments[0].state' \
			'.attachments[0].progress.resolving' | paste -sd' ')
		case $id in *" attaching false") echo "${id%% *}"; return 0 ;; esac
		[ -s "$1" ] && fail "the attach ended before it could be cut short: $(head -c 300 "$1")"
		kill -0 "$2" 2>/dev/null || fail "the attach client exited early"
		sleep 0.1
	done
	fail "no attachment in state attaching"
}

# stats_timed ID: attachment ID's stats into $TD/st.json, then --top 1
# into $TD/top1.json (the counters of all read and sorted, one row
# rendered: the read's share); their times in ms in tst and tst1
stats_timed() {
	local t0
	t0=$(date +%s%N)
	$C --json --timeout 600 stats "$1" > "$TD/st.json" || fail "stats of attachment $1"
	tst=$(ms_since "$t0")
	t0=$(date +%s%N)
	$C --json --timeout 600 stats "$1" --top 1 > "$TD/top1.json" ||
		fail "stats --top 1 of attachment $1"
	tst1=$(ms_since "$t0")
}

# attach_all_known ARGS N: attach '*' with ARGS from a shell that then
# makes the known calls (known_calls_script, N getpgid), status answered
# while it runs (answered_during, then answered_check once the attach's
# own outcome is checked); the reply in $TD/a.json (the reply files of an
# earlier test of the boot removed first: answered_during waits while it
# is empty), its time in ms in ta
attach_all_known() {
	local t0 apid
	t0=$(date +%s%N)
	rm -f "$TD/a.json" "$TD/d.json" "$TD/c.json" "$TD/s.json"
	sh -c "$(known_calls_script "$1" "$2")" > "$TD/calls.out" 2>&1 &
	apid=$!
	answered_during "attach '*'" "$apid" "$TD/a.json"
	wait "$apid" ||
		fail "attach '*' or the calls failed (exit $?): $(head -c 600 "$TD/a.json") $(cat "$TD/calls.out")"
	# (a smaller glob, ATTACH_TARGET, may be done before a second answer)
	[ "${ATTACH_TARGET:-*}" != '*' ] || answered_check "attach '*'"
	ta=$(ms_since "$t0")
}

# known_calls_script ARGS N: a shell script that attaches '*' with ARGS
# filtered to its own pid (the reply in $TD/a.json; exit 99 when refused),
# then makes the known calls (known_calls_check) from that pid: trigger is
# exec'd, the same pid
known_calls_script() {
	echo "$C --json --timeout 1800 attach '${ATTACH_TARGET:-*}' $1 --pid \$\$ > $TD/a.json || exit 99
	echo 3 > $TESTMOD_DBG/call_all && echo '5 2' > $TESTMOD_DBG/call_chain &&
	exec trigger getpgid $2"
}

# known_calls_check STATS_JSON HOOKED N: the exact counts of an attach '*'
# filtered to a shell that made the known calls once attached (every
# generated test function 3 times: call_all; the chain a -> b -> c 5 times
# and b -> c 2 more: call_chain '5 2'; getpgid N times), read from the
# attachment's stats reply of HOOKED rows (kept in $TD/calls); N empty:
# getpgid is not among them (a glob of the test module's functions)
known_calls_check() {
	local nr_fns sys
	sys=$(sys_getpgid)
	jp '.stats[*].function' '.stats[*].calls' < "$1" |
		awk -v n="$2" 'NR <= n { f[NR] = $0; next } { print f[NR - n] "\t" $0 }' > "$TD/calls"
	expect_eq "stats: functions" "$(wc -l < "$TD/calls")" "$2"
	nr_fns=$(cat $TESTMOD_DBG/nr_fns)
	expect_eq "each of the $nr_fns generated test functions counted 3" \
		"$(awk '$1 ~ /^tracerd_testmod_fn_[0-9a-f]+$/ && $2 == 3' "$TD/calls" | wc -l)" "$nr_fns"
	count_of() { awk -v f="$1" '$1 == f { print $2 }' "$TD/calls"; }
	expect_eq "tracerd_testmod_chain_a" "$(count_of tracerd_testmod_chain_a)" 5
	expect_eq "tracerd_testmod_chain_b" "$(count_of tracerd_testmod_chain_b)" 7
	expect_eq "tracerd_testmod_chain_c" "$(count_of tracerd_testmod_chain_c)" 7
	[ -z "$3" ] || expect_eq "$sys" "$(count_of "$sys")" "$3"
}

# glob_modes MODE...: attach tracerd_testmod_fn_0[0-9][0-9] (100 functions)
# in each available MODE filtered to a shell that calls every test function
# twice: each hooked function counts exactly 2. Prints (does not assert)
# the time to attach and to detach the 100.
glob_modes() {
	local glob='tracerd_testmod_fn_0[0-9][0-9]' m id st t0 ta
	for m in "$@"; do
		[ "$(feature "$m")" = true ] || { echo "mode $m unavailable: skipped"; continue; }
		t0=$(date +%s%N)
		id=$(attach_pid "$m" "$glob" sh -c "echo 2 > $TESTMOD_DBG/call_all")
		ta=$(( ($(date +%s%N) - t0) / 1000000 ))
		st=$($C --json stats "$id")
		expect_eq "$m: functions hooked" "$(jp '.stats|length' <<< "$st")" 100
		expect_eq "$m: every function counted 2" \
			"$(jp '.stats[*].calls' <<< "$st" | sort -u | tr '\n' ' ')" "2 "
		t0=$(date +%s%N)
		$C detach "$id" > /dev/null || fail "$m: detach"
		echo "attach-time $KERNEL_NAME $m 100 functions: attach ${ta} ms" \
			"(with 2048 calls), detach $(( ($(date +%s%N) - t0) / 1000000 )) ms"
	done
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	for b in tracerd tracectl trigger jpath bpftool; do
		command -v "$b" > /dev/null || fail "$b not installed in the guest"
	done
	expect_eq "jpath" "$(echo '{"a":[{"b":1},{"b":2}]}' | jp '.a[*].b' | sum)" 3
	echo "ok: tracerd, tracectl, trigger, jpath, bpftool present"
fi

# the ~1100-function syscall glob of issue #20 (x86_64: __x64_sys_* and
# __ia32_sys_*; arm64: __arm64_sys_*; riscv64: __riscv_sys_*, the native
# table only, as on arm64). make check (PROFILE=ci) takes the
# x86_64 part, __x64_sys_* (435 on 6.12): detaching ~1100 fentry hooks
# costs some 150 s of TCG per test, and the steps are seen with half of them
syscall_glob() {
	case $(uname -m) in
	aarch64) echo '__arm64_sys_*' ;;
	riscv64) echo '__riscv_sys_*' ;;
	*) if [ "${PROFILE:-ci}" = full ]; then echo '__*_sys_*'; else echo '__x64_sys_*'; fi ;;
	esac
}
# what that glob hooks at least: ~1100 (ci: 435 on 6.12) on x86_64, ~440 on arm64 (437 on 6.12)
# and riscv64
syscall_glob_min() {
	if [ "$(uname -m)" = aarch64 ] || [ "$(uname -m)" = riscv64 ]; then echo 400
	elif [ "${PROFILE:-ci}" = full ]; then echo 1000
	else echo 300; fi
}
