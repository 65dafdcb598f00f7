#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""layers-check.py OBJDIR...: no circle among the objects' files.

For every object under the given directories (build/obj/daemon,
build/obj/lib), nm tells the symbols it defines and the ones it uses; a
file that uses a symbol another defines depends on it. A strongly
connected component of more than one file is a circle (a file calling
into one that calls it back, maybe through others): printed with the
symbols that close it, exit 1. ARCHITECTURE.md, "The rooms"."""
import collections
import glob
import os
import subprocess
import sys


def sccs(graph):
    """Tarjan's strongly connected components of more than one node."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def self_test():
    g = collections.defaultdict(set, {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    assert sccs(g) == [["a", "b", "c"]], sccs(g)
    g = collections.defaultdict(set, {"a": {"b"}, "b": set(), "c": {"a", "b"}})
    assert sccs(g) == [], sccs(g)


def main():
    self_test()
    defs, uses = {}, collections.defaultdict(set)
    objs = [o for d in sys.argv[1:] for o in glob.glob(os.path.join(d, "*.o"))]
    if len(objs) < 10:
        sys.exit(f"only {len(objs)} objects under {sys.argv[1:]}: build first")
    for o in objs:
        name = os.path.relpath(o, os.path.dirname(os.path.dirname(o)))[:-2]
        nm = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
        for line in nm.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TDBR":
                defs[p[2]] = name
            elif len(p) == 2 and p[0] == "U":
                uses[name].add(p[1])
    graph, why = collections.defaultdict(set), collections.defaultdict(set)
    for f, syms in uses.items():
        for s in syms:
            t = defs.get(s)
            if t and t != f:
                graph[f].add(t)
                why[(f, t)].add(s)
    bad = sccs(graph)
    for comp in bad:
        print("circle:", " ".join(comp))
        for a in comp:
            for b in comp:
                if (a, b) in why:
                    print(f"  {a} -> {b}: {', '.join(sorted(why[(a, b)])[:5])}")
    edges = sum(len(v) for v in graph.values())
    print(f"{len(objs)} objects, {edges} file dependencies, {len(bad)} circles")
    sys.exit(1 if bad else 0)


main()
