#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-glob.sh: attach and detach of a glob (default the arch's syscall
# handlers) with tracerd in each mode of MODES, then with bpftrace's kfunc
# and kprobe globs, in the same boot (a measurement, never a test).
# tracerd: wall time around `tracectl attach` and `tracectl detach`;
# bpftrace: from its start to its BEGIN probe's printf (it attaches every
# probe first; its own start is in it: compare the kprobe line, which
# kprobe.multi attaches at once) and from SIGINT to its exit.
#   tests/vm/run --kernel 6.12 -- bash /opt/tracerd/tests/bench-glob.sh
#   G='__x64_sys_*' MODES='fentry kprobe kprobe-multi' (the defaults on x86_64;
#   MODES='' for bpftrace only; kmod modes load tracerd_kmod)
# The whole syscall glob (G='__*_sys_*', 1132 functions on 6.12, 1150 on
# 7.2) in every mode: the table in docs/limits.md ("Big globs").
# 6.12 TCG, 435 functions, host busy with make check-full, two boots:
# tracerd fentry attach 24.3 and 19.3 s, detach 61.8 and 61.0 s; kprobe
# 23.5 and 22.9 / 48.5 and 54.8; kprobe-multi 0.95 and 0.91 / 0.62 and
# 0.56; bpftrace kfunc (437 probes) 63.4 and 67.5 / 60.3 and 62.2, its
# kprobe glob 12.0 and 10.8 / 0.6 and 0.6. With the default ulimit -n
# (1024) bpftrace 0.17 aborted on the kfunc glob.
source /opt/tracerd/tests/lib.sh
TD=/run/tracerd-glob
case " ${MODES-} " in *" kmod-"*) load_kmod ;; esac
mkdir -p "$TD"
printf 'listen = off\nstate_dir = %s/state\n' "$TD" > "$TD/c.conf"
tracerd --config "$TD/c.conf" --socket "$TD/s.sock" 2> "$TD/d.log" &
dpid=$!
for i in $(seq 300); do [ -S "$TD/s.sock" ] && break; sleep 0.1; done
[ -S "$TD/s.sock" ] || { cat "$TD/d.log"; fail "tracerd did not start"; }
ulimit -n 65536	# bpftrace needs an fd per kfunc probe and more
# their defaults refuse a big glob (512 probes in bookworm's 0.17; sid's
# bpftrace on 7.2 refused the syscall glob at 1024 programs)
export BPFTRACE_MAX_PROBES=100000 BPFTRACE_MAX_BPF_PROGS=100000
C="tracectl --socket $TD/s.sock --timeout 0"
G=${G:-"$(sys_getpgid | sed 's/getpgid$/*/')"}
ms() { date +%s%3N; }
# the daemon's CPU so far, user and kernel, in ms (/proc/PID/stat fields
# 14 and 15, in clock ticks): what a step cost tracerd's own code and what
# the kernel spent on its behalf (the syscalls: program loads, links,
# trampolines, ioctls)
hz=$(getconf CLK_TCK)
cpu() { awk -v hz="$hz" '{ printf "%d %d\n", $14 * 1000 / hz, $15 * 1000 / hz }' /proc/$dpid/stat; }
for mode in ${MODES-fentry kprobe kprobe-multi}; do
	read -r u0 k0 < <(cpu)
	t0=$(ms); out=$($C --json attach "$G" --mode "$mode"); t1=$(ms)
	read -r u1 k1 < <(cpu)
	id=$(jpath .attachment.id <<< "$out") || { echo "tracerd $mode: attach failed: $out"; continue; }
	n=$($C --json list | jpath '.attachments[0].functions|length')
	read -r u2 k2 < <(cpu)
	t2=$(ms); $C detach "$id" > /dev/null; t3=$(ms)
	read -r u3 k3 < <(cpu)
	echo "tracerd $mode: $n functions: attach $((t1 - t0)) ms (daemon CPU: user $((u1 - u0)) ms, kernel $((k1 - k0)) ms), detach $((t3 - t2)) ms (user $((u3 - u2)), kernel $((k3 - k2)))"
done
kill "$dpid"; wait "$dpid"
command -v bpftrace > /dev/null || { echo "bpftrace: not installed"; exit 0; }
for p in kfunc kprobe; do
	f=$TD/bt-$p.out
	t0=$(ms)
	bpftrace -e "$p:$([ $p = kfunc ] && echo vmlinux:)$G { @c = count(); } BEGIN { printf(\"ready\\n\"); }" \
		> "$f" 2>&1 &
	bp=$!
	for i in $(seq 12000); do grep -qx ready "$f" && break; kill -0 $bp 2>/dev/null || break; sleep 0.05; done
	t1=$(ms); kill -INT $bp; wait $bp; t2=$(ms)
	if grep -qx ready "$f"; then
		echo "bpftrace $p: $(grep -m1 -o 'Attach[a-z]* [0-9]* probes*' "$f" || head -n1 "$f"): ready after $((t1 - t0)) ms, exit $((t2 - t1)) ms after SIGINT"
	else
		echo "bpftrace $p: not attached after $((t1 - t0)) ms:"; head -c 2000 "$f"
	fi
done
