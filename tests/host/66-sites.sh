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

# a riscv64 Image (Debian's EFI stub header, no ELF): --symbols is required
printf 'MZ' > "$d/Image-rv"
dd if=/dev/zero bs=1 count=46 status=none >> "$d/Image-rv"
printf 'RISCV\0\0\0RSC\005\0\0\0\0' >> "$d/Image-rv"
dd if=/dev/zero bs=1 count=192 status=none >> "$d/Image-rv"
"$ctl" sites "$d/Image-rv" 2> "$d/err"; rc=$?
[ $rc = 1 ] || fail "riscv64 Image without --symbols: exit $rc, want 1"
grep -q 'riscv64 Image has no symbols: pass --symbols' "$d/err" ||
	fail "riscv64 Image without --symbols: $(cat "$d/err")"
echo "ok: riscv64 Image needs --symbols"

# the harness's riscv64 Images (VM cache; SITES_VM_K=DIR for another one),
# named by a System.map: DIR/KERNEL/System.map, else the one the kernel
# package installs (Debian's is a placeholder: the real one is in the -dbg
# package). Every entry must decode, and on a CALL_OPS kernel carry an
# 8-byte-aligned literal slot.
rvk=0
for kd in "${SITES_VM_K:-$O/vm/k}"/*riscv64/; do
	kd=${kd%/}
	[ -f "$kd/vmlinux" ] || continue
	rvk=$((rvk + 1))
	k=$(basename "$kd")
	map=
	for m in "$kd/System.map" "$kd"/root/boot/System.map-* "$kd"/root/usr/lib/modules/*/System.map; do
		[ -f "$m" ] && grep -q ' _start$' "$m" && { map=$m; break; }
	done
	if [ -z "$map" ]; then
		echo "skip: $k: no System.map with symbols (Debian ships a placeholder; put the real one at $kd/System.map)"
		continue
	fi
	"$ctl" sites "$kd/vmlinux" --symbols "$map" > "$d/rv" 2> "$d/err" ||
		fail "$k: sites: $(cat "$d/err")"
	sed -n '/ riscv64 image, /,$p' "$d/rv" | head -n 4
	grep -q ' riscv64 image, table __start_mcount_loc' "$d/rv" || fail "$k: summary: $(head -c 300 "$d/rv")"
	n=$(sed -n 's/^  entries \([0-9]*\): .* other \([0-9]*\), zero \([0-9]*\)$/\1 \2 \3/p' "$d/rv")
	set -- $n
	[ $# = 3 ] || fail "$k: no entries line"
	[ "$1" -gt 10000 ] || fail "$k: only $1 entries"
	[ "$2" = 0 ] || fail "$k: $2 entries not a nop or auipc/jalr pair"
	[ "$3" = 0 ] || fail "$k: $3 zero entries"
	grep -q 'stale (not at a function entry) 0,' "$d/rv" || fail "$k: stale entries"
	if grep -q '^CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS=y' "$kd/config" 2>/dev/null; then
		grep -q "CALL_OPS literal $1 (8-byte aligned $1, misaligned 0)" "$d/rv" ||
			fail "$k: CALL_OPS literals: $(grep 'CALL_OPS literal' "$d/rv")"
	else
		grep -q 'no pre-function literal' "$d/rv" || fail "$k: literal slots without CALL_OPS"
	fi
	echo "ok: $k Image: $1 entries decoded"
done
[ $rvk -gt 0 ] || echo "skip: no riscv64 Image in ${SITES_VM_K:-$O/vm/k} (the VM cache; the check of a real one is skipped)"
