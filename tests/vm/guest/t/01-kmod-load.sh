# SPDX-License-Identifier: GPL-2.0-or-later
# tracerd_kmod loads, /dev/tracerd is root-only and answers the version
# ioctl with this build's ABI, rmmod is clean.
source ./lib.sh
unload_mod tracerd_kmod
load_kmod
[ -c /dev/tracerd ] || fail "/dev/tracerd missing after insmod"
expect_eq "/dev/tracerd mode" "$(stat -c %a /dev/tracerd)" 600
kmod_version || fail "version ioctl"
unload_mod tracerd_kmod
[ ! -e /dev/tracerd ] || fail "/dev/tracerd still present after rmmod"
grep -q '^tracerd_kmod ' /proc/modules && fail "module still loaded"
echo "ok: load, version, unload"
