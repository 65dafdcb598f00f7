#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check-full in parts (#33 class 9): tests/check-full.sh records each part
# with the git tree it ran on, and `status` (make check-full-status) prints
# the matrix and exits 0 only when every part passed on HEAD's tree. Run on
# fake parts (CHECK_FULL_RUNNER writes their result lines) in a scratch git
# checkout holding the two scripts: records and their fields, the matrix,
# the whole run's summary line, a failed part, a part without results, a
# new commit making every record stale, a run on an uncommitted (dirty)
# tree recorded as that tree (stale for HEAD until exactly that is
# committed), and an edit during a run.
: "${O:?O (build dir) not set}" "${SRC:?SRC (source dir) not set}"
set -uo pipefail
command -v git > /dev/null || { echo "git not installed"; exit 77; }
# shell and git only: the sanitizer build has nothing of ours to run here
[ "${SANITIZE:-}" = 1 ] && { echo "SANITIZE=1: no tracerd binary runs in this test"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }

R=$T/repo
REAL_SRC=$SRC
mkdir -p "$R/tests"
cp "$SRC/tests/check-full.sh" "$SRC/tests/summary.sh" "$R/tests/"
printf '/build/\n' > "$R/.gitignore"
echo one > "$R/a.txt"
git() { command git -C "$R" -c user.name=t -c user.email=t@t "$@"; }
git init -q && git add -A && git commit -qm one || fail "git init"
export SRC=$R O=$R/build
CF=$O/check-full
unset CHECK_FULL_DIR

# the fake runner: one PASS line per layer, FAIL for the layers of the
# parts in $FAKE_FAIL, nothing for those in $FAKE_NONE; $FAKE_EDIT is
# appended to a.txt during the run
cat > "$T/runner" <<'EOF'
#!/usr/bin/env bash
p=$1; shift
[ -z "${FAKE_EDIT:-}" ] || echo "$FAKE_EDIT" >> "$SRC/a.txt"
[[ " ${FAKE_NONE:-} " == *" $p "* ]] && exit 0
for l in "$@"; do
	r=PASS; [[ " ${FAKE_FAIL:-} " == *" $p "* ]] && r=FAIL
	printf '%s/t1\tPASS\t\n%s/t2\t%s\tfake\n%s/t3\tSKIP\tfake\n' "$l" "$l" "$r" "$l" \
		> "$O/results/$l.tsv"
done
EOF
chmod +x "$T/runner"
export CHECK_FULL_RUNNER=$T/runner
cfs() { "$R/tests/check-full.sh" "$@"; }
field() { awk -F'\t' -v k="$2" '$1 == k { print $2 }' "$CF/$1.tsv"; }
row() { grep "^$1 " "$T/status"; }
head_tree() { git rev-parse 'HEAD^{tree}'; }

# the VM parts of each kernel run every guest test once between them
SRC=$REAL_SRC "$REAL_SRC/tests/check-full.sh" list > "$T/list" || fail "list"
ls "$REAL_SRC"/tests/vm/guest/t/*.sh | sed 's#.*/##; s#\.sh$##' | sort > "$T/all"
for k in 6.1 6.12 7.2 6.1-arm64 6.12-arm64 7.2-arm64 6.12-riscv64 7.2-riscv64; do
	awk -v k="$k:" '$1 == k { for (i = 2; i <= NF; i++) print $i }' "$T/list" | sort > "$T/got"
	cmp -s "$T/got" "$T/all" || fail "$k: the parts' tests are not every guest test once:
$(diff "$T/all" "$T/got")"
done
ok "each kernel's parts run every guest test once ($(wc -l < "$T/all") tests)"

nparts=$(cfs list | grep -c '^[^ ]')
[ "$nparts" -ge 9 ] || fail "list: $nparts parts"
cfs run nosuchpart > "$T/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "unknown part 'nosuchpart'" "$T/out" || fail "unknown part: rc $rc: $(cat "$T/out")"
ok "an unknown part is refused (exit 2)"
VM_ONLY=01-kmod-load cfs run host > "$T/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q 'VM_ONLY is set: a part runs whole' "$T/out" && [ ! -e "$CF/host.tsv" ] ||
	fail "VM_ONLY: rc $rc: $(cat "$T/out")"
ok "a part narrowed by VM_ONLY is refused, nothing recorded"

# nothing run yet: every part missing, status fails
cfs status > "$T/status"; rc=$?
[ $rc != 0 ] || fail "status with no records exits 0"
grep -q "^0 of $nparts parts passed on this tree" "$T/status" || fail "status: $(cat "$T/status")"
[ "$(grep -c ' missing$' "$T/status")" = "$nparts" ] || fail "not every part missing: $(cat "$T/status")"
ok "no records: $nparts parts missing, exit $rc"

# one part on the clean tree
tree1=$(head_tree) commit1=$(git rev-parse HEAD)
cfs run host > "$T/out" 2>&1 || fail "run host: $(cat "$T/out")"
for kv in "part host" "result PASS" "passed 10" "failed 0" "skipped 5" "tree $tree1" \
	  "tree_end $tree1" "dirty no" "commit $commit1" "profile full"; do
	set -- $kv
	[ "$(field host "$1")" = "$2" ] || fail "host record: $1 = '$(field host "$1")', want '$2'"
done
[ -s "$CF/host/asan-host.tsv" ] || fail "the part's result lines are not kept"
[ "$(field host seconds)" -ge 0 ] 2>/dev/null && [ -n "$(field host started)" ] ||
	fail "host record: no time: $(cat "$CF/host.tsv")"
ok "host recorded: PASS, 10 passed, 5 skipped, tree $tree1, clean, commit ${commit1:0:12}"
cfs status > "$T/status"; rc=$?
[ $rc != 0 ] || fail "status exits 0 with parts missing"
row host | grep -q "^host  *PASS  *${tree1:0:12}  *${commit1:0:12} .* current$" ||
	fail "host row: $(row host)"
grep -q "^1 of $nparts parts passed on this tree" "$T/status" || fail "$(cat "$T/status")"
grep -q '^missing: vm-6.12.1 vm-6.12.2 ' "$T/status" || fail "missing line: $(cat "$T/status")"
ok "status: host current, the others missing, exit $rc"

# every part (the whole check-full): the summary line over all parts
cfs run > "$T/out" 2>&1 || fail "whole run: $(tail -n 20 "$T/out")"
# the kernels' parts together: every layer make check-full always had (the two @mttcg boots included)
nl=$(ls "$O"/results/*.tsv | wc -l)
[ "$nl" = 19 ] || fail "whole run: $nl layers' results: $(ls "$O/results")"
ns=$(cat "$O"/results/*.tsv | grep -c $'\tSKIP\t')
tail -n1 "$T/out" | grep -qx "$((2 * ns)) passed, 0 failed, $ns skipped" ||
	fail "whole run summary: $(tail -n1 "$T/out") ($ns layer results)"
cfs status > "$T/status" || fail "status after every part passed: $(cat "$T/status")"
grep -q "^$nparts of $nparts parts passed on this tree" "$T/status" || fail "$(cat "$T/status")"
ok "every part passed on ${tree1:0:12}: status exit 0; $(tail -n1 "$T/out")"

# a new commit: every record stale, status fails
echo two >> "$R/a.txt"; git commit -qam two
tree2=$(head_tree)
cfs status > "$T/status"; rc=$?
[ $rc != 0 ] || fail "status exits 0 after the tree changed"
[ "$(grep -c ' stale (another tree)$' "$T/status")" = "$nparts" ] || fail "not all stale: $(cat "$T/status")"
grep -q "^0 of $nparts parts passed on this tree" "$T/status" || fail "$(cat "$T/status")"
ok "after a commit: $nparts parts stale, exit $rc"

# bench-compare (real, not faked) takes the bench results of parts that
# passed on this tree only
CHECK_FULL_RUNNER= cfs run bench-compare > "$T/out" 2>&1 && fail "bench-compare passed on stale parts"
grep -q 'vm-bench/compare-6.1-6.12 (run those parts first: vm-6.1.1 ran on another tree; vm-6.1.2 ran on another tree; vm-6.12.1 ran' "$T/out" ||
	fail "bench-compare: $(cat "$T/out")"
[ "$(field bench-compare failed)" = 3 ] || fail "bench-compare record: $(cat "$CF/bench-compare.tsv")"
ok "bench-compare refuses results of parts that ran on another tree"

# a failed part, and a part that wrote no results
FAKE_FAIL=vm-6.1.1 cfs run vm-6.1.1 > "$T/out" 2>&1 && fail "a failing part exits 0"
[ "$(field vm-6.1.1 result)" = FAIL ] && [ "$(field vm-6.1.1 failed)" = 1 ] ||
	fail "vm-6.1.1 record: $(cat "$CF/vm-6.1.1.tsv")"
FAKE_NONE=vm-7.2.1 cfs run vm-7.2.1 > "$T/out" 2>&1 && fail "a part without results exits 0"
[ "$(field vm-7.2.1 result)" = FAIL ] || fail "vm-7.2.1 record: $(cat "$CF/vm-7.2.1.tsv")"
grep -q 'FAIL vm-7.2: no results' "$T/out" || fail "no-results message: $(cat "$T/out")"
cfs status > "$T/status" && fail "status exits 0 with a failed part"
row vm-6.1.1 | grep -q "^vm-6.1.1  *FAIL  *${tree2:0:12} .* current$" || fail "vm-6.1.1 row: $(row vm-6.1.1)"
grep -q '^failed: vm-7.2.1 vm-6.1.1 bench-compare$' "$T/status" || fail "failed line: $(cat "$T/status")"
ok "a failed part and a part without results: FAIL, listed as failed"

# a run on an uncommitted change: recorded as the tree it ran on, not HEAD's
echo three >> "$R/a.txt"
cfs run host > "$T/out" 2>&1 || fail "dirty run: $(cat "$T/out")"
dtree=$(field host tree)
[ "$(field host dirty)" = yes ] || fail "dirty run recorded as clean: $(cat "$CF/host.tsv")"
[ "$dtree" != "$tree2" ] || fail "dirty run recorded HEAD's tree"
[ "$(field host commit)" = "$(git rev-parse HEAD)" ] || fail "dirty run: commit"
cfs status > "$T/status" && fail "status exits 0 with parts stale"
row host | grep -q "^host  *PASS  *${dtree:0:12} .* stale (another tree), uncommitted at run$" ||
	fail "dirty host row: $(row host)"
grep -q 'the work tree has changes that are not committed' "$T/status" || fail "no dirty note"
# committing exactly what ran makes HEAD's tree the recorded one
git commit -qam three
[ "$(head_tree)" = "$dtree" ] || fail "commit of the dirty state: tree differs"
cfs status > "$T/status"
row host | grep -q "^host  *PASS  *${dtree:0:12} .* current, uncommitted at run$" ||
	fail "host row after the commit: $(row host)"
ok "dirty run recorded as its own tree ${dtree:0:12} (dirty yes): stale, then current once committed"

# an edit during the run: stale
FAKE_EDIT=four cfs run vm-6.12.2 > "$T/out" 2>&1 || fail "run vm-6.12.2: $(cat "$T/out")"
[ "$(field vm-6.12.2 tree)" = "$dtree" ] && [ "$(field vm-6.12.2 tree_end)" != "$dtree" ] ||
	fail "edit during the run: $(cat "$CF/vm-6.12.2.tsv")"
git checkout -q a.txt
cfs status > "$T/status"
row vm-6.12.2 | grep -q "stale (the tree changed during the run)$" || fail "vm-6.12.2 row: $(row vm-6.12.2)"
ok "an edit during a run: the record is stale"

# make check-full-status reads O's records; for this checkout they ran
# on another tree
make -s --no-print-directory -C "$REAL_SRC" O="$O" check-full-status > "$T/status" 2>&1 &&
	fail "make check-full-status exits 0"
row host | grep -q "^host  *PASS  *${dtree:0:12} .* stale (another tree), uncommitted at run$" ||
	fail "make check-full-status: $(cat "$T/status")"
ok "make check-full-status prints the matrix and exits non-zero"
