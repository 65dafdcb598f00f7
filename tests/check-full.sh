#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check-full.sh — `make check-full` in parts that each fit in an hour on a
# 2-core host, every part's result recorded with the git tree it ran on.
#
#   check-full.sh list           the parts, in order, with their estimates
#   check-full.sh run [PART...]  run these parts (default: all, in order)
#                                at the full sizes (PROFILE=full); record
#                                each as it finishes; exit non-zero if one
#                                failed
#   check-full.sh status         the matrix: part | result | tree | commit |
#                                when | duration, and which parts are
#                                missing, failed or stale for HEAD's tree;
#                                exit 0 only when every part passed on it
#
# Records: $CHECK_FULL_DIR (default $O/check-full)/PART.tsv, one
# 'key<TAB>value' per line: part, result (PASS|FAIL), passed, failed,
# skipped, started, ended (UTC), seconds, tree (of the work tree as it was
# at the start: `git write-tree` of everything tracked and untracked but
# not ignored), tree_end (the same at the end), dirty (yes when that tree
# was not HEAD's), commit (HEAD then), profile. A part counts for a tree
# only when tree and tree_end are both that tree, so a dirty run never
# passes for the commit it started from, and an edit during a run makes
# its record stale. Each part's result lines (the layers' TSVs, as
# tests/summary.sh reads them) are kept in $CHECK_FULL_DIR/PART/.
# CHECK_FULL_RUNNER=CMD runs `CMD PART LAYER...` instead of the part's tests
# (it writes $O/results/LAYER.tsv): tests/host/91-check-full-status.sh
# tests the records and the status with it.
set -uo pipefail
SRC=${SRC:-$(cd "$(dirname "$0")/.." && pwd)}
O=${O:-$SRC/build}
CF=${CHECK_FULL_DIR:-$O/check-full}
MAKE=${MAKE:-make}
export SRC O

# ------------------------------------------------------------------ parts
# The parts in the order `check-full` runs them: PART, its estimated
# minutes on the 2-core host (tests/vm/README.md, "check-full in parts":
# how they were estimated; each record keeps the measured duration), then
# for a VM part its boots, BOOT[:GROUP]. A GROUP is a set of guest tests
# (tests/vm/guest/t/NAME.sh) by name prefix, below; a boot split into
# groups runs each of its tests in exactly one part (the 'rest' group: the
# tests no other group of that boot names), so a new test is never left
# out. A boot without a group runs every test (variant boots: theirs).
CF_TABLE="
host                  25
vm-6.12.1             50 6.12:kmod 6.12@retbleed=stuff
vm-6.12.2             55 6.12:rest 6.12@systemd
vm-7.2.1              45 7.2:kmod
vm-7.2.2              45 7.2:rest
vm-6.1.1              45 6.1:kmod
vm-6.1.2              45 6.1:rest
vm-6.1-arm64.1        15 6.1-arm64:kmod
vm-6.1-arm64.2        25 6.1-arm64:rest
vm-6.12-arm64.1       40 6.12-arm64:kmod 6.12-arm64@nokaslr
vm-6.12-arm64.2       48 6.12-arm64:rest 6.12-arm64@mttcg
vm-7.2-arm64.1        40 7.2-arm64:kmod
vm-7.2-arm64.2        40 7.2-arm64:rest
vm-6.12-riscv64.1     47 6.12-riscv64:kmod-only 6.12-riscv64@mttcg
vm-6.12-riscv64.2     45 6.12-riscv64:daemon
vm-6.12-riscv64.3     40 6.12-riscv64:glob-soak
vm-6.12-riscv64.4     45 6.12-riscv64:rest
vm-7.2-riscv64.1      50 7.2-riscv64:kmod-only
vm-7.2-riscv64.2      50 7.2-riscv64:daemon
vm-7.2-riscv64.3      45 7.2-riscv64:glob-soak
vm-7.2-riscv64.4      50 7.2-riscv64:rest
bench-compare         1
"
# the groups' test name prefixes: the module's tests (01-39) with the big
# globs of every mode (49, check-full only), beside the daemon's and the
# benchmarks ('rest'); riscv64, several times slower, in four: the
# module's, the daemon's but the big globs, the big globs with the soak
# and the capabilities test, and the benchmarks
cf_group() {
	case $1 in
	kmod) echo "0 1 2 3 49-" ;;
	kmod-only) echo "0 1 2 3" ;;
	daemon) echo "40- 41- 42- 43- 44- 45- 46- 47- 48- 5 6 7" ;;
	glob-soak) echo "49- 8" ;;
	esac
}
CF_PARTS=$(awk 'NF { print $1 }' <<< "$CF_TABLE" | tr '\n' ' ')
part_row() { awk -v p="$1" '$1 == p' <<< "$CF_TABLE"; }
part_estimate() { part_row "$1" | awk '{ print $2 }'; }
# part_boots PART — the BOOT[:GROUP] items of a VM part
part_boots() { part_row "$1" | awk '{ for (i = 3; i <= NF; i++) printf "%s ", $i }'; }
# part_layers PART — the result files (LAYER.tsv) the part must write
part_layers() {
	local b
	case $1 in
	host) echo "unit host asan-unit asan-host fuzz" ;;
	bench-compare) echo "vm-bench" ;;
	vm-*) for b in $(part_boots "$1"); do printf 'vm-%s ' "${b%%:*}"; done ;;
	esac
}
# group_tests BOOT GROUP — the guest tests of that group of BOOT
group_tests() {
	local boot=$1 group=$2 t name pre pres="" g hit
	if [ "$group" = rest ]; then
		for g in $(awk -v b="$boot" '{ for (i = 3; i <= NF; i++)
			if (index($i, b ":") == 1) print substr($i, length(b) + 2) }' <<< "$CF_TABLE"); do
			[ "$g" = rest ] || pres="$pres $(cf_group "$g")"
		done
	else
		pres=$(cf_group "$group")
	fi
	# no subshell per test: this runs for every part of every listing
	for t in "$SRC"/tests/vm/guest/t/*.sh; do
		name=${t##*/}
		name=${name%.sh}
		hit=0
		for pre in $pres; do
			[[ $name == "$pre"* ]] && { hit=1; break; }
		done
		if [ "$group" = rest ]; then [ $hit = 0 ] && printf '%s ' "$name"
		else [ $hit = 1 ] && printf '%s ' "$name"; fi
	done
}
is_part() { [[ " $CF_PARTS " == *" $1 "* ]]; }
# the kernel pairs whose bench results bench-compare compares
CF_BENCH_PAIRS="6.1:6.12 6.12:7.2 6.1:7.2"

# ------------------------------------------------------------------ trees
# head_tree — HEAD's tree; work_tree — the tree of the files as they are
# (tracked and untracked, .gitignore honoured), through a scratch index so
# the real one is untouched. "none" outside a git checkout.
head_tree() { git -C "$SRC" rev-parse -q --verify 'HEAD^{tree}' 2>/dev/null || echo none; }
head_commit() { git -C "$SRC" rev-parse -q --verify HEAD 2>/dev/null || echo none; }
work_tree() {
	local idx t
	idx=$(mktemp) || { echo none; return; }
	if cp "$(git -C "$SRC" rev-parse --path-format=absolute --git-path index 2>/dev/null)" "$idx" \
		2>/dev/null &&
	   GIT_INDEX_FILE=$idx git -C "$SRC" add -A . 2>/dev/null &&
	   t=$(GIT_INDEX_FILE=$idx git -C "$SRC" write-tree 2>/dev/null); then
		echo "$t"
	else
		echo none
	fi
	rm -f "$idx"
}

# rec_get FILE KEY — a field of a record ("" when absent)
rec_get() { awk -F'\t' -v k="$2" '$1 == k { print $2; exit }' "$1" 2>/dev/null; }

# ------------------------------------------------------------------ run
# run_layers PART — run the part's layers; results land in $O/results
run_layers() {
	local p=$1
	if [ -n "${CHECK_FULL_RUNNER:-}" ]; then
		$CHECK_FULL_RUNNER "$p" $(part_layers "$p")
		return
	fi
	case $p in
	host)
		# what `make check` runs on the host, at the full sizes
		$MAKE --no-print-directory -C "$SRC" O="$O" PROFILE=full all
		$MAKE --no-print-directory -C "$SRC" O="$O" PROFILE=full unit
		$MAKE --no-print-directory -C "$SRC" O="$O" PROFILE=full host
		$MAKE --no-print-directory -C "$SRC" O="$O" PROFILE=full sanitize-check
		$MAKE --no-print-directory -C "$SRC" O="$O" PROFILE=full fuzz-ci
		;;
	bench-compare) bench_compare ;;
	vm-*)
		$MAKE --no-print-directory -C "$SRC" O="$O" PROFILE=full user || return
		local b tests
		for b in $(part_boots "$p"); do
			if [ "$b" != "${b%%:*}" ]; then
				tests=$(group_tests "${b%%:*}" "${b#*:}")
				echo "--- ${b%%:*}: $tests"
				PROFILE=full VM_ONLY="$tests" "$SRC/tests/vm/vm-check.sh" "${b%%:*}"
			else
				PROFILE=full "$SRC/tests/vm/vm-check.sh" "$b"
			fi
		done
		;;
	esac
}

# bench_compare — vm-check.sh's bench compare of each kernel pair, from
# the bench results the two kernels' parts kept, when every part of both
# kernels passed on the tree this part runs on (else that pair fails,
# naming the parts to run)
bench_compare() {
	local pair a b k pa pf why log res=$O/results/vm-bench.tsv tree
	tree=$(work_tree)
	mkdir -p "$O/results/bench"
	: > "$res"
	for pair in $CF_BENCH_PAIRS; do
		a=${pair%:*} b=${pair#*:}
		why=""
		for k in "$a" "$b"; do
			for pa in $CF_PARTS; do
				[[ $pa == "vm-$k."* ]] || continue
				pf=$CF/$pa.tsv
				if [ ! -f "$pf" ]; then why="$why $pa has no record;"
				elif [ "$(rec_get "$pf" result)" != PASS ]; then why="$why $pa did not pass;"
				elif [ "$(rec_get "$pf" tree)" != "$tree" ] ||
				     [ "$(rec_get "$pf" tree_end)" != "$tree" ]; then
					why="$why $pa ran on another tree;"
				else cp "$CF/$pa"/bench/*.json "$O/results/bench/" 2>/dev/null; fi
			done
		done
		if [ -n "$why" ]; then
			printf 'vm-bench/compare-%s-%s\tFAIL\trun those parts first:%s\n' "$a" "$b" "${why%;}" >> "$res"
			continue
		fi
		log=$O/results/bench/check-$a-$b.log
		if "$SRC/tests/vm/bench-check.sh" --from "$O/results/bench" "$a" "$b" > "$log" 2>&1; then
			printf 'vm-bench/compare-%s-%s\tPASS\t\n' "$a" "$b" >> "$res"
		else
			printf 'vm-bench/compare-%s-%s\tFAIL\t%s\n' "$a" "$b" \
				"$(grep -m1 -i 'fail\|error' "$log")" >> "$res"
		fi
		sed 's/^/  /' "$log"
	done
	while IFS=$'\t' read -r name r msg; do printf '  %-4s %s%s\n' "$r" "$name" "${msg:+ ($msg)}"; done < "$res"
}

# run_part PART — run one part and write its record
run_part() {
	local p=$1 t0 tree tree_end commit started out rc result dir=$CF/$1 counts
	tree=$(work_tree) commit=$(head_commit)
	started=$(date -u +%Y-%m-%dT%H:%M:%SZ) t0=$(date +%s)
	echo "=== check-full part $p (estimate $(part_estimate "$p") min), tree ${tree:0:12}$(
		[ "$tree" = "$(head_tree)" ] || echo ' (work tree not committed)')"
	# each part starts from empty results, as make check does
	rm -rf "$O/results"
	mkdir -p "$O/results" "$CF"
	run_layers "$p"
	tree_end=$(work_tree)
	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$O"/results/*.tsv "$dir/" 2>/dev/null
	[ -d "$O/results/bench" ] && cp -r "$O/results/bench" "$dir/"
	out=$(SUMMARY_DIR=$dir SUMMARY_LAYERS="$(part_layers "$p")" PROFILE=full "$SRC/tests/summary.sh")
	rc=$?
	printf '%s\n' "$out"
	counts=$(tail -n1 <<< "$out")
	result=FAIL
	[ $rc = 0 ] && result=PASS
	{
		printf 'part\t%s\nresult\t%s\n' "$p" "$result"
		printf 'passed\t%s\nfailed\t%s\nskipped\t%s\n' \
			"$(sed -n 's/^\([0-9]*\) passed.*/\1/p' <<< "$counts")" \
			"$(sed -n 's/.* \([0-9]*\) failed.*/\1/p' <<< "$counts")" \
			"$(sed -n 's/.* \([0-9]*\) skipped.*/\1/p' <<< "$counts")"
		printf 'started\t%s\nended\t%s\nseconds\t%s\n' "$started" \
			"$(date -u +%Y-%m-%dT%H:%M:%SZ)" $(( $(date +%s) - t0 ))
		printf 'tree\t%s\ntree_end\t%s\n' "$tree" "$tree_end"
		printf 'dirty\t%s\n' "$([ "$tree" = "$(git -C "$SRC" rev-parse -q --verify "$commit^{tree}" 2>/dev/null)" ] &&
			echo no || echo yes)"
		printf 'commit\t%s\nprofile\tfull\n' "$commit"
	} > "$CF/$p.tsv.tmp" && mv "$CF/$p.tsv.tmp" "$CF/$p.tsv"
	echo "=== check-full part $p: $result (record: $CF/$p.tsv)"
	[ "$result" = PASS ]
}

# ------------------------------------------------------------------ status
fmt_secs() { local s=${1:-}; [ -n "$s" ] || { echo -; return; }; printf '%dh%02dm' $((s / 3600)) $((s % 3600 / 60)); }

status() {
	local cur p f r tree tend state ok=0 n=0 missing="" stale="" failed=""
	cur=$(head_tree)
	printf 'check-full status for HEAD %s, tree %s' "$(head_commit | cut -c1-12)" "${cur:0:12}"
	[ "$(work_tree)" = "$cur" ] || printf ' (the work tree has changes that are not committed)'
	printf '\n%-18s %-6s %-12s %-12s %-17s %-8s %s\n' part result tree commit "when (UTC)" duration state
	for p in $CF_PARTS; do
		n=$((n + 1))
		f=$CF/$p.tsv
		if [ ! -f "$f" ]; then
			printf '%-18s %-6s %-12s %-12s %-17s %-8s %s\n' "$p" - - - - - missing
			missing="$missing $p"
			continue
		fi
		r=$(rec_get "$f" result) tree=$(rec_get "$f" tree) tend=$(rec_get "$f" tree_end)
		if [ "$cur" = none ] || [ "$tree" = none ]; then state="stale (no git tree to compare)"
		elif [ "$tree" != "$cur" ]; then state="stale (another tree)"
		elif [ "$tend" != "$cur" ]; then state="stale (the tree changed during the run)"
		else state=current; fi
		[ "$(rec_get "$f" dirty)" = yes ] && state="$state, uncommitted at run"
		printf '%-18s %-6s %-12s %-12s %-17s %-8s %s\n' "$p" "$r" "${tree:0:12}" \
			"$(rec_get "$f" commit | cut -c1-12)" "$(rec_get "$f" ended | sed 's/T/ /; s/:..Z$//')" \
			"$(fmt_secs "$(rec_get "$f" seconds)")" "$state"
		case $state in
		current*) if [ "$r" = PASS ]; then ok=$((ok + 1)); else failed="$failed $p"; fi ;;
		*) stale="$stale $p" ;;
		esac
	done
	echo "$ok of $n parts passed on this tree"
	[ -z "$missing" ] || echo "missing:$missing"
	[ -z "$stale" ] || echo "stale:$stale"
	[ -z "$failed" ] || echo "failed:$failed"
	[ -z "$missing$stale$failed" ] || echo "run them with: make check-full PART=name"
	[ $ok = $n ]
}

# ------------------------------------------------------------------ main
cmd=${1:-}
shift || true
case $cmd in
list)
	for p in $CF_PARTS; do
		printf '%-18s ~%2s min  %s\n' "$p" "$(part_estimate "$p")" "$(part_layers "$p")"
		for b in $(part_boots "$p"); do
			[ "$b" = "${b%%:*}" ] || printf '%23s %s: %s\n' "" "${b%%:*}" "$(group_tests "${b%%:*}" "${b#*:}")"
		done
	done
	;;
run)
	parts=${*:-$CF_PARTS}
	# a part is recorded as run whole: what would narrow it is refused
	for v in VM_ONLY FUZZ_SECONDS HOST_TEST_TIMEOUT TEST_TIMEOUT VM_VARIANT_TESTS VM_SYSTEMD_TESTS; do
		[ -z "${!v:-}" ] || { echo "check-full: $v is set: a part runs whole (unset it;" \
			"make vm-check VM_ONLY=... runs single guest tests)" >&2; exit 2; }
	done
	for p in $parts; do
		is_part "$p" || { echo "check-full: unknown part '$p' (parts: $CF_PARTS)" >&2; exit 2; }
	done
	fail=0
	for p in $parts; do run_part "$p" || fail=1; done
	[ $# = 0 ] || exit $fail
	# the whole check-full: every part's results together, and the line
	# CI reads ('N passed, N failed, N skipped'), as before the parts
	rm -rf "$O/results"
	mkdir -p "$O/results"
	# (two parts of one kernel each wrote a vm-KERNEL.tsv: both count)
	for p in $parts; do
		for f in "$CF/$p"/*.tsv; do [ ! -f "$f" ] || cat "$f" >> "$O/results/${f##*/}"; done
	done
	echo "=== check-full: every part"
	PROFILE=full "$SRC/tests/summary.sh"
	
	;;
status) status ;;
*) sed -n '3,13s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
