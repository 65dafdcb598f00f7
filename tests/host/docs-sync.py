#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""docs-sync.py O SRC: `--help`, man pages and bash completion list the same
commands and options (in both directions); the config keys of lib/config.c,
tracerd.conf(5) and systemd/tracerd.conf agree. Exit 77 when the binaries
do not have a command table yet."""
import re
import subprocess
import sys

O, SRC = sys.argv[1], sys.argv[2]
errors = []


def run(*args):
    p = subprocess.run(args, capture_output=True, text=True, timeout=30)
    return p.stdout + p.stderr


def longopts(text):
    return set(re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", text))


def man_text(name):
    with open(f"{SRC}/docs/man/{name}") as f:
        return re.sub(r"\\f[BIRP]", "", f.read().replace("\\-", "-"))


def man_sections(text):
    """{section title: body} of a man page"""
    parts = re.split(r"^\.SH +(.+)$", text, flags=re.M)
    return {parts[i].strip('"'): parts[i + 1] for i in range(1, len(parts), 2)}


def man_items(body):
    """{first word of each .TP tag: text of the item}"""
    items = {}
    for chunk in re.split(r"^\.TP\s*$", body, flags=re.M)[1:]:
        lines = chunk.strip().splitlines()
        m = re.match(r"\.BR?\s+(?:\\fB)?([a-z][a-z0-9_-]*)", lines[0]) if lines else None
        if m:
            items[m.group(1)] = chunk
    return items


def same(what, a_name, a, b_name, b):
    if a - b:
        errors.append(f"{what}: in {a_name}, not in {b_name}: {sorted(a - b)}")
    if b - a:
        errors.append(f"{what}: in {b_name}, not in {a_name}: {sorted(b - a)}")


def completion():
    with open(f"{SRC}/cli/tracectl.bash") as f:
        text = f.read()
    vals = dict(re.findall(r'^(_tracectl_\w+)="([^"]*)"', text, flags=re.M))
    return vals


def check_tracectl():
    top = run(f"{O}/tracectl", "--help")
    m = re.search(r"^Commands:\n((?:[ \t]+\S.*\n?)+)", top, flags=re.M)
    if not m:
        return False
    lines = {line.split()[0]: line for line in m.group(1).splitlines() if line.strip()}
    cmds = set(lines)
    man = man_text("tracectl.8")
    sec = man_sections(man)
    man_cmds = set(man_items(sec.get("COMMANDS", "")))
    comp = completion()
    same("tracectl commands", "--help", cmds, "tracectl.8", man_cmds)
    same("tracectl commands", "--help", cmds, "completion", set(comp["_tracectl_commands"].split()))
    glob = longopts(top[: m.start()] + top[m.end():])
    same("tracectl global options", "--help", glob, "tracectl.8 OPTIONS",
         longopts(sec.get("OPTIONS", "")))
    same("tracectl global options", "--help", glob, "completion",
         longopts(comp["_tracectl_global"]))
    items = man_items(sec.get("COMMANDS", ""))
    for c in sorted(cmds):
        # options on the command's line of `tracectl --help`, plus its own
        # `tracectl CMD --help` where it has one
        sub = run(f"{O}/tracectl", c, "--help")
        opts = longopts(lines[c].split("  ")[0] + " " + lines[c])
        if sub.startswith("Usage:"):
            opts |= longopts(sub)
        opts -= {"help"} | glob
        same(f"tracectl {c} options", "--help", opts, "tracectl.8",
             longopts(items.get(c, "")) - glob)
        same(f"tracectl {c} options", "--help", opts, "completion",
             longopts(comp.get(f"_tracectl_opts_{c}", "")) - glob)
    return True


def check_tracerd():
    opts = longopts(run(f"{O}/tracerd", "--help"))
    if "config" not in opts:
        return False
    sec = man_sections(man_text("tracerd.8"))
    same("tracerd options", "--help", opts, "tracerd.8 OPTIONS", longopts(sec.get("OPTIONS", "")))
    return True


def check_config_keys():
    with open(f"{SRC}/lib/config.c") as f:
        keys = set(re.findall(r'^\s*\{ "([a-z_]+)", set_|^\s*\{ "([a-z_]+)", add_', f.read(), flags=re.M))
    keys = {a or b for a, b in keys}
    sec = man_sections(man_text("tracerd.conf.5"))
    same("config keys", "lib/config.c", keys, "tracerd.conf.5", set(man_items(sec.get("KEYS", ""))))
    with open(f"{SRC}/systemd/tracerd.conf") as f:
        conf = set(re.findall(r"^#?([a-z_]+) =", f.read(), flags=re.M))
    same("config keys", "lib/config.c", keys, "systemd/tracerd.conf", conf)


check_config_keys()
have_ctl = check_tracectl()
have_d = check_tracerd()
for e in errors:
    print("MISMATCH:", e)
if errors:
    sys.exit(1)
if not (have_ctl and have_d):
    print(f"checked config keys; skipped: {'' if have_ctl else 'tracectl (no Commands: in --help) '}"
          f"{'' if have_d else 'tracerd (no --config in --help)'}")
    sys.exit(77)
print("ok: --help, man pages and completion agree")
