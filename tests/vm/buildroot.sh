#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# buildroot.sh ensure SUITE [PKG...] — a Debian SUITE root of this host's
#   architecture to build in (for kernels whose compiler and kbuild tools
#   do not exist on, or do not run on, this Debian 12 host): debootstrapped
#   once under $VM_DIR/buildroot-SUITE-ARCH, cached (key: its package list,
#   the mirror and this script), then PKGs installed into it when missing
#   (a kernel's compiler: buildroot.sh cc-pkg). Prints the root's path.
# buildroot.sh run ROOT CMD... — run CMD as root inside ROOT: a private
#   mount namespace with /proc, /dev, the source tree and the build dir
#   ($O) bind-mounted at their own paths, so every path means the same
#   inside and out; the host's mounts are never touched.
# buildroot.sh cc-pkg CONFIG — the Debian package of the compiler a
#   kernel's CONFIG_CC_VERSION_TEXT names ("x86_64-linux-gnu-gcc-16 (Debian
#   16.2.0-4) 16.2.0" -> gcc-16 natively, gcc-16-aarch64-linux-gnu for an
#   aarch64 kernel on this amd64 host), its command name, and "native" or
#   "cross".
set -euo pipefail
source "$(dirname "$0")/lib.sh"
BUILDROOT_PKGS="libc6-dev,make,pkg-config,clang,bpftool,libbpf-dev,libelf-dev,zlib1g-dev,libzstd-dev,libevent-dev,libjson-c-dev,libsystemd-dev,pahole,ca-certificates"

# the GNU triplet of this host's Debian architecture (x86_64-linux-gnu)
host_triplet() {
	case $(dpkg --print-architecture) in
	amd64) echo x86_64-linux-gnu ;;
	arm64) echo aarch64-linux-gnu ;;
	*) echo "$(uname -m)-linux-gnu" ;;
	esac
}

cc_pkg() {
	local text cc ver trip
	text=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$1")
	cc=${text%% *}
	[ -n "$cc" ] || { echo "buildroot: no CONFIG_CC_VERSION_TEXT in $1" >&2; return 1; }
	case $cc in
	*gcc-[0-9]*) ver=${cc##*gcc-} ;;
	*) echo "buildroot: cannot map compiler '$cc' to a package" >&2; return 1 ;;
	esac
	trip=${cc%-gcc-*}
	if [ "$trip" = "$cc" ] || [ "$trip" = "$(host_triplet)" ]; then
		echo "gcc-$ver $cc native"
	else
		echo "gcc-$ver-$trip $cc cross"
	fi
}

run() {
	local root=$1
	shift
	[ -x "$root/usr/bin/env" ] || { echo "buildroot: $root is not a root" >&2; return 1; }
	local binds=("$VM_SRC")
	case $O/ in "$VM_SRC"/*) ;; *) binds+=("$O") ;; esac
	# shellcheck disable=SC2016
	unshare --mount --propagation private -- bash -euc '
		root=$1 n=$2; shift 2
		mount -t proc proc "$root/proc"
		mount --rbind /dev "$root/dev"
		while [ "$n" -gt 0 ]; do
			mkdir -p "$root$1"; mount --bind "$1" "$root$1"; shift; n=$((n - 1))
		done
		cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
		exec chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
	' buildroot "$root" ${#binds[@]} "${binds[@]}" "$@"
}

ensure() {
	local suite=$1 arch root key stamp
	shift
	arch=$(dpkg --print-architecture)
	root=$VM_DIR/buildroot-$suite-$arch stamp=$root.key
	key=$(printf '%s %s %s %s' "$BUILDROOT_PKGS" "$VM_MIRROR" "$suite" \
		"$(sha1sum < "$0")" | sha1sum | cut -c1-16)
	mkdir -p "$VM_DIR"
	exec 8> "$root.lock"
	flock 8
	if [ ! -d "$root" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$key" ]; then
		local tmp=$root.tmp extra
		extra=$(IFS=,; echo "$*")
		vm_log "debootstrap build root $suite $arch ($VM_MIRROR)"
		vm_rm_tree "$tmp"; vm_rm_tree "$root"
		debootstrap --arch="$arch" --variant=minbase \
			--include="$BUILDROOT_PKGS${extra:+,$extra}" "$suite" "$tmp" "$VM_MIRROR" \
			> "$VM_DIR/debootstrap-build-$suite-$arch.log" 2>&1 ||
			{ tail -n 20 "$VM_DIR/debootstrap-build-$suite-$arch.log" >&2
			  vm_die "debootstrap of the $suite build root failed"; }
		rm -f "$tmp/var/cache/apt/archives/"*.deb
		mv "$tmp" "$root"
		echo "$key" > "$stamp"
	fi
	local p missing=()
	for p in "$@"; do
		run "$root" dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		# the host's view of the archive's dates (a mirror snapshot may carry
		# an expired Valid-Until, which this host's apt is told to accept)
		local vu=true cd=true
		eval "$(apt-config shell vu Acquire::Check-Valid-Until cd Acquire::Check-Date)"
		vm_log "build root $suite: installing ${missing[*]}"
		run "$root" sh -c 'o="-o Acquire::Check-Valid-Until=$1 -o Acquire::Check-Date=$2"; shift 2
			apt-get $o update -q && DEBIAN_FRONTEND=noninteractive \
			apt-get $o install -y -q --no-install-recommends "$@" && apt-get clean' \
			sh "${vu:-true}" "${cd:-true}" "${missing[@]}" > "$VM_DIR/buildroot-$suite-$arch.apt.log" 2>&1 ||
			{ tail -n 20 "$VM_DIR/buildroot-$suite-$arch.apt.log" >&2
			  vm_die "cannot install ${missing[*]} into the $suite build root"; }
	fi
	echo "$root"
}

cmd=${1:-}
shift || true
case $cmd in
ensure) ensure "$@" ;;
run) run "$@" ;;
cc-pkg) cc_pkg "$@" ;;
*) sed -n '3,17s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
