# SPDX-License-Identifier: GPL-2.0-or-later
# A function carries one direct call: with a BPF fentry trampoline on the
# getpgid handler, a kmod-direct attachment there fails with EBUSY, while
# a kmod-callops attachment next to the fentry still counts exactly.
source ./lib.sh
load_kmod
modes=$(kmodctl features | sed -n 's/.*modes=\(0x[0-9a-f]*\).*/\1/p')
[ $(( modes & (1 << 2) )) != 0 ] || skip "kmod-direct not on this kernel"
sys=$(sys_getpgid)
bpf_smoke fentry "$sys" 2000000000 > /tmp/fentry.out 2>&1 & loader=$!
trap 'kill $loader 2>/dev/null; wait' EXIT
for _ in $(seq 600); do
	grep -q "^$sys " /sys/kernel/tracing/enabled_functions && break
	kill -0 $loader 2>/dev/null || fail "fentry loader: $(cat /tmp/fentry.out)"
	sleep 0.1
done
grep "^$sys " /sys/kernel/tracing/enabled_functions || fail "fentry not attached"
out=$(kmodctl attach direct "$sys"); rc=$?
expect_eq "direct on a function with a BPF fentry: errno" "$rc" 16
out=$(kmodctl count callops "$sys" 1000) || fail "callops next to fentry: $out"
echo "$out" | grep -q "^hits=1000 " || fail "callops next to fentry: $out"
echo "ok: callops next to fentry counts 1000"
kill $loader; wait
trap - EXIT
kmodctl clean || fail "not clean after the test"
unload_mod tracerd_kmod
