#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make demo's decision (#35): this kernel when it allows every path, the
# test VM otherwise, and the screen says which and why. tests/vm/demo.sh
# with DEMO_PLAN=1 prints its plan and stops, so the decision is tested
# without a boot: the probe's verdict injected (DEMO_PROBE_VERDICT: ok, a
# refusal), DEMO_VM=1 and DEMO_HOST=1 against each, the bad inputs (exit 2,
# nothing run), then the probe run for real on this kernel (as root):
# every path `tracectl status` reports unavailable is named on the screen,
# with the daemon's reasons in full in host-probe.txt. And make demo-all's
# plan: one boot per suite on the seven kernels, the stacks in each
# kernel's last boot, its expected time the sum of the boots' (the
# estimates' one place), a cold cache's extra said only when the cache
# lacks something.
: "${O:?O (build dir) not set}" "${SRC:?SRC (source dir) not set}"
set -uo pipefail
[ "${SANITIZE:-}" = 1 ] && { echo "SANITIZE=1: the plan runs no sanitized binary"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }
expect_eq() { [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"; ok "$1 = $3"; }

# a scratch build dir: our binaries, an empty VM cache (cold)
B=$T/build
mkdir -p "$B/tests"
for f in tracerd tracectl; do ln -s "$O/$f" "$B/$f"; done
ln -s "$O/tests/jpath" "$B/tests/jpath"
# plan [VAR=VALUE...]: the demo's plan with that environment; stdout in
# $T/out, stderr in $T/err, exit status in $prc
plan() {
	env -u DEMO_VM -u DEMO_HOST -u DEMO_ALL -u VM_KERNEL -u DEMO_SUITES -u DEMO_PROBE_VERDICT \
		-u DEMO_REPORT_KERNELS -u VM_ICOUNT O="$B" DEMO_PLAN=1 "$@" \
		bash "$SRC/tests/vm/demo.sh" > "$T/out" 2> "$T/err"
	prc=$?
}
line1() { head -n 1 "$T/out"; }
r=$(uname -r)

# the verdict: this kernel allows every path
plan DEMO_PROBE_VERDICT=ok
expect_eq "ok: exit" $prc 0
expect_eq "ok: where and why" "$(line1)" \
	"make demo: this kernel ($r) allows every path: measuring it (real nanoseconds, the module built for it; DEMO_VM=1 for the test VM)"
grep -q 'QEMU' "$T/out" && fail "ok: the plan boots a VM: $(cat "$T/out")"
expect_eq "ok: runs" "$(sed -n 2p "$T/out")" "  runs: trigger, ops, attach, entry, stacks; results: $B/demo/"
# ... unless the test VM is asked for
plan DEMO_PROBE_VERDICT=ok DEMO_VM=1
expect_eq "ok, DEMO_VM=1: exit" $prc 0
expect_eq "ok, DEMO_VM=1: where and why" "$(line1)" "make demo: DEMO_VM=1: using the test VM"
expect_eq "ok, DEMO_VM=1: one boot" "$(grep -c '^  boot ' "$T/out")" 1
plan DEMO_PROBE_VERDICT=ok DEMO_HOST=1
expect_eq "ok, DEMO_HOST=1: exit" $prc 0
grep -q '^make demo: this kernel .* measuring it' "$T/out" || fail "ok, DEMO_HOST=1: $(cat "$T/out")"

# the verdict: a refusal, said on the screen, then the VM
no="this kernel ($r) refuses fentry (EPERM)"
plan DEMO_PROBE_VERDICT="$no"
expect_eq "refused: exit" $prc 0
expect_eq "refused: where and why" "$(line1)" "make demo: $no: using the test VM"
expect_eq "refused: the boot" "$(grep '^  boot ' "$T/out")" \
	"  boot 1/1: 6.12 trigger, ops, attach, entry, stacks: about $(grep -o 'expected about [0-9]* min' "$T/out" | grep -o '[0-9]* min')"
expect_eq "refused: one kernel, one boot" "$(sed -n 2p "$T/out")" \
	"  trigger, ops, attach, entry, stacks on 1 kernel(s) (6.12), 1 QEMU boot(s)"
# cold: an empty VM cache adds its fill, said; warm: not
grep -q '^  expected about [0-9]* min, plus about [0-9]* min to fill the VM cache' "$T/out" ||
	fail "cold cache: no extra said: $(cat "$T/out")"
mkdir -p "$B/vm/k/6.12/kmod"
echo x > "$B/vm/rootfs-amd64.tar"
: > "$B/vm/k/6.12/.done"
: > "$B/vm/k/6.12/kmod/tracerd_kmod.ko"
plan DEMO_PROBE_VERDICT="$no"
grep -q '^  expected about [0-9]* min (the VM cache is warm)$' "$T/out" ||
	fail "warm cache: $(cat "$T/out")"
ok "cold cache: its fill said; warm: said warm"
# DEMO_HOST=1: this kernel or nothing
plan DEMO_PROBE_VERDICT="$no" DEMO_HOST=1
expect_eq "refused, DEMO_HOST=1: exit" $prc 1
expect_eq "refused, DEMO_HOST=1: why" "$(cat "$T/err")" "demo: DEMO_HOST=1: $no"
expect_eq "refused, DEMO_HOST=1: nothing planned" "$(cat "$T/out")" ""

# bad inputs: exit 2, said, nothing planned
bad() {
	local want=$1
	shift
	plan "$@"
	expect_eq "$*: exit" $prc 2
	grep -qF "$want" "$T/err" || fail "$*: stderr '$(cat "$T/err")' lacks '$want'"
	expect_eq "$*: nothing planned" "$(cat "$T/out")" ""
}
bad "DEMO_VM=1 and DEMO_HOST=1 exclude each other" DEMO_VM=1 DEMO_HOST=1
bad "DEMO_SUITES: unknown run 'bogus'" DEMO_SUITES="ops bogus"
bad "VM_KERNEL: unknown kernel '9.9'" VM_KERNEL="6.12 9.9" DEMO_PROBE_VERDICT="$no"
bad "DEMO_HOST=1 is make demo's" DEMO_ALL=1 DEMO_HOST=1

# make demo-all: the seven kernels, one boot per suite, its expected time
plan DEMO_ALL=1 DEMO_PROBE_VERDICT=ok
expect_eq "demo-all: exit" $prc 0
expect_eq "demo-all: VMs whatever the host" "$(line1)" \
	"make demo-all: the test kernels under QEMU (the seven of the seeds by default)"
# (riscv64: no entry run, the test module has no entry variants there)
expect_eq "demo-all: boots" "$(grep -c '^  boot ' "$T/out")" 26
expect_eq "demo-all: kernels" "$(sed -n 's/^  boot [0-9]*\/26: \([^ ]*\) .*/\1/p' "$T/out" | uniq | tr '\n' ' ')" \
	"6.1 6.12 7.2 6.12-arm64 6.1-arm64 6.12-riscv64 7.2-riscv64 "
expect_eq "demo-all: each kernel's boots" "$(grep -c '^  boot [0-9]*/26: 6.12-arm64 ' "$T/out")" 4
expect_eq "demo-all: riscv64's boots, none with entry" \
	"$(grep '^  boot [0-9]*/26: 7.2-riscv64 ' "$T/out" | sed 's/^  boot [0-9]*\/26: 7.2-riscv64 \(.*\): about.*/\1/' | paste -sd'|')" \
	"trigger|ops|attach, stacks"
expect_eq "demo-all: stacks in each kernel's last boot" \
	"$(grep -c '^  boot [0-9]*/26: [^ ]* [a-z]*, stacks: ' "$T/out")" 7
grep -q "^  entry: not on riscv64" "$T/out" || fail "demo-all: the plan does not say why riscv64 has no entry run"
# the total is the boots' sum (each boot's minutes rounded up)
total=$(sed -n 's/^  expected about \([0-9]*\) min.*/\1/p' "$T/out")
sum=$(( $(sed -n "s/^  boot .*: about \([0-9]*\) min$/\1/p" "$T/out" | paste -sd+) ))
[ -n "$total" ] && [ "$total" -le "$sum" ] && [ "$total" -gt $((sum - 28)) ] ||
	fail "demo-all: expected $total min, the boots sum to $sum min"
ok "demo-all: expected $total min, the boots' sum ($sum, each rounded up)"
plan DEMO_ALL=1 VM_KERNEL="6.12 6.1-arm64"
expect_eq "demo-all in parts: boots" "$(grep -c '^  boot ' "$T/out")" 8
expect_eq "demo-all in parts: results where the seven's are" \
	"$(grep '^  results: ' "$T/out")" "  results: $B/demo-all/"
# the runs named, the others left out
plan DEMO_SUITES=ops DEMO_PROBE_VERDICT="$no"
expect_eq "DEMO_SUITES=ops: one run" "$(grep '^  boot ' "$T/out" | sed 's/: about.*//')" "  boot 1/1: 6.12 ops"

# the probe for real (root: it starts tracerd and may load the module)
if [ "$(id -u)" != 0 ]; then
	plan
	expect_eq "not root: where and why" "$(line1)" \
		"make demo: not root (measuring this kernel loads modules and BPF programs): using the test VM"
	echo "not root: the probe's kernel questions not asked"
	exit 0
fi
plan
expect_eq "real probe: exit" $prc 0
echo "real probe: $(line1)"
# what the daemon says of this kernel, asked here
D=$T/d
mkdir -p "$D"
printf 'listen = off\nstate_dir = %s/state\n' "$D" > "$D/c.conf"
"$O/tracerd" --config "$D/c.conf" --socket "$D/s.sock" 2> "$D/log" &
dp=$!
for _ in $(seq 1 100); do [ -S "$D/s.sock" ] && break; sleep 0.1; done
"$O/tracectl" --socket "$D/s.sock" --json status > "$D/status.json" || fail "tracectl status"
kill "$dp"; wait "$dp"
refused=0
for m in fentry kprobe; do
	[ "$("$O/tests/jpath" ".features.$m.available" < "$D/status.json")" = true ] && continue
	refused=1
	reason=$("$O/tests/jpath" ".features.$m.reason" < "$D/status.json")
	code=$(grep -o '(E[A-Z0-9]*)' <<< "$reason" | tail -n 1)
	w=$m
	[ $m = kprobe ] && w=kprobes
	line1 | grep -qE "(refuses|has no) $w${code:+ \\$code}" ||
		fail "real probe: $m unavailable ($reason), the screen says: $(line1)"
	grep -qxF "$m: $reason" "$B/demo/host-probe.txt" ||
		fail "real probe: host-probe.txt lacks '$m: $reason': $(cat "$B/demo/host-probe.txt")"
	ok "real probe: $m unavailable, said: $w${code:+ $code}"
done
if [ ! -e /proc/modules ]; then
	refused=1
	line1 | grep -qF "has no loadable modules (no /proc/modules)" ||
		fail "real probe: no /proc/modules, the screen says: $(line1)"
	ok "real probe: no loadable modules, said"
fi
if [ $refused = 1 ]; then
	line1 | grep -q "^make demo: this kernel ($r) .*: using the test VM (the reasons in full: $B/demo/host-probe.txt)$" ||
		fail "real probe: refused, but: $(line1)"
	grep -q 'QEMU boot' "$T/out" || fail "real probe: refused, no VM boot planned"
	ok "real probe: this kernel refuses, the test VM planned"
else
	# every path the daemon probes is there: the module decides
	line1 | grep -qE "measuring it|refuses tracerd_(kmod|testmod).ko|headers|cannot build the module" ||
		fail "real probe: every BPF path here, but: $(line1)"
	ok "real probe: $(line1)"
fi
exit 0
