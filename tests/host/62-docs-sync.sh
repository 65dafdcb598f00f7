# SPDX-License-Identifier: GPL-2.0-or-later
# --help, the man pages and the bash completion list the same commands and
# options; config keys agree between lib/config.c, tracerd.conf(5) and the
# default config; every mode list of the docs and the completion names the
# rows of include/tracerd/modes.h; every `make TARGET` of the docs exists and
# installs its deps; README's `tracectl` commands and options exist, and its
# session blocks parse (t/94-readme-session runs them in the VM). Man pages
# also pass `man --warnings` when man is present.
set -u
python3 "$SRC/tests/host/docs-sync.py" "$O" "$SRC"; rc=$?
if command -v man >/dev/null; then
	for m in "$SRC"/docs/man/*.[0-9]; do
		w=$(LC_ALL=C MANWIDTH=80 man --warnings -l "$m" 2>&1 >/dev/null)
		[ -z "$w" ] || { echo "man warnings in $m: $w"; exit 1; }
	done
	echo "ok: man pages render without warnings"
fi
exit $rc
