# SPDX-License-Identifier: GPL-2.0-or-later
# tracectl sites --live (TRACERD_IOC_SITES through the daemon): one test
# module function per attach mode the kernel offers, one left untraced,
# and each call site must show the right kind, agreeing with
# enabled_functions:
#   untraced              nop, not in enabled_functions
#   kmod-direct           tracerd_trampoline (arm64 out of bl range, or
#                         riscv64 with CALL_OPS: caller, whose literal
#                         ops is tracerd's)
#   fentry                bpf_trampoline (same arm64 caveat: caller, the
#                         literal's ops calling bpf_trampoline_*)
#   kmod-callops, kprobe  x86_64: ops_trampoline (the ops' own dynamic
#                         trampoline, named by enabled_functions' tramp:);
#                         elsewhere caller, arm64 CALL_OPS: the literal
#                         tracerd's / another ops; a kprobe
#                         without KPROBES_ON_FTRACE is no ftrace user
#                         (arm64: a BRK at the entry)
# and every site back to nop once all are detached. The module's own
# checks: address 0, an unknown address, one inside a function, a
# notrace function and data are refused entry by entry; 65 entries E2BIG.
# timeout: 240 600
# x86 6.1 showed the kinds x86 6.12 does: make check runs it on 6.12 and
# 6.1-arm64 (no CALL_OPS; 6.12-arm64's CALL_OPS sites: 26-kmod-site and
# the nokaslr boot), check-full everywhere
# ci-kernels: 6.12 6.1-arm64
source ./t/40-daemon-lib.sh
load_testmod
[ -e /dev/tracerd ] || load_kmod
arch=$(uname -m)
feat=$(kmodctl features) || fail "kmodctl features"
fflag() { echo "$feat" | sed -n "s/.* $1=\([01]\).*/\1/p"; }
kp_ftrace=$(fflag kprobes_on_ftrace)
call_ops=$(fflag call_ops)
[ -n "$kp_ftrace" ] && [ -n "$call_ops" ] || fail "kmodctl features: $feat"
# the module reads the CALL_OPS literal on arm64 only (riscv64 7.x has
# CALL_OPS too: its sites all go through ftrace_caller, literal not read)
callops_lit=0
[ "$arch" = aarch64 ] && callops_lit=$call_ops
# one ftrace_ops alone on a function: x86_64 calls its own trampoline
one_ops=caller
[ "$arch" = x86_64 ] && one_ops=ops_trampoline

# --- the module's ioctl, bad input first (errno per entry)
# module data symbols are in kallsyms only with KALLSYMS_ALL (not 6.1 arm64)
data=
grep -q ' tracerd_testmod_data' /proc/kallsyms && data=tracerd_testmod_data
out=$(kmodctl sites 0x0 0x1 tracerd_testmod_target+1 tracerd_testmod_notrace \
	$data tracerd_testmod_target 2>&1) || fail "kmodctl sites: $out"
echo "$out"
ent() { echo "$out" | awk -v k="$1" '$1 == k { print $2; exit }'; }
expect_eq "sites: address 0" "$(ent 0x0)" error=22
expect_eq "sites: no symbol there" "$(ent 0x1)" error=6
expect_eq "sites: inside a function" "$(ent tracerd_testmod_target+1)" error=3
expect_eq "sites: notrace function" "$(ent tracerd_testmod_notrace)" error=99
[ -n "$data" ] && expect_eq "sites: data" "$(ent $data)" error=99
expect_eq "sites: untraced function" "$(ent tracerd_testmod_target)" kind=0
expect_eq "sites: done" "$(echo "$out" | sed -n 's/^sites: done=\([0-9]*\).*/\1/p')" 1
out=$(kmodctl sites $(for i in $(seq 65); do echo 0x1; done)) && fail "65 entries: $out"
expect_eq "sites: 65 entries: errno" "$?" 7
out=$(kmodctl sites --reserved 1 0x1) && fail "reserved: $out"
expect_eq "sites: reserved: errno" "$?" 22
kmodctl clean || fail "not clean after the sites ioctls"

# --- through the daemon
echo "t=${SECONDS}s: module checks done"
daemon_start
echo "t=${SECONDS}s: daemon up"
ST=$($C --json status) || fail "status"
has_mode() { [ "$(jp ".features.$1.available" <<< "$ST")" = true ]; }
out=$($C sites --live tracerd_testmod_notrace 2>&1) && fail "notrace function listed: $out"
expect_eq "sites --live notrace: exit" "$?" 5
out=$($C sites --live 'tp:sched/*' 2>&1) && fail "tracepoint glob accepted: $out"
expect_eq "sites --live tp: exit" "$?" 2

F=tracerd_testmod_fn_
all="${F}000 ${F}001 ${F}002 ${F}003 ${F}004 ${F}005"
live() { $C --json sites --live "${F}00[0-5]"; }
# relive: L = a fresh `live` result; R[FN.FIELD] its fields (one jp a field)
declare -A R
relive() {
	local fld i names vals
	L=$(live) || fail "sites --live: $L"
	R=()
	mapfile -t names < <(jp '.sites[*].name' <<< "$L")
	for fld in kind enabled enabled_with target_sym ops; do
		mapfile -t vals < <(jp ".sites[*].$fld" <<< "$L")
		for i in "${!names[@]}"; do R[${names[$i]}.$fld]=${vals[$i]}; done
	done
}
# row FN .FIELD: FIELD of FN's entry in $L (.ops.KEY: a key of its CALL_OPS literal)
row() {
	local k=${2#.}
	[ -n "${R[$1.kind]+x}" ] || fail "$1 not in sites --live"
	case $k in
	ops.*) sed -n "s/.*\"${k#ops.}\":\"\([^\"]*\)\".*/\1/p" <<< "${R[$1.ops]}" ;;
	*) echo "${R[$1.$k]}" ;;
	esac
}
relive
expect_eq "sites --live: functions" "$(jp '.sites|length' <<< "$L")" 6
for f in $all; do
	expect_eq "before: $f kind" "$(row "$f" .kind)" nop
	expect_eq "before: $f enabled" "$(row "$f" .enabled)" false
done

declare -A fn_of=([kmod-direct]=${F}001 [kmod-callops]=${F}002 [fentry]=${F}003
	[kprobe]=${F}004 [kmod-kprobe]=${F}005)
for m in kmod-direct kmod-callops fentry kprobe kmod-kprobe; do
	if ! has_mode "$m"; then
		echo "skip: $m unavailable here: $(jp ".features.$m.reason" <<< "$ST")"
		# only arm64 6.1 lacks direct calls (no kmod-direct, no fentry);
		# riscv64 6.12 refuses kprobes at a traceable function's entry
		case $m in kmod-direct|fentry) ! kernel_has direct_calls && continue ;; esac
		case $m in kprobe|kmod-kprobe) ! kernel_has entry_kprobe && continue ;; esac
		fail "$m must work on $KERNEL_NAME"
	fi
	$C attach "${fn_of[$m]}" --mode "$m" > /dev/null || fail "attach $m ${fn_of[$m]}"
done
relive
echo "t=${SECONDS}s: attached"
$C sites --live "${F}00[0-5]"

# ops_is FN KIND [CALL_GLOB]: the CALL_OPS literal of FN is KIND's (and calls CALL_GLOB)
ops_is() {
	expect_eq "$1: literal ops kind" "$(row "$1" .ops.kind)" "$2"
	[ -z "${3:-}" ] || [[ $(row "$1" .ops.call_sym) == $3 ]] ||
		fail "$1: literal ops calls $(row "$1" .ops.call_sym), want $3"
}
for m in kmod-direct kmod-callops fentry kprobe kmod-kprobe; do
	f=${fn_of[$m]}
	has_mode "$m" || continue
	k=$(row "$f" .kind) en=$(row "$f" .enabled) with=$(row "$f" .enabled_with)
	echo "site-kind $KERNEL_NAME $m: kind=$k target=$(row "$f" .target_sym)" \
		"ops=$(row "$f" .ops) enabled_with=$with"
	case $m in
	kmod-direct|fentry)
		want=tracerd_trampoline call='tracerd_direct*'
		[ "$m" = fentry ] && want=bpf_trampoline call='bpf_trampoline_*'
		if [ "$k" = caller ] && [ "$call_ops" != 0 ]; then
			# out of bl range (arm64), or riscv64 7.x: ftrace_caller,
			# then the literal's direct call
			if [ "$callops_lit" != 0 ]; then
				[ "$m" = fentry ] && ops_is "$f" other "$call" || ops_is "$f" tracerd
			fi
		else
			expect_eq "$m: $f kind" "$k" "$want"
			[ "$m" = fentry ] && [[ $(row "$f" .target_sym) != bpf_trampoline_* ]] &&
				fail "fentry: target $(row "$f" .target_sym)"
		fi
		expect_eq "$m: $f enabled" "$en" true
		[[ $with == *direct-\-\>* ]] || fail "$m: no direct call in enabled_functions: $with"
		;;
	kmod-callops)
		expect_eq "$m: $f kind" "$k" "$one_ops"
		[ "$callops_lit" != 0 ] && ops_is "$f" tracerd
		expect_eq "$m: $f enabled" "$en" true
		;;
	kprobe|kmod-kprobe)
		if [ "$kp_ftrace" != 0 ]; then
			expect_eq "$m: $f kind" "$k" "$one_ops"
			expect_eq "$m: $f enabled" "$en" true
			[ "$callops_lit" != 0 ] && ops_is "$f" other
		else
			# a breakpoint on the entry, not an ftrace user
			case $k in nop|unknown) ;; *) fail "$m: $f kind $k without kprobes on ftrace" ;; esac
			expect_eq "$m: $f enabled" "$en" false
			[ "$callops_lit" != 0 ] && ops_is "$f" nop
		fi
		;;
	esac
	# enabled_functions agrees: an ftrace user iff the site branches
	if [ "$en" = true ]; then
		[ "$k" != nop ] || fail "$m: $f enabled but its site is a nop"
	else
		grep -q "^$f " /sys/kernel/tracing/enabled_functions &&
			fail "$m: $f in enabled_functions but not reported enabled"
	fi
done
expect_eq "untraced ${F}000 kind" "$(row "${F}000" .kind)" nop
expect_eq "untraced ${F}000 enabled" "$(row "${F}000" .enabled)" false
[ "$callops_lit" != 0 ] && expect_eq "untraced ${F}000: literal ops" \
	"$(row "${F}000" .ops.kind)" nop

$C detach --all > /dev/null || fail "detach --all"
# a BPF trampoline leaves when its link's last reference goes: allow it a moment
for i in $(seq 50); do
	relive
	[ "$(jp '.sites[*].kind' <<< "$L" | sort -u)" = nop ] && break
	sleep 0.2
done
for f in $all; do
	expect_eq "after detach: $f kind" "$(row "$f" .kind)" nop
	expect_eq "after detach: $f enabled" "$(row "$f" .enabled)" false
done
echo "t=${SECONDS}s: detached"
daemon_stop
kmodctl clean || fail "not clean after the test"
