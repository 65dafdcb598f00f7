#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# kbuild-module.sh OUTDIR KDIR SRCDIR FILE... — build an out-of-tree module
# from FILEs (linked into OUTDIR, since kbuild writes next to its sources)
# against the kernel tree KDIR, then check that every .ko carries .BTF.
set -euo pipefail
out=$1 kdir=$2 src=$3
shift 3
mkdir -p "$out"
for f in "$@"; do ln -sfn "$f" "$out/"; done
args=(-C "$kdir" M="$out" TRACERD_SRC="$src" ${KBUILD_ARCH_ARGS:-})
# resolve_btfids is a no-op for modules without .BTF_ids (ours); the 6.1
# linux-kbuild package lacks the tool, so skip it there and check below.
no_rb=0
if [ ! -x "$kdir/tools/bpf/resolve_btfids/resolve_btfids" ]; then
	args+=(RESOLVE_BTFIDS=true); no_rb=1
fi
if [ "${V:-0}" = 1 ]; then
	env -u O -u SRC -u MAKEFLAGS -u MAKEOVERRIDES -u MFLAGS make "${args[@]}" V=1 modules
elif ! env -u O -u SRC -u MAKEFLAGS -u MAKEOVERRIDES -u MFLAGS make "${args[@]}" modules > "$out/build.log" 2>&1; then
	cat "$out/build.log" >&2; exit 1
fi
grep -E 'warning:|error:' "$out/build.log" 2>/dev/null >&2 || true
# has_section KO NAME: KO has section NAME (readelf's whole output is read:
# `readelf | grep -q` fails under pipefail when grep exits before readelf
# has written everything, which a loaded machine makes likely)
has_section() { [[ $'\n'$(readelf -S "$1") == *" $2 "* ]]; }
# kbuild links a .ko again when only its command line changed, but adds
# BTF only when a prerequisite is newer (6.1's Makefile.modfinal): such a
# .ko has no .BTF. Rebuild those from their objects once.
missing_btf() {
	local ko
	for ko in "$out"/*.ko; do
		has_section "$ko" .BTF || echo "$ko"
	done
}
if [ -n "$(missing_btf)" ]; then
	rm -f $(missing_btf)
	env -u O -u SRC -u MAKEFLAGS -u MAKEOVERRIDES -u MFLAGS make "${args[@]}" modules >> "$out/build.log" 2>&1 ||
		{ cat "$out/build.log" >&2; exit 1; }
fi
for ko in "$out"/*.ko; do
	if ! has_section "$ko" .BTF; then
		echo "$ko: no .BTF section (is pahole/dwarves installed? does KDIR hold vmlinux?)" >&2
		exit 1
	fi
	if [ $no_rb = 1 ] && has_section "$ko" .BTF_ids; then
		echo "$ko: has .BTF_ids but $kdir has no resolve_btfids" >&2
		exit 1
	fi
done
