#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# fetch-kernel.sh NAME OUTDIR
#
# Fetch one Debian 12 test kernel (image + headers) from the apt sources this
# machine already has, without installing anything into /boot or /lib/modules,
# and lay it out under OUTDIR:
#   OUTDIR/release        kernel release string (uname -r in the guest)
#   OUTDIR/vmlinuz        compressed image (bzImage / arm64 Image)
#   OUTDIR/vmlinux        uncompressed ELF with .BTF (for PVH boot and module BTF)
#   OUTDIR/root/          dpkg -x of image + headers + kbuild
#   OUTDIR/kdir           path of the usable kbuild tree (with vmlinux in it)
# NAME: 6.1 | 6.12 (amd64) | 6.12-arm64. The newest matching package in the
# configured suites is used, so the harness keeps working when Debian bumps
# the ABI. Foreign-arch packages come through a private apt configuration
# (apt-foreign.sh); linux-kbuild stays native (its tools run on this host).
set -euo pipefail
name=$1 out=$(mkdir -p "$2" && cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
arch=$(dpkg --print-architecture)
case $name in *-arm64) arch=arm64 ;; esac
native_apt=
if [ "$arch" != "$(dpkg --print-architecture)" ]; then
	native_apt=${APT_CONFIG:-}
	APT_CONFIG=$("$here/apt-foreign.sh" "$arch" "$(dirname "$out")/../apt-$arch")
	export APT_CONFIG
fi

resolve() {
	case "$name" in
	6.1)
		# bookworm's own kernel: what linux-image-amd64 points at
		apt-cache depends "linux-image-$arch" 2>/dev/null |
			sed -n "s/.*Depends: linux-image-\(6\.1\.0-[0-9]*-$arch\)$/\1/p" | head -n1 ;;
	6.12|6.12-arm64)
		apt-cache pkgnames "linux-image-6.12." 2>/dev/null |
			grep -E "^linux-image-6\.12\.[0-9]+\+deb12-$arch$" |
			sed "s/^linux-image-//" | sort -V | tail -n1 ;;
	*) echo "fetch-kernel: unknown kernel name '$name' (want 6.1 or 6.12)" >&2; exit 2 ;;
	esac
}

flavour=$(resolve)
if [ -z "$flavour" ]; then
	echo "fetch-kernel: no Debian package found for kernel $name ($arch); run 'apt-get update'" >&2
	exit 1
fi
if [ -f "$out/.done" ] && [ "$(cat "$out/.done")" = "$flavour" ]; then
	exit 0
fi
rm -rf "$out"
mkdir -p "$out/debs" "$out/root"
hdr="linux-headers-$flavour"
# headers package depends on -common and linux-kbuild-*; resolve them by name
deps=$(apt-cache depends "$hdr" | sed -n 's/^ *|\{0,1\}Depends: \(linux-\(headers\|kbuild\)-[^ ]*\)$/\1/p' | sort -u)
pkgs=$(echo linux-image-$flavour $hdr $(echo "$deps" | grep -v '^linux-kbuild-'))
kbuild=$(echo "$deps" | grep '^linux-kbuild-')
echo "fetch-kernel: $name -> $flavour: downloading $pkgs $kbuild"
dl() { (cd "$out/debs" && timeout "${VM_FETCH_TIMEOUT:-900}" apt-get download -q -o APT::Sandbox::User=root "$@" >/dev/null); }
dl $pkgs
# linux-kbuild: this host's architecture (its tools run here)
(unset APT_CONFIG; if [ -n "$native_apt" ]; then export APT_CONFIG=$native_apt; fi; dl $kbuild)
for d in "$out"/debs/*.deb; do dpkg-deb -x "$d" "$out/root"; done

rel=$(ls "$out/root/lib/modules" | head -n1)
echo "$rel" > "$out/release"
img=$(ls "$out/root/boot/"vmlinu*"-$rel" | head -n1)
cp "$img" "$out/vmlinuz"

kdir="$out/root/usr/src/linux-headers-$rel"
# The headers tree refers to its -common sibling and to linux-kbuild by
# absolute paths (/usr/src/..., /usr/lib/linux-kbuild-*): rebase them into
# our private root.
sed -i "s#^include /usr/src/#include $out/root/usr/src/#" "$kdir/Makefile"
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
