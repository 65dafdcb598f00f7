#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# fetch-kernel.sh NAME OUTDIR
#
# Fetch one Debian test kernel (image + headers) without installing anything
# into /boot or /lib/modules, and lay it out under OUTDIR:
#   OUTDIR/release        kernel release string (uname -r in the guest)
#   OUTDIR/vmlinuz        compressed image (bzImage / arm64 Image)
#   OUTDIR/vmlinux        uncompressed ELF with .BTF (for PVH boot and module BTF)
#   OUTDIR/root/          dpkg -x of image + headers + kbuild
#   OUTDIR/config         the kernel's .config
#   OUTDIR/kdir           path of the usable kbuild tree (with vmlinux in it)
# NAME: 6.1 | 6.12 (amd64) | 6.1-arm64 | 6.12-arm64 (bookworm, the host's own suites)
# | 7.2 | 7.2-arm64 | 7.2-riscv64 (sid) | 6.12-riscv64 (trixie). The newest matching package is used, so the
# harness keeps working when Debian bumps the ABI. Foreign-arch and
# other-suite packages come through a private apt configuration
# (apt-foreign.sh). linux-kbuild is always the host's architecture (of the
# kernel's suite): bookworm's runs on this host, sid's in the sid build
# root (buildroot.sh).
# Package layouts: up to 6.x linux-image-X holds /boot/vmlinuz-X and
# /lib/modules/X; from 7.x linux-image-X is empty and depends on
# linux-binary-X (usr/lib/modules/X/vmlinuz), linux-modules-X and
# linux-base-X (usr/lib/modules/X/config, System.map).
set -euo pipefail
# the physical path: what is written into the cache (kdir, the headers'
# Makefile) must not name a symlink of the checkout that asked first
# (a git worktree whose build/vm links to a shared cache)
name=$1 out=$(mkdir -p "$2" && cd "$2" && pwd -P)
here=$(cd "$(dirname "$0")" && pwd)
vmdir=$(dirname "$(dirname "$out")")
host_arch=$(dpkg --print-architecture)
arch=$host_arch suite=
case $name in *-arm64) arch=arm64 ;; *-riscv64) arch=riscv64 ;; esac
case $name in 7.*) suite=sid ;; *-riscv64) suite=trixie ;; esac
# apt_for ARCH: the apt configuration for ARCH packages of this kernel's suite
apt_for() {
	if [ -z "$suite" ] && [ "$1" = "$host_arch" ]; then
		echo "${HOST_APT_CONFIG:-}"
	elif [ -z "$suite" ]; then
		"$here/apt-foreign.sh" "$1" "$vmdir/apt-$1"
	else
		"$here/apt-foreign.sh" "$1" "$vmdir/apt-$suite-$1" "$suite"
	fi
}
HOST_APT_CONFIG=${APT_CONFIG:-}
kbuild_apt=$(apt_for "$host_arch")
APT_CONFIG=$(apt_for "$arch")
if [ -n "$APT_CONFIG" ]; then export APT_CONFIG; else unset APT_CONFIG; fi

resolve() {
	case "$name" in
	6.1|6.1-arm64)
		# bookworm's own kernel: what linux-image-ARCH points at
		apt-cache depends "linux-image-$arch" 2>/dev/null |
			sed -n "s/.*Depends: linux-image-\(6\.1\.0-[0-9]*-$arch\)$/\1/p" | head -n1 ;;
	6.12|6.12-arm64)
		apt-cache pkgnames "linux-image-6.12." 2>/dev/null |
			grep -E "^linux-image-6\.12\.[0-9]+\+deb12-$arch$" |
			sed "s/^linux-image-//" | sort -V | tail -n1 ;;
	6.12-riscv64)
		# trixie's (bookworm has no riscv64)
		apt-cache pkgnames "linux-image-6.12." 2>/dev/null |
			grep -E "^linux-image-6\.12\.[0-9]+\+deb13-$arch$" |
			sed "s/^linux-image-//" | sort -V | tail -n1 ;;
	7.2|7.2-arm64|7.2-riscv64)
		# sid's newest (flavours like -cloud-amd64 and -rt-amd64 excluded)
		apt-cache pkgnames "linux-image-" 2>/dev/null |
			grep -E "^linux-image-[0-9][0-9a-z.+~]*-$arch$" |
			sed "s/^linux-image-//" | sort -V | tail -n1 ;;
	*) echo "fetch-kernel: unknown kernel name '$name' (want 6.1, 6.12, 7.2, with -arm64 or -riscv64 for those)" >&2; exit 2 ;;
	esac
}

flavour=$(resolve)
if [ -z "$flavour" ]; then
	echo "fetch-kernel: no Debian package found for kernel $name ($arch${suite:+, $suite}); run 'apt-get update'" >&2
	exit 1
fi
case $flavour in "${name%%-*}".*) ;;
*) echo "fetch-kernel: warning: $name resolves to $flavour, the newest of ${suite:-the host suites}" >&2 ;;
esac
if [ -f "$out/.done" ] && [ "$(cat "$out/.done")" = "$flavour" ]; then
	exit 0
fi
rm -rf "$out"
mkdir -p "$out/debs" "$out/root"
hdr="linux-headers-$flavour"
# headers package depends on -common and linux-kbuild-*; resolve them by name
deps=$(apt-cache depends "$hdr" | sed -n 's/^ *|\{0,1\}Depends: \(linux-\(headers\|kbuild\)-[^ ]*\)$/\1/p' | sort -u)
# 7.x layout: the image package only depends on its parts
parts=$(apt-cache depends "linux-image-$flavour" |
	sed -n "s/^ *Depends: \(linux-\(binary\|modules\|base\)-$flavour\)$/\1/p" | sort -u)
pkgs=$(echo ${parts:-linux-image-$flavour} $hdr $(echo "$deps" | grep -v '^linux-kbuild-'))
kbuild=$(echo "$deps" | grep '^linux-kbuild-')
echo "fetch-kernel: $name -> $flavour: downloading $pkgs $kbuild"
dl() { (cd "$out/debs" && timeout "${VM_FETCH_TIMEOUT:-900}" apt-get download -q -o APT::Sandbox::User=root "$@" >/dev/null); }
dl $pkgs
# linux-kbuild: this host's architecture (its tools run here or in the build root)
(if [ -n "$kbuild_apt" ]; then export APT_CONFIG=$kbuild_apt; else unset APT_CONFIG; fi; dl $kbuild)
for d in "$out"/debs/*.deb; do dpkg-deb -x "$d" "$out/root"; done

# one view of both layouts: modules under root/lib/modules
if [ ! -e "$out/root/lib/modules" ] && [ -d "$out/root/usr/lib/modules" ]; then
	mkdir -p "$out/root/lib"
	ln -s ../usr/lib/modules "$out/root/lib/modules"
fi
rel=$(ls "$out/root/lib/modules" | head -n1)
echo "$rel" > "$out/release"
# first_of FILE...: the first FILE that exists
first_of() { local f; for f in "$@"; do [ -e "$f" ] && { echo "$f"; return 0; }; done; return 1; }
cp "$(first_of "$out/root/boot/"vmlinu*"-$rel" "$out/root/lib/modules/$rel/"vmlinu*)" "$out/vmlinuz"
cp "$(first_of "$out/root/boot/config-$rel" "$out/root/lib/modules/$rel/config")" "$out/config"

kdir="$out/root/usr/src/linux-headers-$rel"
# The headers tree refers to its -common sibling and to linux-kbuild by
# absolute paths (/usr/src/..., /usr/lib/linux-kbuild-*): rebase them into
# our private root.
# 7.x headers also name their own directory (KBUILD_OUTPUT=/usr/src/...).
sed -i -e "s#^include /usr/src/#include $out/root/usr/src/#" \
	-e "s#^\(KBUILD_OUTPUT *= *\)/usr/src/#\1$out/root/usr/src/#" "$kdir/Makefile"
find "$out/root/usr/src" "$out/root/usr/lib" -type l | while read -r l; do
	t=$(readlink "$l")
	case "$t" in /*) ln -sfn "$out/root$t" "$l" ;; esac
done
# Module BTF needs the vmlinux BTF base; the 6.1 headers ship none. x86:
# the ELF vmlinux out of the bzImage (also booted directly, PVH). arm64: the
# raw Image (booted as is) and the raw .BTF blob carved out of it, which
# pahole --btf_base and bpftool read like an ELF vmlinux.
"$here/extract-vmlinux.sh" "$out/vmlinuz" "$out/vmlinux"
if [ "$arch" != "$(dpkg --print-architecture)" ]; then
	"$here/extract-btf.py" "$out/vmlinux" "$out/vmlinux.btf"
	[ -e "$kdir/vmlinux" ] || cp "$out/vmlinux.btf" "$kdir/vmlinux"
else
	[ -e "$kdir/vmlinux" ] || cp "$out/vmlinux" "$kdir/vmlinux"
fi
echo "$kdir" > "$out/kdir"
echo "$flavour" > "$out/.done"
echo "fetch-kernel: $name ready: release $rel, kdir $kdir"
