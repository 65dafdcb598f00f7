# SPDX-License-Identifier: GPL-2.0-or-later
# Harness self-test: the test module's WARN trigger must be seen by the
# harness's kernel-log checker. The WARN is bracketed as expected; the
# checker fails the run if it finds no WARN inside the bracket (so a broken
# detector cannot pass silently) and fails it for any WARN outside one.
source ./lib.sh
load_testmod
expect_warn_begin
echo 1 > "$TESTMOD_DBG/warn"
expect_warn_end
dmesg | grep -q 'WARN requested through debugfs' || fail "WARN did not reach the kernel log"
echo "ok: WARN triggered; the harness checks it was detected"
