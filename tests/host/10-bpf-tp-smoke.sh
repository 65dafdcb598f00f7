# SPDX-License-Identifier: GPL-2.0-or-later
# A tp_btf program built by the Makefile (bpf/smoke.bpf.c, sys_enter filtered
# to this process's getpgid calls) attaches on the host kernel and counts
# exactly N.
set -u
[ "$(id -u)" = 0 ] || { echo "needs root to load BPF"; exit 77; }
for n in 1 1000 50000; do
	out=$("$O/tests/bpf_smoke" tp - "$n") || { echo "bpf_smoke tp failed: $out"; exit 1; }
	[ "$out" = "entry=$n exit=0" ] || { echo "tp_btf count: got '$out', want 'entry=$n exit=0'"; exit 1; }
	echo "ok: $out"
done
