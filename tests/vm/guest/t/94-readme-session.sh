# SPDX-License-Identifier: GPL-2.0-or-later
# ci-kernels: 6.12
# README.md's first session, run as README shows it: every command of its
# marked block (`readme-session: begin` .. `end`) runs here as written,
# and its output must have README's shape: the same lines with the same
# words, numbers free (readme-session.py). README says the session starts
# with the module loaded and the daemon running (`modprobe tracerd_kmod`,
# `systemctl start tracerd`); here the module comes from the payload and
# the daemon is a private one (no systemd as PID 1 in this boot:
# 70-systemd tests the unit), which plain `tracectl` finds through
# TRACERD_SOCKET. The README is staged as /opt/tracerd/README.md
# (vm_payload). READMESESSION_PRINT=1: print the blocks from this run
# instead, to refresh README (its run counted instructions):
#   tests/vm/run --kernel 6.12 --icount 0 -- env READMESESSION_PRINT=1 \
#	bash tests/t/94-readme-session.sh
cd /opt/tracerd/tests || exit 1
source ./t/40-daemon-lib.sh
# the outputs are 6.12's (its modes, its status lines): check-full, which
# ignores ci-kernels, would compare another kernel's against them
KERNEL_NAME=${KERNEL_NAME:-$(cat /opt/tracerd/kernel-name)}
[ "$KERNEL_NAME" = 6.12 ] || skip "README's session shows 6.12 x86_64; this is $KERNEL_NAME"
[ -f /opt/tracerd/README.md ] || fail "README.md not staged in the payload"
load_kmod
daemon_start "listen = off"
echo "daemon ready after ${SECONDS} s (its mode probes)"
trap daemon_cleanup EXIT
export TRACERD_SOCKET=$SOCK
if [ -n "${READMESESSION_PRINT:-}" ]; then
	python3 ./readme-session.py /opt/tracerd/README.md --print || fail "a command failed"
else
	python3 ./readme-session.py /opt/tracerd/README.md || fail "README's session differs from this run"
fi
$C detach --all > /dev/null || fail "detach --all"
daemon_stop
trap - EXIT
