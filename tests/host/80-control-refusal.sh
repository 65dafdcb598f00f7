#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A connection the daemon refuses (#33, class 7): a non-root uid holding
# its 32 connections (CONTROL_MAX_PER_UID) gets, on its 33rd, the reason
# in one reply line before the close, so tracectl says why (code limit,
# exit 1 as any limit) instead of "Broken pipe"; root is still served.
source "$(dirname "$0")/lib/daemon.bash"
[ "$(id -u)" = 0 ] || skip "needs root"
command -v setpriv >/dev/null || skip "setpriv not installed"
getent group nogroup >/dev/null || skip "no group 'nogroup'"
start_daemon "read_group = nogroup"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no $PY"
mkdir -m 1777 "$W/h"
as_nobody $C status > /dev/null || fail "uid 65534 in read_group: no status"
# 32 connections held by uid 65534, until $W/h/held is removed
as_nobody "$PY" - "$W/s.sock" "$W/h/held" <<'PY' &
import os, socket, sys, time
socks = []
for _ in range(32):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    socks.append(s)
open(sys.argv[2], "w").close()
for _ in range(600):
    time.sleep(0.1)
    if not os.path.exists(sys.argv[2]):
        break
PY
holder=$!
for i in $(seq 100); do [ -e "$W/h/held" ] && break; sleep 0.1; done
[ -e "$W/h/held" ] || fail "the holder did not connect"
sleep 0.3	# the daemon has accepted them
as_nobody $C status > "$W/out" 2> "$W/err"; rc=$?; echo "stderr: $(cat "$W/err")"
expect_eq "the 33rd connection of uid 65534: exit (limit)" "$rc" 1
grepq "too many connections from one uid" "$W/err" || fail "no reason: $(cat "$W/err")"
grepq -i "broken pipe" "$W/err" && fail "Broken pipe: $(cat "$W/err")"
ok "refused with its reason: $(cat "$W/err")"
as_nobody $C --json status > "$W/out" 2>/dev/null
expect_eq "--json: error code" "$(jq_get .error.code < "$W/out")" limit
$C status > /dev/null || fail "root not served while uid 65534 is at its cap"
rm -f "$W/h/held"
wait "$holder"
as_nobody $C status > /dev/null || fail "uid 65534 not served after closing its connections"
ok "served again once its connections are closed"
stop_daemon
