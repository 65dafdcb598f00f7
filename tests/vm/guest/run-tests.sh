#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# In-VM test runner: runs every tests/vm/guest/t/*.sh (or those named in
# /opt/tracerd/only) with its own timeout (300 s, or what the test's
# '# timeout: CI FULL' line asks for), prints '@@TEST name RESULT msg'
# per test, after its output and a 'time: NAME S s' line (guest wall
# time, for the make check budget). '# ci-kernels: K...' limits a test to
# those kernels (or variant boots, KERNEL@VARIANT) in the ci profile. A test exits 0 (pass), 77 (skip, reason on its last line) or
# anything else (fail). Kernel-log markers bracket each test so the
# harness can tell which test a kernel warning belongs to.
cd /opt/tracerd/tests || exit 1
export PROFILE=$(cat /opt/tracerd/profile 2>/dev/null || echo ci)
export KERNEL_NAME=$(cat /opt/tracerd/kernel-name 2>/dev/null)
# a variant boot's own name (6.12-arm64@mttcg), else the kernel's
BOOT_NAME=$(cat /opt/tracerd/boot-name 2>/dev/null || echo "$KERNEL_NAME")
tests=$(ls t/*.sh | sort)
[ -f /opt/tracerd/only ] && tests=$(sed 's#^#t/#; s#$#.sh#' /opt/tracerd/only)
fail=0
for t in $tests; do
	name=$(basename "$t" .sh)
	# a test whose kernel does not matter much may run on fewer kernels in
	# make check: a line '# ci-kernels: K...' (full runs it everywhere)
	ck=$(sed -n 's/^# ci-kernels: *//p' "$t" | head -n1)
	if [ -n "$ck" ] && [ "$PROFILE" != full ] && [[ " $ck " != *" $KERNEL_NAME "* ]] &&
		[[ " $ck " != *" $BOOT_NAME "* ]]; then
		echo "@@TEST $name SKIP make check runs it on $ck only (check-full: every kernel)"
		continue
	fi
	echo "tracerd-vm: test $name begin" > /dev/kmsg
	# a test may ask for more time: a line '# timeout: CI_SECONDS FULL_SECONDS'
	tmo=${TEST_TIMEOUT:-$(sed -n 's/^# timeout: *\([0-9]*\) *\([0-9]*\).*/\1 \2/p' "$t" | head -n1)}
	set -- $tmo
	if [ $# -eq 2 ] && [ "$PROFILE" = full ]; then tmo=$2; else tmo=${1:-300}; fi
	t0=$SECONDS
	out=$(timeout --kill-after=5 "$tmo" bash "$t" 2>&1)
	rc=$?
	echo "tracerd-vm: test $name end" > /dev/kmsg
	printf '%s\n' "$out" | sed 's/^/    /'
	# guest wall time (TCG): what a test costs the make check budget
	echo "    time: $name $((SECONDS - t0)) s"
	case $rc in
	0) echo "@@TEST $name PASS" ;;
	77) echo "@@TEST $name SKIP $(printf '%s\n' "$out" | tail -n1)" ;;
	124|137) echo "@@TEST $name FAIL timeout"; fail=1 ;;
	*) echo "@@TEST $name FAIL exit $rc: $(printf '%s\n' "$out" | tail -n1)"; fail=1 ;;
	esac
done
exit $fail
