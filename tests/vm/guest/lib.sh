# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for in-VM tests (tests/vm/guest/t/*.sh source this).
# A test exits 0 to pass, 77 to skip (reason on its last output line),
# anything else to fail; `fail MSG` prints MSG and exits 1.
# Environment: PROFILE (ci|full), KERNEL_NAME (6.1|6.12); binaries on PATH;
# modules in $KMOD_DIR; BPF objects in $BPF_DIR.
KMOD_DIR=/opt/tracerd/kmod
BPF_DIR=/opt/tracerd/bpf
TESTMOD_DBG=/sys/kernel/debug/tracerd_testmod

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
# size CI FULL — pick a size for the profile. riscv64 guests run five to
# ten times slower under TCG (make check: 41-daemon-modes 117 s against
# 22 s on x86_64, 20-kmod-attach 50 s against 14 s), so check-full takes a
# tenth of FULL there (never less than CI): each of its parts stays within
# the hour (tests/vm/README.md, "check-full in parts")
size() {
	if [ "${PROFILE:-ci}" != full ]; then echo "$1"
	elif [ "$(uname -m)" = riscv64 ]; then echo $(($2 / 10 > $1 ? $2 / 10 : $1))
	else echo "$2"; fi
}
# expect_eq WHAT GOT WANT
expect_eq() { [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"; echo "ok: $1 = $3"; }

load_testmod() {
	grep -q '^tracerd_testmod ' /proc/modules || insmod "$KMOD_DIR/tracerd_testmod.ko" || fail "insmod tracerd_testmod"
}
load_kmod() {
	grep -q '^tracerd_kmod ' /proc/modules || insmod "$KMOD_DIR/tracerd_kmod.ko" || fail "insmod tracerd_kmod"
}
unload_mod() { ! grep -q "^$1 " /proc/modules || rmmod "$1" || fail "rmmod $1"; }

# kernel_has FACT — FACT holds for this test kernel ($KERNEL_NAME), as its
# Debian config says; tests use it to tell "this kernel lacks it" from
# "broken". fprobe: CONFIG_FPROBE (kprobe.multi); call_ops:
# CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS; jmp_direct:
# CONFIG_DYNAMIC_FTRACE_WITH_JMP (jump-entered direct calls, BPF fexit);
# kprobe_session: kprobe.session (6.10+, and fprobe); fsession:
# BPF_TRACE_FSESSION(_MULTI) (7.x, x86_64 checked); tracing_multi:
# BPF_TRACE_FENTRY_MULTI/FEXIT_MULTI links (7.x, x86_64 checked).
# direct_calls: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS (kmod-direct, and
# on arm64 the BPF trampolines fentry/fexit need): all but arm64 6.1.
kernel_has() {
	case "$1:$KERNEL_NAME" in
	fprobe:6.12|fprobe:7.2|fprobe:7.2-arm64|fprobe:7.2-riscv64) return 0 ;;
	# the module's callops latency: an fprobe on rethook (6.5 to 6.13)
	fprobe_lat:6.12) return 0 ;;
	call_ops:6.12-arm64|call_ops:7.2-arm64|call_ops:7.2-riscv64) return 0 ;;
	jmp_direct:7.2) return 0 ;;
	kprobe_session:6.12|kprobe_session:7.2|kprobe_session:7.2-arm64|kprobe_session:7.2-riscv64) return 0 ;;
	fsession:7.2|tracing_multi:7.2) return 0 ;;
	# a kprobe at a traceable function's entry: riscv64 6.12's entry is its
	# ftrace site, and it has no KPROBES_ON_FTRACE (kprobe-int3 goes past it)
	entry_kprobe:6.12-riscv64) return 1 ;;
	entry_kprobe:*) return 0 ;;
	direct_calls:6.1-arm64) return 1 ;;
	direct_calls:*) return 0 ;;
	esac
	return 1
}

# bench_want KEY — the status a bench point KEY must have here: ok, or
# unavailable for the paths this kernel lacks (without direct calls, arm64
# 6.1: no BPF trampolines for fentry and its peers, no kmod-direct; riscv64
# 6.12: no kprobe at a traceable function's entry)
bench_want() {
	case $1 in
	fentry/*|ref-fentry/*|kmod-direct/*) kernel_has direct_calls || { echo unavailable; return; } ;;
	kprobe/*|ref-kprobe/*|kmod-kprobe/*) kernel_has entry_kprobe || { echo unavailable; return; } ;;
	esac
	echo ok
}

# syscall function name of getpgid on this arch
sys_getpgid() {
	case $(uname -m) in
	x86_64) echo __x64_sys_getpgid ;; aarch64) echo __arm64_sys_getpgid ;; riscv64) echo __riscv_sys_getpgid ;;
	esac
}

# Bracket a command that must produce a kernel WARN (harness self-test).
expect_warn_begin() { echo "tracerd-vm: expect-warn begin" > /dev/kmsg; }
expect_warn_end() { echo "tracerd-vm: expect-warn end" > /dev/kmsg; }

# kmod_syscall_list MAX: "ADDR NAME" of up to MAX traceable syscall handlers
# other than getpgid, each the only symbol at its address (not the weak
# COND_SYSCALL aliases: the module names an address by one symbol)
kmod_syscall_list() {
	sed 's/ .*//' /sys/kernel/tracing/available_filter_functions |
		grep -E '^__[a-z0-9]+_sys_[a-z0-9_]+$' | sort -u > /tmp/kmod-sys.want
	awk 'FNR == 1 { pass++ }
	     pass == 1 { want[$1]; next }
	     pass == 2 { at[$1]++; next }
	     NF == 3 && ($3 in want) && at[$1] == 1 && !seen[$3]++ { print $1, $3 }' \
		/tmp/kmod-sys.want /proc/kallsyms /proc/kallsyms |
		grep -v " $(sys_getpgid)\$" | head -"$1"
}
# ksym_line FUNC: "ADDR FUNC" of FUNC in /proc/kallsyms
ksym_line() { awk -v f="$1" '$3 == f { print $1, $3; exit }' /proc/kallsyms; }
