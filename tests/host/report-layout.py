#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# report-layout.py DOM.html WIDTH: what tests/host/report-probe.js measured in
# the report page laid out WIDTH px wide (its data-probe attribute, from
# chromium --dump-dom): no text of a chart on another nor outside its chart,
# enough charts and texts measured, seed 000's table beside its plot from
# 1400 px, nothing wider than the window, a flame graph (if any) that zooms on
# a click and resets. Prints a summary line ending in
# "N px high" (the page's height, for the screenshot); exit 1 on a finding.
import html
import json
import re
import sys

m = re.search(r'data-probe="([^"]*)"', open(sys.argv[1]).read())
if not m:
    print("the probe left no data-probe attribute (a script error?)")
    sys.exit(1)
p = json.loads(html.unescape(m.group(1)))
w = int(sys.argv[2])
bad = [f"overlap: {o}" for o in p["overlaps"]] + [f"outside its chart: {o}" for o in p["outside"]]
if p["width"] != w:
    bad.append(f"window {p['width']} px wide, not {w}")
if p["charts"] < 5 or p["texts"] < 100:
    bad.append(f"only {p['charts']} charts, {p['texts']} texts measured")
if w >= 1400 and not p["beside"]:
    bad.append("seed 000's table is not beside its plot")
if p["overflow"]:
    bad.append("the page is wider than the window")
total, zoomed, reset = p["flame"]
if total and not (0 < zoomed < total and reset == total):
    bad.append(f"flame graph: {total} frames, {zoomed} shown zoomed, {reset} after reset")
print("; ".join(bad) if bad else
      f"{p['charts']} charts, {p['texts']} texts, none on another nor outside its chart, "
      f"seed 000's table {'beside' if p['beside'] else 'above'} its plot"
      + (f", flame graph zoomed to {zoomed} of {total} frames and reset" if total else "")
      + f"; {p['height']} px high")
sys.exit(1 if bad else 0)
