#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Install every build and test dependency with apt (Debian 12). Idempotent
# and quiet when nothing is missing. Other distributions: see README.md.
# deps.sh deb: the packaging tools only (dpkg-buildpackage, debhelper,
# dh-dkms, lintian; dkms, to build tracerd-dkms's module), which
# tests/host/88-deb-package.sh installs when it runs rather than every
# `make deps` (lintian pulls in a few dozen perl packages).
# deps.sh build: what building and installing tracerd needs, no more
# (`make install` on a machine that only runs it).
set -euo pipefail
BUILD=(
	# build
	make gcc clang llvm pkg-config bpftool libbpf-dev libelf-dev zlib1g-dev
	libzstd-dev	# record files (format 3): zstd
	libevent-dev libjson-c-dev libsystemd-dev
	# tracectl stats --format pprof: pprof's profile.proto encoded by protobuf-c
	# (the generator at build time, the library linked statically)
	libprotobuf-c-dev protobuf-c-compiler
	# kernel modules (kbuild from Debian's linux-kbuild, module BTF)
	dwarves kmod
)
if [ "${1:-}" = deb ]; then
PKGS=(dpkg-dev debhelper dh-dkms lintian git dkms)
elif [ "${1:-}" = build ]; then
PKGS=("${BUILD[@]}")
else
PKGS=(
	"${BUILD[@]}"
	# VM harness
	qemu-system-x86 debootstrap busybox-static e2fsprogs cpio xz-utils zstd
	# arm64 guest: cross compiler, emulator, qemu-user for debootstrap's 2nd stage
	gcc-aarch64-linux-gnu qemu-system-arm qemu-user-static
	# riscv64 cross compiler: tests/unit/test_sites.c builds riscv64 objects
	gcc-riscv64-linux-gnu
	# riscv64 guest (qemu-system-riscv64; OpenSBI comes with qemu-system-data)
	qemu-system-misc
	# tests
	python3 python3-jsonschema curl jq
	golang-go	# go tool pprof -top reads tracectl's pprof output back (tests/host/77-stacks-render)
	tmux		# tracectl top on a terminal (tests/host/73: send-keys, capture-pane)
	strace		# tests/host/83: no chown/chmod of the socket by path
	logrotate	# tests/host/66-record-copytruncate: its copytruncate on a live recording
	libclang-rt-dev	# libFuzzer and the sanitizer runtimes for clang (make fuzz)
	prometheus	# promtool (check metrics, rules) and the server tests/host/66 scrapes with
	chromium	# renders the demo's report page in tests/host/72 (headless; ~120 MB)
)
fi
missing=()
for p in "${PKGS[@]}"; do
	case $p in \#*) continue ;; esac
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages: ${missing[*]} (run 'make deps' as root)" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
