#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-batch.sh [N]: kmod batch figures on this kernel (prints, asserts
# nothing): for callops and direct, attach/detach of ~1000 syscall handlers
# in one TRACERD_IOC_ATTACH_BATCH and of 256 of them one ATTACH at a time
# (the shape before batches), and the cost of N getpgid calls untraced,
# hooked alone (own ops), as a batch of one, and inside the ~1000 batch.
#   tests/vm/run --kernel 6.12 -- bash /opt/tracerd/tests/bench-batch.sh
source /opt/tracerd/tests/lib.sh
load_testmod
load_kmod
n=${1:-200000}
sys=$(sys_getpgid)
{ ksym_line "$sys"; kmod_syscall_list 999; } > /tmp/bb.all
ksym_line "$sys" > /tmp/bb.one
head -256 /tmp/bb.all > /tmp/bb.256
echo "kernel $(uname -r), $(wc -l < /tmp/bb.all) functions, $n calls"
for m in callops direct; do
	echo "== $m"
	kmodctl batch $m /tmp/bb.all --base "$sys" "$n" --count "$sys" "$n" | grep -v '^skip'
	kmodctl batch $m /tmp/bb.one --count "$sys" "$n" | sed 's/^/batch of one: /'
	kmodctl batch $m /tmp/bb.one --single --count "$sys" "$n" | sed 's/^/own ops: /'
	kmodctl batch $m /tmp/bb.256 | sed 's/^/256 batched: /'
	kmodctl batch $m /tmp/bb.256 --single | sed 's/^/256 single: /'
done
kmodctl clean
