# SPDX-License-Identifier: GPL-2.0-or-later
# For the hostile-client tests (8x-hostile-*.sh), sourced after
# lib/daemon.bash. A test writes its client script to $W/hostile.py (it
# imports lib/hostile_clients.py, copied next to it) and defines
#   hostile WHAT READY STOP [ARGS...]   run that script in mode WHAT against
#                                       its target (argv: WHAT TARGET READY
#                                       STOP ARGS...), as whichever user
# The helpers:
#   PY                     /usr/bin/python3 (not a per-user shim: clients
#                          may run as another uid)
#   need_fds N             skip unless N fds can be opened; raise the soft limit
#   rss_kb, nfds           the daemon's ($DPID) resident memory in kB, open fds
#   rss_mark               note the daemon's RSS now
#   rss_bounded WHEN       check it grew by less than RSS_SLACK since rss_mark
#   fds_back_to N          wait (30 s at most) until the daemon has <= N fds
#   run_bg WHAT [ARGS...]  start a client, wait until it has signalled ready
#                          (it writes $H/ready; its output is in $W/WHAT.out)
#   finish_bg WHAT         tell it to stop ($H/stop), check it succeeded
#   run_fg WHAT [ARGS...]  run a client to its end, check it succeeded
#   check_noread           client 'noread' pipelines requests and never reads
#                          the replies (ready: "SENT TOTAL"): the daemon stops
#                          reading before it has sent them all, still serves
#                          the others (the test's others_served WHEN), and its
#                          RSS stays bounded
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no $PY"
RSS_SLACK=65536	# kB; the bugs these tests catch cost 100s of MB
# SANITIZE=1 builds: a small ASan quarantine, so RSS says what the daemon holds
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=4
export PYTHONDONTWRITEBYTECODE=1
H=$W/h	# the clients' ready/stop flags, writable by any uid
mkdir -m 1777 "$H"
install -m 644 "$(dirname "${BASH_SOURCE[0]}")/hostile_clients.py" "$W/hostile_clients.py"

need_fds() { # N
	[ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge "$1" ] ||
		skip "hard RLIMIT_NOFILE $(ulimit -Hn) < $1: cannot open the test's connections"
	ulimit -n "$1"
}
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$DPID/status"; }
nfds() { ls "/proc/$DPID/fd" | wc -l; }
rss_mark() { RSS0=$(rss_kb); }
rss_bounded() { # WHEN
	local rss
	rss=$(rss_kb)
	[ $((rss - RSS0)) -lt $RSS_SLACK ] || fail "daemon RSS grew from $RSS0 to $rss kB $1"
	ok "daemon RSS $RSS0 -> $rss kB $1"
}
# settle: fds are read once the daemon has dropped closed connections
fds_back_to() { # N
	local i
	for i in $(seq 1 300); do
		[ "$(nfds)" -le "$1" ] && { ok "daemon fds back to <= $1"; return 0; }
		sleep 0.1
	done
	fail "daemon fds $(nfds), want <= $1 after the clients left"
}

run_bg() { # WHAT ARGS...
	rm -f "$H/ready" "$H/stop"
	hostile "$1" "$H/ready" "$H/stop" "${@:2}" > "$W/$1.out" 2>&1 &
	HPID=$!
	local i
	for i in $(seq 1 600); do
		[ -e "$H/ready" ] && return 0
		kill -0 $HPID 2>/dev/null || { cat "$W/$1.out"; fail "$1 client exited early"; }
		sleep 0.1
	done
	fail "$1 client never got ready"
}
finish_bg() { # WHAT
	touch "$H/stop"
	wait $HPID || { cat "$W/$1.out"; fail "$1 client failed"; }
	ok "$1: $(tail -n1 "$W/$1.out")"
}
run_fg() { # WHAT ARGS...
	hostile "$1" - - "${@:2}" > "$W/$1.out" 2>&1 || { cat "$W/$1.out"; fail "$1 client"; }
	ok "$1: $(tail -n1 "$W/$1.out")"
}
check_noread() {
	local sent total
	rss_mark
	run_bg noread
	read -r sent total < "$H/ready"
	[ "$sent" -lt "$total" ] ||
		fail "the daemon read all $total request bytes without its replies being read"
	ok "noread: the daemon stopped reading after $sent of $total request bytes"
	others_served "while a client does not read its replies"
	rss_bounded "with unread replies"
	finish_bg noread
}
