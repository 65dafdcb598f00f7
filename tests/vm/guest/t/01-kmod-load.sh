# SPDX-License-Identifier: GPL-2.0-or-later
# tracerd_kmod loads, /dev/tracerd is root-only and answers the version
# ioctl with this build's ABI, rmmod is clean. Booted with retbleed=stuff,
# the kernel says call depth tracking is in effect.
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
# the variant boot with retbleed=stuff must really run call depth tracking
# (tests/vm/lib.sh vm_x86_cpu), else it would test nothing of it
if grep -qw 'retbleed=stuff' /proc/cmdline; then
	expect_eq "retbleed=stuff: call depth tracking in effect" \
		"$(cat /sys/devices/system/cpu/vulnerabilities/retbleed)" "Mitigation: Stuffing"
fi
