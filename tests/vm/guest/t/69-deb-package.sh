# SPDX-License-Identifier: GPL-2.0-or-later
# The tracerd .deb (debian/, built on the host by scripts/build-deb.sh and
# staged in /opt/tracerd/deb) under the real systemd (boot KERNEL@systemd):
# `apt-get install ./tracerd_V_ARCH.deb` resolves its dependencies offline
# from the root's packages, dpkg knows it at VERSION, the unit is enabled
# and started by the package (Type=notify: active means ready), tracectl
# status and an attachment's exact count work through the packaged
# service, `systemctl stop` stops it; `dpkg -r` of a running service stops
# it and keeps the config, `dpkg --purge` leaves no tracerd process, unit,
# binary, config or state. Runs before 70-systemd, which installs from
# `make install` on the same root.
source ./lib.sh
[ "$(cat /proc/1/comm)" = systemd ] || skip "needs systemd as PID 1 (the 6.12@systemd boot runs this)"
deb=$(ls /opt/tracerd/deb/tracerd_*.deb 2>/dev/null | head -n1)
[ -n "$deb" ] || skip "no tracerd .deb in the payload ($(cat /opt/tracerd/deb/why-none 2>/dev/null || echo 'not staged'))"
trap 'rc=$?; [ $rc = 0 ] || [ $rc = 77 ] || journalctl -u tracerd --no-pager -o cat | tail -n 30' EXIT
V=$(dpkg-deb -f "$deb" Version)
C=/usr/bin/tracectl	# not the payload's (/opt/tracerd/bin comes first in PATH)
running() { pgrep -x tracerd > /dev/null; }
running && fail "a tracerd runs before the package is installed"

# --- install with apt, offline (no package lists: only installed packages
# can satisfy the dependencies)
cp "$deb" /tmp/ && chmod 0644 "/tmp/${deb##*/}"
out=$(DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
	"/tmp/${deb##*/}" 2>&1) || fail "apt-get install ./${deb##*/}: $(tail -n 5 <<< "$out")"
echo "ok: apt-get install ./${deb##*/} (at ${SECONDS}s)"
expect_eq "dpkg status" "$(dpkg-query -W -f='${Status}' tracerd)" "install ok installed"
expect_eq "dpkg version" "$(dpkg-query -W -f='${Version}' tracerd)" "$V"
expect_eq "unit enabled by the package" "$(systemctl is-enabled tracerd)" enabled
expect_eq "unit started by the package" "$(systemctl is-active tracerd)" active
expect_eq "unit file" "$(systemctl show -p FragmentPath --value tracerd)" /lib/systemd/system/tracerd.service
dpkg -L tracerd | grep -qx /usr/sbin/tracerd || fail "dpkg -L: no /usr/sbin/tracerd"
out=$($C status 2>&1) || fail "tracectl status: $out"
[[ $out == *"$V"* ]] || fail "tracectl status does not say version $V: $out"
echo "ok: tracectl status: $(head -n1 <<< "$out")"

# --- an attachment through the packaged service counts exactly
N=$(size 100 2000)
out=$($C attach tp:task/task_rename --comm t69 2>&1) || fail "tracectl attach: $out"
bash -c "printf t69 > /proc/self/comm; for ((i = 0; i < $N; i++)); do printf t69 > /proc/self/comm; done"
n=$($C --json stats | grep -o '"calls":[0-9]*' | head -n1 | cut -d: -f2)
expect_eq "calls through the packaged service" "$n" "$N"
echo "  (at ${SECONDS}s)"

# --- stop, start; remove a running service; purge
systemctl stop tracerd || fail "systemctl stop"
expect_eq "after stop" "$(systemctl is-active tracerd)" inactive
running && fail "a tracerd process is left after systemctl stop"
systemctl start tracerd || fail "systemctl start"
expect_eq "after start" "$(systemctl is-active tracerd)" active
echo "# changed" >> /etc/tracerd/tracerd.conf
dpkg -r tracerd > /dev/null 2>&1 || fail "dpkg -r tracerd"
running && fail "dpkg -r left tracerd running"
expect_eq "dpkg status after remove" "$(dpkg-query -W -f='${Status}' tracerd)" "deinstall ok config-files"
[ -e /usr/sbin/tracerd ] && fail "dpkg -r left /usr/sbin/tracerd"
[ -e /lib/systemd/system/tracerd.service ] && fail "dpkg -r left the unit"
grep -q '^# changed' /etc/tracerd/tracerd.conf || fail "dpkg -r did not keep the changed config"
echo "ok: dpkg -r: stopped, files gone, config kept (at ${SECONDS}s)"
dpkg --purge tracerd > /dev/null 2>&1 || fail "dpkg --purge tracerd"
dpkg-query -W -f='${Status}' tracerd 2>/dev/null | grep -q installed && fail "tracerd still known to dpkg"
for p in /etc/tracerd /var/lib/tracerd /run/tracerd /usr/bin/tracectl /usr/lib/tracerd; do
	[ -e "$p" ] && fail "purge left $p"
done
running && fail "purge left tracerd running"
systemctl is-enabled tracerd > /dev/null 2>&1 && fail "tracerd.service still enabled after purge"
echo "ok: dpkg --purge: nothing left (at ${SECONDS}s)"
