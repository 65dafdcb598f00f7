#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# svg-check.py RESULT.json CHART.svg: the chart tracectl drew of a bench
# result is well-formed SVG, has one mark per measured figure of the result
# (bars: trigger/workload overhead, entry ns/call; points: attach and ops), every text
# inside the picture (no legend cut off), and log-axis ticks only at
# 1, 2 and 5 x 10^k.
import json, math, re, sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
res = json.load(open(sys.argv[1]))
root = ET.parse(sys.argv[2]).getroot()
height, width = float(root.get("height")), float(root.get("width"))
ok = [p for p in res["points"] if p["status"] == "ok"]


def med(p, v):
    x = p["values"].get(v)
    return None if x is None else x["median"]


suite = res["suite"]
if suite in ("trigger", "workload"):
    want = sum(1 for p in ok if p["labels"]["mode"] != "none" and med(p, "overhead_ns") is not None)
    got = len(root.findall(f".//{NS}rect[@class='bar']"))
elif suite == "entry":
    want = sum(1 for p in ok if med(p, "ns_per_call") is not None)
    got = len(root.findall(f".//{NS}rect[@class='bar']"))
elif suite == "attach":
    want = 2 * sum(1 for p in ok if med(p, "attach_us") is not None)
    got = len(root.findall(f".//{NS}circle[@class='point']"))
else:  # ops: R/0 points on the left chart, 1/I on the right (modes shown: up to 8)
    modes = []
    for p in res["points"]:
        if p["labels"]["mode"] not in modes:
            modes.append(p["labels"]["mode"])
    want = 0
    for p in ok:
        if p["labels"]["mode"] not in modes[:8] or med(p, "overhead_ns") is None:
            continue
        r, i = p["labels"].get("relevant", 0), p["labels"].get("irrelevant", 0)
        want += (i == 0 and r >= 1) + (r == 1)
    got = len(root.findall(f".//{NS}circle[@class='point']"))
bad = []
if got != want:
    bad.append(f"{got} marks for {want} measured figures")
for t in root.iter(f"{NS}text"):
    y = float(t.get("y", "0") or 0)
    if t.get("transform") is None and not (0 < y <= height):
        bad.append(f"text '{t.text}' at y={y} outside the {height}-high picture")


def value(label):
    m = re.fullmatch(r"(-?[0-9.]+(?:e[+-]?\d+)?)([kMG]?)", label)
    return None if not m else float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}[m.group(2)]


# log axes: the tick labels under (x) or beside (y) a chart titled "(log)"
log_labels = [t for t in root.iter(f"{NS}text") if t.text and t.text.endswith("(log)")]
if log_labels:
    for t in root.iter(f"{NS}text"):
        v = value(t.text or "")
        if v is None or v <= 0 or t.get("text-anchor") not in ("middle", "end"):
            continue
        mant = v / 10 ** math.floor(math.log10(v) + 1e-9)
        if suite == "attach" and not any(abs(mant - m) < 1e-6 for m in (1, 2, 5)):
            bad.append(f"log tick '{t.text}' is not 1, 2 or 5 x 10^k")
for b in bad:
    print(f"FAIL: {sys.argv[2]}: {b}")
if not bad:
    print(f"ok: {suite} chart: {got} marks for {got} figures, all text inside, round ticks")
sys.exit(1 if bad else 0)
