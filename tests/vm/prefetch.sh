#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# prefetch.sh [BOOT...] — fetch and build, for each kernel of BOOT (default:
# $VM_BOOTS_ALL), what its boot needs that is not built from our sources
# (vm_fetch: roots, kernels, build roots, initramfs, disks), each kernel
# under the lock boot.sh takes, in two lanes (native, foreign arches).
# make check starts it in the background while the unit, host and fuzz
# layers run, so a cold run does
# its downloads and debootstraps beside them; a boot that gets there first
# waits on the lock and finds the cache ready. Never fails the check: what
# went wrong here, boot.sh does again and reports.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
mkdir -p "$VM_DIR/k"
# fetch KERNEL...: one after another, each under its kernel's lock
fetch() {
	local k
	for k in "$@"; do
		(
			exec 9> "$VM_DIR/k/$k.lock"
			flock 9
			vm_fetch "$k" || vm_log "prefetch of $k failed (its boot will try again)"
		)
	done
}
# two lanes: the host's own arch, and the foreign ones (qemu-user
# debootstraps of arm64 and riscv64 roots, the longest part of a cold run);
# what they share (the sid build root, apt configurations) has its own lock
seen=" " native="" foreign=""
for b in ${*:-$VM_BOOTS_ALL}; do
	k=${b%%@*}
	[[ "$seen" == *" $k "* ]] && continue
	seen="$seen$k "
	if vm_native "$(vm_arch "$k")"; then native="$native $k"; else foreign="$foreign $k"; fi
done
fetch $native &
fetch $foreign &
wait
exit 0
