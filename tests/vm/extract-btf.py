#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""extract-btf.py IMAGE OUT -- carve the kernel's raw .BTF blob out of an
uncompressed kernel image that is not an ELF file (arm64 Image).

A BTF blob starts with struct btf_header: magic 0xeB9F (u16), version 1,
flags 0, hdr_len 24, then type_off, type_len, str_off, str_len (u32, LE).
The vmlinux blob is the largest well-formed one; its string section starts
with a NUL byte and types come before strings."""
import struct
import sys


def candidates(data):
    magic = b"\x9f\xeb\x01\x00\x18\x00\x00\x00"
    pos = data.find(magic)
    while pos >= 0:
        type_off, type_len, str_off, str_len = struct.unpack_from("<4I", data, pos + 8)
        total = 24 + max(type_off + type_len, str_off + str_len)
        ok = (type_off == 0 and str_off >= type_len and pos + total <= len(data)
              and type_len > 0 and str_len > 0 and data[pos + 24 + str_off] == 0)
        if ok:
            yield pos, total
        pos = data.find(magic, pos + 1)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: extract-btf.py IMAGE OUT")
    data = open(sys.argv[1], "rb").read()
    best = max(candidates(data), key=lambda c: c[1], default=None)
    if best is None:
        sys.exit("extract-btf: no BTF blob in " + sys.argv[1])
    pos, total = best
    with open(sys.argv[2], "wb") as f:
        f.write(data[pos:pos + total])


if __name__ == "__main__":
    main()
