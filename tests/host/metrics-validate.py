#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""metrics-validate.py SCHEMA FILE|URL...: validate /metrics.json documents
against docs/metrics.schema.json with python3-jsonschema (a real validator).
Also checks the schema itself, and that a broken document is rejected."""
import json
import sys
import urllib.request

import jsonschema


def load(src):
    if src.startswith("http://"):
        with urllib.request.urlopen(src, timeout=10) as r:
            return json.load(r)
    with open(src) as f:
        return json.load(f)


def main():
    schema = load(sys.argv[1])
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    v = cls(schema)
    for src in sys.argv[2:]:
        doc = load(src)
        v.validate(doc)
        bad = json.loads(json.dumps(doc))
        bad["schema_version"] = 99
        if v.is_valid(bad):
            sys.exit(f"{src}: schema accepts a wrong schema_version")
        print(f"ok: {src} valid against {sys.argv[1]}")


if __name__ == "__main__":
    main()
