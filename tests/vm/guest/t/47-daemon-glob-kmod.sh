# SPDX-License-Identifier: GPL-2.0-or-later
# Glob attach of 100 functions in every kmod mode (the daemon resolves
# each name to its address and attaches them one by one); see 42.
source ./t/40-daemon-lib.sh
load_testmod
load_kmod
daemon_start
glob_modes kmod-callops kmod-direct kmod-kprobe
daemon_stop
