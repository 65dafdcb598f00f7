#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-batch.sh [N [ROUNDS]]: kmod batch figures on this kernel (prints,
# asserts nothing): for callops and direct, attach/detach of ~1000 syscall
# handlers in one TRACERD_IOC_ATTACH_BATCH and of 256 of them one ATTACH at
# a time (the shape before batches); ROUNDS times the cost of N getpgid
# calls untraced, hooked alone (own ops), as a batch of one and inside the
# ~1000 batch; then `tracectl bench trigger` of the kmod modes (the
# daemon's hook: a batch of one).
#   tests/vm/run --kernel 6.12 -- bash /opt/tracerd/tests/bench-batch.sh
source /opt/tracerd/tests/lib.sh
load_testmod
load_kmod
n=${1:-200000} rounds=${2:-3}
sys=$(sys_getpgid)
{ ksym_line "$sys"; kmod_syscall_list 999; } > /tmp/bb.all
ksym_line "$sys" > /tmp/bb.one
head -256 /tmp/bb.all > /tmp/bb.256
echo "kernel $(uname -r), $(wc -l < /tmp/bb.all) functions, $n calls, $rounds rounds"
for m in callops direct; do
	echo "== $m"
	kmodctl batch $m /tmp/bb.all | grep -v '^skip' | sed 's/^/all batched: /'
	kmodctl batch $m /tmp/bb.256 | sed 's/^/256 batched: /'
	kmodctl batch $m /tmp/bb.256 --single | sed 's/^/256 single: /'
	for r in $(seq "$rounds"); do
		kmodctl batch $m /tmp/bb.all --base "$sys" "$n" --count "$sys" "$n" |
			grep -E '^(base|hits)' | sed "s/^/round $r all: /"
		kmodctl batch $m /tmp/bb.one --count "$sys" "$n" | grep '^hits' |
			sed "s/^/round $r one: /"
		kmodctl batch $m /tmp/bb.one --single --count "$sys" "$n" | grep '^hits' |
			sed "s/^/round $r own ops: /"
	done
done
kmodctl clean
TD=/run/tracerd-bb
mkdir -p $TD
printf 'listen = off\nstate_dir = %s/state\n' $TD > $TD/tracerd.conf
tracerd --config $TD/tracerd.conf --socket $TD/s.sock 2> $TD/daemon.log &
dpid=$!
for _ in $(seq 1 300); do [ -S $TD/s.sock ] && break; sleep 0.1; done
tracectl --socket $TD/s.sock bench trigger --modes kmod-callops,kmod-direct -n "$n"
kill -TERM $dpid; wait $dpid
