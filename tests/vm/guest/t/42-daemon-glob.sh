# SPDX-License-Identifier: GPL-2.0-or-later
# Glob attach of 100 functions in every available BPF function mode (each
# function counts exactly its calls from this pid), with attach/detach
# times printed for the closing note (not asserted). kmod modes: 47.
# ci-kernels: 6.12-arm64
source ./t/40-daemon-lib.sh
load_testmod
daemon_start
glob_modes fentry kprobe kprobe-int3 kprobe-multi
daemon_stop
