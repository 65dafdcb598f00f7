# SPDX-License-Identifier: GPL-2.0-or-later
# tracerd_kmod attach/detach cycles in every mode (50, 1000 with
# PROFILE=full) while the target runs hot in another process on the other
# vCPU: each cycle counts exactly this process's calls, and the leak
# accounting, enabled_functions and the kprobe list are clean afterwards.
# (The getpgid handler gets the same cycles in CI with 10 per mode; its
# exact counts are 20-kmod-attach's.)
source ./lib.sh
load_testmod
load_kmod
cycles=$(size 50 1000)
modes=$(kmodctl features | sed -n 's/.*modes=\(0x[0-9a-f]*\).*/\1/p')
has() { [ $(( modes & (1 << $1) )) != 0 ]; }
sys=$(sys_getpgid)
kmodctl hot tracerd_testmod_target & hot1=$!
kmodctl hot "$sys" & hot2=$!
trap 'kill $hot1 $hot2 2>/dev/null; wait' EXIT
for spec in callops:1 direct:2 kprobe:3 kprobe-int3:4; do
	m=${spec%:*}
	has "${spec#*:}" || { echo "skip: $m not on this kernel"; continue; }
	for f in tracerd_testmod_target "$sys"; do
		c=$cycles
		[ "$f" = "$sys" ] && c=$(size 10 "$cycles")
		out=$(kmodctl cycles "$m" "$f" "$c" 100) || fail "$m $f: $out"
		echo "ok: $m $f: $out"
		kmodctl stats --clean > /dev/null || fail "$m $f: leak: $(kmodctl stats)"
	done
done
kill $hot1 $hot2; wait
trap - EXIT
kmodctl clean || fail "not clean after the test"
unload_mod tracerd_kmod
