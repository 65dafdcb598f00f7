# SPDX-License-Identifier: GPL-2.0-or-later
# TRACERD_IOC_SITE decodes the call site of an attachment's function, and
# TRACERD_IOC_BENCH_ALL attaches one ops to every traceable function.
#  - kmod-direct alone: the site branches straight to its trampoline when
#    the trampoline is within branch range (x86_64: always, rel32; arm64:
#    128 MiB, so for kernel text only without KASLR), else through
#    ftrace_caller; with a callops on the same function it goes through
#    the shared caller, and back to the trampoline once that is gone.
#  - callops: through the caller; a kprobe-int3 leaves the site a nop.
#  - bench-all counts the module's tracee exactly once and leaves nothing.
# timeout: 300 900
source ./lib.sh
load_testmod
load_kmod
modes=$(kmodctl features | sed -n 's/.*modes=\(0x[0-9a-f]*\).*/\1/p')
has() { [ $(( modes & (1 << $1) )) != 0 ]; }
arch=$(uname -m)
sys=$(sys_getpgid)
field() { sed -n "s/\(^\|.* \)$1=\([^ ]*\).*/\2/p"; }

out=$(kmodctl site 999) && fail "site of an unknown id: $out"
expect_eq "site of an unknown id: errno" "$?" 2

out=$(kmodctl site callops tracerd_testmod_target) || fail "site callops: $out"
echo "$out"
expect_eq "callops site path" "$(echo "$out" | field path)" caller
if has 4; then
	out=$(kmodctl site kprobe-int3 tracerd_testmod_target) || fail "site int3: $out"
	expect_eq "kprobe-int3 site path" "$(echo "$out" | field path)" nop
fi

if has 2; then
	for f in tracerd_testmod_target "$sys"; do
		out=$(kmodctl site direct "$f" callops) || fail "site direct $f: $out"
		echo "$out"
		first=$(echo "$out" | sed -n 1p) mid=$(echo "$out" | sed -n 2p)
		last=$(echo "$out" | sed -n 3p)
		mb=$(echo "$first" | field tramp_mb)
		want=direct
		[ "$arch" = aarch64 ] && [ "$mb" -ge 128 ] && want=caller
		# riscv64 from 6.16 patches only the jalr of a fixed auipc to
		# ftrace_caller: a direct call always goes through it there
		[ "$arch" = riscv64 ] && kernel_has call_ops && want=caller
		expect_eq "direct on $f ($mb MiB away): path" "$(echo "$first" | field path)" "$want"
		if [ "$want" = direct ]; then
			expect_eq "direct on $f: target" "$(echo "$first" | field tramp)" same
		else
			expect_eq "direct on $f: target" "$(echo "$first" | field target)" ftrace_caller
		fi
		expect_eq "direct+callops on $f: path" "$(echo "$mid" | field path)" caller
		# arm64: a module function's call goes through its PLT to the same
		# ftrace_caller (the decoder follows the PLT)
		[ "$arch" = aarch64 ] &&
			expect_eq "direct+callops on $f: target" "$(echo "$mid" | field target)" ftrace_caller
		expect_eq "direct on $f after callops left: path" "$(echo "$last" | field path)" "$want"
		# the issue's fact: arm64 without KASLR branches straight to it
		if [ "$arch" = aarch64 ] && grep -qw nokaslr /proc/cmdline && [ "$f" = "$sys" ]; then
			expect_eq "arm64 nokaslr: direct on $f" "$want" direct
		fi
	done
fi

out=$(kmodctl bench-all direct) && fail "bench-all direct: $out"
expect_eq "bench-all direct: errno" "$?" 22
out=$(kmodctl bench-all callops --reserved 1) && fail "bench-all reserved: $out"
expect_eq "bench-all reserved: errno" "$?" 22
nfuncs=$(wc -l < /sys/kernel/tracing/available_filter_functions)
for m in callops callops-regs; do
	[ "$m" = callops-regs ] && [ $(( $(kmodctl features | field attach_flags) & 1 )) = 0 ] &&
		{ echo "skip: $m not on this kernel"; continue; }
	out=$(kmodctl bench-all "$m") || fail "bench-all $m: $out"
	echo "ok: bench-all $m over $nfuncs functions: $out"
	expect_eq "bench-all $m: tracee hits" "$(echo "$out" | field tracee_hits)" 1
	[ "$(echo "$out" | field hits)" -gt 1 ] || fail "bench-all $m counted no other call: $out"
	kmodctl clean || fail "not clean after bench-all $m"
done
kmodctl clean || fail "not clean after the test"
unload_mod tracerd_kmod
