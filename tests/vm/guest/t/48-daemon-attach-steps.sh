# SPDX-License-Identifier: GPL-2.0-or-later
# Issue #12 class 5, #20: attaching and detaching the ~1100-function
# syscall glob (make check: its __x64_sys_* part, 435 on 6.12) in fentry
# runs in steps, the daemon answering between them:
# `list` shows the attachment attaching (then detaching) with progress
# below the total while `status` answers; a duplicate attach meanwhile is
# `exists`; the reply comes when it is done, with the default config's
# max_glob_matches. Then a daemon with few fds refuses the glob naming
# RLIMIT_NOFILE, and hooks what fits with --partial. States and counts,
# never durations. The daemon's event loop is what is tested, and 200 s of
# TCG per kernel is what it costs: make check runs it on 6.12 only.
# ci-kernels: 6.12
source ./t/40-daemon-lib.sh
daemon_start
[ "$(feature fentry)" = true ] || skip "fentry unavailable: $(reason_of fentry)"
G=$(syscall_glob)

# wait_state STATE: until list shows attachment 1 in STATE with progress
# below its total (status answering each time); prints "done total"
wait_state() {
	local i l st
	for i in $(seq 600); do
		l=$($C --json list) || fail "list did not answer during the attach"
		st=$(jp '.attachments[0].state' <<< "$l")
		if [ "$st" = "$1" ]; then
			set -- "$1" "$(jp '.attachments[0].progress.done' <<< "$l")" \
				"$(jp '.attachments[0].progress.total' <<< "$l")"
			$C status > /dev/null || fail "status did not answer while $1"
			[ "$2" -lt "$3" ] && { echo "$2 $3"; return 0; }
		fi
		sleep 0.2
	done
	fail "never saw attachment 1 $1 with progress below its total (last: $st)"
}

t0=$(date +%s)
$C --json --timeout 900 attach "$G" --mode fentry > "$TD/a.json" &
apid=$!
p=$(wait_state attaching) || exit 1
read -r done total <<< "$p"
echo "ok: list during the attach: attaching, $done of $total functions done; status answers"
[ "$total" -gt "$(syscall_glob_min)" ] || fail "the glob '$G' resolved to $total functions, not more than $(syscall_glob_min)"
out=$($C --json attach "$G" --mode fentry) && fail "duplicate attach while attaching accepted"
case $(jp '.error.code' <<< "$out") in
exists) echo "ok: duplicate while attaching: $(jp '.error.message' <<< "$out")" ;;
*) fail "duplicate attach while attaching: $out" ;;
esac
wait "$apid" || fail "attach failed: $(cat "$TD/a.json")"
ta=$(( $(date +%s) - t0 ))
hooked=$(jp '.attachment.functions|length' < "$TD/a.json")
skipped=$(jp '.skipped|length' < "$TD/a.json")
expect_eq "attach reply state" "$(jp '.attachment.state' < "$TD/a.json")" attached
# skipped also holds the matches the glob's resolution dropped (not in total)
[ "$hooked" -le "$total" ] && [ $((hooked + skipped)) -ge "$total" ] ||
	fail "$hooked hooked + $skipped skipped does not cover the $total functions tried"
[ "$hooked" -gt "$(syscall_glob_min)" ] || fail "only $hooked of $total hooked"
expect_eq "list after the attach" "$($C --json list | jp '.attachments[0].state')" attached
fds=$(ls /proc/"$DPID"/fd | wc -l)
echo "figures: fentry $G: $hooked hooked, $skipped skipped, attach ${ta}s, daemon fds $fds"

t0=$(date +%s)
$C --json --timeout 900 detach 1 > "$TD/d.json" &
dpid=$!
p=$(wait_state detaching) || exit 1
read -r done total <<< "$p"
echo "ok: list during the detach: detaching, $done of $total functions done; status answers"
wait "$dpid" || fail "detach failed: $(cat "$TD/d.json")"
echo "figures: fentry $G: detach $(( $(date +%s) - t0 ))s"
expect_eq "attachments after the detach" "$($C --json list | jp '.attachments|length')" 0
expect_eq "BPF links after the detach" "$(our_links)" 0
daemon_stop

# --- a daemon with few fds: a clear refusal, or what fits with --partial.
# 192: the idle daemon holds ~116 on 6.12 (every mode's objects, the stack
# maps: docs/limits.md), so 128 no longer starts it; 192 leaves room for
# some of vfs_*, not all
DAEMON_WRAP="prlimit --nofile=192:192" daemon_start
out=$($C --json attach 'vfs_*' --mode fentry) && fail "vfs_* under RLIMIT_NOFILE 192 accepted: $out"
msg=$(jp '.error.message' <<< "$out")
expect_eq "refusal code" "$(jp '.error.code' <<< "$out")" limit
case $msg in *"RLIMIT_NOFILE 192"*partial*) echo "ok: refusal: $msg" ;;
*) fail "refusal does not name the limit: $msg" ;; esac
expect_eq "attachments after the refusal" "$($C --json list | jp '.attachments|length')" 0
out=$($C --json attach 'vfs_*' --mode fentry --partial) || fail "--partial: $out"
n=$(jp '.attachment.functions|length' <<< "$out")
nfd=$(jp '.skipped[*].reason' <<< "$out" | grep -c 'out of file descriptors')
[ "$n" -gt 0 ] && [ "$nfd" -gt 0 ] || fail "--partial: $n hooked, $nfd skipped for fds: $out"
echo "ok: --partial under RLIMIT_NOFILE 192: $n hooked, $nfd skipped (out of file descriptors)"
daemon_stop
