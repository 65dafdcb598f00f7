#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian packages (debian/): `dpkg-buildpackage -us -uc -b` on a copy
# of the checkout (scripts/build-deb.sh) builds tracerd and tracerd-dkms;
# lintian reports no error on the .debs and the .changes (its warnings are
# printed); each package holds what it should (daemon, tracectl, unit,
# config as a conffile, man pages; module sources and dkms.conf) and
# carries VERSION, as does the dkms.conf and the packaged daemon's
# --version; the maintainer scripts enable the unit and hand the module to
# DKMS, and DKMS builds that module from tracerd-dkms's sources (against
# the 6.12 test kernel's headers) at VERSION. The packages are kept in $O/deb for the VM test
# (tests/vm/guest/t/69-deb-package.sh installs them under systemd).
# The packaging tools (scripts/deps.sh deb) are installed here, as root.
# timeout: 900
set -uo pipefail
W=$(mktemp -d /tmp/tracerd-test.XXXXXX)
trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
ok() { echo "ok: $*"; }
expect_eq() { [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"; ok "$1 = $3"; }

# the packages build from the sources with Debian's flags: the sanitizer
# layer (asan-host) would build the same packages again
[ "${SANITIZE:-}" = 1 ] && skip "SANITIZE=1: the packages do not use the sanitizer build (see host/88-deb-package)"
if ! out=$("$SRC/scripts/deps.sh" deb 2>&1); then
	[ "$(id -u)" = 0 ] && fail "installing the packaging tools: $out"
	skip "packaging tools missing and not root to install them: $out"
fi
git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1 || skip "$SRC is not a git checkout"
V=$(cat "$SRC/VERSION")
arch=$(dpkg --print-architecture)

"$SRC/scripts/build-deb.sh" "$W/out" || fail "dpkg-buildpackage (scripts/build-deb.sh)"
D=$W/out/tracerd_${V}_$arch.deb K=$W/out/tracerd-dkms_${V}_all.deb C=$W/out/tracerd_${V}_$arch.changes
for f in "$D" "$K" "$C"; do [ -f "$f" ] || fail "no $(basename "$f") built: $(ls "$W/out")"; done
ok "built $(cd "$W/out" && echo *.deb)"

# --- lintian: no errors; warnings listed
command -v lintian >/dev/null || fail "no lintian"
lintian --version
lint=$(lintian "$C" "$D" "$K" 2>&1); lrc=$?
printf '%s\n' "$lint" | grep -E '^[EW]:' | sed 's/^/  lintian: /'
grep -q '^E:' <<< "$lint" && fail "lintian reports errors"
[ $lrc = 0 ] || fail "lintian exit $lrc: $lint"
ok "lintian: no errors ($(grep -c '^W:' <<< "$lint") warnings)"

# --- contents
has() { # DEB PATH...
	local deb=$1 list p; shift
	list=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's#^\./#/#; s#/$##')
	for p in "$@"; do
		grep -qxF "$p" <<< "$list" || fail "$(basename "$deb") has no $p"
	done
	ok "$(basename "$deb") has $*"
}
has "$D" /usr/sbin/tracerd /usr/bin/tracectl /lib/systemd/system/tracerd.service \
	/etc/tracerd/tracerd.conf /etc/tracerd/conf.d /usr/share/man/man8/tracerd.8.gz \
	/usr/share/man/man8/tracectl.8.gz /usr/share/man/man5/tracerd.conf.5.gz \
	/usr/share/bash-completion/completions/tracectl /usr/lib/tracerd/tracerd-ref \
	/usr/share/doc/tracerd/monitoring/tracerd.rules.yml \
	/usr/share/doc/tracerd/monitoring/grafana-tracerd.json /usr/share/doc/tracerd/copyright
has "$K" /usr/src/tracerd-$V/dkms.conf /usr/src/tracerd-$V/VERSION /usr/src/tracerd-$V/kmod/Kbuild \
	/usr/src/tracerd-$V/kmod/main.c /usr/src/tracerd-$V/include/tracerd/kmod_abi.h
dpkg-deb -c "$D" | grep '\.ko$' > /dev/null && fail "tracerd ships a built module (tracerd-dkms builds it)"
ok "no .ko in tracerd"

# --- one version
expect_eq "tracerd Version" "$(dpkg-deb -f "$D" Version)" "$V"
expect_eq "tracerd-dkms Version" "$(dpkg-deb -f "$K" Version)" "$V"
expect_eq "tracerd-dkms Architecture" "$(dpkg-deb -f "$K" Architecture)" all
expect_eq ".changes Version" "$(sed -n 's/^Version: //p' "$C")" "$V"
[[ $(dpkg-deb -f "$K" Depends) == *dkms* ]] || fail "tracerd-dkms does not depend on dkms"
dpkg-deb -x "$D" "$W/root"; dpkg-deb -x "$K" "$W/root"
expect_eq "dkms.conf PACKAGE_VERSION" \
	"$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$W/root/usr/src/tracerd-$V/dkms.conf")" "$V"
expect_eq "dkms.conf's VERSION file" "$(cat "$W/root/usr/src/tracerd-$V/VERSION")" "$V"
out=$("$W/root/usr/sbin/tracerd" --version 2>&1) || fail "packaged tracerd --version: $out"
[[ $out == *"$V"* ]] || fail "packaged tracerd --version says '$out', not $V"
ok "packaged tracerd --version: $out"
out=$("$W/root/usr/bin/tracectl" --version 2>&1) || fail "packaged tracectl --version: $out"
[[ $out == *"$V"* ]] || fail "packaged tracectl --version says '$out', not $V"
ok "packaged tracectl --version: $out"
grep -q "ExecStart=/usr/sbin/tracerd --config /etc/tracerd/tracerd.conf" \
	"$W/root/lib/systemd/system/tracerd.service" || fail "unit's ExecStart does not name /usr/sbin, /etc"
ok "unit runs /usr/sbin/tracerd with /etc/tracerd/tracerd.conf"

# --- tracerd-dkms's sources build with DKMS (into a scratch DKMS tree),
# against the 6.12 test kernel's headers (fetched by make all when the
# host has none of its own)
kd=$O/vm/k/6.12/kdir-link
if [ -e "$kd/include/config/kernel.release" ]; then
	kv=$(cat "$kd/include/config/kernel.release")
	mkdir -p "$W/dkms"
	dkms build -m tracerd -v "$V" -k "$kv" --kernelsourcedir "$(readlink -f "$kd")" \
		--sourcetree "$W/root/usr/src" --dkmstree "$W/dkms" > "$W/dkms.log" 2>&1 ||
		{ tail -n 30 "$W/dkms.log"; fail "dkms build of tracerd/$V for $kv"; }
	grep -q 'bad exit status' "$W/dkms.log" && { cat "$W/dkms.log"; fail "a dkms step failed"; }
	ko=$(find "$W/dkms" -name tracerd_kmod.ko | head -n1)
	[ -n "$ko" ] || fail "dkms built no tracerd_kmod.ko"
	expect_eq "dkms-built module version" "$(modinfo -F version "$ko")" "$V"
	expect_eq "dkms-built module kernel" "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" "$kv"
else
	echo "note: no $kd (the 6.12 test kernel's headers): the dkms build is not run"
fi

# --- maintainer scripts
dpkg-deb -e "$D" "$W/ctl"; dpkg-deb -e "$K" "$W/ctl-dkms"
grep -qx /etc/tracerd/tracerd.conf "$W/ctl/conffiles" || fail "tracerd.conf is not a conffile"
ok "conffile /etc/tracerd/tracerd.conf"
grep -q 'deb-systemd-helper.*enable.*tracerd.service\|deb-systemd-helper unmask .tracerd.service' "$W/ctl/postinst" ||
	fail "postinst does not enable tracerd.service (dh_installsystemd)"
grep -q 'rm -rf /var/lib/tracerd' "$W/ctl/postrm" || fail "postrm does not remove /var/lib/tracerd on purge"
grep -q 'dkms' "$W/ctl-dkms/postinst" && grep -q 'dkms remove' "$W/ctl-dkms/prerm" ||
	fail "tracerd-dkms's maintainer scripts do not call dkms (dh_dkms)"
ok "maintainer scripts: unit enabled, state purged, module through dkms"

# keep them for the VM test (69-deb-package), with their source key
mkdir -p "$O/deb"
rm -f "$O/deb"/*.deb "$O/deb"/*.changes "$O/deb"/*.buildinfo
cp "$W/out"/*.deb "$W/out"/*.changes "$W/out"/*.buildinfo "$W/out/source.key" "$O/deb/"
ok "packages kept in $O/deb"
