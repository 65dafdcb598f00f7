#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# extract-vmlinux.sh IMAGE OUT — write the uncompressed ELF vmlinux inside a
# compressed kernel image (x86 bzImage, arm64 Image.gz/Image) to OUT.
# Tries every compression magic at every offset it occurs and keeps the
# first payload that decompresses to an ELF file.
set -euo pipefail
img=$1 out=$2
is_elf() { [ "$(head -c4 "$1" | od -An -c | tr -d ' ')" = "177ELF" ]; }

if is_elf "$img"; then cp "$img" "$out"; exit 0; fi
# arm64 raw Image ("ARMd" at offset 56): bootable and BTF-carvable as is
if [ "$(dd if="$img" bs=1 skip=56 count=4 2>/dev/null)" = ARMd ]; then cp "$img" "$out"; exit 0; fi
# riscv64 raw Image ("RISCV" at offset 48): the same
if [ "$(dd if="$img" bs=1 skip=48 count=5 2>/dev/null)" = RISCV ]; then cp "$img" "$out"; exit 0; fi
try() { # magic(printf escapes) decompressor...
	local magic=$1; shift
	local off
	for off in $(LC_ALL=C grep -obUaP "$magic" "$img" 2>/dev/null | cut -d: -f1); do
		tail -c +$((off + 1)) "$img" | "$@" > "$out.tmp" 2>/dev/null || true
		if [ -s "$out.tmp" ] && is_elf "$out.tmp"; then mv "$out.tmp" "$out"; return 0; fi
	done
	rm -f "$out.tmp"
	return 1
}
try '\xfd7zXZ\x00' xz -dc ||
try '\x28\xb5\x2f\xfd' zstd -dc ||
try '\x1f\x8b\x08' gzip -dc ||
try '\x5d\x00\x00\x00' xz -F lzma -dc ||
{
	# arm64: Image.gz holds a raw (non-ELF) Image; that is bootable as is
	if gzip -t "$img" 2>/dev/null; then gzip -dc "$img" > "$out"; exit 0; fi
	echo "extract-vmlinux: no ELF payload found in $img" >&2; exit 1
}
