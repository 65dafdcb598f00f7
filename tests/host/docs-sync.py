#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""docs-sync.py O SRC: `--help`, man pages and bash completion list the same
commands and options (in both directions); the config keys of lib/config.c,
tracerd.conf(5) and systemd/tracerd.conf agree; every list of modes in the
docs and the completion names the modes of the one table,
include/tracerd/modes.h (a new row missing from a list fails here); every
`make TARGET` the docs tell a user to run is a target and installs what it
needs; every `tracectl ...` README.md shows names a real command (bench
suite) and its real options, and README's session blocks parse as
tests/vm/guest/t/94-readme-session.sh, which runs them, reads them. Exit
77 when the binaries do not have a command table yet."""
import importlib.util
import json
import re
import shlex
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


TRACECTL_GLOBAL_ARG = {"--socket", "-s", "--timeout", "-T"}


def shorts(text):
    """the short options a help text lists: -n, or -n  """
    return set(re.findall(r"(?<![\w-])(-[a-zA-Z])(?=[, ]|$)", text, flags=re.M))


def bench_suite_help(text, suite):
    """the lines of `tracectl bench --help` about SUITE, and the options of
    every suite"""
    m = re.search(rf"^  {suite} .*\n((?:(?:    |\t).*\n)*)", text, flags=re.M)
    every = text[text.find("Options of every suite"):] if "Options of every suite" in text else ""
    return (m.group(0) if m else ""), every


def check_readme_tracectl():
    """every `tracectl ...` README.md shows (its session included) names a
    command of `tracectl --help`, a bench suite of `tracectl bench --help`,
    and only options that command (or suite) has"""
    top = run(f"{O}/tracectl", "--help")
    m = re.search(r"^Commands:\n((?:[ \t]+\S.*\n?)+)", top, flags=re.M)
    lines = {line.split()[0]: line for line in m.group(1).splitlines() if line.strip()}
    glob_text = top[: m.start()] + top[m.end():]
    bench = run(f"{O}/tracectl", "bench", "--help")
    seen = 0
    for c in code_of(f"{SRC}/README.md"):
        for inv in re.findall(r"(?:^|[;&|(] *)tracectl((?: +[^;&|#)]+)?)", c):
            try:
                words = shlex.split(inv)
            except ValueError:
                words = inv.split()
            i, cmd = 0, None
            while i < len(words) and words[i].startswith("-"):
                i += 2 if words[i] in TRACECTL_GLOBAL_ARG else 1
            if i == len(words):
                continue	# `tracectl` alone, or only global options
            cmd, args = words[i], words[i + 1:]
            where = f"README.md: 'tracectl{inv}'"
            if cmd not in lines:
                errors.append(f"{where}: no command {cmd!r} in tracectl --help")
                continue
            seen += 1
            text = lines[cmd] + "\n" + run(f"{O}/tracectl", cmd, "--help") + glob_text
            suite = next((a for a in args if not a.startswith("-")), None)
            if cmd == "bench" and suite:	# (`tracectl bench` alone: the family)
                part, every = bench_suite_help(bench, suite or "-")
                if not part:
                    errors.append(f"{where}: no bench suite {suite!r} in tracectl bench --help")
                    continue
                text = part + every + glob_text
            for a in args:
                if a.startswith("--"):
                    ok = a.split("=")[0][2:] in longopts(text)
                elif re.fullmatch(r"-[a-zA-Z]", a):
                    ok = a in shorts(text)
                else:
                    continue
                if not ok:
                    errors.append(f"{where}: {a.split('=')[0]} is no option of tracectl {cmd}"
                                  f"{' ' + suite if cmd == 'bench' else ''}")
    if not seen:
        errors.append("README.md: no `tracectl COMMAND` found: the pattern broke")
    # the session blocks parse as tests/vm/guest/t/94-readme-session.sh
    # reads them (that test runs them on 6.12)
    spec = importlib.util.spec_from_file_location(
        "readme_session", f"{SRC}/tests/vm/guest/readme-session.py")
    rs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rs)
    try:
        steps = rs.session(f"{SRC}/README.md")
    except SystemExit as e:
        errors.append(f"README.md session: {e}")
        return
    if not any(cmd.startswith("tracectl ") for cmd, _ in steps):
        errors.append("README.md session: no tracectl command")


def check_readme_version():
    """the package file names and DKMS version README shows are VERSION's"""
    with open(f"{SRC}/VERSION") as f:
        version = f.read().strip()
    with open(f"{SRC}/README.md") as f:
        text = f.read()
    shown = set(re.findall(r"tracerd(?:-dkms)?_([0-9][^_\s]*)_", text) +
                re.findall(r"dkms install tracerd/([0-9]\S*?)[`\s]", text))
    if not shown:
        errors.append("README.md: no tracerd_VERSION_ARCH.deb nor `dkms install tracerd/VERSION`")
    for v in sorted(shown - {version}):
        errors.append(f"README.md shows version {v}, VERSION says {version}")


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


def mode_table():
    """{name: (kind, target, path)} of the rows of TRACERD_MODES"""
    with open(f"{SRC}/include/tracerd/modes.h") as f:
        rows = re.findall(r'^\s*X\((\w+), "([a-z0-9-]+)", (\w+), (\w+), (\w+), (\w+)\)', f.read(),
                          flags=re.M)
    return {name: (kind, target, path) for _, name, _, kind, target, path in rows}


def words(text):
    """the mode-like words of a list: `a`, b\-c, ... -> {a, b-c}"""
    return set(re.findall(r"[a-z][a-z0-9_]*(?:-[a-z0-9]+)*", text.replace("\\-", "-")))


def table_first_column(path, header, quoted=False):
    """the names in the first column of the markdown table under header
    (quoted: only the `quoted` ones)"""
    with open(path) as f:
        text = f.read()
    i = text.find(header)
    if i < 0:
        errors.append(f"{path}: no table {header!r}")
        return set()
    names = set()
    for line in text[i:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cell = line.split("|")[1]
        if quoted:
            names |= set(re.findall(r"`([^`]+)`", cell))
        else:
            names |= words(cell.split("(")[0])
    return names


def check_mode_lists():
    table = mode_table()
    modes = set(table)
    if len(modes) < 2:
        errors.append("include/tracerd/modes.h: no rows X(ENUM, \"name\", backend, KIND, TARGET, PATH)")
        return
    functions = {m for m, (_, target, _) in table.items() if target == "FUNCTION"}
    # status: an object per mode (auto is no feature) and raw_tp, tp-btf's fallback
    with open(f"{SRC}/docs/protocol.md") as f:
        m = re.search(r"an object per mode name \(([^)]*)\)", f.read())
    same("status features", "modes.h + raw_tp", modes | {"raw_tp"}, "docs/protocol.md",
         words(m.group(1).replace("`", "")) if m else set())
    with open(f"{SRC}/docs/metrics.schema.json") as f:
        enum = set(json.load(f)["$defs"]["mode"]["enum"])
    same("mode names", "modes.h + auto, raw_tp", modes | {"auto", "raw_tp"},
         "docs/metrics.schema.json $defs.mode", enum)
    m = re.search(r"^Modes: ([^.]*)\.$", man_text("tracerd.conf.5"), flags=re.M)
    same("mode names", "modes.h + auto", modes | {"auto"}, "tracerd.conf.5 Modes:",
         words(m.group(1)) if m else set())
    same("mode names", "modes.h + auto", modes | {"auto"}, "completion _tracectl_modes",
         set(completion().get("_tracectl_modes", "").split()))
    same("modes", "modes.h", modes, "README.md modes table",
         table_first_column(f"{SRC}/README.md", "| mode | hook | needs |", quoted=True))
    same("modes", "modes.h", modes, "docs/limits.md fd table",
         table_first_column(f"{SRC}/docs/limits.md", "| mode | fds per function |"))
    # bench trigger: every function mode has its row (variants such as
    # kmod-callops+regs have theirs too: not in the table of modes)
    bench = table_first_column(f"{SRC}/docs/bench.md", "| mode | variants |", quoted=True)
    if functions - bench:
        errors.append(f"function modes: in modes.h, not in docs/bench.md trigger table: "
                      f"{sorted(functions - bench)}")

# targets that install nothing on purpose: the installer itself, what only
# copies, removes or reads files (check-full-status: the records), and the
# plain build (user), which debian/rules' build runs and which must never
# call apt
MAKE_NO_DEPS = {"deps", "uninstall", "uninstall-dkms", "install-dkms", "install-nobuild",
                "check-version", "check-full-status", "clean", "user"}


def make_rules():
    """{target: (prerequisites, recipe text)} of the Makefile's plain rules"""
    rules, cur = {}, None
    with open(f"{SRC}/Makefile") as f:
        for line in f:
            m = re.match(r"^([a-z][a-z0-9-]*):(?!=)([^=]*)$", line.rstrip("\n"))
            if m:
                cur = m.group(1)
                rules[cur] = (m.group(2).split(), "")
            elif cur and line.startswith("\t"):
                rules[cur] = (rules[cur][0], rules[cur][1] + line)
            elif not line.startswith("\t"):
                cur = None
    return rules


def code_of(path):
    """the code a page shows: its `code spans` (one may wrap a line) and its
    indented lines, a session's `# ` prompt taken off"""
    with open(path) as f:
        text = f.read()
    spans = [" ".join(c.split()) for c in re.findall(r"`([^`]+)`", text)]
    lines = [re.sub(r"^# ", "", c) for c in re.findall(r"^(?: {4}|\t)(.*)$", text, flags=re.M)]
    return spans + lines


def check_make_targets():
    """every `make TARGET` README.md and docs/ tell a user to run installs what
    it needs (scripts/deps.sh, through the deps prerequisite or its recipe),
    or is one of MAKE_NO_DEPS"""
    import glob
    rules = make_rules()

    def installs(t, seen):
        if t in seen or t not in rules:
            return False
        seen.add(t)
        pre, recipe = rules[t]
        if "deps" in pre or "deps.sh" in recipe:
            return True
        called = [w for line in re.findall(r"\$\(MAKE\)(.*)$", recipe, flags=re.M)
                  for w in line.split() if w in rules]
        return any(installs(x, seen) for x in pre + called)

    told, unknown = set(), set()
    for path in [f"{SRC}/README.md"] + sorted(glob.glob(f"{SRC}/docs/*.md")):
        for c in code_of(path):
            for t in re.findall(r"(?:^|[;&|] *)make(?: +[A-Z_]+=\S+)* +([a-z][a-z0-9-]*)", c):
                if t in rules:
                    told.add((t, path[len(SRC) + 1:]))
                else:
                    unknown.add((t, path[len(SRC) + 1:]))
    for t, where in sorted(unknown):
        errors.append(f"make {t} (told in {where}): no such target in the Makefile")
    for t, where in sorted(told):
        if t not in MAKE_NO_DEPS and not installs(t, set()):
            errors.append(f"make {t} (told in {where}) does not install what it needs: "
                          "give it the deps prerequisite or a scripts/deps.sh step")
    if not told:
        errors.append("no `make TARGET` found in README.md and docs/: the pattern broke")


check_make_targets()
check_config_keys()
check_mode_lists()
have_ctl = check_tracectl()
if have_ctl:
    check_readme_tracectl()
check_readme_version()
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
