#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/check_cycles.py [OBJDIR]: no call cycle between the files of a
folder of user/ (user/README; make lint).

A file depends on another of its folder when its object refers to a
symbol (function or data) that the other one defines: nm's undefined
symbols of one against the defined global symbols of the other. Every
strongly connected set of more than one file in that graph is a cycle,
printed with the symbols behind each edge; exits 1 if there is one.
OBJDIR is tdctl's object folder (build/ARCH/obj, one .o per user/ file,
in the same folders), by default the host's; scripts/lint.sh builds it
first. Exits 2 when it has no objects."""
import collections
import glob
import os
import platform
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def symbols(objs):
    """{object: (defined global symbols, undefined symbols)}, from one nm."""
    out = subprocess.run(["nm", "-P", "-A"] + objs, capture_output=True,
                         text=True, check=True).stdout
    syms = {o: (set(), set()) for o in objs}
    for line in out.splitlines():
        f = line.split()
        if len(f) < 3 or not f[0].endswith(":"):
            continue
        defined, undefined = syms[f[0][:-1]]
        if f[2] == "U":
            undefined.add(f[1])
        elif f[2].isupper() and f[2] not in "UVW":
            defined.add(f[1])
    return syms


def cycles(graph):
    """The strongly connected sets of more than one node (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
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
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main():
    objdir = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(ROOT, "build", platform.machine(), "obj")
    folders = collections.defaultdict(list)
    for obj in glob.glob(os.path.join(objdir, "**", "*.o"), recursive=True):
        rel = os.path.relpath(obj, objdir)
        folders[os.path.dirname(rel)].append(rel)
    if not folders:
        print("cycles: no objects in %s (make -C user first)" % objdir,
              file=sys.stderr)
        return 2
    bad = 0
    for folder in sorted(folders):
        defs, uses = {}, {}
        objs = [os.path.join(objdir, rel) for rel in sorted(folders[folder])]
        found = symbols(objs)
        for rel, obj in zip(sorted(folders[folder]), objs):
            name = rel[:-2] + ".c"
            d, u = found[obj]
            for s in d:
                defs[s] = name
            uses[name] = u
        graph = {n: {defs[s] for s in u if defs.get(s, n) != n}
                 for n, u in uses.items()}
        for comp in cycles(graph):
            bad += 1
            print("user/%s/: a call cycle between %s" %
                  (folder, ", ".join(os.path.basename(c) for c in comp)))
            for a in comp:
                for b in comp:
                    if b in graph[a]:
                        syms = sorted(s for s in uses[a] if defs.get(s) == b)
                        print("    %s -> %s: %s" % (
                            os.path.basename(a), os.path.basename(b),
                            " ".join(syms)))
    print("cycles: %d folders, %d cycle(s)" % (len(folders), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
