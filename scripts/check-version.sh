#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check-version.sh [KO...] — the one version (VERSION) is the one of
# debian/changelog's top entry (the packages) and of each built module KO
# given that exists (MODULE_VERSION, set by kmod/Kbuild from VERSION).
# Exits non-zero, naming both, when one of them drifted.
set -euo pipefail
SRC=${SRC:-$(cd "$(dirname "$0")/.." && pwd)}
v=$(cat "$SRC/VERSION")
fail=0
if ! [[ $v =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
	echo "check-version: VERSION '$v' is not MAJOR.MINOR.PATCH" >&2; fail=1
fi
# top entry: "tracerd (VERSION) DIST; urgency=..." (a native package: no
# Debian revision, so the package version is VERSION itself)
cl=$(sed -n '1s/^tracerd (\([^)]*\)) .*/\1/p' "$SRC/debian/changelog")
if [ "$cl" != "$v" ]; then
	echo "check-version: debian/changelog's top entry is '${cl:-unparsable}', VERSION is '$v'" \
		"(add a changelog entry: dch -v $v)" >&2
	fail=1
fi
for ko in "$@"; do
	[ -e "$ko" ] || continue
	mv=$(modinfo -F version "$ko" 2>/dev/null || true)
	if [ "$mv" != "$v" ]; then
		echo "check-version: $ko carries version '${mv:-none}', VERSION is '$v'" >&2
		fail=1
	fi
done
[ $fail = 0 ] && echo "check-version: $v (VERSION, debian/changelog${1:+, module})"
exit $fail
