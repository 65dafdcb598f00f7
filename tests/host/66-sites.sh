# SPDX-License-Identifier: GPL-2.0-or-later
# tracectl sites on objects built here: the table and --json agree with each
# other and with the documented object (docs/sites.md); a symbol name with
# an escape sequence reaches the terminal escaped; errors have the
# documented exit codes, and are {"error": ...} objects under --json.
set -u
ctl=$O/tracectl
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat > "$d/t.c" <<'EOF'
int g;
__attribute__((noinline)) int foo(int x) { return x + g; }
__attribute__((noinline, no_instrument_function)) int bar(int x) { return x * 2; }
__attribute__((noinline, section(".init.text"))) int setup(int x) { return x + 3; }
int qux(int x) { return foo(x) + bar(x) + setup(x); }
EOF
gcc -O2 -c -fno-pic -pg -mrecord-mcount -mfentry -mnop-mcount -fcf-protection=branch \
	"$d/t.c" -o "$d/t.o" || fail "gcc"
# a function whose name carries ESC [31m
esc=$(printf '\033')
printf '\t.text\n\t.globl "evil%s[31mname"\n\t.type "evil%s[31mname", @function\n"evil%s[31mname":\n\tcall __fentry__\n\tret\n\t.section __mcount_loc,"a",@progbits\n\t.quad "evil%s[31mname"\n' \
	"$esc" "$esc" "$esc" "$esc" > "$d/evil.s"
gcc -c "$d/evil.s" -o "$d/evil.o" || fail "as"

"$ctl" sites --help | grep -q '^Usage: tracectl sites' || fail "--help"
"$ctl" sites "$d/t.o" > "$d/table" || fail "sites t.o"
rows=$(grep -c '^[0-9a-f]\{16\} ' "$d/table")
[ "$rows" = 3 ] || fail "table rows: $rows, want 3 (foo, setup, qux)"
grep -q '  entries 3: nop 3' "$d/table" || fail "summary: $(cat "$d/table")"
grep -q 'without 1' "$d/table" || fail "bar has no entry: $(cat "$d/table")"
echo "ok: table, 3 entries, bar without"

"$ctl" --json sites "$d/t.o" | python3 -c '
import json, sys
o = json.load(sys.stdin)
top = {"file", "machine", "type", "module", "table", "slide", "callops", "glob",
       "summary", "sections", "sites", "without_entry"}
site = {"addr", "function", "offset", "section", "align", "kind", "insn", "endbr",
        "bti", "literal", "init", "stale"}
assert set(o) == top, set(o) ^ top
assert o["machine"] == "x86_64" and o["type"] == "module", o
assert o["summary"]["entries"] == len(o["sites"]) == 3, o["summary"]
for s in o["sites"]:
    assert set(s) == site, set(s) ^ site
    assert s["kind"] == "nop" and s["insn"] == "nop5" and s["endbr"] and s["offset"] == 4, s
assert [s["function"] for s in o["sites"] if s["init"]] == ["setup"], o["sites"]
assert o["without_entry"] == ["bar"], o["without_entry"]
' || fail "--json object"
"$ctl" sites --json "$d/t.o" 'q*' | python3 -c '
import json, sys
o = json.load(sys.stdin)
assert [s["function"] for s in o["sites"]] == ["qux"], o["sites"]
assert o["summary"]["entries"] == 1 and o["glob"] == "q*", o["summary"]
' || fail "--json with a glob"
echo "ok: --json object, glob"

"$ctl" sites "$d/evil.o" > "$d/evil" || fail "sites evil.o"
grep -q "$esc" "$d/evil" && fail "an escape byte reached the output"
grep -q 'evil\\x1b\[31mname' "$d/evil" || fail "name not shown escaped: $(cat "$d/evil")"
"$ctl" --json sites "$d/evil.o" | python3 -c '
import json, sys
o = json.load(sys.stdin)
assert o["sites"][0]["function"] == "evil\x1b[31mname", o["sites"]
' || fail "--json name"
echo "ok: names escaped"

"$ctl" sites "$d/missing.o" 2>/dev/null; rc=$?
[ $rc = 5 ] || fail "missing file: exit $rc, want 5"
"$ctl" sites --bogus "$d/t.o" 2>/dev/null; rc=$?
[ $rc = 2 ] || fail "unknown option: exit $rc, want 2"
"$ctl" sites "$d/t.c" 2>/dev/null; rc=$?
[ $rc = 1 ] || fail "not ELF: exit $rc, want 1"
"$ctl" --json sites "$d/t.c" | python3 -c '
import json, sys
o = json.load(sys.stdin)
assert list(o) == ["error"] and "not an ELF" in o["error"]["message"], o
' || fail "--json error object"
echo "ok: exit codes, JSON error"
