#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# dmesg-check.sh LOG — fail (exit 1) when a kernel log shows an oops, BUG,
# WARN, soft/hard lockup, RCU stall, panic or sanitizer report, printing an
# excerpt and the in-VM test it happened in. Lines between
# 'tracerd-vm: expect-warn begin' and '... end' are expected to hold such a
# report (the harness's own self-test): there, finding none is the failure
# (exit 2), since it means this detector is broken.
set -u
log=$1
awk '
function bad(s) {
	return s ~ /WARNING:|BUG:|Oops|general protection fault|kernel BUG at|soft lockup|hard LOCKUP|Kernel panic|rcu.*(detected stall|self-detected stall)|UBSAN:|KASAN:|hung_task|blocked for more than|list_(add|del) corruption|double free|Unable to handle kernel/
}
{ sub(/\r$/, ""); gsub(/\033\[[0-9;]*m/, "") }
/tracerd-vm: test [^ ]+ begin/ { for (i = 1; i <= NF; i++) if ($i == "test") test = $(i + 1) }
/tracerd-vm: expect-warn begin/ { expect = 1; seen = 0; next }
/tracerd-vm: expect-warn end/ {
	if (!seen) { printf "dmesg-check: expected WARN (test %s) was not detected\n", test; missed = 1 }
	expect = 0; next
}
{
	if (bad($0)) {
		if (expect) { seen = 1; nexp++; next }
		if (!found) printf "dmesg-check: kernel problem during test %s:\n", (test == "" ? "(boot)" : test)
		found = 1; ctx = 12
	}
	if (found && ctx > 0 && !expect) { print "    " $0; ctx-- }
}
END {
	if (found) exit 1
	if (missed) exit 2
	exit 0
}' "$log"
