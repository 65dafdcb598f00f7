#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make demo: boot each test kernel and show what tracerd sees there.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rc=0
for k in ${VM_KERNEL:-6.1 6.12}; do
	echo "=== Debian $k under QEMU (TCG) ==="
	"$here/run" --kernel "$k" -- bash /opt/tracerd/tests/demo.sh 2>/dev/null || rc=1
	echo
done
exit $rc
