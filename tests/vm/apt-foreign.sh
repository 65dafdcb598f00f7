#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# apt-foreign.sh ARCH DIR [SUITE] — a private apt configuration for ARCH's
# package lists under DIR: prints the path of its apt.conf, to be used as
# APT_CONFIG=... apt-get ...  Without SUITE: the host's Debian sources,
# restricted to ARCH. With SUITE (e.g. sid): the host's Debian archive URI
# with that suite's main component only. The host's own apt sources and
# architectures are never touched.
set -euo pipefail
arch=$1 dir=$(mkdir -p "$2" && cd "$2" && pwd -P) suite=${3:-}
mkdir -p "$dir/sources.list.d" "$dir/preferences.d" "$dir/state/lists/partial" "$dir/cache/archives/partial"
# one configuration at a time: boots of one architecture run side by side
# (6.12-arm64 and 6.1-arm64 share apt-arm64) and apt-get update takes its
# own lock without waiting; the second caller waits here and finds the
# lists fresh
exec 9> "$dir/.lock"
flock 9
: > "$dir/state/status"
src=/etc/apt/sources.list.d/debian.sources
[ -f "$src" ] || { echo "apt-foreign: $src not found (need Debian 12 deb822 sources)" >&2; exit 1; }
if [ -z "$suite" ]; then
	# keep only Debian's own entries, restricted to ARCH
	awk -v a="$arch" 'BEGIN { RS = ""; ORS = "\n\n" }
		/URIs: *https?:\/\/[^ ]*debian/ { print $0 "\nArchitectures: " a }' "$src"
else
	# the main archive (not -security: other suites have their own layout)
	uri=$(sed -n 's/^URIs: *\(https\{0,1\}:\/\/[^ ]*debian\)\/*$/\1/p' "$src" | head -n1)
	[ -n "$uri" ] || { echo "apt-foreign: no Debian archive URI in $src" >&2; exit 1; }
	printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\nArchitectures: %s\n' \
		"$uri" "$suite" /usr/share/keyrings/debian-archive-keyring.gpg "$arch"
fi > "$dir/sources.list.d/debian.sources.new"
# a changed source list means the lists must be fetched again
if ! cmp -s "$dir/sources.list.d/debian.sources.new" "$dir/sources.list.d/debian.sources"; then
	mv "$dir/sources.list.d/debian.sources.new" "$dir/sources.list.d/debian.sources"
	rm -f "$dir/state/updated"
else
	rm -f "$dir/sources.list.d/debian.sources.new"
fi
cat > "$dir/apt.conf" <<EOC
APT::Architecture "$arch";
APT::Architectures { "$arch"; };
Dir::Etc::SourceList "/dev/null";
Dir::Etc::SourceParts "$dir/sources.list.d";
Dir::Etc::Preferences "/dev/null";
Dir::Etc::PreferencesParts "$dir/preferences.d";
Dir::State "$dir/state";
Dir::State::status "$dir/state/status";
Dir::Cache "$dir/cache";
APT::Sandbox::User "root";
EOC
# refresh the lists at most once a day
stamp=$dir/state/updated
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +1440)" ]; then
	APT_CONFIG=$dir/apt.conf apt-get update -q >/dev/null 2>"$dir/update.log" ||
		{ cat "$dir/update.log" >&2; exit 1; }
	touch "$stamp"
fi
echo "$dir/apt.conf"
