#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# build-deb.sh [--cached] OUTDIR — build the tracerd and tracerd-dkms packages with
# `dpkg-buildpackage -us -uc -b` from a copy of this checkout's files (git's
# tracked files as they are in the work tree, so uncommitted edits count;
# never build/ or other untracked files), and put the .debs, .changes and
# .buildinfo into OUTDIR (the build log as OUTDIR/build.log), with
# OUTDIR/source.key: a digest of the files they were built from.
# --cached: keep OUTDIR's packages when their source.key is the current one
# (the VM harness stages the tracerd .deb this way).
# Needs the Build-Depends (dpkg-buildpackage checks them) and git.
set -euo pipefail
SRC=${SRC:-$(cd "$(dirname "$0")/.." && pwd)}
cached=0
[ "${1:-}" = --cached ] && { cached=1; shift; }
out=${1:?usage: build-deb.sh [--cached] OUTDIR}
command -v dpkg-buildpackage >/dev/null ||
	{ echo "build-deb: no dpkg-buildpackage (scripts/deps.sh deb installs the packaging tools)" >&2; exit 1; }
git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1 ||
	{ echo "build-deb: $SRC is not a git checkout (the file list comes from git)" >&2; exit 1; }
# tracked files that exist (a deletion not yet committed is left out)
files() { git -C "$SRC" ls-files -z | (cd "$SRC" && xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' _); }
key=$(cd "$SRC" && files | xargs -0 -r sha1sum | sha1sum | cut -c1-16)
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ $cached = 1 ] && [ "$(cat "$out/source.key" 2>/dev/null)" = "$key" ] &&
   ls "$out"/tracerd_*.deb >/dev/null 2>&1; then
	ls "$out"/*.deb
	exit 0
fi
rm -f "$out/source.key"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tracerd-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/tracerd"
files | (cd "$SRC" && tar --null -T - -cf -) | tar -C "$tmp/tracerd" -xf -
jobs=$(nproc 2>/dev/null || echo 1)
if ! (cd "$tmp/tracerd" &&
      env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u O -u SRC \
		DEB_BUILD_OPTIONS="parallel=$jobs ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -us -uc -b) \
		> "$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	echo "build-deb: dpkg-buildpackage failed (log: $out/build.log)" >&2
	exit 1
fi
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
mv "$tmp"/*.deb "$tmp"/*.changes "$tmp"/*.buildinfo "$out/"
echo "$key" > "$out/source.key"
ls "$out"/*.deb
