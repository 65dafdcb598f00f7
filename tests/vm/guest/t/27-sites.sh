# SPDX-License-Identifier: GPL-2.0-or-later
# tracectl sites on the booted kernel's own image (staged as
# /opt/tracerd/vmlinux), named through /proc/kallsyms, against ftrace:
# the entries outside init text (ftrace drops those after boot) are
# exactly the vmlinux records of available_filter_functions, count for
# count and name for name; x86 entries not at a function entry are the
# kernel's __ftrace_invalid_address___N lines; CALL_OPS literals are all
# 8-byte aligned; tracerd_testmod.ko's entries (from its relocations) are
# its available_filter_functions lines once loaded. Prints the findings
# (ENDBR/BTI, alignment, CALL_OPS literal alignment) for the notes.
# timeout: 600 900
source ./lib.sh
img=/opt/tracerd/vmlinux
aff=/sys/kernel/tracing/available_filter_functions
[ -f "$img" ] || skip "no vmlinux in the payload"
[ -r "$aff" ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
[ -r "$aff" ] || skip "no available_filter_functions"
# without KALLSYMS_ALL (arm64 6.1) kallsyms has no _text, the anchor sites needs
grep -q ' _text$' /proc/kallsyms || skip "no _text in /proc/kallsyms (kernel without KALLSYMS_ALL)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tracectl sites "$img" --symbols /proc/kallsyms > "$tmp/table" 2> "$tmp/err" ||
	fail "tracectl sites: $(cat "$tmp/err")"
sed -n "\|^$img: |,\$p" "$tmp/table"	# the summary
tracectl --json sites "$img" --symbols /proc/kallsyms --summary > "$tmp/json" ||
	fail "tracectl --json sites --summary"
grep -q '"entries"' "$tmp/json" || fail "no summary in the JSON: $(head -c 300 "$tmp/json")"

# rows: ADDR FUNCTION+OFF SECTION ALIGN SITE... [FLAGS]; flags are the last word
awk 'NR > 1 && $1 ~ /^[0-9a-f]+$/ && NF >= 5' "$tmp/table" > "$tmp/rows"
total=$(wc -l < "$tmp/rows")
[ "$total" -gt 1000 ] || fail "only $total entries decoded"
init=$(grep -cE '(^| |,)init(,|$)' "$tmp/rows")
zero=$(grep -c ' (zero) ' "$tmp/rows")
stale=$(grep -vE '(^| |,)init(,|$)' "$tmp/rows" | grep -cE '(,|  )stale(,|$)')
invalid=$(grep -v ' \[' "$aff" | grep -c '^__ftrace_invalid_address__')
# x86 names an entry that is not at a function's start (a discarded weak
# function's body) __ftrace_invalid_address___N; a kernel without
# FTRACE_MCOUNT_MAX_OFFSET (riscv64 6.12) lists it under the function
# before it, the name the offline row gives it too
keep_stale=false
[ "$invalid" = 0 ] && [ "$stale" -gt 0 ] && keep_stale=true
grep -vE '(^| |,)init(,|$)' "$tmp/rows" | grep -v ' (zero) ' |
	if $keep_stale; then cat; else grep -vE '(,|  )stale(,|$)'; fi |
	awk '{ sub(/[-+][0-9]+$/, "", $2); sub(/[-+]0x[0-9a-f]+$/, "", $2); print $2 }' |
	sort > "$tmp/offline"
grep -v ' \[' "$aff" | grep -v '^__ftrace_invalid_address__' | sort > "$tmp/online"
live=$(grep -vc ' \[' "$aff")
echo "entries $total: init text $init, zero $zero, stale $stale, rest $(wc -l < "$tmp/offline")"
echo "available_filter_functions (vmlinux): $live, of which invalid $invalid"
comm -23 "$tmp/offline" "$tmp/online" > "$tmp/only-offline"
comm -13 "$tmp/offline" "$tmp/online" > "$tmp/only-online"
if [ -s "$tmp/only-offline" ] || [ -s "$tmp/only-online" ]; then
	echo "offline, not in available_filter_functions: $(wc -l < "$tmp/only-offline")"
	head -n 20 "$tmp/only-offline" | sed 's/^/  /'
	echo "in available_filter_functions, not offline: $(wc -l < "$tmp/only-online")"
	head -n 20 "$tmp/only-online" | sed 's/^/  /'
	fail "offline entries and available_filter_functions differ by name"
fi
expect_eq "entries outside init text, not zero = available_filter_functions (vmlinux)" \
	"$((total - init - zero))" "$live"
if $keep_stale; then
	echo "stale entries $stale: listed under the function before each (no __ftrace_invalid_address lines here)"
else
	expect_eq "stale entries = __ftrace_invalid_address lines" "$stale" "$invalid"
fi
# CALL_OPS reads and writes the literal as one 8-byte word: it must be aligned
if grep -q 'CALL_OPS literal slots' "$tmp/table"; then
	lit=$(sed -n 's/.*CALL_OPS literal \([0-9]*\) (8-byte aligned \([0-9]*\), misaligned \([0-9]*\)).*/\1 \3/p' "$tmp/table")
	expect_eq "CALL_OPS literals misaligned (of ${lit% *})" "${lit#* }" 0
	[ "${lit% *}" -gt 0 ] || fail "CALL_OPS kernel without literal slots"
fi

# a module: its relocations give the entries; init text is gone after load
load_testmod
ko=$KMOD_DIR/tracerd_testmod.ko
tracectl sites "$ko" > "$tmp/ko" 2> "$tmp/err" || fail "tracectl sites $ko: $(cat "$tmp/err")"
sed -n "\\|^$ko: |,\$p" "$tmp/ko"
awk 'NR > 1 && $1 ~ /^[0-9a-f]+$/ && NF >= 5' "$tmp/ko" | grep -vE '(^| |,)init(,|$)' |
	awk '{ sub(/[-+][0-9]+$/, "", $2); print $2 }' | sort > "$tmp/ko-offline"
grep ' \[tracerd_testmod\]$' "$aff" | sed 's/ .*//' | sort > "$tmp/ko-online"
[ -s "$tmp/ko-online" ] || fail "no tracerd_testmod functions in available_filter_functions"
if ! cmp -s "$tmp/ko-offline" "$tmp/ko-online"; then
	diff "$tmp/ko-offline" "$tmp/ko-online" | head -n 20
	fail "tracerd_testmod.ko entries differ from available_filter_functions"
fi
expect_eq "tracerd_testmod.ko entries outside init = its available_filter_functions" \
	"$(wc -l < "$tmp/ko-offline")" "$(wc -l < "$tmp/ko-online")"
