# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for host tests that run a private tracerd (sourced).
#   start_daemon [CONFIG_TEXT]  tracerd on $W/s.sock with that config (plus
#                               listen = off: tests may run side by side);
#                               sets DPID, W (work dir), C (tracectl cmd)
#   stop_daemon                 SIGTERM, wait, check it exited 0
#   jq_get FILTER               jq on stdin, raw output
#   grepq ARGS...               grep -q that reads its whole input: grep -q
#                               exits at the first match, the writer may
#                               then die of SIGPIPE, and pipefail fails the
#                               pipeline (asan-host 70-bench, 2026-12-03)
set -uo pipefail
: "${O:?O (build dir) not set}"
grepq() { grep "$@" > /dev/null; }
# valid_utf8 FILE: FILE is well-formed UTF-8 (glibc's iconv refuses a bad
# byte, a surrogate or a truncated sequence; one exec, not an interpreter)
valid_utf8() { iconv -f UTF-8 -t UTF-8 "$1" > /dev/null 2>&1; }
TRACERD=$O/tracerd
TRACECTL=$O/tracectl
W=$(mktemp -d /tmp/tracerd-test.XXXXXX)
chmod 755 "$W"
DPID=
fail() { echo "FAIL: $*"; [ -f "$W/daemon.log" ] && sed 's/^/  daemon: /' "$W/daemon.log" | tail -n 20; exit 1; }
skip() { echo "$*"; exit 77; }
ok() { echo "ok: $*"; }
expect_eq() { [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"; ok "$1 = $3"; }
jq_get() { jq -r "$1"; }
cleanup() {
	[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
command -v jq >/dev/null || skip "jq not installed"

# daemon_links: ids of the BPF links the running tracerd holds (its fds);
# links_alive IDS...: how many of those links still exist in the kernel.
# (Per process, since other tracerd instances may run side by side.)
daemon_links() {
	grep -h '^link_id:' /proc/"$DPID"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -n
}
links_alive() {
	local id n=0
	for id in "$@"; do
		bpftool link show id "$id" > /dev/null 2>&1 && n=$((n + 1))
	done
	echo $n
}

start_daemon() {
	printf 'listen = off\n%s\n' "${1:-}" > "$W/tracerd.conf"
	"$TRACERD" --config "$W/tracerd.conf" --socket "$W/s.sock" 2> "$W/daemon.log" &
	DPID=$!
	C="$TRACECTL --socket $W/s.sock"
	local i
	for i in $(seq 1 100); do
		[ -S "$W/s.sock" ] && return 0
		kill -0 "$DPID" 2>/dev/null || fail "tracerd exited at start"
		sleep 0.1
	done
	fail "tracerd did not create its socket"
}

stop_daemon() {
	kill -TERM "$DPID" || fail "tracerd not running"
	wait "$DPID"
	local rc=$?
	DPID=
	expect_eq "tracerd exit status after SIGTERM" "$rc" 0
	[ ! -e "$W/s.sock" ] || fail "socket left behind"
}
