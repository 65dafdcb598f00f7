# SPDX-License-Identifier: GPL-2.0-or-later
# tracerd_kmod, every mode this kernel has: N calls of the test module's
# target and N getpgid syscalls of this process count exactly N (tgid
# filter: another process's calls land in `filtered`), several attachments
# on one function each count N, and everything is gone afterwards.
source ./lib.sh
load_testmod
load_kmod
n=$(size 1000 100000)
kmodctl features || fail "features ioctl"
modes=$(kmodctl features | sed -n 's/.*modes=\(0x[0-9a-f]*\).*/\1/p')
aflags=$(kmodctl features | sed -n 's/.*attach_flags=\(0x[0-9a-f]*\).*/\1/p')
# bit 5 stands for callops with SAVE_REGS
[ $(( aflags & 1 )) != 0 ] && modes=$(( modes | (1 << 5) ))
has() { [ $(( modes & (1 << $1) )) != 0 ]; }
expect_mode() { # NAME BIT: the mode works, or attaching says EOPNOTSUPP
	if has "$2"; then return 0; fi
	out=$(kmodctl attach "$1" tracerd_testmod_target); rc=$?
	expect_eq "$1 unavailable: errno" "$rc" 95
	return 1
}
sys=$(sys_getpgid)
for spec in callops:1 callops-regs:5 direct:2 kprobe:3 kprobe-int3:4; do
	m=${spec%:*}
	expect_mode "$m" "${spec#*:}" || continue
	# riscv64 6.12: a function's first instruction is its ftrace site and
	# without KPROBES_ON_FTRACE the kernel refuses a kprobe there
	if [ "$m" = kprobe ] && ! kernel_has entry_kprobe; then
		out=$(kmodctl attach kprobe tracerd_testmod_target); rc=$?
		expect_eq "kprobe at an ftrace site refused: errno (EADDRNOTAVAIL)" "$rc" 99
		continue
	fi
	for f in tracerd_testmod_target "$sys"; do
		out=$(kmodctl count "$m" "$f" "$n" --other 100) || fail "$m $f: $out"
		echo "$out" | grep -q "^hits=$n filtered=" || fail "$m $f: $out"
		echo "ok: $m $f counts $n (other tgid filtered)"
	done
	case $m in
	direct) ;;	# one direct call per function: see 21-kmod-faults
	*)	out=$(kmodctl count "$m" tracerd_testmod_target "$n" --repeat 3) ||
			fail "$m x3: $out"
		expect_eq "$m x3 attachments counting $n" \
			"$(echo "$out" | grep -c "^hits=$n ")" 3 ;;
	esac
done
# a kprobe-int3 probe sits past the ftrace site: x86 +5, or +9 behind
# ENDBR; riscv64 +8
if has 4; then
	probe=$(kmodctl count kprobe-int3 tracerd_testmod_target 1 | sed -n 's/.*probe=+\([0-9]*\).*/\1/p')
	case $(uname -m):$probe in
	x86_64:5|x86_64:9|riscv64:8) echo "ok: int3 probe at +$probe" ;;
	*) fail "int3 probe at +$probe" ;;
	esac
fi
kmodctl clean || fail "not clean after the test"
unload_mod tracerd_kmod
