#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# report-trace.py DOM.html SCREEN.txt FILE...: the numbers of the report page
# (as Chromium rendered it, --dump-dom) against the JSON they came from, and
# its conclusions against the screen's and against what the results say.
#  - every element with data-v="FILE#PATH" shows the value at PATH of FILE
#    (a result or a stacks file given here by name; "seed000#COL/R/I" the
#    published figures of docs/origins.md), to the digits it shows; with
#    data-v2 it shows the ratio v / v2; data-div divides; a chart's mark
#    (rect, circle) shows it in its <title>
#  - every number in a table cell of the page carries a data-v
#  - the conclusions: the same sentences on the page and on the screen;
#    per kernel the cheapest mode (the least median overhead above 0 of its
#    count points), and seed 000's effect (kmod-callops 1/Imax over 1/0)
#    worded "shows" only when the samples do not overlap and 1/Imax is
#    dearer by 5 % or more ("negligible" under 5 %), "within noise" when they overlap or one is at or below 0, n/a
#    without ops results; without any trigger results one n/a for all
# Prints what it checked; exit 1 on any mismatch.
import json
import math
import os
import re
import sys
from html.parser import HTMLParser

# seed 000's tables (Spacemit K1, riscv64), docs/origins.md: overhead ns of R/I
SEED = {"without": {(0, 0): 13, (1, 0): 123, (1, 1): 172, (1, 2): 215, (1, 10): 575,
                    (1, 100): 5038, (1, 200): 15791, (2, 0): 184, (10, 0): 664},
        "with": {(0, 0): 14, (1, 0): 38, (1, 1): 38, (1, 2): 40, (1, 10): 38, (1, 100): 39,
                 (1, 200): 39, (2, 0): 181, (10, 0): 663}}
NUM = re.compile(r"-?\d+(?:\.\d+)?")


class Page(HTMLParser):
    """Elements with data-v (their text or title), table cells, conclusion items."""

    def __init__(self):
        super().__init__()
        self.refs, self.cells, self.concl = [], [], []
        self.stack = []		# open elements: [tag, attrs, text]
        self.in_concl = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "ul" and a.get("data-list") == "conclusions":
            self.in_concl = True
        self.stack.append([tag, a, ""])

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_data(self, data):
        for e in self.stack:
            e[2] += data

    def handle_endtag(self, tag):
        while self.stack:
            t, a, text = self.stack.pop()
            if "data-v" in a:
                self.refs.append((t, a, text.strip()))
            if t == "title" and self.stack and "data-v" in self.stack[-1][1]:
                self.stack[-1][1]["_title"] = text.strip()
            if t == "td":
                self.cells.append((a, text.strip()))
            if t == "li" and self.in_concl:
                self.concl.append(re.sub(r"\s+", " ", text.strip()))
            if t == "ul" and self.in_concl:
                self.in_concl = False
            if t == tag:
                break


def resolve(docs, ref):
    src, _, path = ref.partition("#")
    if src == "seed000":
        col, r, i = path.split("/")
        return SEED[col][(int(r), int(i))]
    v = docs[src]
    for part in re.findall(r"[^.\[\]]+|\[[^\]]*\]", path):
        if part.startswith("[key="):
            v = next(p for p in v if p["key"] == part[5:-1])
        elif part.startswith("["):
            v = v[int(part[1:-1])]
        else:
            v = v[part]
    return v


def shown_ok(text, want):
    """text shows want to the digits it has (1.5k style too); a date string as is."""
    if isinstance(want, str):
        return text == want
    m = re.search(r"(-?\d+(?:\.(\d+))?)(?:e([+-]?\d+))?([kMG]?)", text)
    if not m:
        return False
    scale = 10 ** int(m.group(3) or 0) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}[m.group(4)]
    got = float(m.group(1)) * scale
    unit = 10 ** -len(m.group(2) or "") * scale
    return abs(got - want) <= unit / 2 + 1e-9 or (abs(want) <= 0.5 and got == 0)


def main():
    dom, screen = open(sys.argv[1]).read(), open(sys.argv[2]).read()
    docs = {os.path.basename(p): json.load(open(p)) for p in sys.argv[3:]}
    page = Page()
    page.feed(dom)
    bad, checked, ratios = [], 0, 0
    for tag, a, text in page.refs:
        try:
            want = resolve(docs, a["data-v"])
            if "data-v2" in a:
                want = want / resolve(docs, a["data-v2"])
                ratios += 1
            if "data-div" in a:
                want = want / float(a["data-div"])
        except (KeyError, StopIteration, IndexError, ValueError, TypeError) as e:
            bad.append(f"{tag} data-v={a['data-v']}: not in the JSON ({e!r})")
            continue
        shown = a.get("_title", text) if tag in ("rect", "circle") else text
        if tag == "circle":	# title "x, y": the y
            shown = shown.split(",")[-1]
        if not shown_ok(shown.strip(), want):
            bad.append(f"{tag} data-v={a['data-v']}: shows '{shown}', the JSON has {want}")
        checked += 1
    bare = [t for a, t in page.cells if NUM.fullmatch(t.strip("[]")) and "data-v" not in a]
    if bare:
        bad.append(f"{len(bare)} number cells without data-v: {bare[:5]}")

    # the conclusions: the screen's sentences, the page's items
    lines = screen.split("\nWhat these results say\n", 1)[1].split("\n\n", 1)[0].splitlines()
    said = []
    for l in lines:
        if l.startswith("  - "):
            said.append(l[4:])
        else:
            said[-1] += " " + l.strip()
    if said != page.concl:
        bad.append("the page's conclusions differ from the screen's:\n  " +
                   "\n  ".join(page.concl) + "\nscreen:\n  " + "\n  ".join(said))
    kernels = {}
    for d in docs.values():
        if "suite" not in d:
            continue
        m = d["machine"]
        short = re.match(r"\d+(\.\d+)?", m["kernel"]).group(0)
        kernels.setdefault(f"{short} {m['arch']}", {})[d["suite"]] = d
    for label, suites in kernels.items():
        mine = [s for s in said if s.startswith(f"On {label} ")]
        trig, ops = suites.get("trigger"), suites.get("ops")
        cheap = [s for s in mine if "cheapest" in s]
        if trig:
            meds = {p["labels"]["mode"]: p["values"]["overhead_ns"]["median"]
                    for p in trig["points"] if p["labels"].get("variant") == "count"
                    and p["status"] == "ok" and p["labels"]["mode"] != "none"
                    and p["values"].get("overhead_ns", {}).get("median", 0) > 0}
            best = min(meds, key=meds.get) if meds else None
            if not cheap or (best and f" is cheapest: {best}, " not in cheap[0]):
                bad.append(f"{label}: cheapest mode {best}, the sentence: {cheap}")
        elif any(d.get("suite") == "trigger" for d in docs.values()):
            if not cheap or "n/a (no bench trigger results)" not in cheap[0]:
                bad.append(f"{label}: without trigger results: {cheap}")
        elif cheap or "The cheapest hook path: n/a (no bench trigger results)." not in said:
            bad.append(f"no trigger results at all: not one n/a sentence: {said}")
        effect = [s for s in mine if "seed 000's effect" in s]
        if not any("suite" in d and d["suite"] == "ops" for d in docs.values()):
            if effect:
                bad.append(f"{label}: an effect sentence without any ops results")
            continue
        if not ops:
            want = "n/a (no bench ops results)"
        else:
            pts = {p["key"]: p for p in ops["points"]}
            ok = [p["labels"]["irrelevant"] for p in ops["points"]
                  if p["labels"]["mode"] == "kmod-callops" and p["labels"].get("relevant") == 1
                  and p["status"] == "ok"]
            imax = max(ok) if ok else -1
            a = pts.get("kmod-callops/R1/I0")
            b = pts.get(f"kmod-callops/R1/I{imax}")
            if imax <= 0 or not a or a["status"] != "ok":
                want = "n/a"
            else:
                va, vb = a["values"]["overhead_ns"], b["values"]["overhead_ns"]
                if va["median"] <= 0 or vb["median"] <= 0:
                    want = "is within noise: "
                elif va["min"] <= vb["max"] and vb["min"] <= va["max"]:
                    want = "is within noise (the samples overlap)"
                elif va["median"] < vb["median"] < va["median"] * 1.05:
                    want = "is negligible (under 5 %"
                elif vb["median"] > va["median"]:
                    want = "shows: "
                else:
                    want = "does not show"
        if not effect or want not in effect[0]:
            bad.append(f"{label}: seed 000's effect should read '{want}': {effect}")
    for b in bad:
        print(f"FAIL: {b}")
    if not bad:
        print(f"ok: {checked} numbers traced to the JSON ({ratios} ratios), "
              f"{len(page.cells)} table cells, {len(said)} conclusions alike on the page and "
              f"the screen, cheapest mode and seed 000's effect as the JSON says "
              f"for {len(kernels)} kernels")
    return 1 if bad else 0


sys.exit(main())
