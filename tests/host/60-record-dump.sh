# SPDX-License-Identifier: GPL-2.0-or-later
# Record files through lib/record.c (tests/prog/record_gen) read back by
# `tracectl dump`: N in = N out (text and --json), filters, a file cut by a
# crash reads up to the last flush, any truncation reads whole records only,
# and a full filesystem stops the writer cleanly.
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

# every line is a JSON object with the documented fields
"$ctl" dump --json "$d/n1000.trec" | python3 -c '
import json, sys
keys = {"ts_ns", "realtime_ns", "cpu", "pid", "tid", "comm", "slot", "target", "duration_ns", "ret"}
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

# crash: 1000 events, flush every 64, no end of stream -> the 960 flushed
"$gen" "$d" crash 1000 64 crash >/dev/null || fail "record_gen crash"
got=$("$ctl" dump --json "$d/crash.trec" 2>"$d/err" | wc -l); rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || fail "dump of a cut file: exit $rc"
[ "$got" = 960 ] || fail "crash: $got events, want 960"
grep -q 'cut short' "$d/err" || fail "no 'cut short' note: $(cat "$d/err")"
echo "ok: crash-cut file reads up to the last flush ($got)"

# truncation at many offsets: whole records only, never an error exit
size=$(stat -c %s "$d/n1000.trec")
prev=0
for len in $(seq 400 173 "$size"); do
	head -c "$len" "$d/n1000.trec" > "$d/t.trec"
	got=$("$ctl" dump --json "$d/t.trec" 2>/dev/null | wc -l); rc=${PIPESTATUS[0]}
	[ "$rc" = 0 ] || fail "truncated at $len: exit $rc"
	[ "$got" -ge "$prev" ] || fail "truncated at $len: $got < $prev"
	prev=$got
done
echo "ok: truncations read whole records ($prev at the longest)"

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
