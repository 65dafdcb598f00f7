#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-layer.sh unit|host — run one host test layer; write one result line
# per test to $O/results/LAYER.tsv ('LAYER/name<TAB>PASS|FAIL|SKIP<TAB>msg')
# for tests/summary.sh. Exits non-zero when a test failed.
#   unit: every $O/tests/unit/test_* binary ('PASS name'/'FAIL name' lines)
#   host: every tests/host/*.sh (exit 0 pass, 77 skip, else fail), run with
#         O, SRC and PROFILE in the environment, each with its own timeout
#         (300 s, or a '# timeout: SECONDS' line in the test).
#   fuzz: every $O/fuzz/fuzz_NAME: first its regression inputs
#         (tests/fuzz/NAME/regress/*), then FUZZ_SECONDS of fuzzing (default:
#         10 in the ci profile, 60 in full) from the checked-in seeds, new
#         inputs kept in $O/fuzz/corpus/NAME, crashes in $O/fuzz/artifacts/NAME;
#         extra libFuzzer flags from tests/fuzz/NAME/flags.
set -uo pipefail
layer=$1
SRC=${SRC:-$(cd "$(dirname "$0")/.." && pwd)}
O=${O:-$SRC/build}
export SRC O PROFILE=${PROFILE:-ci}
mkdir -p "$O/results"
res=$O/results/$layer.tsv
: > "$res"
fail=0
record() { # name result msg
	printf '%s/%s\t%s\t%s\n' "$layer" "$1" "$2" "$3" >> "$res"
	printf '  %-4s %s/%s%s\n' "$2" "$layer" "$1" "${3:+ ($3)}"
	[ "$2" = FAIL ] && fail=1
	return 0
}
case $layer in
unit)
	for b in "$O"/tests/unit/test_*; do
		[ -x "$b" ] || continue
		bn=$(basename "$b")
		out=$(timeout 120 "$b" 2>&1); rc=$?
		n=0
		while read -r r name; do
			case $r in PASS|FAIL) record "$bn.$name" "$r" ""; n=$((n + 1)) ;; esac
		done <<< "$out"
		if [ $rc != 0 ] || [ $n = 0 ]; then
			printf '%s\n' "$out" | grep -v '^PASS ' | sed 's/^/    /'
			[ $n = 0 ] && record "$bn" FAIL "exit $rc, no result lines"
		fi
	done
	;;
host)
	for t in "$SRC"/tests/host/*.sh; do
		[ -f "$t" ] || continue
		name=$(basename "$t" .sh)
		log=$O/results/host-$name.log
		# a test may ask for more time: a line '# timeout: SECONDS'
		tmo=${HOST_TEST_TIMEOUT:-$(sed -n 's/^# timeout: *\([0-9]*\).*/\1/p' "$t" | head -n1)}
		timeout --kill-after=5 "${tmo:-300}" bash "$t" > "$log" 2>&1; rc=$?
		case $rc in
		0) record "$name" PASS "" ;;
		77) record "$name" SKIP "$(tail -n1 "$log")" ;;
		*) sed 's/^/    /' "$log" | tail -n 30
		   record "$name" FAIL "exit $rc: $(tail -n1 "$log")" ;;
		esac
	done
	;;
fuzz)
	secs=${FUZZ_SECONDS:-$([ "$PROFILE" = full ] && echo 60 || echo 10)}
	for b in "$O"/fuzz/fuzz_*; do
		[ -x "$b" ] || continue
		name=${b##*/fuzz_}
		dir=$SRC/tests/fuzz/$name
		log=$O/results/fuzz-$name.log
		art=$O/fuzz/artifacts/$name
		mkdir -p "$O/fuzz/corpus/$name" "$art"
		flags=(-timeout=10 -rss_limit_mb=2048 -artifact_prefix="$art/" -print_final_stats=1)
		[ -f "$dir/dict" ] && flags+=(-dict="$dir/dict")
		[ -f "$dir/flags" ] && read -ra extra < "$dir/flags" && flags+=("${extra[@]}")
		regress=("$dir"/regress/*)
		[ -e "${regress[0]}" ] || regress=()
		if [ ${#regress[@]} != 0 ] &&
		   ! timeout 300 "$b" "${flags[@]}" "${regress[@]}" > "$log" 2>&1; then
			tail -n 30 "$log" | sed 's/^/    /'
			record "$name" FAIL "a regression input fails: $log"
			continue
		fi
		timeout --kill-after=10 $((secs + 120)) "$b" "${flags[@]}" -max_total_time="$secs" \
			"$O/fuzz/corpus/$name" "$dir/corpus" > "$log" 2>&1; rc=$?
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
		if [ $rc = 0 ]; then
			record "$name" PASS "${execs:-?} execs in ${secs}s, ${#regress[@]} regression inputs"
		else
			grep -E '^(==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written)' "$log" |
				head -n 5 | sed 's/^/    /'
			record "$name" FAIL "exit $rc after ${execs:-?} execs; input in $art, log $log"
		fi
	done
	[ -s "$res" ] || record build FAIL "no fuzzers built in $O/fuzz"
	;;
*) echo "run-layer: unknown layer '$layer'" >&2; exit 2 ;;
esac
exit $fail
