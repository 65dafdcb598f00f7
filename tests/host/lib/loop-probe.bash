# SPDX-License-Identifier: GPL-2.0-or-later
# The loop probe (sourced; needs daemon.bash's W, PY): a client that sends
# `status` every 10 ms on one connection, pipelined, and counts the answers
# that came more than 50 ms after their request (lib/loop-probe.py): a loop
# held for T seconds makes about T / 10 ms of them, whatever the host's
# speed (issue #33 class 1).
#   probe_start        start it on $W/s.sock (at nice -10)
#   probe_check WHAT   stop it; fail when more than 1% of the answers (at
#                      least 3) came late, or when it got 20 answers or fewer
# The 1%, not 0: a hiccup of a shared host delays a request or two; a loop
# held in one piece delays every request of its time.
probe_start() {
	rm -f "$W/probe.stop"
	nice -n -10 "$PY" "$(dirname "${BASH_SOURCE[0]}")/loop-probe.py" "$W/s.sock" \
		"$W/probe.stop" > "$W/probe.out" &
	PROBE=$!
	sleep 0.3
}
probe_check() { # WHAT
	local answered late worst
	touch "$W/probe.stop"
	wait "$PROBE" || fail "$1: the probe failed"
	read -r answered late worst < "$W/probe.out"
	echo "probe during $1: $answered status answered, $late later than 50 ms (worst $worst ms)"
	[ "$answered" -gt 20 ] || fail "$1: only $answered status answers"
	local max=$((answered / 100 > 3 ? answered / 100 : 3))
	[ "$late" -le "$max" ] || fail "$1: $late of $answered status answers came later than 50 ms (at most $max)"
	ok "$1: $late of $answered status answers late"
}
