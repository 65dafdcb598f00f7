#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The lists of modes the command line gives out come from the one mode
# table (include/tracerd/modes.h, TRACERD_MODES): the bash completion's
# _tracectl_modes holds "auto" and every row of it, and `tracectl attach
# --help` names each of them (its --mode line is made from the table).
source "$(dirname "$0")/lib/daemon.bash"
: "${SRC:?SRC (source dir) not set}"
table=$( (echo auto; sed -n 's/^[[:space:]]*X([A-Z0-9_]*, "\([a-z0-9-]*\)".*/\1/p' \
	"$SRC/include/tracerd/modes.h") | sort)
[ "$(wc -l <<< "$table")" -ge 8 ] || fail "modes from TRACERD_MODES: '$table'"
comp=$(sed -n 's/^_tracectl_modes="\(.*\)"$/\1/p' "$SRC/cli/tracectl.bash" | tr ' ' '\n' | sort)
expect_eq "completion's modes (cli/tracectl.bash)" "$(echo $comp)" "$(echo $table)"
help=$($TRACECTL attach --help) || fail "attach --help"
for m in $table; do
	grepq -E "(^| )$m(,| |$)" <<< "$help" || fail "attach --help does not name mode $m"
done
ok "attach --help names every mode of the table"
