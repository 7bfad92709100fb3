#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/check_layers.py: user/README's layer rules, checked (make lint).

The layers are the folders of user/ in the order user/README lists them,
top first; a file may include its own layer's headers and those of the
layers listed after its own (cli/ and cmd/ are one layer), never those of
a layer before it; evset/evset_priv.h is evset/'s alone. Prints every
violation, exits 1 if there was one."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
USER = os.path.join(ROOT, "user")


def layers():
    with open(os.path.join(USER, "README")) as fh:
        text = fh.read()
    order = re.findall(r"^([a-z]+)/ {2,}\S", text, re.M)
    return {name: (0 if name in ("cli", "cmd") else i)
            for i, name in enumerate(order)}


def main():
    rank = layers()
    bad = []
    missing = sorted(d for d in os.listdir(USER)
                     if os.path.isdir(os.path.join(USER, d)) and d not in rank)
    for d in missing:
        bad.append("user/%s/: not a layer of user/README" % d)
    for d, _, files in os.walk(USER):
        rel = os.path.relpath(d, USER)
        own = rel.split(os.sep)[0]
        if own not in rank:
            continue
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(d, f)
            with open(path, errors="replace") as fh:
                for n, line in enumerate(fh, 1):
                    m = re.match(r'\s*#\s*include\s+"([a-z]+)/([\w.]+)"', line)
                    if not m:
                        continue
                    layer, header = m.groups()
                    where = "user/%s:%d" % (os.path.relpath(path, USER), n)
                    if layer not in rank:
                        bad.append('%s: #include "%s/%s": no such layer'
                                   % (where, layer, header))
                    elif rank[layer] < rank[own]:
                        bad.append('%s: %s/ includes "%s/%s", a layer above it'
                                   % (where, own, layer, header))
                    if header == "evset_priv.h" and own != "evset":
                        bad.append('%s: evset/evset_priv.h outside evset/' % where)
    for b in bad:
        print(b)
    print("layers: %s: %d violation(s)" % (" > ".join(
        sorted(rank, key=lambda k: (rank[k], k))), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
