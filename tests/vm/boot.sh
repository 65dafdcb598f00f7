#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# boot.sh KERNEL RUNDIR MODE [TIMEOUT] — prepare kernel KERNEL (cached), stage
# the payload, boot once, and leave console.log/out.log in RUNDIR.
# MODE: test (in-VM suite) or cmd (RUNDIR/cmd.sh). Used by vm-check.sh and run.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
k=$1 run=$2 mode=$3
# whole-boot timeout (a wedged guest exits long before, see panic= in lib.sh):
# 45 minutes for the CI profile, 3 hours for the full sizes
tmo=${4:-${VM_TIMEOUT:-$([ "${PROFILE:-ci}" = full ] && echo 10800 || echo 2700)}}
# one preparer per kernel at a time (several runs may share build/vm)
mkdir -p "$VM_DIR/k"
exec 9> "$VM_DIR/k/$k.lock"
flock 9
vm_prepare "$k" || exit 1
rm -rf "$run/payload"; mkdir -p "$run/payload"
vm_payload "$k" "$run/payload"
flock -u 9
exec 9>&-
[ "$mode" = cmd ] && cp "$run/cmd.sh" "$run/payload/cmd.sh"
[ -n "${VM_ONLY:-}" ] && printf '%s\n' $VM_ONLY > "$run/payload/only"
# a variant boot's name (6.12-arm64@mttcg), which '# ci-kernels:' lines may name
[ -n "${VM_BOOT_NAME:-}" ] && echo "$VM_BOOT_NAME" > "$run/payload/boot-name"
vm_stage "boot $k" $((tmo + 30)) bash -c "source '$VM_SRC/tests/vm/lib.sh'; vm_boot $k '$run' $tmo 'tracerd.mode=$mode ${VM_CMDLINE:-}'"
