#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# monitoring-names.py RULES DASHBOARD EXPOSITION...: every series name the
# rules and the Grafana dashboard query is one tracerd exports (in one of
# the exposition files) or one the rules record; exits 1 naming the others.
import json, re, sys

FUNCS = {"sum", "rate", "irate", "increase", "changes", "histogram_quantile", "by",
         "without", "on", "ignoring", "group_left", "group_right", "and", "or",
         "unless", "max", "min", "avg", "count", "topk", "bottomk", "abs",
         "label_values", "humanizePercentage", "time", "vector", "bool", "offset"}
KNOWN = {"up"}	# Prometheus' own, per scrape target


def names(expr):
    expr = re.sub(r'\{[^}]*\}', '', expr)	# label matchers
    expr = re.sub(r'\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)', '', expr)
    expr = re.sub(r'\[[^]]*\]', '', expr)	# ranges
    expr = re.sub(r'"[^"]*"', '', expr)
    return {t for t in re.findall(r'[a-zA-Z_:][a-zA-Z0-9_:]*', expr)
            if t not in FUNCS and not re.fullmatch(r'[0-9.e]+', t)}


def exported(path):
    out = set()
    for line in open(path):
        m = re.match(r'# TYPE (\S+) (\S+)', line)
        if m:
            out.add(m.group(1))
            if m.group(2) == "histogram":
                out |= {m.group(1) + s for s in ("_bucket", "_sum", "_count")}
    return out


rules_text = open(sys.argv[1]).read()
have = set(KNOWN)
for p in sys.argv[3:]:
    have |= exported(p)
recorded = set(re.findall(r'^\s*- record: (\S+)', rules_text, re.M))
have |= recorded
exprs = []
for m in re.finditer(r'^\s*expr: (\|?)(.*)$', rules_text, re.M):
    if m.group(1):	# block scalar: the indented lines after it
        rest = rules_text[m.end():].split("\n")[1:]
        block = []
        for line in rest:
            if not line.startswith("          "):
                break
            block.append(line)
        exprs.append(("rules", " ".join(block)))
    else:
        exprs.append(("rules", m.group(2)))
dash = json.load(open(sys.argv[2]))
for p in dash["panels"]:
    for t in p["targets"]:
        exprs.append((p["title"], t["expr"]))
bad = [(where, n) for where, e in exprs for n in sorted(names(e)) if n not in have]
for where, n in bad:
    print(f"FAIL: {where}: '{n}' is not a metric tracerd exports or the rules record")
if not bad:
    print(f"ok: {len(exprs)} queries name only exported or recorded series")
sys.exit(1 if bad else 0)
