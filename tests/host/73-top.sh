#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tracectl top against a live daemon: piped, each refresh is a block with
# the attachment's exact call count and its rate over the interval (0 when
# nothing ran, > 0 while a worker renames itself); on a terminal (tmux:
# send-keys, capture-pane) the screen redraws in place and `q` quits.
source "$(dirname "$0")/lib/daemon.bash"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
command -v tmux > /dev/null || skip "tmux not installed"
N=500
start_daemon
me=$BASHPID
$C --json attach tp:task/task_rename --pid "$me" > "$W/a.json" || fail "attach"
id=$(jq_get '.attachment.id' < "$W/a.json")
for ((i = 0; i < N; i++)); do printf t73 > /proc/self/comm; done

$C top --count 2 --interval 0.3 > "$W/top.txt" || fail "top --count 2"
expect_eq "refresh blocks" "$(grep -c '^tracectl top ' "$W/top.txt")" 2
row() { awk -v id="$1" '$1 == id' "$2"; }	# the lines of attachment ID
expect_eq "calls in both refreshes" "$(row "$id" "$W/top.txt" | awk '{ print $5 }' | sort -u)" "$N"
expect_eq "rate: unknown at the first refresh, 0 at the second" \
	"$(row "$id" "$W/top.txt" | awk '{ print $4 }' | tr '\n' ' ')" "- 0 "

# a worker renaming itself while top runs: its attachment has a rate > 0
( while :; do printf t73w > /proc/self/comm; done ) &
wpid=$!
$C --json attach tp:task/task_rename --pid "$wpid" > "$W/w.json" || fail "attach worker"
wid=$(jq_get '.attachment.id' < "$W/w.json")
$C top --count 3 --interval 0.3 > "$W/top2.txt" || fail "top with a worker"
kill "$wpid"; wait "$wpid" 2> /dev/null
rate=$(row "$wid" "$W/top2.txt" | tail -n 1 | awk '{ print $4 }')
[ "$rate" -gt 0 ] 2> /dev/null || fail "worker's rate '$rate', want > 0"
ok "a busy attachment shows a rate ($rate calls/s) and sorts first"
first=$(awk '/^ID /{ getline; print $1; exit }' <(tail -n 4 "$W/top2.txt"))
expect_eq "busiest first" "$first" "$wid"

# bad options
for args in "--interval 0" "--interval x" "--count 0" "--limit -1" "extra"; do
	# shellcheck disable=SC2086
	$C top $args > /dev/null 2>&1
	expect_eq "top $args: exit" "$?" 2
done

# on a terminal: redrawn in place, q quits
T=t73-$$
tmux new-session -d -s "$T" -x 160 -y 30 "$C top --interval 0.3; echo top-exit=\$?; sleep 30"
trap 'tmux kill-session -t "$T" 2> /dev/null; cleanup' EXIT
for i in $(seq 50); do
	tmux capture-pane -p -t "$T" > "$W/pane.txt"
	grep -q "^$id .*tp:task/task_rename .* $N " "$W/pane.txt" && break
	sleep 0.2
done
grep -q "^$id .*tp:task/task_rename .* $N " "$W/pane.txt" || fail "pane: $(cat "$W/pane.txt")"
expect_eq "one screen, drawn in place" "$(grep -c '^tracectl top ' "$W/pane.txt")" 1
grep -q '(q quits)' "$W/pane.txt" || fail "no key hint on a terminal"
tmux send-keys -t "$T" q
for i in $(seq 50); do
	tmux capture-pane -p -t "$T" | grepq 'top-exit=' && break
	sleep 0.2
done
expect_eq "q quits top" "$(tmux capture-pane -p -t "$T" | sed -n 's/^top-exit=//p')" 0
tmux kill-session -t "$T"
stop_daemon
