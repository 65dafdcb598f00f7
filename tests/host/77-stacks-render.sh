#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tracectl's side of kernel stacks (issue #32 item 2): stats --stacks as
# text, folded and pprof, and the flame SVG, rendered from hand-written
# stats replies (tests/host/data/stacks-*.json: module frames, an
# unresolved address, two attachments and one without stacks, a merged
# row, dropped calls, names with spaces, escape bytes, newlines and ';')
# that a fake daemon (tests/host/lib/fake_daemon.py) serves on the control
# socket: the real tracectl, its real options and client code, no kernel
# that can capture stacks needed (the capture is tested in the VM). The
# pprof profile is read back by go tool pprof (Debian's golang-go), the
# SVG checked as XML against the folded lines (tests/host/flame-check.py)
# and rendered by headless Chromium, which also zooms on a frame. Option
# errors exit with the statuses of tracectl --help.
source "$(dirname "$0")/lib/daemon.bash"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
D=$SRC/tests/host/data
command -v python3 > /dev/null || skip "python3 not installed"
python3 "$SRC/tests/host/lib/fake_daemon.py" "$W/f.sock" "$W/reply.json" "$W/requests" &
FAKE=$!
trap 'kill $FAKE 2>/dev/null; cleanup' EXIT
cp "$D/stacks-two.json" "$W/reply.json"
for i in $(seq 50); do [ -S "$W/f.sock" ] && break; sleep 0.1; done
C="$TRACECTL --socket $W/f.sock"
has_ctl() { LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$1"; }
last_request() { tail -n 1 "$W/requests"; }

# --- text: bpftrace's @[kstack] look, percent of the calls, dropped, the row without
$C stats --stacks --top 3 > "$W/text.txt" 2> "$W/err.txt" || fail "stats --stacks: $(cat "$W/err.txt")"
expect_eq "request" "$(last_request | jq -c .args)" '{"stacks":true,"top":3,"limit":3}'
has_ctl "$W/text.txt" && fail "raw control character in the text: $(od -c "$W/text.txt" | head)"
for want in '1 vfs_read (fentry): 1000 calls in 3 distinct stacks (depth 32)' \
	'    tracerd_testmod_c+0x1a [tracerd_testmod]' '    ksys_read+0x5e' \
	'    0xffffffffc0ffee00 (unloaded or unknown)' ']: 600 (60.0%)' ']: 300 (30.0%)' \
	']: 93 (9.3%)' '7 calls whose stack was not kept (table full or a hash collision)' \
	'    evil;name+0x10 [mod with space]' '    esc\x1b[31mred+0x1' '    new\nline+0x2' \
	"every call's stack was kept (none dropped)" \
	'3 vfs_write: no stacks (attached without --stacks: detach it and attach again with --stacks)' \
	'4 vfs_fsync: its stacks could not be read: cannot read the stack map: \x1b[2J'; do
	grep -qxF -- "$want" "$W/text.txt" || fail "text lacks '$want': $(cat "$W/text.txt")"
done
expect_eq "stack blocks" "$(grep -c '^@\[$' "$W/text.txt")" 5
grep -q '^1     vfs_read  *fentry  *1000' "$W/text.txt" || fail "the stats table is not there"
ok "text: frames func+0xoff [module], unresolved with why, counts and percent, dropped"
$C --json stats 1 --stacks > "$W/j.json" || fail "--json stats --stacks"
expect_eq "--json passes the reply through" "$(jq -c '.stats[0].stacks.dropped, .stats[1].stacks.rows[0].frames[0].sym' "$W/j.json" | tr '\n' ' ')" '7 "evil;name" '
expect_eq "request for id 1" "$(last_request | jq -c .args)" '{"stacks":true,"id":1}'

# --- folded: exact lines; several functions: each one's as the root frame
$C stats --stacks --format folded > "$W/folded.txt" 2> "$W/err.txt" || fail "folded"
cat > "$W/want.txt" <<'EOF'
vfs_read;do_syscall_64;__x64_sys_read;ksys_read;vfs_read 693
vfs_read;0xffffffffc0ffee00 (unloaded or unknown);tracerd_testmod_b [tracerd_testmod];tracerd_testmod_c [tracerd_testmod];kernel_read;vfs_read 300
weird fn;esc\x1b[31mred;evil:name [mod with space] 5
weird fn;plain;new\nline 3
EOF
diff -u "$W/want.txt" "$W/folded.txt" || fail "folded lines differ"
expect_eq "folded: the rows without stacks, on stderr" "$(cat "$W/err.txt")" \
	"note: 3 vfs_write: no stacks (attached without --stacks: detach it and attach again with --stacks)
note: 4 vfs_fsync: its stacks could not be read: cannot read the stack map: \x1b[2J"
ok "folded: 4 exact lines (693 = 600 + 93: offsets apart, one stack), names sanitized"
cp "$D/stacks-merged.json" "$W/reply.json"
$C stats --merge --stacks --format folded -o "$W/merged.txt" || fail "folded, merged, -o"
printf '%s\n' 'tracerd_testmod_a [tracerd_testmod];tracerd_testmod_b [tracerd_testmod];tracerd_testmod_c [tracerd_testmod] 15' \
	'tracerd_testmod_b [tracerd_testmod];tracerd_testmod_c [tracerd_testmod] 5' > "$W/want-m.txt"
diff -u "$W/want-m.txt" "$W/merged.txt" || fail "merged folded lines differ"
expect_eq "merged request" "$(last_request | jq -c .args)" '{"merge":true,"stacks":true}'
$C stats --merge --stacks > "$W/mtext.txt" || fail "merged text"
grep -qxF '* tracerd_testmod_c (merged): 20 calls in 2 distinct stacks (depth 32)' "$W/mtext.txt" ||
	fail "merged text header: $(cat "$W/mtext.txt")"
ok "a merged row: one function, no root frame"
# --top 2 of 3 distinct stacks: the header says only the hottest are shown
jq '.stats[0].stacks.rows |= .[:2]' "$D/stacks-two.json" > "$W/reply.json"
$C stats 1 --stacks --top 2 > "$W/top2.txt" || fail "--top 2"
grepq -xF '1 vfs_read (fentry): 1000 calls in 3 distinct stacks (depth 32), the 2 hottest' "$W/top2.txt" ||
	fail "--top 2 header: $(head -n 8 "$W/top2.txt")"
cp "$D/stacks-two.json" "$W/reply.json"

# --- pprof, read back by go tool pprof
$C stats --stacks --format pprof -o "$W/p.pb.gz" 2> /dev/null || fail "pprof -o"
gzip -t "$W/p.pb.gz" || fail "pprof output is not gzip"
if ! go tool -n pprof > /dev/null 2>&1; then
	skip "go tool pprof not installed (Debian package golang-go; make deps)"
fi
go tool pprof -top -nodefraction=0 -edgefraction=0 "$W/p.pb.gz" > "$W/top.txt" 2> "$W/pprof.err" ||
	fail "go tool pprof: $(cat "$W/pprof.err")"
grep -q '^Type: calls$' "$W/top.txt" || fail "pprof: sample type: $(head -5 "$W/top.txt")"
grep -q 'Showing nodes accounting for 1001, 100% of 1001 total' "$W/top.txt" ||
	fail "pprof total: $(head -5 "$W/top.txt")"
# flat, cum and name of each function go tool pprof lists
while IFS='|' read -r flat cum name; do
	# the name through the environment: awk -v would read its backslashes
	N=$name awk -v f="$flat" -v c="$cum" '
		{ nm = $0; sub(/^ *[0-9]+ +[0-9.]+% +[0-9.]+% +[0-9]+ +[0-9.]+% +/, "", nm) }
		$1 == f && $4 == c && nm == ENVIRON["N"] { found = 1 } END { exit !found }' "$W/top.txt" ||
		fail "pprof -top lacks '$name' flat $flat cum $cum: $(cat "$W/top.txt")"
done <<'EOF'
993|993|vfs_read
5|5|evil:name [mod with space]
3|3|new\nline
0|693|do_syscall_64
0|693|ksys_read
0|300|tracerd_testmod_c [tracerd_testmod]
0|300|0xffffffffc0ffee00 (unloaded or unknown)
0|8|weird fn
EOF
go tool pprof -raw "$W/p.pb.gz" > "$W/raw.txt" 2> /dev/null || fail "go tool pprof -raw"
grep -q '0xffffffffc0a0101a M=1 tracerd_testmod_c \[tracerd_testmod\] tracerd_testmod:0' "$W/raw.txt" ||
	fail "pprof: a module frame's location: $(grep -A20 Locations "$W/raw.txt")"
ok "pprof: go tool pprof -top reads the profile: counts and names as given"

# --- flame SVG: XML against the folded lines, then Chromium
$C flame -o "$W/flame.svg" 2> /dev/null || fail "flame -o"
expect_eq "flame request" "$(last_request | jq -c .args)" '{"stacks":true}'
n=$(python3 "$SRC/tests/host/flame-check.py" "$W/flame.svg" "$W/folded.txt") || fail "flame SVG: $n"
expect_eq "flame frames (all + 2 roots + 13 frames)" "$n" 16
$C flame 2 -o "$W/one.svg" 2> /dev/null || fail "flame 2"
cp "$D/stacks-merged.json" "$W/reply.json"
$C flame --merge --top 5 > "$W/merged.svg" || fail "flame to a pipe"
expect_eq "flame --merge --top 5 request" "$(last_request | jq -c .args)" '{"merge":true,"top":5,"stacks":true}'
n=$(python3 "$SRC/tests/host/flame-check.py" "$W/merged.svg" "$W/merged.txt") || fail "merged SVG: $n"
expect_eq "merged flame frames" "$n" 6
cp "$D/stacks-two.json" "$W/reply.json"
ok "flame SVG: one frame per node, widths by calls, root at the bottom, titles"

# --- option errors and no stacks
err() {	# err STATUS MESSAGE-FRAGMENT ARGS...: tracectl ARGS exits STATUS saying that
	local want=$1 msg=$2 rc
	shift 2
	$C "$@" > "$W/o.txt" 2> "$W/e.txt"
	rc=$?
	[ "$rc" = "$want" ] || fail "tracectl $*: status $rc, want $want: $(cat "$W/e.txt")"
	cat "$W/o.txt" >> "$W/e.txt"	# with --json the error is on stdout
	grep -qF -- "$msg" "$W/e.txt" || fail "tracectl $*: message '$(cat "$W/e.txt")' lacks '$msg'"
}
n=$(wc -l < "$W/requests")
err 2 "--format renders stacks: it needs --stacks" stats --format folded
err 2 "--format: text, folded or pprof, not 'svg'" stats --stacks --format svg
err 2 "-o writes --format folded or pprof" stats --stacks -o "$W/x"
err 2 "--stacks: counts since attach, not --interval" stats --stacks --interval 1
err 2 "--json prints the daemon's JSON: not with --format folded" --json stats --stacks --format folded
err 2 "at most one ID or TARGET" flame 1 2
expect_eq "usage errors reached no daemon" "$(wc -l < "$W/requests")" "$n"
err 1 "cannot write $W/no/such/dir/p.pb.gz: No such file or directory" \
	stats --stacks --format pprof -o "$W/no/such/dir/p.pb.gz"
mkdir "$W/adir"	# rename over a directory fails after the whole SVG was written
err 1 "cannot write $W/adir: Is a directory" flame -o "$W/adir"
[ -d "$W/adir" ] && [ -z "$(ls "$W/adir")" ] || fail "a failed -o changed what was there"
expect_eq "no temporary file left" "$(ls "$W" | grep -c '^adir\.')" 0
script -qec "$C stats --stacks --format pprof" /dev/null > "$W/tty.txt" 2>&1
expect_eq "pprof to a terminal: status" "$?" 2
grep -q "a gzipped pprof profile is not for a terminal: -o FILE, or redirect stdout" "$W/tty.txt" ||
	fail "pprof to a terminal: $(cat "$W/tty.txt")"
script -qec "$C flame" /dev/null > "$W/tty.txt" 2>&1
expect_eq "flame to a terminal: status" "$?" 2
cp "$D/stacks-none.json" "$W/reply.json"
for args in "stats 3 --stacks" "stats 3 --stacks --format folded" "flame 3 -o $W/none.svg"; do
	# shellcheck disable=SC2086
	err 5 "3 vfs_write has no stacks: it was attached without --stacks (tracectl attach TARGET --stacks[=DEPTH] counts them)" $args
done
[ -e "$W/none.svg" ] && fail "flame without stacks wrote a file"
jq '.stats[0].stacks = null | .stats[0].stacks_error = "no memory"' "$D/stacks-none.json" > "$W/reply.json"
err 1 "3 vfs_write: its stacks could not be read: no memory" stats 3 --stacks --format folded
$C stats 3 > /dev/null || fail "stats without --stacks on a row without stacks"
expect_eq "without --stacks, no stacks asked" "$(last_request | jq -c .args)" '{"limit":20,"id":3}'
cp "$D/stacks-two.json" "$W/reply.json"
ok "option errors exit 2 before asking the daemon, an unwritable -o 1, no stacks 5"

# --- hostile stacks: wrong types, nulls, escapes everywhere: no crash, nothing raw
E=$'\\u001b'
for r in '{"stats":[{"id":1,"function":"f","stacks":{"rows":"x","dropped":"d"}}]}' \
	'{"stats":[{"id":1,"function":"f","stacks":{"rows":[null,7,{"count":"c","frames":"x"},{"count":1,"frames":[null,7,{"sym":7,"addr":[]},{"sym":null},{"addr":"zz","sym":"s","module":{}}]}]}}]}' \
	'{"stats":[{"id":null,"function":null,"mode":7,"stacks":{"depth":-1,"total":0,"rows":[{"count":-5,"frames":[]}]}}]}' \
	'{"stats":[{"id":1,"function":"'$E'[2J;x\n","stacks":{"total":1,"rows":[{"count":1,"frames":[{"addr":"0x1","sym":"'$E']0;t\u0007;<&>\"","module":"'$E'[1m;\r"},{"addr":"0x2","sym":null,"why":"'$E'[K\n"}]}]}},{"id":2,"function":"f;g","stacks":{"total":0,"rows":[]}}]}'; do
	printf '%s\n' "$r" > "$W/reply.json"
	for args in "stats --stacks" "stats --stacks --format folded" "stats --stacks --format pprof -o $W/h.pb.gz" \
		"flame -o $W/h.svg"; do
		# shellcheck disable=SC2086
		timeout 20 $C $args > "$W/out" 2> "$W/err"; rc=$?
		[ "$rc" -lt 124 ] || fail "tracectl $args on $r: status $rc (hung or killed)"
		grepq -E 'runtime error|Sanitizer' "$W/err" && fail "tracectl $args on $r: $(cat "$W/err")"
		for f in out err; do
			has_ctl "$W/$f" && fail "tracectl $args on $r: raw control character on std$f"
			valid_utf8 "$W/$f" || fail "tracectl $args on $r: std$f not UTF-8"
		done
	done
	python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$W/h.svg" ||
		fail "flame SVG of $r: not XML"
done
cp "$D/stacks-two.json" "$W/reply.json"
ok "hostile stacks replies: no crash, no raw control character, the SVG still XML"

# --- the real daemon, where attach takes --stacks (#32 item 1) and root may load BPF:
# a process renames itself 5 times through /proc (comm_write -> __set_task_comm ->
# task_rename); exactly those 5 calls in one stack, in every output
if [ "$(id -u)" = 0 ] && $TRACECTL attach --help | grepq -e '--stacks'; then
	start_daemon
	mkfifo "$W/go"
	bash -c 'read -r _ < "$1"; for i in 1 2 3 4 5; do echo "n$i" > /proc/$$/comm; done' _ "$W/go" &
	P=$!
	$C --json attach tp:task/task_rename --stacks --pid "$P" > "$W/a.json" || fail "attach --stacks"
	id=$(jq_get .attachment.id < "$W/a.json")
	echo go > "$W/go"
	wait "$P"
	$C stats "$id" --stacks --format folded > "$W/real.txt" || fail "real: folded"
	expect_eq "real: folded lines" "$(wc -l < "$W/real.txt")" 1
	# __traceiter_task_rename is on the stack when another program (another
	# daemon's, a tracer's) listens on the tracepoint too: the kernel then
	# calls them all through it
	grepq -E ';comm_write;__set_task_comm(;__traceiter_task_rename)?;bpf_trace_run[0-9] 5$' \
		"$W/real.txt" ||
		fail "real: the rename stack: $(cat "$W/real.txt")"
	$C stats "$id" --stacks > "$W/real-text.txt" || fail "real: text"
	grepq -xF ']: 5 (100.0%)' "$W/real-text.txt" || fail "real: text: $(cat "$W/real-text.txt")"
	$C flame "$id" -o "$W/real.svg" || fail "real: flame"
	python3 "$SRC/tests/host/flame-check.py" "$W/real.svg" "$W/real.txt" > /dev/null ||
		fail "real: flame SVG"
	if go tool -n pprof > /dev/null 2>&1; then
		$C stats "$id" --stacks --format pprof -o "$W/real.pb.gz" || fail "real: pprof"
		go tool pprof -top "$W/real.pb.gz" 2> /dev/null | grepq '^ *5 *100% *100% *5 *100%  bpf_trace_run' ||
			fail "real: pprof: $(go tool pprof -top "$W/real.pb.gz" 2>&1)"
	fi
	stop_daemon
	ok "real daemon: the 5 renames' one stack in text, folded, flame and pprof"
else
	echo "note: not root, or this tracectl's attach takes no --stacks yet (#32 item 1): real daemon not asked"
fi

# --- --errors --stacks: rows keyed by errno as well: in the text header of each
# stack, and as the root frame "errno:E" of folded lines (escaped like a name)
cp "$D/stacks-errno.json" "$W/reply.json"
C="$TRACECTL --socket $W/f.sock"	# the fake daemon again
$C stats --stacks > "$W/etext.txt" 2> "$W/err.txt" || fail "errno: stats --stacks: $(cat "$W/err.txt")"
has_ctl "$W/etext.txt" && fail "errno: raw control character in the text: $(od -c "$W/etext.txt" | head)"
expect_eq "errno: stack headers" "$(grep '^@\[' "$W/etext.txt" | tr '\n' '|')" \
	'@[errno ENOENT,|@[errno EACCES:\x1b[2J,|@[errno ENOENT,|'
grep -qxF ']: 7 (58.3%)' "$W/etext.txt" || fail "errno: count of a row: $(cat "$W/etext.txt")"
$C stats --stacks --format folded > "$W/efolded.txt" || fail "errno: folded"
cat > "$W/want.txt" <<'EOF'
errno:ENOENT;path_openat;do_open 7
errno:EACCES:\x1b[2J;path_openat;do_open 3
errno:ENOENT;kernel_open;do_open 2
EOF
diff -u "$W/want.txt" "$W/efolded.txt" || fail "errno: folded lines differ"
$C flame 5 -o "$W/eflame.svg" > /dev/null 2>&1 || fail "errno: flame"
grep -q 'data-name="errno:ENOENT"' "$W/eflame.svg" || fail "errno: no errno frame in the SVG"
ok "errno: each stack's errno in its text header and as folded's root frame"
cp "$D/stacks-two.json" "$W/reply.json"

command -v chromium > /dev/null || skip "chromium not installed (Debian package chromium; make deps)"
CH=(chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run
    --disable-background-networking --disable-component-update --disable-sync
    --user-data-dir="$W/profile" --enable-logging=stderr --v=0)
# a probe appended to a copy: click a frame, count what shows, reset, count again
cat > "$W/probe.js" <<'EOF'
<script><![CDATA[
var fs = document.querySelectorAll("g.frame"), z = [].find.call(fs, function (g) {
	return g.getAttribute("data-name") === "tracerd_testmod_b [tracerd_testmod]"; });
function shown() { return [].filter.call(fs, function (g) { return g.style.display !== "none"; }).length; }
z.dispatchEvent(new MouseEvent("click"));
document.documentElement.setAttribute("data-zoomed", shown() + " " + z.querySelector("rect").getAttribute("width"));
document.querySelector(".reset").dispatchEvent(new MouseEvent("click"));
document.documentElement.setAttribute("data-reset", shown() + " " + z.querySelector("rect").getAttribute("width"));
]]></script>
EOF
expect_eq "the SVG's last line" "$(tail -n 1 "$W/flame.svg")" "</svg>"
{ sed '$d' "$W/flame.svg"; cat "$W/probe.js"; echo '</svg>'; } > "$W/probe.svg"
timeout 120 "${CH[@]}" --dump-dom "file://$W/probe.svg" > "$W/dom.txt" 2> "$W/chromium.log" ||
	fail "chromium --dump-dom: $(tail -n 3 "$W/chromium.log")"
if grep -E ':CONSOLE(:|\()' "$W/chromium.log" | grep -F ".svg" > "$W/console.txt"; then
	fail "console messages: $(head -n 5 "$W/console.txt")"
fi
expect_eq "frames in Chromium's DOM" "$(grep -o '<g class="frame"' "$W/dom.txt" | wc -l)" 16
grep -qF 'tracerd_testmod_c [tracerd_testmod] (300 calls, 29.97%)</title>' "$W/dom.txt" ||
	fail "a module frame's title is not in the DOM"
# zoomed on tracerd_testmod_b: its 3 ancestors and its subtree of 4, it full width (1180 px)
expect_eq "zoom on a frame" "$(grep -o 'data-zoomed="[^"]*"' "$W/dom.txt")" 'data-zoomed="7 1180"'
expect_eq "reset" "$(grep -o 'data-reset="[^"]*"' "$W/dom.txt")" 'data-reset="16 353.646"'
timeout 120 "${CH[@]}" --window-size=1200,200 --screenshot="$W/flame.png" "file://$W/flame.svg" \
	2> /dev/null || fail "chromium --screenshot"
[ -s "$W/flame.png" ] || fail "no screenshot"
[ -n "${FLAME_SCREENSHOT:-}" ] && cp "$W/flame.png" "$FLAME_SCREENSHOT"
ok "Chromium: the frames in the DOM, zoom on click and reset, a screenshot taken"
