# SPDX-License-Identifier: GPL-2.0-or-later
# tracectl bench entry (seed 003, docs/origins.md): the test module's twins have the entry
# bytes each claims, read back by the module (entry_sites) and checked here
# against the arch's encodings: the traceable C function what ftrace left
# at init (x86_64 the 5-byte nop, arm64 `mov x9, x30; nop`), the notrace
# twin and the hand-written ones exactly their bytes, all behind the same
# landing pad and before the same body. A traced twin is refused with the
# reason and is fine again once untraced; without the module tracectl says
# what to load; bad input is refused. Every point is measured with exact
# counts (calls returning x + 1). Timings are printed, never asserted.
# timeout: 300 900
# ci-kernels: 6.1 6.1-arm64
source ./t/40-daemon-lib.sh
D=/sys/kernel/debug/tracerd_testmod
T=/sys/kernel/tracing
arch=$(uname -m)

# without the module: the exact thing to load, and nothing else done
unload_mod tracerd_testmod
out=$(tracectl bench entry 2>&1) && fail "bench entry without the module: $out"
expect_eq "bench entry without the module: exit" "$?" 1
grep -q "insmod tracerd_testmod.ko" <<< "$out" || fail "does not say what to load: $out"
echo "ok: $out"
load_testmod

# entry_sites: name, ok|refused, claim, pad|entry+body bytes, reason
cat "$D/entry_sites"
col() { awk -F'\t' -v v="$1" -v c="$2" '$1 == v { print $c }' "$D/entry_sites"; }
after_pad() { col "$1" 4 | cut -d'|' -f2; }
case $arch in
x86_64)
	nop5=0f1f440000 body=8d4701	# nopl 0x0(%rax,%rax,1); lea 0x1(%rdi),%eax
	variants=(traceable notrace asm-nop5 asm-none)
	declare -A want=([traceable]=$nop5$body [notrace]=$body [asm-nop5]=$nop5$body
			 [asm-none]=$body) ;;
aarch64)
	mov=e9031eaa nop=1f2003d5 body=00040011	# mov x9, x30; nop; add w0, w0, #1
	variants=(traceable notrace asm-nop-nop asm-mov-nop asm-none)
	declare -A want=([traceable]=$mov$nop$body [notrace]=$body [asm-nop-nop]=$nop$nop$body
			 [asm-mov-nop]=$mov$nop$body [asm-none]=$body) ;;
*)	skip "bench entry: no twins for $arch" ;;
esac
expect_eq "variants" "$(cut -f1 "$D/entry_sites" | tr '\n' ' ')" "${variants[*]} "
pad=$(col traceable 4 | cut -d'|' -f1)
for v in "${variants[@]}"; do
	expect_eq "$v: checked" "$(col "$v" 2)" ok
	expect_eq "$v: entry and body bytes" "$(after_pad "$v")" "${want[$v]}"
	expect_eq "$v: landing pad as the traceable twin's" "$(col "$v" 4 | cut -d'|' -f1)" "$pad"
done
# ftrace knows the traceable twin only
grep -q "^tracerd_testmod_entry_traceable " $T/available_filter_functions ||
	fail "traceable twin not in available_filter_functions"
n=$(grep -c "^tracerd_testmod_entry_\(notrace\|asm_\)" $T/available_filter_functions)
expect_eq "other twins in available_filter_functions" "$n" 0

# a traced twin is refused, with the reason, and untraced again it runs
echo tracerd_testmod_entry_traceable > $T/set_ftrace_filter
echo function > $T/current_tracer
expect_eq "traced twin: checked" "$(col traceable 2)" refused
col traceable 5 | grep -q "being traced" || fail "traced twin: reason: $(col traceable 5)"
echo "ok: traced twin refused: $(col traceable 4): $(col traceable 5)"
exec 3<> $D/entry_bench
echo "100 1" >&3
grep -q "^traceable	refused	.*being traced" <&3 || fail "bench while traced: no refusal"
exec 3>&-
echo ok: the bench run refuses the traced twin
echo nop > $T/current_tracer
echo > $T/set_ftrace_filter
expect_eq "untraced again: checked" "$(col traceable 2)" ok
expect_eq "untraced again: bytes" "$(after_pad traceable)" "${want[traceable]}"

# bad input to the module and to tracectl
for bad in "0 1" "1 0" "1 65" "10000001 1" "x"; do
	printf '%s' "$bad" > $D/entry_bench 2>/dev/null && fail "entry_bench accepted '$bad'"
done
echo "ok: entry_bench refuses bad input"
tracectl bench entry -n 0 > /dev/null 2>&1
expect_eq "bench entry -n 0: exit" "$?" 2
tracectl bench entry --rounds 61 > /dev/null 2>&1
expect_eq "bench entry --rounds 61: exit" "$?" 2

daemon_start
trap daemon_cleanup EXIT
$C bench entry -n "$(size 2000 200000)" --rounds 3 -w 1 -o "$TD/entry.json" \
	--svg "$TD/entry.svg" > "$TD/entry.txt" || fail "bench entry failed (exit $?)"
cat "$TD/entry.txt"
grep -q '^seed 003: ' "$TD/entry.txt" || fail "no seed 003 line in the table"
grep -q '</svg>' "$TD/entry.svg" || fail "entry.svg"
expect_eq "suite" "$(jp .suite < "$TD/entry.json")" entry
expect_eq "keys" "$(jp '.points[*].key' < "$TD/entry.json" | tr '\n' ' ')" "${variants[*]} "
expect_eq "statuses" "$(jp '.points[*].status' < "$TD/entry.json" | sort -u)" ok
expect_eq "calls counted" "$(jp '.points[*].counts.calls.counted' < "$TD/entry.json" | sort -u)" \
	$((3 * $(size 2000 200000)))
for ((i = 0; i < ${#variants[@]}; i++)); do
	v=${variants[$i]}
	expect_eq "$v: bytes label" "$(jp ".points[$i].labels.bytes" < "$TD/entry.json")" \
		"$(col "$v" 4)"
	expect_eq "$v: samples" "$(jp ".points[$i].values.ns_per_call.samples|length" \
		< "$TD/entry.json")" 3
done
# the seed's pair: asm-mov-nop against asm-nop-nop (x86_64: asm-nop5 against asm-none)
i=$([ "$arch" = aarch64 ] && echo 3 || echo 2)
expect_eq "seed pair" "$(jp ".points[$i].labels.against" < "$TD/entry.json")" \
	"$([ "$arch" = aarch64 ] && echo asm-nop-nop || echo asm-none)"
expect_eq "seed pair: against_ratio samples" \
	"$(jp ".points[$i].values.against_ratio.samples|length" < "$TD/entry.json")" 3
daemon_stop
trap - EXIT
emit_bench entry "$TD/entry.json"
