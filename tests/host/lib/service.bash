# SPDX-License-Identifier: GPL-2.0-or-later
# For the service tests (6x-*.sh), sourced after lib/daemon.bash:
#   start_daemon_conf CONFIG_TEXT   like start_daemon, but the config is
#                                   exactly CONFIG_TEXT (these tests set
#                                   their own 'listen' on a random port)
#   PORT, U                         a random port and its base URL
PORT=$((20000 + RANDOM % 12000))	# below the ephemeral range (32768-)
U=http://127.0.0.1:$PORT

start_daemon_conf() {
	printf '%s\n' "$1" > "$W/tracerd.conf"
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
