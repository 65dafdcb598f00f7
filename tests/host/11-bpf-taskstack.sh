# SPDX-License-Identifier: GPL-2.0-or-later
# bpf/hook.bpf.h's per-task stack of entry times (what times a call in
# fentry/fexit, kprobe/kretprobe and kprobe.multi latency), driven by
# BPF_PROG_TEST_RUN on the host kernel: nested calls, a call returning out
# of order, holes, the ring wrapping at 16 open calls (one miss), a return
# with no entry; and the BPF build of the histogram bucket against the C
# one. tests/prog/taskstack.c says what each line checks.
set -u
[ "$(id -u)" = 0 ] || { echo "needs root to load BPF"; exit 77; }
"$O/tests/taskstack"
