#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# seed000-check.py SCREEN PAGE OPS.json...: the "Seed 000 side by side"
# section of `tracectl bench report` (the screen's text and the page's HTML
# table and lists) against what the ops results say, computed here from
# the JSON: the column order (the seed's two, then riscv64 6.12, riscv64
# 7.2, arm64 6.1, arm64 6.12, x86 6.12, then the others as given), every
# shown cell (median of the samples of kmod-callops/R/I: overhead ns, or the 0/0
# base's ns per call; "-" not measured, "n/a" unavailable, "error"), the
# per-kernel ratio 1/Imax over 1/0 and the per-arch ratio of 1/0 with
# CALL_OPS over without, with the noise and missing-kernel wording.
# The seed's own figures are its tables' (seed 000, docs/origins.md: Spacemit K1, riscv64,
# without and with the CALL_OPS patch). Prints what it checked; exit 1 on
# the first mismatch list.
import json
import re
import statistics
import sys
from html.parser import HTMLParser

ROWS = [(0, 0), (0, 1), (0, 2), (0, 10), (0, 100), (0, 200),
        (1, 0), (1, 1), (1, 2), (1, 10), (1, 100), (1, 200), (2, 0), (10, 0)]
# seed 000's tables: the 0/0 row is the total ns per call, the others the overhead
SEED_WITHOUT = {(0, 0): 13, (1, 0): 123, (1, 1): 172, (1, 2): 215, (1, 10): 575,
                (1, 100): 5038, (1, 200): 15791, (2, 0): 184, (10, 0): 664}
SEED_WITH = {(0, 0): 14, (1, 0): 38, (1, 1): 38, (1, 2): 40, (1, 10): 38, (1, 100): 39,
             (1, 200): 39, (2, 0): 181, (10, 0): 663}
SEED_R_SWEEP_1_0_WITHOUT = 122
DEMO = [("riscv64", "6.12", "6.12-riscv64"), ("riscv64", "7.2", "7.2-riscv64"),
        ("aarch64", "6.1", "6.1-arm64"), ("aarch64", "6.12", "6.12-arm64"),
        ("x86_64", "6.12", "6.12 (x86_64)")]
PAIRS = [("riscv64", 0, 1), ("aarch64", 2, 3)]


def short(rel):
    return re.match(r"\d+(\.\d+)?", rel).group(0)


class Kernel:
    def __init__(self, d):
        m = d["machine"]
        self.arch, self.rel = m["arch"], short(m["kernel"])
        self.label = f"{self.rel} {self.arch}"
        self.call_ops = d["kernel_config"].get("CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS") == "y"
        self.points = {p["key"]: p for p in d["points"]}
        self.doc = d
        self.rank = next((i for i, (a, r, _) in enumerate(DEMO)
                          if a == self.arch and r == self.rel), len(DEMO))

    def median(self, key, value):
        p = self.points.get(key)
        if not p or p["status"] != "ok" or value not in p["values"]:
            return None
        return statistics.median(p["values"][value]["samples"])

    def callops_unavailable(self):
        p = self.points.get("kmod-callops/R0/I0")
        if p:
            return p["status"] == "unavailable"
        st = self.doc.get("modes", {}).get("kmod-callops")
        return st is not None and not st["available"]

    def why_unavailable(self):
        p = self.points.get("kmod-callops/R0/I0")
        if p and p["status"] == "unavailable":
            return p["reason"]
        return self.doc["modes"]["kmod-callops"]["reason"]

    def cell(self, r, i):
        p = self.points.get(f"kmod-callops/R{r}/I{i}")
        if p is None:
            return "n/a" if self.callops_unavailable() else "-"
        if p["status"] != "ok":
            return "error" if p["status"] == "error" else "n/a"
        if (r, i) == (0, 0):
            return "[%.0f]" % self.median(p["key"], "ns_per_call")
        v = self.median(p["key"], "overhead_ns")
        return "%.0f" % (0.0 if abs(v) <= 0.5 else v)

    def imax(self, mode):
        ok = [p["labels"]["irrelevant"] for p in self.points.values()
              if p["labels"]["mode"] == mode and p["labels"].get("relevant") == 1
              and p["status"] == "ok"]
        return max(ok) if ok else -1


def ratio(nname, num, dname, den):
    if num <= 0 or den <= 0:
        return (f"noise: {nname} {num:.1f} ns, {dname} {den:.1f} ns (an overhead at or below 0 "
                f"is the emulator's noise, no ratio)")
    q = num / den
    return f"{num:.0f} / {den:.0f} = " + (f"{q:.0f}x" if q >= 10 else f"{q:.2f}x")


def effect_a(k):
    parts = []
    for mode in ("kmod-callops", "kmod-direct"):
        imax, a = k.imax(mode), k.median(f"{mode}/R1/I0", "overhead_ns")
        if mode == "kmod-direct" and (imax <= 0 or a is None):
            continue
        if mode == "kmod-callops" and k.callops_unavailable():
            parts.append(f"kmod-callops n/a: {k.why_unavailable()[:150]}")
            continue
        if imax <= 0 or a is None:
            parts.append("kmod-callops: no measured 1/0 and 1/I (I > 0) in these results")
            continue
        b = k.median(f"{mode}/R1/I{imax}", "overhead_ns")
        rt = ratio(f"1/{imax}", b, "1/0", a)
        if mode == "kmod-direct":
            parts.append(f"; kmod-direct 1/{imax} over 1/0: {rt}")
        elif imax != 200:
            parts.append(f"kmod-callops 1/{imax} over 1/0 (Imax {imax}, not 200): {rt}")
        else:
            parts.append(f"kmod-callops 1/{imax} over 1/0: {rt}")
    lab = k.label + (" (CALL_OPS)" if k.call_ops else "")
    return f"{lab:<25} " + "".join(parts)


def missing(kernels, i, call_ops):
    arch, rel, name = DEMO[i]
    k = next((k for k in kernels if k.rank == i), None)
    if k is None:
        return f"no {name} run"
    return (f"no {arch} kernel {'with' if call_ops else 'without'} CALL_OPS in these results "
            f"({k.label}'s config: {'CALL_OPS' if k.call_ops else 'no CALL_OPS'})")


def effect_b(cols, arch, pair):
    w = next((k for k in cols if k.arch == arch and k.call_ops), None)
    wo = next((k for k in cols if k.arch == arch and not k.call_ops), None)
    if w and wo:
        num, den = w.median("kmod-callops/R1/I0", "overhead_ns"), \
            wo.median("kmod-callops/R1/I0", "overhead_ns")
        if num is None or den is None:
            rt = f"kmod-callops 1/0 not measured on {(w if num is None else wo).label}"
        else:
            rt = ratio(w.label, num, wo.label, den)
        return f"{arch}: {w.label} over {wo.label}: {rt}"
    a = b = ""
    if not wo:
        a = missing(cols, pair[0], False) if pair else \
            f"no {arch} kernel without CALL_OPS in these results"
    if not w:
        b = missing(cols, pair[1], True) if pair else \
            f"no {arch} kernel with CALL_OPS in these results"
    return f"{arch}: {a}{'; ' if a and b else ''}{b}"


def expected(docs):
    kernels = [Kernel(d) for d in docs if d["suite"] == "ops"]
    cols = sorted(kernels, key=lambda k: k.rank)	# stable: the others as given
    head = [["seed 000 K1", "seed 000 K1"] + [k.label for k in cols],
            ["no CALL_OPS", "CALL_OPS"] + ["CALL_OPS" if k.call_ops else "no CALL_OPS"
                                           for k in cols]]
    fmt = lambda rc, v: "-" if v is None else ("[%d]" if rc == (0, 0) else "%d") % v
    cells = {rc: [fmt(rc, SEED_WITHOUT.get(rc)), fmt(rc, SEED_WITH.get(rc))] +
             [k.cell(*rc) for k in cols] for rc in ROWS}
    # a row of "-" only (nothing measured, nothing in the seed) is left out
    cells = {rc: c for rc, c in cells.items() if any(x != "-" for x in c)}
    lines = ["a) 1 relevant tracer, I irrelevant: overhead 1/Imax over 1/0 (Imax 200 unless "
             f"said; seed: without CALL_OPS {ratio('1/200', 15791, '1/0', 123)}, with "
             f"{ratio('1/200', 39, '1/0', 38)})"]
    lines += [effect_a(k) for k in cols]
    miss = [f"no {name} run" for i, (_, _, name) in enumerate(DEMO)
            if not any(k.rank == i for k in cols)]
    if miss:
        lines.append("; ".join(miss))
    lines.append("b) 1/0 with CALL_OPS over without, same arch, kmod-callops (seed: "
                 f"{ratio('with', 38, 'without', SEED_R_SWEEP_1_0_WITHOUT)})")
    lines += [effect_b(cols, arch, (a, b)) for arch, a, b in PAIRS]
    seen = {a for a, _, _ in PAIRS}
    for k in cols:
        if k.call_ops and k.arch not in seen:
            seen.add(k.arch)
            lines.append(effect_b(cols, k.arch, None))
    return head, cells, lines


def screen_section(text):
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("Seed 000 side by side"))
    split = lambda l: re.split(r"\s{2,}", l.strip())
    head = [split(lines[start + 1])[1:], split(lines[start + 2])]
    cells, n = {}, start + 3
    while re.match(r"  \d+/\d+ ", lines[n]):
        f = split(lines[n])
        r, i = f[0].split("/")
        cells[(int(r), int(i))] = f[1:]
        n += 1
    rest = []
    for l in lines[n:]:
        if not l.strip():
            break
        rest.append(l.strip())
    return head, cells, rest


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.in_table, self.row, self.cur, self.head = False, None, None, []
        self.cells, self.items, self.text = {}, [], None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("data-table") == "seed000":
            self.in_table = True
        elif self.in_table and tag == "tr":
            self.row = a.get("data-row")
            self.cur = []
        elif self.in_table and tag in ("th", "td"):
            self.text = ""
        elif tag in ("p", "li"):
            self.text = ""

    def handle_data(self, data):
        if self.text is not None:
            self.text += data

    def handle_endtag(self, tag):
        if self.in_table and tag in ("th", "td"):
            self.cur.append(self.text.strip())
            self.text = None
        elif self.in_table and tag == "tr":
            if self.row:
                r, i = self.row.split("/")
                self.cells[(int(r), int(i))] = self.cur[1:]
            else:
                self.head.append(self.cur[1:])
        elif tag == "table" and self.in_table:
            self.in_table = False
        elif tag in ("p", "li") and self.text is not None:
            self.items.append(re.sub(r"\s+", " ", self.text.strip()))
            self.text = None


def main():
    text = open(sys.argv[1]).read()
    docs = [json.load(open(p)) for p in sys.argv[3:]]
    head, cells, lines = expected(docs)
    bad = []
    s_head, s_cells, s_rest = screen_section(text)
    if s_head != head:
        bad.append(f"screen header {s_head}, expected {head}")
    if list(s_cells) != list(cells):
        bad.append(f"screen rows {list(s_cells)}, expected {list(cells)}")
    for rc in cells:
        if s_cells.get(rc) != cells[rc]:
            bad.append(f"screen row {rc[0]}/{rc[1]}: {s_cells.get(rc)}, expected {cells[rc]}")
    if s_rest != lines:
        bad.append("screen lines under the table:\n  " + "\n  ".join(s_rest) +
                   "\nexpected:\n  " + "\n  ".join(lines))
    if sys.argv[2] != "-":
        page = Page()
        page.feed(open(sys.argv[2]).read())
        if page.head != head:
            bad.append(f"page header {page.head}, expected {head}")
        if list(page.cells) != list(cells):
            bad.append(f"page rows {list(page.cells)}, expected {list(cells)}")
        for rc in cells:
            if page.cells.get(rc) != cells[rc]:
                bad.append(f"page row {rc[0]}/{rc[1]}: {page.cells.get(rc)}, expected {cells[rc]}")
        norm = [re.sub(r"\s+", " ", l) for l in lines]
        if not all(l in page.items for l in norm):
            bad.append("page lacks: " + "; ".join(l for l in norm if l not in page.items))
    for b in bad:
        print(f"FAIL: {b}")
    if not bad:
        kinds = {}
        for rc in cells:
            for c in cells[rc][2:]:
                kind = c if c in ("-", "n/a", "error") else "number"
                kinds[kind] = kinds.get(kind, 0) + 1
        print(f"ok: {len(head[0]) - 2} kernel columns ({', '.join(head[0][2:])}), "
              f"{len(cells)} rows, cells {kinds}, {len(lines)} lines under the table"
              f"{'' if sys.argv[2] == '-' else ', page alike'}")
    return 1 if bad else 0


sys.exit(main())
