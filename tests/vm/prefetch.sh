#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# prefetch.sh [BOOT...] — fetch and build, for each kernel of BOOT (default:
# $VM_BOOTS_ALL), what its boot needs that is not built from our sources
# (vm_fetch: roots, kernels, build roots, initramfs, disks), one kernel at a
# time under the lock boot.sh takes. make check starts it in the
# background while the unit, host and fuzz layers run, so a cold run does
# its downloads and debootstraps beside them; a boot that gets there first
# waits on the lock and finds the cache ready. Never fails the check: what
# went wrong here, boot.sh does again and reports.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
mkdir -p "$VM_DIR/k"
seen=" "
for b in ${*:-$VM_BOOTS_ALL}; do
	k=${b%%@*}
	[[ "$seen" == *" $k "* ]] && continue
	seen="$seen$k "
	(
		exec 9> "$VM_DIR/k/$k.lock"
		flock 9
		vm_fetch "$k" || vm_log "prefetch of $k failed (its boot will try again)"
	)
done
exit 0
