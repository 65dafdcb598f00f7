#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tracectl dump --format chrome|csv and --follow, on files the daemon
# records (tp:task/task_rename filtered to this shell and to a python3
# process that renames itself with prctl(PR_SET_NAME) to names holding a
# comma, a quote, a newline, an escape sequence and a byte that is not
# UTF-8) and on tests/prog/record_gen files (timed events):
#   - chrome: one JSON document, as many non-metadata events as recorded,
#     ph "X" with dur for timed events and "i" for entry-only ones, ts and
#     dur the nanoseconds of --json / 1000 exactly, pid/tid/name/args equal;
#   - csv: python's csv module reads the header and one row per event with
#     the --json values; the hostile comms come back byte for byte;
#   - --follow started before the events sees every one of them through
#     several rotations (record_max_bytes 4K), the same as a dump of all
#     the files afterwards, and SIGINT ends it with exit 0 (chrome: a
#     whole document);
#   - usage: an unknown --format lists the formats (exit 2); a cut file is
#     still an error (exit 1) whose chrome output stays a whole document.
source "$(dirname "$0")/lib/daemon.bash"
source "$(dirname "$0")/lib/service.bash"
[ "$(id -u)" = 0 ] || skip "needs root to load BPF"
command -v python3 >/dev/null || skip "python3 not installed"
D=$O/tracectl
mkdir -p "$W/rec" "$W/gen"
me=$BASHPID
# the files of a recording, oldest first: NAME.trec.K ... NAME.trec.1 NAME.trec
files_of() { ls -v "$W/rec/$1".trec* 2>/dev/null | tac; }

# ---------------------------------------------------------------- usage
$D dump --format xml "$W/none.trec" > "$W/out" 2> "$W/err"; rc=$?
expect_eq "unknown --format: exit" "$rc" 2
grep -q "unknown format 'xml' (formats: text, json, chrome, csv)" "$W/err" ||
	fail "unknown --format: message: $(cat "$W/err")"
$D --json dump --format csv "$W/none.trec" > "$W/out" 2> "$W/err"; rc=$?
expect_eq "--json with --format csv: exit" "$rc" 2
$D dump --help | grepq -- '--format FMT' || fail "dump --help does not show --format"
$D dump --help | grepq -- '--follow' || fail "dump --help does not show --follow"

# ------------------------------------------- timed events (record_gen): X
"$O/tests/record_gen" "$W/gen" t 1000 256 > /dev/null || fail "record_gen"
$D dump --json "$W/gen/t.trec" > "$W/t.json" || fail "dump --json"
$D dump --format chrome "$W/gen/t.trec" > "$W/t.chrome" || fail "dump --format chrome"
$D dump --format csv "$W/gen/t.trec" > "$W/t.csv" || fail "dump --format csv"
$D dump --format json "$W/gen/t.trec" | cmp -s - "$W/t.json" || fail "--format json differs from --json"

# check.py JSONL CHROME CSV [N]: chrome and csv agree with the JSON lines
cat > "$W/check.py" <<'EOF'
import csv, json, re, sys
from decimal import Decimal

jl, chrome, csvf = sys.argv[1:4]
want = int(sys.argv[4]) if len(sys.argv) > 4 else None
js = [json.loads(l) for l in open(jl, encoding="utf-8")]
if want is not None:
    assert len(js) == want, f"json: {len(js)} events, want {want}"

def unescape(s):
    """str_escape undone (lib/strutil.c): bytes"""
    out, i = bytearray(), 0
    while i < len(s):
        c = s[i]
        if c != "\\":
            out += c.encode("utf-8"); i += 1; continue
        n = s[i + 1]
        if n == "\\": out += b"\\"; i += 2
        elif n == "n": out += b"\n"; i += 2
        elif n == "t": out += b"\t"; i += 2
        elif n == "x": out.append(int(s[i + 2:i + 4], 16)); i += 4
        elif n == "u": out += chr(int(s[i + 2:i + 6], 16)).encode("utf-8"); i += 6
        else: raise AssertionError(f"bad escape in {s!r}")
    return bytes(out)

def json_bytes(s):
    """a JSON string of tracectl: a byte that is not UTF-8 is the text \\xNN"""
    return re.sub(rb"\\x([0-9a-f]{2})", lambda m: bytes([int(m.group(1), 16)]),
                  s.encode("utf-8"))

with open(chrome, encoding="utf-8") as f:
    doc = json.load(f, parse_float=Decimal)
evs = [e for e in doc["traceEvents"] if e["ph"] != "M"]
meta = [e for e in doc["traceEvents"] if e["ph"] == "M"]
assert len(evs) == len(js), f"chrome: {len(evs)} events, json {len(js)}"
names = {}
for e in meta:
    assert e["name"] in ("process_name", "thread_name"), e
    names[(e["name"], e["pid"], e.get("tid"))] = e["args"]["name"]
for j, e in zip(js, evs):
    assert e["ts"] == Decimal(j["ts_ns"]) / 1000, (e, j)
    assert e["pid"] == j["pid"] and e["tid"] == j["tid"], (e, j)
    assert e["name"] == (j["target"] or f"slot {j['slot']}"), (e, j)
    assert e["args"]["cpu"] == j["cpu"] and e["args"]["comm"] == j["comm"], (e, j)
    assert e["args"].get("ret") == j["ret"], (e, j)
    if j["duration_ns"] is None:
        assert e["ph"] == "i" and e["s"] == "t" and "dur" not in e, (e, j)
    else:
        assert e["ph"] == "X" and e["dur"] == Decimal(j["duration_ns"]) / 1000, (e, j)
    assert ("thread_name", j["pid"], j["tid"]) in names, f"no thread_name for {j['tid']}"
assert doc["displayTimeUnit"] == "ns"

with open(csvf, newline="", encoding="utf-8") as f:
    rows = list(csv.reader(f))
head = "ts_ns,realtime_ns,cpu,pid,tid,comm,slot,target,duration_ns,ret,stack,args".split(",")
assert rows[0] == head, rows[0]
rows = rows[1:]
assert len(rows) == len(js), f"csv: {len(rows)} rows, json {len(js)}"
for j, r in zip(js, rows):
    assert len(r) == len(head), r
    for k, v in zip(head, r):
        if k in ("comm", "target"):
            got = unescape(v) if v else None
            assert got == (json_bytes(j[k]) if j[k] is not None else None), (k, v, j)
        elif k == "stack":	# a slow call's frames (format 4), ';'-joined
            assert v == ";".join(j[k] or []), (k, v, j)
        elif k == "args":	# a call's arguments (--args, format 5): none here
            assert v == "" and j[k] is None, (k, v, j)
        else:
            assert v == ("" if j[k] is None else str(j[k])), (k, v, j)
x = sum(e["ph"] == "X" for e in evs)
print(f"{len(js)} events: chrome {x} X, {len(evs) - x} i, {len(meta)} M; csv {len(rows)} rows")
EOF
python3 "$W/check.py" "$W/t.json" "$W/t.chrome" "$W/t.csv" 1000 > "$W/res" 2>&1 ||
	fail "record_gen file: $(cat "$W/res")"
grep -q " 1000 X, 0 i" "$W/res" || fail "timed events are not all X: $(cat "$W/res")"
ok "timed events: $(cat "$W/res")"

# a cut file: exit 1 as with text and --json, the chrome document still whole
head -c 3000 "$W/gen/t.trec" > "$W/gen/cut.trec"
$D dump --format chrome "$W/gen/cut.trec" > "$W/cut.chrome" 2> "$W/err"; rc=$?
expect_eq "cut file, chrome: exit" "$rc" 1
grep -q "cut short" "$W/err" || fail "cut file, chrome: no error: $(cat "$W/err")"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$W/cut.chrome" ||
	fail "cut file: chrome output is not one JSON document"
$D dump --format csv "$W/gen/cut.trec" > /dev/null 2> "$W/err"; rc=$?
expect_eq "cut file, csv: exit" "$rc" 1

# --------------------------------------- the daemon, hostile comms: i
start_daemon_conf "listen = off
record_dir = $W/rec
record_max_bytes = 4K
record_keep = 1000"

mkfifo "$W/go"
# python3: says it is ready (past any exec, which renames too), waits for
# "go", then names itself three times (task_rename records the comm before
# each rename: the 2nd and 3rd events carry these names)
python3 - "$W/go" > "$W/py.ready" <<'EOF' &
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
print("ready", flush=True)
open(sys.argv[1]).read()
for name in (b'a,b"c\nd', b'q\xffe\x1b[1m', b'=1+2', b'done'):
    if libc.prctl(15, ctypes.c_char_p(name), 0, 0, 0):
        sys.exit(f"prctl: errno {ctypes.get_errno()}")
EOF
py=$!
for i in $(seq 100); do [ -s "$W/py.ready" ] && break; sleep 0.1; done
[ -s "$W/py.ready" ] || fail "python3 helper did not start"
$C --json attach tp:task/task_rename --pid "$me" --record fmt > /dev/null || fail "attach (shell)"
$C --json attach tp:task/task_rename --pid "$py" --record fmt > /dev/null || fail "attach (python3)"
N=300
for ((i = 0; i < N; i++)); do printf "r$i" > /proc/self/comm; done
echo go > "$W/go"
wait "$py" || fail "python3 prctl helper"
want=$((N + 4))
for i in $(seq 100); do
	got=$($D dump --json $(files_of fmt) 2>/dev/null | wc -l)
	[ "$got" = "$want" ] && break
	sleep 0.1
done
expect_eq "events recorded" "$got" "$want"
files=$(files_of fmt)
$D dump --json $files > "$W/d.json" || fail "dump --json"
$D dump --format chrome $files > "$W/d.chrome" || fail "dump --format chrome"
$D dump --format csv $files > "$W/d.csv" || fail "dump --format csv"
python3 "$W/check.py" "$W/d.json" "$W/d.chrome" "$W/d.csv" "$want" > "$W/res" 2>&1 ||
	fail "daemon recording: $(cat "$W/res")"
grep -q " 0 X, $want i" "$W/res" || fail "entry-only events are not all i: $(cat "$W/res")"
ok "daemon recording: $(cat "$W/res")"

# the hostile comms, byte for byte through csv; quoted as RFC 4180 says
python3 - "$W/d.csv" "$py" <<'EOF' || fail "hostile comms through csv"
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1], newline="", encoding="utf-8"))][1:]
got = [r[5] for r in rows if r[3] == sys.argv[2]]
assert len(got) == 4, got
assert got[1] == 'a,b"c\\nd', got	# str_escape: the newline as \n
assert got[2] == "q\\xffe\\x1b[1m", got
assert got[3] == "\\x3d1+2", got	# no formula: '=' as \x3d, undone exactly
# no text field (comm, target) starts as a spreadsheet formula (=, +, -, @)
for r in rows:
    assert not any(r[i][:1] in ("=", "+", "-", "@") for i in (5, 7)), r
EOF
grep -q '"a,b""c\\nd"' "$W/d.csv" || fail "csv: the comm with a comma and a quote is not quoted"
python3 - "$W/d.chrome" "$py" <<'EOF' || fail "hostile comms through chrome"
import json, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
pid = int(sys.argv[2])
ev = [e for e in doc["traceEvents"] if e["ph"] == "i" and e["pid"] == pid]
assert [e["args"]["comm"] for e in ev[1:]] == ['a,b"c\nd', "q\\xffe\x1b[1m", "=1+2"], ev
th = [e["args"]["name"] for e in doc["traceEvents"] if e["ph"] == "M" and e["pid"] == pid
      and e["name"] == "thread_name"]
assert th[1:] == ['a,b"c\nd', "q\\xffe\x1b[1m", "=1+2"], th
EOF
for f in d.csv d.chrome; do
	LC_ALL=C grep -q $'[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]' "$W/$f" && fail "$f holds a control character"
	python3 -c 'import sys; sys.stdin.buffer.read().decode("utf-8")' < "$W/$f" ||
		fail "$f is not valid UTF-8"
done
ok "comma, quote, newline, escape and a non-UTF-8 byte in comm: csv and chrome exact, nothing raw"
$C --json detach --all > /dev/null || fail "detach --all"

# ------------------------------------------- --follow through rotations
$C --json attach tp:task/task_rename --pid "$me" --record fol > /dev/null || fail "attach fol"
for i in $(seq 50); do [ -e "$W/rec/fol.trec" ] && break; sleep 0.1; done
$D dump --follow --json "$W/rec/fol.trec" > "$W/fol.json" 2> "$W/fol.err" &
fj=$!
$D dump --follow --format chrome "$W/rec/fol.trec" > "$W/fol.chrome" 2> "$W/fol.cerr" &
fc=$!
sleep 0.5	# both read the (still empty) file before the first event
M=3000
for ((i = 0; i < M; i++)); do printf "f$i" > /proc/self/comm; done
# both followers caught up (each polls on its own: under ASan the chrome
# one can be a poll behind the json one)
for i in $(seq 300); do
	[ "$(wc -l < "$W/fol.json")" -ge "$M" ] &&
		[ "$(grep -c '"ph":"[iX]"' "$W/fol.chrome")" -ge "$M" ] && break
	sleep 0.1
done
rot=$(ls "$W"/rec/fol.trec.* 2>/dev/null | wc -l)
[ "$rot" -ge 2 ] || fail "no rotations while following ($rot files)"
expect_eq "--follow: events seen through $rot rotations" "$(wc -l < "$W/fol.json")" "$M"
kill -INT "$fj" "$fc"
wait "$fj"; rc=$?
expect_eq "--follow --json after SIGINT: exit" "$rc" 0
wait "$fc"; rc=$?
expect_eq "--follow --format chrome after SIGINT: exit" "$rc" 0
[ -s "$W/fol.err" ] && fail "--follow --json wrote to stderr: $(cat "$W/fol.err")"
$D dump --json $(files_of fol) > "$W/all.json" || fail "dump of the followed files"
cmp -s "$W/fol.json" "$W/all.json" || fail "--follow output differs from a dump of all the files"
ok "--follow printed what a dump of the $((rot + 1)) files prints"
python3 - "$W/fol.chrome" "$M" <<'EOF' || fail "--follow chrome after SIGINT: $(tail -c 300 "$W/fol.chrome")"
import json, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
n = sum(e["ph"] != "M" for e in doc["traceEvents"])
assert n == int(sys.argv[2]), n
EOF
ok "--follow --format chrome: one whole document after SIGINT"

# the followed file cut short at the end (a block being written): waited
# for, not an error; SIGTERM ends it with exit 0
f=$(files_of fol | head -n 1)
head -c $(($(stat -c %s "$f") - 100)) "$f" > "$W/gen/part.trec"
$D dump --follow --format csv "$W/gen/part.trec" > "$W/part.csv" 2> "$W/part.err" &
fp=$!
sleep 0.6
kill -0 "$fp" || fail "--follow gave up on a block being written: $(cat "$W/part.err")"
kill -TERM "$fp"; wait "$fp"; rc=$?
expect_eq "--follow of a file cut inside a block, SIGTERM: exit" "$rc" 0
[ -s "$W/part.err" ] && fail "--follow: error on a block being written: $(cat "$W/part.err")"
$D dump --follow --json "$W/rec/missing.trec" > /dev/null 2>&1; rc=$?
expect_eq "--follow of a missing file: exit" "$rc" 1
$C --json detach --all > /dev/null || fail "detach --all"
stop_daemon
