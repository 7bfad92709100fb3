#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/check_layers.py: user/README's layer rules, checked (make lint).

The layers are the folders of user/ in the order user/README lists them,
top first; a file may include its own layer's headers and those of the
layers listed after its own (cli/ and cmd/ are one layer), never those of
a layer before it; evset/evset_priv.h is evset/'s alone. An include path
names its layer by its first folder, however deep ("live/bpf/bpf.h" is
live/'s). The picture of the layers in user/README names the same
layers in the same order as its list, and Documentation/design.rst shows
that picture by including it, not a copy of its own. Prints every
violation, exits 1 if there was one."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
USER = os.path.join(ROOT, "user")


DESIGN = os.path.join(ROOT, "Documentation", "design.rst")
# design.rst's include of the picture (its options follow on the next lines).
INCLUDE = ".. include:: ../user/README"


def readme():
    with open(os.path.join(USER, "README")) as fh:
        return fh.read()


def layers(text):
    order = re.findall(r"^([a-z]+)/ {2,}\S", text, re.M)
    return {name: (0 if name in ("cli", "cmd") else i)
            for i, name in enumerate(order)}


def picture(text, rank):
    """The picture's violations: its lines "    a/ [b/ ...]  text", top
    first, must name the list's layers in the list's order (the ones of a
    line are one layer), and design.rst must include it."""
    bad = []
    rows = re.findall(r"^ {4}((?:[a-z]+/ )*[a-z]+/) {2,}\S", text, re.M)
    if not rows:
        return ["user/README: no picture of the layers"]
    drawn = [[n.rstrip("/") for n in r.split()] for r in rows]
    listed = sorted(rank, key=lambda k: (rank[k], list(rank).index(k)))
    if [n for r in drawn for n in r] != listed:
        bad.append("user/README: the picture's layers %s are not the list's %s"
                   % (" > ".join("+".join(r) for r in drawn), " > ".join(listed)))
    for r in drawn:
        if len({rank.get(n) for n in r}) != 1:
            bad.append("user/README: the picture draws %s as one layer, the list not"
                       % " ".join(n + "/" for n in r))
    with open(DESIGN) as fh:
        design = fh.read()
    if INCLUDE not in design:
        bad.append("Documentation/design.rst: does not include user/README's "
                   "picture (%s)" % INCLUDE)
    elif re.search(r"^ +[a-z]+/ {2,}.*\n +\|", design, re.M):
        bad.append("Documentation/design.rst: a picture of the layers of its own")
    return bad


def main():
    text = readme()
    rank = layers(text)
    bad = picture(text, rank)
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
                    m = re.match(r'\s*#\s*include\s+"([a-z]+)/([\w./-]+)"', line)
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
                    if header.endswith("evset_priv.h") and own != "evset":
                        bad.append('%s: evset/evset_priv.h outside evset/' % where)
    for b in bad:
        print(b)
    print("layers: %s: %d violation(s)" % (" > ".join(
        sorted(rank, key=lambda k: (rank[k], k))), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
