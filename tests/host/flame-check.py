#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""flame-check.py SVG FOLDED: tracectl flame's SVG against the folded lines
of the same stacks (tracectl stats --stacks --format folded).

The SVG must be well-formed XML, self-contained (no external reference),
with one <g class="frame"> per node of the tree the folded lines make
(the root "all", then each distinct prefix), each with one <rect>, a
<title> giving its calls and percent, and a <text> that is its name or a
cut of it ending in ".."; a frame's calls (data-n) are the sum of the
lines under its prefix, its rect as wide as its share of the root's, its
parent one row below it (the root at the bottom) and spanning it.
Prints the number of frames."""
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
errors = []


def expected(folded):
    paths = {(): 0}
    for line in open(folded, encoding="utf-8").read().splitlines():
        stack, count = line.rsplit(" ", 1)
        count = int(count)
        frames = stack.split(";")
        paths[()] += count
        for i in range(1, len(frames) + 1):
            paths[tuple(frames[:i])] = paths.get(tuple(frames[:i]), 0) + count
    return paths


def frames_of(svg):
    root = ET.parse(svg).getroot()
    if root.tag != NS + "svg":
        errors.append(f"root element {root.tag}, not svg")
    for el in root.iter():
        for k, v in el.attrib.items():
            if k.endswith("href") or (isinstance(v, str) and re.search(r"url\((?!#)", v)):
                errors.append(f"external reference {k}={v!r}")
    if not any(el.tag == NS + "script" and "zoom" in (el.text or "") for el in root.iter()):
        errors.append("no inline zoom script")
    inner = float(root.get("data-inner"))
    out = []
    for g in root.iter(NS + "g"):
        if g.get("class") != "frame":
            continue
        rects, titles, texts = (g.findall(NS + t) for t in ("rect", "title", "text"))
        if len(rects) != 1 or len(titles) != 1 or len(texts) != 1:
            errors.append(f"frame {g.get('data-name')!r}: {len(rects)} rects, {len(titles)} "
                          f"titles, {len(texts)} texts")
            continue
        r = rects[0]
        out.append({"name": g.get("data-name"), "level": int(g.get("data-level")),
                    "n": int(g.get("data-n")), "x": float(r.get("x")), "w": float(r.get("width")),
                    "y": float(r.get("y")), "title": titles[0].text or "",
                    "text": texts[0].text or ""})
    return out, inner


def main():
    svg, folded = sys.argv[1:3]
    want = expected(folded)
    frames, inner = frames_of(svg)
    total = want[()]
    got = {}
    by_level = {}
    for f in frames:
        by_level.setdefault(f["level"], []).append(f)
    for f in sorted(frames, key=lambda f: f["level"]):
        if f["level"] == 0:
            f["path"] = ()
            if f["name"] != "all":
                errors.append(f"root named {f['name']!r}")
        else:
            parents = [p for p in by_level.get(f["level"] - 1, [])
                       if p["x"] - 1e-3 <= f["x"] and f["x"] + f["w"] <= p["x"] + p["w"] + 1e-3]
            if len(parents) != 1:
                errors.append(f"frame {f['name']!r}: {len(parents)} parents")
                continue
            p = parents[0]
            f["path"] = p["path"] + (f["name"],)
            if not f["y"] < p["y"]:
                errors.append(f"frame {f['name']!r} (y {f['y']}) not above its parent ({p['y']})")
        if f["path"] in got:
            errors.append(f"frame {f['path']} twice")
        got[f["path"]] = f["n"]
        if abs(f["w"] - inner * f["n"] / total) > 0.01:
            errors.append(f"frame {f['name']!r}: width {f['w']}, want {inner * f['n'] / total:.3f}")
        pct = f"({f['n']} calls, {100.0 * f['n'] / total:.2f}%)"
        if not f["title"].endswith(pct):
            errors.append(f"frame {f['name']!r}: title {f['title']!r} does not end in {pct}")
        t = f["text"]
        if t and t != f["name"] and not (t.endswith("..") and f["name"].startswith(t[:-2])):
            errors.append(f"frame {f['name']!r}: text {t!r} is not its name or a cut of it")
        if len(t) > max(0, (f["w"] - 6) / 7):
            errors.append(f"frame {f['name']!r}: text {t!r} wider than its rect ({f['w']})")
    for k in sorted(set(want) | set(got)):
        if want.get(k) != got.get(k):
            errors.append(f"frame {';'.join(k) or 'all'}: {got.get(k)} calls in the SVG, "
                          f"{want.get(k)} in the folded lines")
    for e in errors:
        print(f"FAIL: {e}")
    if errors:
        sys.exit(1)
    print(len(frames))


main()
