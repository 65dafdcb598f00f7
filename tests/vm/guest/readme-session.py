#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""readme-session.py README [--print]: run the session README.md shows
between its `<!-- readme-session: begin -->` and `<!-- readme-session:
end -->` markers (every such block, in order, as one session) and check
that each command's output has the README's shape: the same lines, each
with the same words, where a number may be any number (and a time's
unit any unit: 950ns against 1.2us). A block is an indented code block:
`    # CMD` lines are commands (root's prompt), the lines after one are
its output. Each command runs as written, with `bash -c`, in the
environment it was given (the test points TRACERD_SOCKET at its daemon).
--print: run the commands and print the blocks as README should show
them (to refresh README from a real run).
Exit 0 when every output matches, 1 with the differences otherwise."""
import re
import subprocess
import sys
import time

BEGIN, END = "<!-- readme-session: begin -->", "<!-- readme-session: end -->"


def session(path):
    """[(command, [output lines])] of README's marked blocks, in order"""
    text = open(path).read()
    blocks = re.findall(re.escape(BEGIN) + r"(.*?)" + re.escape(END), text, flags=re.S)
    if not blocks:
        sys.exit(f"{path}: no {BEGIN} ... {END} block")
    steps = []
    for block in blocks:
        first = len(steps)
        for line in block.splitlines():
            if line.startswith("    # "):
                steps.append((line[6:], []))
            elif line.startswith("    ") and len(steps) > first:
                steps[-1][1].append(line[4:])
            elif line.startswith("    "):
                sys.exit(f"{path}: output before a block's first '    # CMD' line: {line!r}")
            elif not line.strip() and len(steps) > first:
                steps[-1][1].append("")	# a blank line of the output, or after the block
        if len(steps) == first:
            sys.exit(f"{path}: a session block without a '    # CMD' line")
    return [(cmd, trim(out)) for cmd, out in steps]


def trim(lines):
    """lines without the blank ones at the end"""
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


NUM = re.compile(r"[+-]?\d+(?:\.\d+)?")
UNIT = re.compile(r"(?<=0)(?:ns|us|µs|ms|s)\b")


def shape(line):
    """the words of a line, each number 0 and each time unit 's'"""
    return [UNIT.sub("s", NUM.sub("0", w)) for w in line.split()]


def run(cmd):
    t0 = time.monotonic()
    p = subprocess.run(["bash", "-c", cmd], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=120)
    return (p.returncode, trim([line.rstrip() for line in p.stdout.splitlines()]),
            time.monotonic() - t0)


def main():
    path, printing = sys.argv[1], "--print" in sys.argv[2:]
    bad = 0
    for cmd, want in session(path):
        rc, got, took = run(cmd)
        if printing:
            print("    # " + cmd)
            for line in got:
                print("    " + line if line else "")
            print()
            continue
        if rc != 0:
            print(f"FAIL: '{cmd}' exited {rc}:", *got, sep="\n  ")
            bad += 1
            continue
        diffs = [(n, w, g) for n, (w, g) in enumerate(zip(want, got), 1) if shape(w) != shape(g)]
        if len(want) != len(got) or diffs:
            bad += 1
            print(f"FAIL: '{cmd}': {len(got)} lines, README shows {len(want)}")
            for n, w, g in diffs[:5]:
                print(f"  line {n}: README: {w}\n  line {n}: got:    {g}")
            for line in got[len(want):][:5]:
                print(f"  extra: {line}")
            for line in want[len(got):][:5]:
                print(f"  missing: {line}")
        else:
            # the guest time each step costs make check (reported, not checked)
            print(f"ok: '{cmd}': {len(got)} lines of README's shape ({took:.1f} s)")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
