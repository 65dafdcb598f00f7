#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make install / make uninstall with DESTDIR: uninstall removes exactly
# what install put there — what is left is directories shared with other
# software (bin, man/man8, lib/modules/KVER, ...) and, as documented, a
# tracerd.conf the user changed and conf.d drop-ins (both said so); same
# for install-dkms / uninstall-dkms. The module goes under the kernel it
# was built for, install names that kernel, and a KVER= that is not the
# module's kernel, or (without DESTDIR) a module built for another kernel
# than the running one, is refused before anything is installed.
# make check-version: VERSION, debian/changelog and the module agree, and
# it fails when debian/changelog drifts.
set -uo pipefail
W=$(mktemp -d /tmp/tracerd-test.XXXXXX)
trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }
for b in tracerd tracectl tracerd-ref; do [ -x "$O/$b" ] || fail "no $O/$b (make user)"; done
mk() { make -s --no-print-directory -C "$SRC" O="$O" "$@"; }
V=$(cat "$SRC/VERSION")
KO=$O/kmod/tracerd_kmod.ko
KV=
[ -e "$KO" ] && KV=$(modinfo -F vermagic "$KO" | cut -d' ' -f1)
files() { (cd "$1" && find . ! -type d | sort); }
dirs() { (cd "$1" && find . -mindepth 1 -type d | sort); }
# directories install may create that other software shares
shared="./etc ./lib ./lib/modules ./lib/modules/$KV ./usr ./usr/bin ./usr/sbin ./usr/lib ./usr/lib/systemd
./usr/lib/systemd/system ./usr/share ./usr/share/man ./usr/share/man/man5 ./usr/share/man/man8
./usr/share/bash-completion ./usr/share/bash-completion/completions ./usr/share/doc ./usr/src
./usr/local ./usr/local/bin ./usr/local/sbin ./usr/local/etc ./usr/local/lib ./usr/local/lib/systemd
./usr/local/lib/systemd/system ./usr/local/share ./usr/local/share/man ./usr/local/share/man/man5
./usr/local/share/man/man8 ./usr/local/share/bash-completion ./usr/local/share/bash-completion/completions
./usr/local/share/doc"
shared=$(tr ' ' '\n' <<< "$shared")
only_shared() { # DIR: every directory left is a shared one
	local d
	while read -r d; do
		[ -z "$d" ] && continue
		grep -qxF -- "$d" <<< "$shared" || fail "uninstall left the directory $d"
	done <<< "$(dirs "$1")"
}

# --- install, then uninstall: nothing of ours is left
out=$(mk DESTDIR="$W/d" PREFIX=/usr install-nobuild 2>&1) || fail "install: $out"
n=$(files "$W/d" | wc -l)
[ "$n" -ge 15 ] || fail "install put only $n files: $(files "$W/d")"
for f in usr/sbin/tracerd usr/bin/tracectl usr/lib/systemd/system/tracerd.service \
	etc/tracerd/tracerd.conf usr/share/man/man8/tracerd.8 usr/share/doc/tracerd/monitoring/tracerd.rules.yml; do
	[ -e "$W/d/$f" ] || fail "install did not put /$f"
done
if [ -n "$KV" ]; then
	[[ $out == *"install: tracerd_kmod.ko for kernel $KV -> $W/d/lib/modules/$KV/extra/tracerd_kmod.ko"* ]] ||
		fail "install does not name the module's kernel $KV: $out"
	[ -e "$W/d/lib/modules/$KV/extra/tracerd_kmod.ko" ] || fail "module not under lib/modules/$KV/extra"
	ok "install names the module's kernel: $(grep 'tracerd_kmod.ko for' <<< "$out")"
else
	[[ $out == *"no $O/kmod/tracerd_kmod.ko built, module not installed"* ]] ||
		fail "install without a module does not say so: $out"
	echo "note: no $KO built: the module cases below are not run"
fi
ok "install: $n files"
out=$(mk DESTDIR="$W/d" PREFIX=/usr uninstall 2>&1) || fail "uninstall: $out"
left=$(files "$W/d")
[ -z "$left" ] || fail "uninstall left files: $left"
only_shared "$W/d"
ok "uninstall removed all $n files and our directories"

# --- a changed config and a drop-in stay (and uninstall says so)
mk DESTDIR="$W/c" PREFIX=/usr install-nobuild >/dev/null 2>&1 || fail "install (2)"
echo "# mine" >> "$W/c/etc/tracerd/tracerd.conf"
echo "attach = tp:sched/sched_switch" > "$W/c/etc/tracerd/conf.d/50-mine.conf"
# install again: the changed config is kept
mk DESTDIR="$W/c" PREFIX=/usr install-nobuild >/dev/null 2>&1 || fail "install (3)"
grep -q '^# mine' "$W/c/etc/tracerd/tracerd.conf" || fail "install replaced a changed tracerd.conf"
ok "install keeps a changed tracerd.conf"
out=$(mk DESTDIR="$W/c" PREFIX=/usr uninstall 2>&1) || fail "uninstall (2): $out"
[[ $out == *"keeping $W/c/etc/tracerd/tracerd.conf"* ]] || fail "uninstall does not say it keeps the config: $out"
[[ $out == *"keeping the drop-in $W/c/etc/tracerd/conf.d/50-mine.conf"* ]] ||
	fail "uninstall does not say it keeps the drop-in: $out"
left=$(files "$W/c")
[ "$left" = $'./etc/tracerd/conf.d/50-mine.conf\n./etc/tracerd/tracerd.conf' ] ||
	fail "uninstall with a changed config left: $left"
ok "uninstall keeps exactly the changed config and the drop-in"

# --- /usr/local layout (the default PREFIX), staged
mk DESTDIR="$W/l" install-nobuild >/dev/null 2>&1 || fail "install PREFIX=/usr/local"
[ -e "$W/l/usr/local/etc/tracerd/tracerd.conf" ] && [ -e "$W/l/usr/local/sbin/tracerd" ] ||
	fail "PREFIX=/usr/local layout: $(files "$W/l")"
mk DESTDIR="$W/l" uninstall >/dev/null 2>&1 || fail "uninstall PREFIX=/usr/local"
[ -z "$(files "$W/l")" ] || fail "uninstall PREFIX=/usr/local left: $(files "$W/l")"
only_shared "$W/l"
ok "PREFIX=/usr/local: install, uninstall"

# --- install-dkms / uninstall-dkms
mk DESTDIR="$W/k" PREFIX=/usr install-dkms >/dev/null 2>&1 || fail "install-dkms"
[ -e "$W/k/usr/src/tracerd-$V/dkms.conf" ] && [ "$(cat "$W/k/usr/src/tracerd-$V/VERSION")" = "$V" ] ||
	fail "install-dkms: $(files "$W/k")"
mk DESTDIR="$W/k" PREFIX=/usr uninstall-dkms >/dev/null 2>&1 || fail "uninstall-dkms"
[ -z "$(files "$W/k")" ] || fail "uninstall-dkms left: $(files "$W/k")"
only_shared "$W/k"
ok "install-dkms, uninstall-dkms"

# --- the module's kernel
if [ -n "$KV" ]; then
	out=$(mk DESTDIR="$W/e" PREFIX=/usr KVER=0.0.0-other install-nobuild 2>&1) &&
		fail "install with KVER=0.0.0-other of a module for $KV succeeded: $out"
	[[ $out == *"is built for kernel $KV, not KVER=0.0.0-other"* ]] || fail "KVER refusal: $out"
	[ -z "$(ls -A "$W/e" 2>/dev/null)" ] || fail "a refused install installed: $(files "$W/e")"
	ok "KVER= of another kernel refused: $(head -n1 <<< "$out")"
	# without DESTDIR: the running kernel (here pretended to be another)
	# decides; PREFIX keeps the rest in the scratch dir if the check broke
	pre=0; [ -e "/lib/modules/$KV/extra/tracerd_kmod.ko" ] && pre=1
	out=$(mk DESTDIR= PREFIX="$W/p" RUNNING_KVER=0.0.0-running install-nobuild 2>&1) &&
		fail "install of a module for $KV on running kernel 0.0.0-running succeeded: $out"
	[[ $out == *"built for kernel $KV"*"not the running kernel 0.0.0-running: refusing"* ]] ||
		fail "running-kernel refusal: $out"
	[ ! -e "$W/p" ] || fail "a refused install installed: $(files "$W/p")"
	[ $pre = 1 ] || [ ! -e "/lib/modules/$KV/extra/tracerd_kmod.ko" ] ||
		fail "a refused install put /lib/modules/$KV/extra/tracerd_kmod.ko"
	ok "module for another kernel than the running one refused: $(head -n1 <<< "$out")"
	out=$(mk DESTDIR="$W/f" PREFIX=/usr KVER="$KV" install-nobuild 2>&1) || fail "install KVER=$KV: $out"
	[ -e "$W/f/lib/modules/$KV/extra/tracerd_kmod.ko" ] || fail "KVER=$KV: no module"
	out=$(mk DESTDIR="$W/f" PREFIX=/usr KVER="$KV" uninstall 2>&1) || fail "uninstall KVER=$KV: $out"
	[[ $out == *"removing $W/f/lib/modules/$KV/extra/tracerd_kmod.ko"* ]] || fail "uninstall KVER=$KV: $out"
	[ -z "$(files "$W/f")" ] || fail "uninstall KVER=$KV left: $(files "$W/f")"
	ok "KVER=$KV (the module's kernel): installed, uninstalled"
fi

# --- one version: VERSION, debian/changelog, the module
out=$(mk check-version 2>&1) || fail "make check-version: $out"
ok "$out"
if [ -n "$KV" ]; then
	expect=$(modinfo -F version "$KO")
	[ "$expect" = "$V" ] || fail "module version $expect, VERSION $V"
	ok "tracerd_kmod.ko version $V"
fi
mkdir -p "$W/drift/debian" "$W/drift/scripts"
cp "$SRC/debian/changelog" "$W/drift/debian/"
cp "$SRC/scripts/check-version.sh" "$W/drift/scripts/"
echo 9.9.9 > "$W/drift/VERSION"
out=$(SRC=$W/drift "$W/drift/scripts/check-version.sh" 2>&1) && fail "check-version passed a drifted changelog: $out"
[[ $out == *"debian/changelog's top entry is '$V', VERSION is '9.9.9'"* ]] || fail "drift message: $out"
ok "check-version fails on drift: $out"
