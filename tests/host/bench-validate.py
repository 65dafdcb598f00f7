#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench-validate.py SCHEMA FILE...: validate `tracectl bench` results
against docs/bench.schema.json with python3-jsonschema, then check what a
schema cannot say: keys unique, every `ok` point's counts exact (counted ==
expected; every hooked point has counts), every unavailable or error point
explained. A FILE of the form OUT:SUITE is a VM log: the JSON
between '==BENCH-JSON SUITE' and '==BENCH-END' is taken from it.
Prints one line per document; exit 1 on the first failure."""
import json
import sys

import jsonschema


def load(src):
    if ":" in src and not src.endswith(".json"):
        path, suite = src.rsplit(":", 1)
        text, on = [], False
        with open(path) as f:
            for line in f:
                if line.startswith("==BENCH-JSON ") and line.split()[1] == suite:
                    on = True
                elif line.startswith("==BENCH-END"):
                    if on:
                        break
                elif on:
                    text.append(line)
        if not text:
            raise SystemExit(f"FAIL: no JSON for suite {suite} in {path}")
        return json.loads("".join(text))
    with open(src) as f:
        return json.load(f)


def check(doc, name):
    keys = [p["key"] for p in doc["points"]]
    if len(keys) != len(set(keys)):
        raise SystemExit(f"FAIL: {name}: duplicate point keys")
    n = {"ok": 0, "unavailable": 0, "error": 0}
    for p in doc["points"]:
        n[p["status"]] += 1
        if p["status"] != "ok":
            continue
        for cname, c in p["counts"].items():
            if c["counted"] != c["expected"]:
                raise SystemExit(f"FAIL: {name}: {p['key']}: count {cname} "
                                 f"{c['counted']} != {c['expected']} in an ok point")
        if p["labels"]["mode"] != "none" and not p["counts"]:
            raise SystemExit(f"FAIL: {name}: {p['key']}: ok point without counts")
    return n


def main():
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    v = cls(schema)
    for src in sys.argv[2:]:
        doc = load(src)
        v.validate(doc)
        n = check(doc, src)
        bad = json.loads(json.dumps(doc))
        bad["points"].append({"key": "x", "labels": {"mode": "x"}, "status": "ok",
                              "reason": None, "counts": {}, "values": {}})
        if v.is_valid(bad):
            raise SystemExit("FAIL: the schema accepts an ok point without values")
        print(f"ok: {src}: {doc['suite']} on {doc['machine']['kernel']} "
              f"({doc['machine']['arch']}): {n['ok']} ok, {n['unavailable']} unavailable, "
              f"{n['error']} error")


if __name__ == "__main__":
    main()
