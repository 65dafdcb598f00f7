# SPDX-License-Identifier: GPL-2.0-or-later
# Record files through lib/record.c (tests/prog/record_gen) read back by
# `tracectl dump`: N in = N out (text and --json), filters, a file left by a
# crash (it ends at a flush point) reads up to the last flush without a
# warning, any truncation, zero-filled tail or flipped bit prints only a
# prefix of the events written and whole blocks of them, an error says
# where and why (exit 1), and a full filesystem stops the writer cleanly.
set -u
gen=$O/tests/record_gen
ctl=$O/tracectl
d=$(mktemp -d)
trap 'umount "$d/full" 2>/dev/null; rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

for n in 0 1 1000 100000; do
	"$gen" "$d" n$n "$n" 256 >/dev/null || fail "record_gen $n"
	got=$("$ctl" dump --json "$d/n$n.trec" | wc -l)
	[ "$got" = "$n" ] || fail "json: $n in, $got out"
	got=$("$ctl" dump "$d/n$n.trec" | grep -vc '^#')
	[ "$got" = "$n" ] || fail "text: $n in, $got out"
	echo "ok: $n in, $n out"
done

# format 2 (zlib; tests/host/data/record-v2.trec, written by record_gen
# before format 3) reads as before: the same events as a format 3 file of
# the same run, cleanly; the new files are format 3 (zstd)
"$gen" "$d" g1000 1000 256 >/dev/null || fail "record_gen g1000"
v2=$SRC/tests/host/data/record-v2.trec
[ "$(od -An -tu4 -j8 -N4 "$v2" | tr -d ' ')" = 2 ] || fail "fixture is not format 2"
[ "$(od -An -tu4 -j8 -N4 "$d/g1000.trec" | tr -d ' ')" = 5 ] || fail "record_gen wrote no format 5 file"
"$ctl" dump --json "$v2" 2> "$d/err" | jq -c 'del(.realtime_ns)' > "$d/v2.json"; rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] && [ ! -s "$d/err" ] || fail "dump of a format 2 file: exit $rc: $(cat "$d/err")"
"$ctl" dump --json "$d/g1000.trec" | jq -c 'del(.realtime_ns)' > "$d/v3.json"
[ "$(wc -l < "$d/v2.json")" = 1000 ] || fail "format 2: $(wc -l < "$d/v2.json") events, want 1000"
cmp -s "$d/v2.json" "$d/v3.json" || fail "format 2 and 3 files of the same events differ"
echo "ok: a format 2 (zlib) file reads: the same 1000 events as format 3 (zstd)"

# every line is a JSON object with the documented fields
"$ctl" dump --json "$d/n1000.trec" | python3 -c '
import json, sys
keys = {"ts_ns", "realtime_ns", "cpu", "pid", "tid", "comm", "slot", "target", "duration_ns", "ret", "stack",
        "args", "args_truncated"}
for line in sys.stdin:
    o = json.loads(line)
    assert set(o) == keys, o
' || fail "json lines"

# filters: pid 1000 + i % 3, target alternates a/b
got=$("$ctl" dump --json --pid 1001 "$d/n1000.trec" | wc -l)
[ "$got" = 333 ] || fail "--pid 1001: $got, want 333"
got=$("$ctl" dump --json --target 'tp:test/b' "$d/n1000.trec" | wc -l)
[ "$got" = 500 ] || fail "--target: $got, want 500"
got=$("$ctl" dump --json --target 'tp:*' --pid 1002 "$d/n1000.trec" | wc -l)
[ "$got" = 333 ] || fail "--target glob --pid: $got, want 333"
echo "ok: filters"

# crash: 1000 events, flush every 64, no end of stream -> the 960 flushed,
# no warning (the file ends at a flush point, as a live file does)
"$gen" "$d" crash 1000 64 crash >/dev/null || fail "record_gen crash"
got=$("$ctl" dump --json "$d/crash.trec" 2>"$d/err" | wc -l); rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || fail "dump of a crash-cut file: exit $rc: $(cat "$d/err")"
[ "$got" = 960 ] || fail "crash: $got events, want 960"
[ ! -s "$d/err" ] || fail "false warning on a file ending at a flush point: $(cat "$d/err")"
"$ctl" dump "$d/crash.trec" | grep -q '^# .*ends at a flush point' || fail "no text note"
echo "ok: crash-cut file reads up to the last flush ($got), no warning"

# bad files: the events printed are a prefix of those written (none invented
# or repeated), whole blocks of 256 (record_gen flushes every 256), and any
# error exit names the offset and why
"$ctl" dump --json "$d/n1000.trec" > "$d/all.json"
check_prefix() {	# FILE WHAT
	local got rc
	"$ctl" dump --json "$1" > "$d/out.json" 2>"$d/err"; rc=$?
	grep -v '^{"error":' "$d/out.json" > "$d/got.json"
	got=$(wc -l < "$d/got.json")
	cmp -s "$d/got.json" <(head -n "$got" "$d/all.json") || fail "$2: events not a prefix of those written"
	case $got in 0|256|512|768|1000) ;; *) fail "$2: $got events: not whole blocks" ;; esac
	if [ "$rc" != 0 ]; then
		[ "$rc" = 1 ] || fail "$2: exit $rc"
		grep -q '^{"error":.*"message":".*\(cut short\|corrupt\).*offset' "$d/out.json" ||
			fail "$2: error without where/why: $(tail -n1 "$d/out.json")"
	fi
	echo "$rc"
}
size=$(stat -c %s "$d/n1000.trec")
prev=0
for len in $(seq 400 173 "$size"); do
	head -c "$len" "$d/n1000.trec" > "$d/t.trec"
	rc=$(check_prefix "$d/t.trec" "truncated at $len") || fail "$rc"
	got=$(wc -l < "$d/got.json")
	[ "$got" -ge "$prev" ] || fail "truncated at $len: $got < $prev"
	prev=$got
done
echo "ok: truncations read whole blocks ($prev at the longest)"
errs=0
for len in $(seq 400 211 "$size"); do
	{ head -c "$len" "$d/n1000.trec"; head -c $((size - len + 4096)) /dev/zero; } > "$d/z.trec"
	rc=$(check_prefix "$d/z.trec" "zero tail at $len") || fail "$rc"
	[ "$rc" = 1 ] || fail "zero tail at $len: exit $rc"
	errs=$((errs + 1))
done
echo "ok: zero-filled tails: $errs files, each a prefix of the events and exit 1"
for off in $(seq 400 97 "$size"); do
	python3 -c 'import sys; p, o = sys.argv[1], int(sys.argv[2]); d = bytearray(open(p, "rb").read()); d[o] ^= 1 << (o % 8); open(sys.argv[3], "wb").write(d)' \
		"$d/n1000.trec" "$off" "$d/f.trec"
	rc=$(check_prefix "$d/f.trec" "bit flipped at $off") || fail "$rc"
	[ "$rc" = 1 ] || fail "bit flipped at $off: exit 0"
done
echo "ok: flipped bits: a prefix of the events, exit 1"

# not a record file: error, exit 1, JSON error object in --json mode
echo junk > "$d/junk"
out=$("$ctl" dump --json "$d/junk"); rc=$?
[ "$rc" = 1 ] || fail "junk: exit $rc"
echo "$out" | python3 -c 'import json,sys; assert "error" in json.loads(sys.stdin.read())' ||
	fail "junk: no JSON error: $out"

# full filesystem: the writer stops with drops counted, the file stays readable
if [ "$(id -u)" = 0 ] && mkdir "$d/full" && mount -t tmpfs -o size=64k tmpfs "$d/full" 2>/dev/null; then
	head -c 60000 /dev/urandom > "$d/full/filler" 2>/dev/null
	out=$("$gen" "$d/full" f 100000 64) || fail "record_gen on full fs: $out"
	case $out in *dropped=0*) fail "no drops on a full fs: $out" ;; esac
	written=${out#events=}; written=${written%% *}
	got=$("$ctl" dump --json "$d/full/f.trec" 2>/dev/null | wc -l)
	[ "$got" -le "$written" ] && [ "$got" -gt 0 ] || fail "full fs: dumped $got of $written"
	echo "ok: full fs: $out, dumped $got"
else
	echo "full fs part skipped (cannot mount tmpfs)"
fi
exit 0
