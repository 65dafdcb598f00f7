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

# --format completes per command, from the lists tracectl takes: stats'
# stacks formats (each accepted, and named by the error for a bad one),
# dump's; -o/--output completes file names.
comp_of() { # comp_of WORDS...: what _tracectl offers for the last word
	(
		source "$SRC/cli/tracectl.bash"
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		_tracectl
		echo "${COMPREPLY[*]}"
	)
}
expect_eq "stats --format completion" "$(comp_of tracectl stats --stacks --format '')" "text folded pprof"
expect_eq "dump --format completion" "$(comp_of tracectl dump --format '')" "text json chrome csv"
msg=$($TRACECTL stats --stacks --format bogus 2>&1)
grepq -F "not 'bogus'" <<< "$msg" || fail "stats --format bogus: $msg"
for f in $(comp_of tracectl stats --format ''); do
	grepq -E "(: | )$f(,| or )" <<< "$msg" || fail "the --format error does not name $f: $msg"
	out=$($TRACECTL stats --format "$f" 2>&1)
	grepq -F -- "--format renders stacks: it needs --stacks" <<< "$out" ||
		fail "stats --format $f not taken as a format: $out"
done
touch "$W/out-file.svg"
expect_eq "flame -o completion" "$(comp_of tracectl flame -o "$W/out-")" "$W/out-file.svg"
expect_eq "flame options" "$(comp_of tracectl flame --)" "--output --top --merge --help"
