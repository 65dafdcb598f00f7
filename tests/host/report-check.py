#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# report-check.py DOM.html RESULT.json...: the report page as a browser
# rendered it (chromium --dump-dom) has every plot with one mark per data
# point of the results it was made from (counted here from the JSON, not
# taken from the page), no plot of a suite without results, and a link to
# every result file (class "result").
import json, sys
from html.parser import HTMLParser

SEED_POINTS = 2 * 6	# seed 000's two lines, six I values each


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.plots, self.cur, self.links = {}, None, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" and "data-plot" in a:
            self.cur = a["data-plot"]
            self.plots[self.cur] = {"claimed": int(a.get("data-marks", -1)), "marks": 0}
        elif self.cur and a.get("class") in ("point", "bar"):
            self.plots[self.cur]["marks"] += 1
        elif tag == "a" and "href" in a and a.get("class") == "result":
            self.links.append(a["href"])

    def handle_endtag(self, tag):
        if tag == "svg":
            self.cur = None


page = Page()
page.feed(open(sys.argv[1]).read())
docs = [json.load(open(p)) for p in sys.argv[2:]]


def ok(p, v):
    x = p["values"].get(v) if p["status"] == "ok" else None
    return x is not None and x["median"] == x["median"]


def label(d):
    rel = d["machine"]["kernel"]
    short = ".".join(rel.split(".")[:2]).split("-")[0].split("+")[0]
    return f"{short} {d['machine']['arch']}"


# without trigger results (make demo DEMO_SUITES=ops) no overhead plot at all,
# without attach results no attach plot: the page says so instead
want = {"ops": SEED_POINTS}
if any(d["suite"] == "trigger" for d in docs):
    want["overhead"] = 0
for d in docs:
    pts = d["points"]
    if d["suite"] == "trigger":
        want["overhead"] += sum(1 for p in pts if p["labels"].get("variant") == "count"
                                and p["labels"]["mode"] != "none" and ok(p, "overhead_ns"))
    elif d["suite"] == "ops":
        want["ops"] += sum(1 for p in pts if p["labels"]["mode"] in ("kmod-callops", "kmod-direct")
                           and p["labels"].get("relevant") == 1 and ok(p, "overhead_ns")
                           and p["values"]["overhead_ns"]["median"] > 0)
    elif d["suite"] == "attach":
        want["attach " + label(d)] = sum(1 for p in pts if p["labels"].get("how") == "one"
                                         and ok(p, "attach_us")
                                         and p["values"]["attach_us"]["median"] > 0)
    elif d["suite"] == "entry":
        want["entry"] = want.get("entry", 0) + sum(1 for p in pts if ok(p, "ns_per_call"))
bad = []
for name, n in want.items():
    got = page.plots.get(name)
    if got is None:
        bad.append(f"plot '{name}' missing (plots: {sorted(page.plots)})")
    elif got["marks"] != n or got["claimed"] != n:
        bad.append(f"plot '{name}': {got['marks']} marks drawn, {got['claimed']} claimed, "
                   f"{n} data points in the results")
    elif n == 0:
        bad.append(f"plot '{name}' has no data point")
for name in page.plots:
    if name not in want:
        bad.append(f"plot '{name}' drawn, but no results of its suite")
if len(page.links) != len(docs):
    bad.append(f"{len(page.links)} links to {len(docs)} result files")
for b in bad:
    print(f"FAIL: {b}")
if not bad:
    print("ok: " + ", ".join(f"{k}: {n} points" for k, n in want.items()) +
          f"; {len(page.links)} result links")
sys.exit(1 if bad else 0)
